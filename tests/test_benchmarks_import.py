"""benchmarks/: every script imports (a rename in the package cannot break one silently), and its README's
tables name every script there is, tools and archive apart."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
TOOLS = sorted(BENCH.glob("*.py"))
ARCHIVE = sorted((BENCH / "archive").glob("*.py"))


@pytest.mark.parametrize("path", TOOLS + ARCHIVE, ids=lambda p: str(p.relative_to(BENCH)))
def test_every_script_imports(path, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))  # scripts import each other by name, as when run from benchmarks/
    spec = importlib.util.spec_from_file_location(f"_bench_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as an import does (a dataclass looks its module up there)
    try:
        spec.loader.exec_module(module)  # defines its functions; runs nothing (each runs under __main__ only)
    finally:
        sys.modules.pop(spec.name, None)
    assert module.__doc__, f"{path.name} says nothing of what it measures"
    assert callable(getattr(module, "main", None)) or "__main__" in path.read_text()


def test_the_readme_names_every_script_once_tools_and_archive_apart():
    text = (BENCH / "README.md").read_text()
    tools, archive = text.split("## archive/")
    named_tools = re.findall(r"^\| `([a-z_]+\.py)` \|", tools, re.M)
    named_archive = re.findall(r"^\| `archive/([a-z_]+\.py)` \|", archive, re.M)
    assert sorted(named_tools) == [p.name for p in TOOLS]
    assert sorted(named_archive) == [p.name for p in ARCHIVE]
