"""The docs a reader can follow: every file of this repository that docs/ or the README names exists; none
names a path on a development machine, the workplace's ``shared/`` folder, or a tool that is neither in the
repository nor among its dependencies; outside the Archive (the history and the "tried, not kept" notes) no
page points to a bare issue number, which the reader has no tracker to open (say what changed instead)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = {"performance-history.md", "solver-notes-tried.md"}  # mkdocs.yml's Archive section
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_REF = re.compile(r"(?<![\w/.-])((?:benchmarks|tests|src/canfield_solver|notebooks|docs|\.ci)/[\w./-]*\w)")
_MACHINE = re.compile(r"/work/|/root/|/home/|~/\.library|(?<![\w./-])shared/|\.\./shared|\.\./\.library")
_OUTSIDE_TOOLS = re.compile(r"\b(farm-bench|farm-studio|duplicates --change)\b")
_ISSUE = re.compile(r"(?<![Nn]umba )\b[Ii]ssues? #?\d+")  # a named tracker's (Numba's) may stay


def _missing(text: str) -> list[str]:
    return [ref for ref in (m.group(1).rstrip(".") for m in _REF.finditer(text))
            if not any(ch in ref for ch in "*{<") and not (ROOT / ref).exists()]


def test_the_checks_can_fail():
    assert _missing("see `benchmarks/no_such_script.py` and `benchmarks/bench_nodes.py`") == [
        "benchmarks/no_such_script.py"]
    assert _MACHINE.search("a patch in `/work/exp/mark.patch`") and _MACHINE.search("`shared/data/x.csv`")
    assert _ISSUE.search("as issue 70 asked") and not _ISSUE.search("the issues of the tracker")
    assert _OUTSIDE_TOOLS.search("timed with farm-bench")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_names_only_what_a_reader_can_open(page):
    text = page.read_text(encoding="utf-8")
    assert not _missing(text), f"{page.name} names files the repository lacks: {_missing(text)}"
    machine = [m.group(0) for m in _MACHINE.finditer(text)]
    assert not machine, f"{page.name} names paths of a development machine or the workplace: {machine}"
    tools = [m.group(0) for m in _OUTSIDE_TOOLS.finditer(text)]
    assert not tools, f"{page.name} names tools outside the repository and its dependencies: {tools}"
    if page.name not in ARCHIVE:
        bare = [text[max(0, m.start() - 30):m.end() + 10] for m in _ISSUE.finditer(text)]
        assert not bare, f"{page.name} points to bare issue numbers (say what changed): {bare}"


def test_the_archive_is_its_own_section_of_the_site():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    archive = nav[nav.index("  - Archive:"):]
    assert all(name in archive for name in ARCHIVE)
    assert nav.index("getting-started.md") < nav.index("Using it:"), "Getting started comes first"
