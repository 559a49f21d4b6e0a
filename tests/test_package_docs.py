"""Every package of canfield_solver names each of its modules and subpackages in its docstring, so the map a
reader opens first cannot drift from the rooms there are (a module added, renamed or moved shows here)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "canfield_solver"
PACKAGES = sorted(p.parent for p in PACKAGE.rglob("__init__.py") if "__pycache__" not in p.parts)


def named(doc: str) -> set[str]:
    """The identifiers inside the docstring's literal spans (``x``, ``a.b``, ``a/b``, ``x.py``)."""
    return {w for span in re.findall(r"``(.+?)``|`([^`]+)`", doc) for part in span for w in re.findall(r"\w+", part)}


def rooms(pkg: Path) -> list[str]:
    mods = {p.stem for p in pkg.glob("*.py") if not p.stem.startswith("_")}
    subs = {d.name for d in pkg.iterdir() if (d / "__init__.py").exists()}
    return sorted(mods | subs)


@pytest.mark.parametrize("pkg", PACKAGES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_a_package_docstring_names_every_module_it_holds(pkg):
    doc = ast.get_docstring(ast.parse((pkg / "__init__.py").read_text())) or ""
    missing = [m for m in rooms(pkg) if m not in named(doc)]
    assert not missing, f"{pkg.relative_to(PACKAGE.parent)}'s docstring does not name {missing}"


def test_the_check_fails_on_a_module_left_out():
    assert "session" in named("- ``session``: one game") and "kernel" in named("``adapt.kernel``")
    assert "patience" not in named("- ``session``: one game; patience alone is prose")
