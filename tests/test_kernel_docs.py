"""The compiled kernels' calls can be read (issue 62): no compiled function takes more than 12 parameters
(arrays that travel together go as one named tuple, codec.DealArrays and its siblings), and every function
of the search kernel and the layered close kernel documents each parameter, in its signature's order, in a
numpydoc ``Parameters`` section (read with numpydoc's own parser), so a signature changed without its
docstring fails here."""

from __future__ import annotations

import ast
import re

import pytest

from helpers import PACKAGE

numpydoc = pytest.importorskip("numpydoc.docscrape")

DOCUMENTED = ["search/kernel.py", "search/base.py", "search/stuck.py", "search/pool.py", "search/layered/close.py"]
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


def glossary() -> dict[str, str]:
    """The shared parameters' names and types, from the ``Glossary`` section of search/base.py's docstring."""
    doc = ast.get_docstring(ast.parse((PACKAGE / "search/base.py").read_text())) or ""
    section = doc.split("Glossary\n--------\n", 1)[1]
    return {m.group(1): m.group(2) for m in re.finditer(r"^(\w+) : (.+)$", section, re.M)}


def problems(text: str, where: str) -> tuple[int, list[str]]:
    """The check on one module's text: (functions checked, what is wrong). Every compiled function with
    parameters (and, in ``DOCUMENTED``'s files, every function) needs a docstring whose numpydoc ``Parameters``
    section names its parameters in signature order, each with a type and a description."""
    checked = 0
    wrong: list[str] = []
    every = where in DOCUMENTED
    for f in _functions(ast.parse(text)):
        if not _params(f) or not (every or _compiled(f)):
            continue
        checked += 1
        doc = ast.get_docstring(f)
        if not doc:
            wrong.append(f"{where}: {f.name} has no docstring")
            continue
        section = numpydoc.NumpyDocString(doc)["Parameters"]
        names = [n for p in section for n in p.name.split(", ")]  # "a, b : glossary" names two
        if names != _params(f):
            wrong.append(f"{where}: {f.name}'s Parameters section and signature differ")
        for p in section:
            if not (p.type and " ".join(p.desc).strip()):
                wrong.append(f"{where}: {f.name}'s parameter {p.name} says nothing")
            if p.type == "glossary":
                wrong.extend(f"{where}: {f.name}'s parameter {n} is not in the glossary"
                             for n in p.name.split(", ") if n not in glossary())
    return checked, wrong


def _compiled_files() -> list[str]:
    """Every file of the package that holds a compiled function."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if any(_compiled(f) for f in _functions(ast.parse(path.read_text()))):
            out.append(str(path.relative_to(PACKAGE)))
    return out


COMPILED_FILES = _compiled_files()


@pytest.mark.parametrize("module", COMPILED_FILES)
def test_every_compiled_function_documents_its_parameters_in_signature_order(module):
    checked, wrong = problems((PACKAGE / module).read_text(), module)
    assert not wrong, wrong
    least = {"search/kernel.py": 20, "search/base.py": 15, "search/stuck.py": 8, "search/pool.py": 4}
    assert checked >= least.get(module, 1)  # the files still hold their functions


def test_every_compiled_file_is_checked():
    assert set(DOCUMENTED) <= set(COMPILED_FILES) and len(COMPILED_FILES) >= 8, COMPILED_FILES


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


def test_the_check_fails_on_a_signature_that_drifts():
    """The real check, on a kernel function whose signature drifted from its docstring (a parameter added,
    two swapped) and on one with a parameter described by nothing: each is caught."""
    text = (PACKAGE / "search/base.py").read_text()
    assert problems(text, "search/base.py")[1] == []
    drifted = text.replace("def _fits_on(card, host, lut):", "def _fits_on(card, host, lut, extra):")
    assert any("_fits_on's Parameters section and signature differ" in w
               for w in problems(drifted, "search/base.py")[1])
    swapped = text.replace("def _fits_on(card, host, lut):", "def _fits_on(host, card, lut):")
    assert any("_fits_on" in w for w in problems(swapped, "search/base.py")[1])
    mute = text.replace("""    host : int
        The card it would go on.""", """    host : int
        """, 1)
    assert any("_fits_on's parameter host says nothing" in w for w in problems(mute, "search/base.py")[1])


def test_a_grouped_entry_names_only_what_the_glossary_holds():
    """The shared parameters are said once (search/base.py's glossary); a grouped entry naming a parameter
    the glossary lacks is caught, and so is the glossary losing an entry a function relies on."""
    assert {"deal", "cols", "sc", "mask", "d", "params", "lut", "bm"} <= set(glossary())
    text = (PACKAGE / "search/stuck.py").read_text()
    assert problems(text, "search/stuck.py")[1] == []
    renamed = text.replace("def _stays(card, bm, s_or_u, blocked):", "def _stays(card, bits, s_or_u, blocked):")
    renamed = renamed.replace("    card, bm : glossary", "    card, bits : glossary", 1)
    assert any("_stays's parameter bits is not in the glossary" in w for w in problems(renamed, "search/stuck.py")[1])


SHARED = {"search/kernel.py", "search/base.py", "search/stuck.py", "search/pool.py"}
_PRIVATE_USE = re.compile(r"(?<![\w.])(?:K|kernel|self\.kernel)\.(_[a-z]\w*)")


def _private_uses(text: str) -> list[str]:
    return _PRIVATE_USE.findall(text)


def test_the_other_search_modules_call_only_the_kernels_public_names():
    """Issue 72: a leading underscore says "used only inside kernel, base, stuck and pool". The layered proof,
    the playouts, the search over ranks, the rows and the drivers call the kernel's shared interface, whose
    names have none; a module that reaches for ``kernel._x`` again fails here (the check is shown to fail
    on such a line)."""
    assert _private_uses("    K._gen(cols, sc)\n") == ["_gen"]
    assert _private_uses("    RK._gen(cols)\n    K.gen(cols)\n") == []  # another kernel's own, a public one
    seen = 0
    for path in sorted((PACKAGE / "search").rglob("*.py")):
        name = str(path.relative_to(PACKAGE))
        if name in SHARED:
            continue
        text = path.read_text()
        seen += text.count("K.") + text.count("kernel.")
        assert _private_uses(text) == [], f"{name} calls the kernel's private {_private_uses(text)}"
    assert seen > 100  # the modules read do call the kernel


def test_every_compiled_function_takes_a_named_set_of_options():
    """No file spells its own compile options: each ``njit(...)`` and ``helper(...)`` of the package takes one
    of jit.py's named sets (``**CACHED``, ``**ENTRY``, ...), so a kind of function compiles one way."""
    from canfield_solver import jit

    sets = {n for n, v in vars(jit).items() if n.isupper() and isinstance(v, dict)}
    assert {"CACHED", "ENTRY", "INLINE", "NO_NRT"} <= sets
    spelled, calls = [], 0
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "jit.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                    "njit", "helper"):
                calls += 1
                ok = not node.args and len(node.keywords) == 1 and node.keywords[0].arg is None and \
                    isinstance(node.keywords[0].value, ast.Name) and node.keywords[0].value.id in sets
                if not ok:
                    spelled.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not spelled, f"compile options spelled out, not a named set of jit.py: {spelled}"
    assert calls > 100
