"""A study's settings as one value (studies/settings.py): built at the edge, checked once, passed whole."""

import ast
import dataclasses
import pathlib

import pytest

from canfield_solver.studies.settings import SettingsError, SettingsFields, StudySettings, settings_of
from canfield_solver.studies.study import run_study

SRC = pathlib.Path(__file__).resolve().parents[1] / "src" / "canfield_solver"


def test_the_keywords_type_names_every_field():
    """``run_study(rules, seeds, max_seconds=2)``'s keywords are typed by SettingsFields: a field added to the
    settings and not to the keywords' type would be refused by type checkers only."""
    assert set(SettingsFields.__annotations__) == {f.name for f in dataclasses.fields(StudySettings)}


@pytest.mark.parametrize("bad, said", [
    (dict(jobs=0), "jobs must be a whole number from 1 to 4096"),
    (dict(jobs=True), "jobs must be"),
    (dict(threads=0), "threads must be"),
    (dict(chunk=0), "chunk must be"),
    (dict(numbering="other"), "numbering must be one of spec, pysolfc"),
    (dict(max_seconds=-1), "max_seconds must be a non-negative number"),
    (dict(max_nodes=1.5), "max_nodes must be a non-negative integer"),
    (dict(followup=-1), "followup must be a whole number of at least 0"),
    (dict(followup_seconds=float("nan")), "followup_seconds must be a non-negative number"),
])
def test_a_bad_setting_is_refused_with_its_name(bad, said):
    with pytest.raises(SettingsError, match=said):
        StudySettings(**bad)
    with pytest.raises(SettingsError, match=said):  # and by a study, before any deal is searched
        run_study("canfield", range(3), **bad)


def test_settings_or_keywords_not_both_and_no_unknown_keyword():
    s = StudySettings(max_seconds=2)
    assert settings_of(s, {}) is s
    assert settings_of(None, {"jobs": 2}) == StudySettings(jobs=2)
    assert settings_of(None, {}, StudySettings(max_seconds=10.0)).max_seconds == 10.0
    with pytest.raises(TypeError, match="not both"):
        settings_of(s, {"jobs": 2})
    with pytest.raises(TypeError, match="'max_second'"):
        run_study("canfield", range(3), max_second=2)


def test_the_repr_is_the_call_that_makes_them():
    s = StudySettings(max_seconds=2, jobs=2, followup=5)
    assert repr(s) == "StudySettings(max_seconds=2, jobs=2, followup=5)"
    assert eval(repr(s)) == s
    assert repr(StudySettings()) == "StudySettings()"


def test_a_followup_batch_runs_at_the_followup_limits():
    s = StudySettings(max_seconds=2, max_memory_mb=300, jobs=4, chunk=8, followup=20, followup_seconds=60,
                      followup_nodes=10**6)
    f = s.followup_pass(threads=4)
    assert (f.max_seconds, f.max_nodes, f.max_memory_mb, f.jobs, f.threads, f.chunk) == (60, 10**6, 300, 1, 4, 1)
    assert s.replace(followup_memory_mb=500).followup_pass(threads=1).max_memory_mb == 500


def _parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = fn.args
    n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
    return n - bool(a.args and a.args[0].arg in ("self", "cls"))


def test_no_plain_function_takes_more_than_eight_parameters():
    """Studies take their settings whole, and so does every other plain function of the package: none takes
    more than 8 parameters. A click command (its parameters are its options) and a compiled kernel function
    (Numba takes arrays and numbers, not settings objects) may."""
    wide = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _parameters(node) > 8:
                decorators = " ".join(ast.unparse(d) for d in node.decorator_list)
                if not any(word in decorators for word in ("command", "njit", "helper")):
                    wide.append(f"{path.relative_to(SRC)}:{node.name} ({_parameters(node)})")
    assert wide == []


def test_the_modules_example_runs():
    import doctest

    import canfield_solver.studies.settings as settings

    assert doctest.testmod(settings).failed == 0
