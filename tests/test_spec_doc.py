"""docs/spec.md is the contract inside the repository (issue 71): every "SPEC §N" cited anywhere names one of
its sections, its worked deals are what ``canfield deal`` prints, its standalone shuffle is ours, and its
preset table says what the presets are."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from canfield_solver import PRESETS, Deal
from canfield_solver.surfaces.cli import cli

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "docs" / "spec.md"
TEXT = SPEC.read_text(encoding="utf-8")
SECTIONS = {int(n) for n in re.findall(r"^## (\d+)\. ", TEXT, flags=re.M)}
GAMES_TEXT = (ROOT / "docs" / "games-spec.md").read_text(encoding="utf-8")
GAMES_SECTIONS = {int(n) for n in re.findall(r"^## (\d+)\. ", GAMES_TEXT, flags=re.M)}
# What cites the contract: the package (code, messages, pages), the docs, the tests, the benchmarks, the README.
CITING = [p for d in ("src", "docs", "tests", "benchmarks") for p in (ROOT / d).rglob("*")
          if p.suffix in (".py", ".md", ".html", ".js", ".css", ".ipynb") and p.is_file()] + [ROOT / "README.md"]


def _references(pattern: str, sections: set[int]) -> tuple[int, list[str]]:
    """How many references match ``pattern`` (its group: a section number, or a range "1–2" or "1–§5"), and
    those that name no section in ``sections``."""
    refs = 0
    dangling = []
    for path in CITING:
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in re.finditer(pattern, text):
            refs += 1
            if any(int(n) not in sections for n in re.findall(r"\d+", m.group(1))):
                dangling.append(f"{path.relative_to(ROOT)}: {m.group(0)}")
    return refs, dangling


def test_every_spec_reference_names_a_section_that_exists():
    assert SECTIONS == {1, 2, 3, 4, 5, 6}
    refs, dangling = _references(r"SPEC\s*§\s*(\d+(?:\s*[–-]\s*§?\d+)?)", SECTIONS)
    assert refs >= 50 and not dangling, dangling


def test_every_games_reference_names_a_section_of_their_contract():
    assert GAMES_SECTIONS == {1, 2, 3, 4, 5}
    refs, dangling = _references(r"GAMES\s*§\s*(\d+(?:\s*[–-]\s*§?\d+)?)", GAMES_SECTIONS)
    assert refs >= 10 and not dangling, dangling


def test_nothing_points_outside_the_repository_for_the_contract():
    outside = ["SPEC" + ".md", "MENDELEV" + ".md"]  # the contracts once kept beside the repository
    for path in CITING:
        text = path.read_text(encoding="utf-8", errors="replace")
        for name in outside:
            assert name not in text, f"{path.relative_to(ROOT)} names {name}, which is not in the repository"
    assert "shared" + "/" not in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_a_first_screen():
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(readme) <= 200
    assert readme[3].startswith("pip install . &&") and readme[4].startswith("pip install '.[test")
    assert "docs/spec.md" in "\n".join(readme[:30])


def _worked_deals() -> dict[int, dict]:
    blocks = re.findall(r"```json\n(\{\"seed\".*?)\n```", TEXT, flags=re.S)
    deals = [json.loads(b) for b in blocks]
    return {d["seed"]: d for d in deals}


def test_the_worked_deals_are_what_canfield_deal_prints():
    worked = _worked_deals()
    assert sorted(worked) == [0, 1, 42]
    for seed, doc in worked.items():
        out = CliRunner().invoke(cli, ["deal", str(seed), "--json"])
        assert out.exit_code == 0, out.output
        assert json.loads(out.output) == doc, seed


def test_the_standalone_shuffle_on_the_page_deals_our_deals():
    code = re.search(r"```python\n(M = \(1 << 64\).*?)\n```", TEXT, flags=re.S)
    assert code is not None
    env: dict = {}
    exec(compile(code.group(1).replace('print(deal(42)["foundation"])  # 4S', ""), "spec.md", "exec"), env)
    for seed in (0, 1, 42, 2**64 - 1, 123456789):
        ours = Deal.from_seed(seed).to_dict()
        theirs = env["deal"](seed)
        assert {k: ours[k] for k in theirs} == theirs, seed
    assert env["deal"](42)["foundation"] == "4S"


def test_the_preset_table_says_what_each_preset_changes():
    """Each row names every field its preset changes against ``canfield`` (or against the preset it says it is
    "as"), with the value: a wrong or missing field fails."""
    rows = dict(re.findall(r"^\| `([a-z0-9-]+)` \| (.*) \|$", TEXT.split("The presets, and how")[1], flags=re.M))
    assert set(rows) == set(PRESETS)
    for name, rules in PRESETS.items():
        row = rows[name]
        parent = re.match(r"as `([a-z0-9-]+)`", row)
        base = PRESETS[parent.group(1) if parent else "canfield"].to_dict()
        changed = {k: v for k, v in rules.to_dict().items() if k != "name" and v != base[k]}
        for field, value in changed.items():
            assert f"`{field}`" in row, (name, field)
            shown = {True: None, False: "false", None: "null"}.get(value, str(value)) if not isinstance(value, int) \
                or isinstance(value, bool) else str(value)
            if shown is not None:
                assert re.search(rf"`{field}` {re.escape(shown)}\b", row), (name, field, value)
        if not changed:
            assert row == "—", name
