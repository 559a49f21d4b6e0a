"""The package's public names are said three times and agree (issue 72 item 5): what type checkers read (the
``TYPE_CHECKING`` imports of ``__init__.py``), where each is imported from on first use (``_WHERE``) and
``__all__``; and the PySolFC plugin, which runs inside PySolFC and imports nothing of this package, holds the
same constants as the package."""

from __future__ import annotations

import ast
import importlib

import canfield_solver
from canfield_solver.formats.pysolfc import PYSOLFC_RULES
from canfield_solver.pysolfc import install

from helpers import PACKAGE


def _type_checking_imports() -> dict[str, str]:
    """name -> module of each import under ``if TYPE_CHECKING:`` in the package's ``__init__.py``."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom)
                for alias in imp.names:
                    out[alias.asname or alias.name] = "." * imp.level + (imp.module or "")
    return out


def test_the_public_names_agree_three_ways_and_each_resolves():
    typed = _type_checking_imports()
    where = canfield_solver._WHERE
    assert set(typed) == set(where) == set(canfield_solver.__all__)
    assert len(canfield_solver.__all__) == len(set(canfield_solver.__all__))
    for name, module in where.items():
        assert typed[name] == module, (name, typed[name], module)
        assert getattr(canfield_solver, name) is getattr(importlib.import_module(module, "canfield_solver"), name)


def _plugin_constants() -> dict[str, object]:
    tree = ast.parse((PACKAGE / "pysolfc" / "plugin.py").read_text())
    out: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass  # computed at run time inside PySolFC
    return out


def test_the_plugin_holds_the_packages_constants():
    c = _plugin_constants()
    assert c["WINNABLE_FILE"] == install.WINNABLE_FILE
    assert set(c["GAMES"].values()) == set(PYSOLFC_RULES)  # every title the bridge knows, and no other
    assert set(install.shipped_winnable()) <= set(c["GAMES"].values())
    assert c["PYSOLFC_SERIES"] == (3, 6)
