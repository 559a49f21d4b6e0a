"""The compiled kernels' calls can be read (issue 62): no compiled function takes more than 12 parameters
(arrays that travel together go as one named tuple, codec.DealArrays and its siblings), and every function
of the search kernel and the layered close kernel documents each parameter, in its signature's order, in a
numpydoc ``Parameters`` section (read with numpydoc's own parser), so a signature changed without its
docstring fails here."""

from __future__ import annotations

import ast

import pytest

from helpers import PACKAGE

numpydoc = pytest.importorskip("numpydoc.docscrape")

DOCUMENTED = ["search/kernel.py", "search/layered/close.py"]
MOST_PARAMETERS = 12


def _functions(tree: ast.Module) -> list[ast.FunctionDef]:
    """The module's own functions: at its top level or under a top-level ``if`` (the kernel's plain-Python
    and compiled intrinsics), not the functions nested in them (an intrinsic's ``codegen``)."""
    out: list[ast.FunctionDef] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef):
                out.append(child)
            elif isinstance(child, ast.If):
                todo.append(child)
    return out


def _compiled(f: ast.FunctionDef) -> bool:
    names = {ast.unparse(d).split("(")[0].split(".")[-1] for d in f.decorator_list}
    return bool(names & {"njit", "helper", "intrinsic", "jit"})


def _params(f: ast.FunctionDef) -> list[str]:
    return [a.arg for a in f.args.args]


@pytest.mark.parametrize("module", DOCUMENTED)
def test_every_kernel_function_documents_its_parameters_in_signature_order(module):
    tree = ast.parse((PACKAGE / module).read_text())
    checked = 0
    for f in _functions(tree):
        if not _params(f):
            continue
        doc = ast.get_docstring(f)
        assert doc, f"{module}: {f.name} has no docstring"
        section = numpydoc.NumpyDocString(doc)["Parameters"]
        assert [p.name for p in section] == _params(f), f"{module}: {f.name}'s Parameters section and signature differ"
        for p in section:
            assert p.type and " ".join(p.desc).strip(), f"{module}: {f.name}'s parameter {p.name} says nothing"
        checked += 1
    assert checked >= (40 if module.endswith("kernel.py") else 6)  # the files still hold their functions


def test_no_compiled_function_takes_more_than_twelve_parameters():
    compiled = 0
    for path in sorted(PACKAGE.rglob("*.py")):
        for f in _functions(ast.parse(path.read_text())):
            if not _compiled(f):
                continue
            compiled += 1
            n = len([p for p in _params(f) if p != "typingctx"])  # an intrinsic's context is Numba's, not a caller's
            assert n <= MOST_PARAMETERS, f"{path.relative_to(PACKAGE)}: {f.name} takes {n} parameters"
    assert compiled > 80


def test_the_checks_fail_on_a_signature_that_drifts(tmp_path):
    """The check itself: a function whose docstring names its parameters in another order fails it."""
    src = '''
def f(a, b):
    """Sum.

    Parameters
    ----------
    b : int
        The second.
    a : int
        The first.
    """
'''
    (f,) = _functions(ast.parse(src))
    section = numpydoc.NumpyDocString(ast.get_docstring(f))["Parameters"]
    assert [p.name for p in section] != _params(f)
