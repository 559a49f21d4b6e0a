"""The replay page (canfield show) in a real headless Chromium: the DOM shows the engine's position."""

import json
import random
import shutil
import struct
import zlib

import pytest
from click.testing import CliRunner

from canfield_solver import Deal, Position, replay, show, solve
from canfield_solver.surfaces.cli import cli
from canfield_solver.surfaces.replay_page import frames

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
HOW = ("needs Chromium and its driver: apt-get install chromium chromium-driver, and pip install selenium "
       "(the 'test' extra)")


def _players_game():
    """60 random legal moves on deal 8: winnable at first, lost after move 32 (checked below)."""
    rng = random.Random(0)
    deal, ms = Deal.from_seed(8), []
    pos = Position(deal)
    for _ in range(60):
        m = rng.choice(pos.legal_moves())
        pos.play(m)
        ms.append(m)
    return deal, ms


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    d = tmp_path_factory.mktemp("pages")
    out = {}
    won = show(2)
    lost = show(20)
    deal, ms = _players_game()
    game = show(deal, ms, max_seconds=20)
    for name, pg in (("won", won), ("lost", lost), ("game", game)):
        f = d / f"{name}.html"
        pg.save(str(f))
        out[name] = (f, pg)
    return out


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason=HOW)
    if not (CHROMIUM and DRIVER):
        pytest.skip(HOW)
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1000,800"):
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service(DRIVER), options=opts)
    yield drv
    drv.quit()


def test_page_is_self_contained_and_lines_replay(pages):
    for name, (f, pg) in pages.items():
        text = f.read_text()
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text
        assert "<script src" not in text and "<link" not in text and "@import" not in text
        assert replay(Deal.from_seed({"won": 2, "lost": 20, "game": 8}[name]), list(pg.moves)).legal
    won = pages["won"][1]
    assert replay(Deal.from_seed(2), list(won.moves)).position.is_won()
    lost = pages["lost"][1]
    r = solve(20)
    assert r.verdict.value == "unsolvable" and replay(Deal.from_seed(20), list(lost.moves)).position.score == r.best_score
    assert "lost" in lost.title and "14 of 52" in lost.title


def test_best_line_comes_from_the_search():
    r = solve(20)
    assert r.best_line and replay(Deal.from_seed(20), list(r.best_line)).position.score == r.best_score
    r = solve(6, max_nodes=200_000)
    assert r.verdict.value == "unknown" and replay(Deal.from_seed(6), list(r.best_line)).position.score == r.best_score
    assert solve(2).best_line == solve(2).moves


def test_turning_point_of_a_players_game(pages):
    deal, ms = _players_game()
    data = pages["game"][1].html
    assert "after move 32 the game could no longer be won" in data
    assert solve(replay(deal, ms[:31]).position, max_seconds=20).verdict.value == "solved"
    assert solve(replay(deal, ms[:32]).position, max_seconds=20).verdict.value == "unsolvable"


def _dom_position(drv):
    by = "css selector"
    cols = [[c.get_attribute("data-card") for c in col.find_elements(by, ".card")]
            for col in drv.find_elements(by, ".col-cards")]
    found = {f.get_attribute("data-suit"): int(f.get_attribute("data-count")) for f in drv.find_elements(by, ".foundation")}
    res = drv.find_element(by, "#reserve")
    top = res.find_elements(by, ".card")
    return {
        "t": cols,
        "f": [found[s] for s in "CDHS"],
        "r": int(res.get_attribute("data-count")),
        "rt": top[0].get_attribute("data-card") if top else None,
        "s": int(drv.find_element(by, "#stock").get_attribute("data-count")),
        "w": int(drv.find_element(by, "#waste").get_attribute("data-count")),
        "wv": [c.get_attribute("data-card") for c in drv.find_elements(by, "#waste .card")],
    }


def _engine_position(deal, moves, n):
    pos = replay(deal, moves[:n]).position
    want = frames(pos, [])[0]
    return {k: want[k] for k in ("t", "f", "r", "rt", "s", "w", "wv")}


