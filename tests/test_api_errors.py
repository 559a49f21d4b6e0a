"""One error family at every entry point (issue 63 item 2): every public function, called with a wrong type or
value in any one parameter (the others valid), either does its work or raises a ``CanfieldError`` subclass
that names the problem; no ``AttributeError``, ``TypeError`` or bare ``ValueError`` escapes."""

from __future__ import annotations

import inspect
import math

import pytest

import canfield_solver as cs
from canfield_solver.errors import CanfieldError

BAD = [None, "x", "", -1, 0, 1.5, math.nan, math.inf, True, 2**70, object(), [], ["draw", 3]]


def _deal():
    return cs.Deal.from_seed(2)


# Each public function with arguments that work (small limits, so that every call is quick).
CALLS = {
    "solve": (cs.solve, dict(deal_or_position=2, rules="canfield", max_nodes=2000, max_seconds=5.0)),
    "decide": (cs.decide, dict(position=2)),
    "hint": (cs.hint, dict(deal=2, moves=["draw"], max_nodes=2000, max_seconds=5.0)),
    "replay": (cs.replay, dict(deal=2, moves=["draw"], strict=True)),
    "review": (cs.review, dict(deal_or_position=2, moves=["draw"])),
    "steps": (cs.steps, dict(deal_or_position=2, moves=["draw"])),
    "analyze": (cs.analyze, dict(seed_or_deal=2, rules="canfield", max_seconds=5.0, max_nodes=2000,
                                 probe_nodes=200, playouts=2, playout_seed=0)),
    "show": (cs.show, dict(obj=2, max_seconds=5.0)),
    "estimate_win_rate": (cs.estimate_win_rate, dict(rules="canfield", seeds=range(2, 3), jobs=1, max_seconds=2.0)),
    "Position": (cs.Position, dict(deal=2)),
    "get_rules": (cs.get_rules, dict(rules="canfield")),
    "parse_card": (cs.parse_card, dict(text="AS")),
    "parse_move": (cs.parse_move, dict(text="draw")),
    "parse_seeds": (cs.parse_seeds, dict(text="0:10")),
    "from_seed": (cs.Deal.from_seed, dict(seed=2, rules="canfield")),
}
# Parameters left out of the sweep, and why: where a study keeps its rows (a wrong one is a path it creates),
# where it sends them (a scheduler address is tried on the network), and what it calls back.
SKIP = {"store", "scheduler", "progress", "on_row"}


# Counts whose huge values are valid, only long: 2**70 random games is a request, not an error.
HUGE_IS_VALID = {"playouts"}


def _cases():
    for name, (fn, good) in CALLS.items():
        params = [p for p in inspect.signature(fn).parameters if p in good and p not in SKIP]
        for param in params:
            for bad in BAD:
                if param in HUGE_IS_VALID and bad == 2**70:
                    continue
                shown = "object()" if type(bad) is object else repr(bad)  # an object's repr is its address
                yield pytest.param(name, param, bad, id=f"{name}-{param}-{shown}"[:90])


def _call(fn, good, param, bad):
    kw = dict(good, **{param: bad})
    sig = inspect.signature(fn)
    positional = [p.name for p in sig.parameters.values() if p.kind == p.POSITIONAL_ONLY]
    args = [kw.pop(n) for n in positional]
    return fn(*args, **kw)


@pytest.mark.parametrize("name, param, bad", list(_cases()))
def test_a_wrong_argument_is_a_canfield_error_or_works(name, param, bad, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # whatever a call writes stays here
    fn, good = CALLS[name]
    try:
        _call(fn, good, param, bad)
    except CanfieldError as e:
        assert str(e) and "\n" not in str(e), repr(e)
    except Exception as e:  # noqa: BLE001 (the point: nothing else may escape)
        pytest.fail(f"{name}({param}={bad!r}) raised {type(e).__name__}: {e}")


@pytest.mark.parametrize("name", list(CALLS))
def test_the_valid_calls_work(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fn, good = CALLS[name]
    _call(fn, good, next(iter(good)), good[next(iter(good))])


def test_seeds_are_taken_where_solve_takes_them():
    """``hint(2, moves)``, ``replay(2, moves)``, ``Position(2)`` and ``decide(2)`` read the seed as ``solve(2)``
    does; they raised AttributeError ('int' object has no attribute 'rules')."""
    d = cs.Deal.from_seed(2)
    assert cs.Position(2).key() == cs.Position(d).key()
    assert cs.replay(2, ["draw"]).position.key() == cs.replay(d, ["draw"]).position.key()
    assert cs.decide(2, max_nodes=5000).verdict == cs.decide(d, max_nodes=5000).verdict == cs.solve(2).verdict
    assert cs.hint(2, ["draw"], max_seconds=5).verdict == cs.Verdict.SOLVED
