"""Shared test helpers: hand-built positions for the rule tests, ``needs_jit``, ``interruptible``, and ``examples`` (the
Hypothesis example counts, scaled by the profile: conftest.py)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from hypothesis import settings

import canfield_solver
from canfield_solver import Deal, Position, get_rules, parse_card
from canfield_solver.engine.cards import card_name

# The package these tests import, and the folder it is imported from: src/ in an editable install (.ci/run's
# floor environment), site-packages in the README's `pip install '.[test,...]'`. A child process that must run
# the same code, and find the same compiled kernel in Numba's cache, puts IMPORT_ROOT on its PYTHONPATH; the
# source tree's copy is another package to Numba (its cache is keyed by the source file's path).
PACKAGE = Path(canfield_solver.__file__).resolve().parent
IMPORT_ROOT = str(PACKAGE.parent)

needs_jit = pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1",
                               reason="searches of many nodes are too slow with NUMBA_DISABLE_JIT=1")


def interruptible() -> None:
    """``preexec_fn`` of a child process a test will Ctrl-C: SIGINT's default disposition, as a terminal's
    foreground program has it. The test process may have inherited SIGINT ignored (a shell starts background
    jobs so: a CI script run with ``&``), and the child would then ignore the Ctrl-C too and run to its end."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def examples(quick: int) -> int:
    """The example count of a property that takes ``quick`` examples in the quick (default) profile: scaled by
    the loaded profile's ``max_examples`` against the quick profile's 100 ("thorough": 5x; "tiny": 1/10)."""
    return max(1, round(quick * settings().max_examples / 100))


def make_deal(*, reserve=(), tableau=(), waste=(), stock=(), foundations=(), rules="canfield", redeals_used=0):
    """A mid-game deal from card texts; every card not placed goes under the stock (bottom first)."""
    r = get_rules(rules)
    placed = {parse_card(c) for pile in [reserve, waste, stock, *tableau, *foundations] for c in pile}
    rest = [card_name(c) for c in r.deck if c not in placed]
    data = {
        "reserve": list(reserve),
        "tableau": [list(c) for c in tableau] + [[] for _ in range(r.columns - len(tableau))],
        "waste": list(waste),
        "stock": rest + list(stock),
        "foundations": [list(p) for p in foundations],
        "redeals_used": redeals_used,
    }
    return Deal.from_dict(data, r)


def make(**kw) -> Position:
    return Position(make_deal(**kw))


def run(spec: str) -> list[str]:
    """'6C 7C 8C' -> ['6C', '7C', '8C']."""
    return spec.split()


def random_position(seed, preset, rng, steps):
    """The position after up to ``steps`` random legal moves from deal ``seed``."""
    pos = Position(Deal.from_seed(seed, preset))
    for _ in range(steps):
        ms = pos.legal_moves()
        if not ms:
            break
        pos.play(rng.choice(ms))
    return pos


def progress_reachable(p: Position) -> bool:
    """Brute force: does any position reached by non-progress moves allow a progress move?"""
    seen = {p.key()}
    stack = [p.copy()]
    while stack:
        x = stack.pop()
        for m in x.legal_moves():
            y = x.copy()
            y.play(m)
            if m.endswith(">F") or m.startswith(("W", "R")) or len(y.reserve) < len(x.reserve):
                return True
            if y.key() not in seen:
                seen.add(y.key())
                stack.append(y)
    return False


def play_until_stalled(seed: int = 0, rng_seed: int = 3) -> tuple[Position, list[str]]:
    """Random legal moves from deal ``seed`` until the game is stalled (SPEC §3): the position and the moves."""
    import random

    rng = random.Random(rng_seed)
    pos, played = Position(Deal.from_seed(seed)), []
    while not pos.is_stalled():
        m = rng.choice(pos.legal_moves())
        pos.play(m)
        played.append(m)
    return pos, played


def store_rows(db) -> int:
    """Rows in a result store's results table (0 while it does not exist yet), read without locking it."""
    import sqlite3

    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        n = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        con.close()
        return n
    except sqlite3.Error:
        return 0