@pytest.mark.integration
@pytest.mark.parametrize("name,seed", [("won", 2), ("lost", 20), ("game", 8)])
def test_stepping_shows_the_engine_position(browser, pages, name, seed):
    f, pg = pages[name]
    moves = list(pg.moves)
    deal = Deal.from_seed(seed)
    browser.get(f.as_uri())
    forward = browser.find_element("id", "forward")
    done = 0
    for n in sorted({0, 1, 7, len(moves) // 2, len(moves)}):
        while done < n:
            forward.click()
            done += 1
        assert _dom_position(browser) == _engine_position(deal, moves, n), (name, n)
        assert browser.find_element("id", "status").text.startswith(f"Move {n} of {len(moves)}")
    # The engine's own card names, not only the page's codes: the last frame's columns.
    pos = replay(deal, moves).position
    assert [len(c) for c in _dom_position(browser)["t"]] == [len(c) for c in pos.tableau]


@pytest.mark.integration
def test_keyboard_and_marked_card(browser, pages):
    from selenium.webdriver.common.keys import Keys

    f, pg = pages["won"]
    browser.get(f.as_uri())
    body = browser.find_element("tag name", "body")
    for _ in range(3):
        body.send_keys(Keys.ARROW_RIGHT)
    assert browser.find_element("id", "status").text.startswith("Move 3 of")
    body.send_keys(Keys.END)
    assert browser.find_element("id", "status").text.startswith(f"Move {len(pg.moves)} of")
    body.send_keys(Keys.HOME)
    assert browser.find_element("id", "status").text.startswith("Move 0 of")
    # Seed 2 starts with draws: the stock is marked as what moves next; after 7 draws the waste top 7♣ is.
    assert "moving" in browser.find_element("id", "stock").get_attribute("class")
    for _ in range(7):
        body.send_keys(Keys.ARROW_RIGHT)
    marked = browser.find_elements("css selector", ".card.moving")
    assert [m.get_attribute("data-card") for m in marked] == ["7C"]
    assert "clubs" in marked[0].get_attribute("aria-label")
    headings = [h.text for h in browser.find_elements("css selector", "#moves li.pass")]
    passes = list(pg.moves).count("redeal") + 1
    assert headings == [f"pass {k}" for k in range(1, passes + 1)]  # one heading per pass, as the CLI prints
    current = browser.find_element("css selector", "#moves li.current")
    assert "W>F 7♣" in current.text
    for b in ("first", "back", "play", "forward", "last"):
        el = browser.find_element("id", b)
        assert el.tag_name == "button" and el.get_attribute("aria-label")


def _png_size_and_colours(png: bytes):
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = struct.unpack(">II", png[16:24])
    idat, i = b"", 8
    while i < len(png):
        n = struct.unpack(">I", png[i:i + 4])[0]
        if png[i + 4:i + 8] == b"IDAT":
            idat += png[i + 8:i + 8 + n]
        i += 12 + n
    raw = zlib.decompress(idat)
    return w, h, len(set(raw[: 200_000]))


@pytest.mark.integration
def test_screenshot_is_not_blank_and_narrow_screens_work(browser, pages):
    f, _ = pages["lost"]
    browser.set_window_size(1000, 800)
    browser.get(f.as_uri())
    w, h, colours = _png_size_and_colours(browser.get_screenshot_as_png())
    vw = browser.execute_script("return window.innerWidth")
    assert w == vw and h > 300 and colours > 20
    browser.set_window_size(320, 700)
    browser.get(f.as_uri())
    width = browser.execute_script("return document.documentElement.scrollWidth")
    inner = browser.execute_script("return window.innerWidth")
    assert width <= inner + 1, "the page scrolls sideways at 320 px"
    browser.set_window_size(1000, 800)


def test_cli_show_writes_a_page(tmp_path):
    out = tmp_path / "g.html"
    r = CliRunner().invoke(cli, ["show", "--seed", "2", "--out", str(out)])
    assert r.exit_code == 0 and out.read_text().startswith("<!doctype html>")
    data = json.loads(out.read_text().split("const DATA = ", 1)[1].split(";\n", 1)[0])
    assert data["moves"] == list(solve(2).moves) and len(data["frames"]) == len(data["moves"]) + 1
    bad = tmp_path / "m.txt"
    bad.write_text("draw\nT1>T4\n")
    r = CliRunner().invoke(cli, ["show", "--seed", "0", "--moves", str(bad), "--out", str(out)])
    assert r.exit_code == 2 and "move 2" in r.output and "Traceback" not in r.output
