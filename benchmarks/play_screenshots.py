"""The screenshots of docs/play.md: every game's board in ``canfield play``, drawn by a headless Chromium.

    python benchmarks/play_screenshots.py                 # writes docs/images/play-<game>.png
    python benchmarks/play_screenshots.py --out /tmp/shots

Starts the server on a free port, plays the first moves of each game's winning line (or of the deal's
steps) through the JSON API, opens the page on that game, asks for a hint, and saves the window. Needs
the 'web' extra, selenium, Chromium and chromedriver (docs/development.md).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# game: (seed, moves of the solver's line to play first)
SHOTS = {"canfield": (40, 12), "nine-packets": (0, 4), "aces-and-kings": (2, 14), "bisley": (0, 10),
         "suit-neighbours": (20, 30), "ten-columns": (1, 0), "ten-columns-dealt": (8, 5)}


def api(url: str, method: str, path: str, body: dict | None = None) -> dict:
    req = urllib.request.Request(url + path.lstrip("/"), method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def settled(url: str, gid: str) -> dict:
    for _ in range(600):
        s = api(url, "GET", f"/api/games/{gid}")
        if s["meter"]["state"] != "pending":
            return s
        time.sleep(0.05)
    return s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(ROOT / "docs" / "images"))
    ap.add_argument("--only", default=None, help="one game")
    a = ap.parse_args(argv)
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    exe = str(Path(sys.executable).with_name("canfield"))
    srv = subprocess.Popen([exe, "play", "--seed", "40", "--no-browser", "--port", "0", "--workers", "1"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    opts = Options()
    opts.binary_location = shutil.which("chromium") or shutil.which("google-chrome") or "chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,820"):
        opts.add_argument(arg)
    drv = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    try:
        m = re.search(r"at (http://\S+/)", srv.stdout.readline())
        if not m:
            print("the server did not start", file=sys.stderr)
            return 1
        url = m.group(1)
        for _ in range(100):
            try:
                urllib.request.urlopen(url + "api", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        for game, (seed, k) in SHOTS.items():
            if a.only and game != a.only:
                continue
            spec = {"seed": seed} if game == "canfield" else {"game": game, "seed": seed}
            gid = api(url, "POST", "/api/games", spec)["id"]
            s = settled(url, gid)
            for _ in range(k):
                mv = "step" if game == "suit-neighbours" else s["meter"]["next_moves"][0]
                if game == "canfield":
                    for x in s["meter"]["next_moves"]:
                        api(url, "POST", f"/api/games/{gid}/moves", {"move": x})
                else:
                    api(url, "POST", f"/api/games/{gid}/moves", {"move": mv})
                s = settled(url, gid)
            drv.get(url + f"?game={gid}")
            time.sleep(1.0)
            if game != "suit-neighbours":
                drv.find_element("id", "hint").click()
                time.sleep(0.5)
            path = out / ("play.png" if game == "canfield" else f"play-{game}.png")
            drv.save_screenshot(str(path))
            print(f"{game} seed {seed}: {len(s['moves'])} moves played, meter {s['meter']['state']} -> {path}")
    finally:
        drv.quit()
        srv.terminate()
        srv.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
