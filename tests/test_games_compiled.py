"""The games' compiled searches (``games/pairs_kernel.py``, ``games/aces_and_kings/kernel.py``) against
their plain-Python searches, node for node: the same verdict, the same node count and the same line on
deals and on constructed positions, and the limits (nodes, seconds, memory) ending in ``unknown``."""

import importlib
import random

import pytest

from canfield_solver.errors import CanfieldError
from canfield_solver.games import aces_and_kings as A
from canfield_solver.games import nine_packets as N
from canfield_solver.games import ten_columns as T
from canfield_solver.games.base import replay
from canfield_solver.solver import Verdict

AK = importlib.import_module("canfield_solver.games.aces_and_kings.solve")
NP = importlib.import_module("canfield_solver.games.nine_packets.solve")
TC = importlib.import_module("canfield_solver.games.ten_columns.solve")


def _same(a, b):
    return (a.verdict, a.nodes, a.moves) == (b.verdict, b.nodes, b.moves)


def test_nine_packets_compiled_is_the_python_search():
    verdicts = set()
    for seed in range(300):
        p = N.deal(seed)
        a, b = NP.search_python(p), N.solve(p)
        assert _same(a, b), seed
        verdicts.add(b.verdict)
    assert verdicts == {Verdict.SOLVED, Verdict.UNSOLVABLE}
    # A constructed position whose packets are too tall for the kernel's key is searched in Python.
    tall = N.Position(((0, 13, 26, 39, 5, 18, 31, 44),) + ((),) * 8)
    assert N.solve(tall).verdict is Verdict.UNSOLVABLE


@pytest.mark.parametrize("variant", [None, "ten-columns-dealt"])
def test_ten_columns_compiled_is_the_python_search(variant):
    verdicts = set()
    for seed in range(60 if variant is None else 300):
        p = T.deal(seed, variant)
        a, b = TC.solve(p, compiled=False), TC.solve(p)
        assert _same(a, b), seed
        verdicts.add(b.verdict)
        if variant is None and seed < 25:
            assert TC.placement_wins(p, compiled=False) == TC.placement_wins(p)
    assert verdicts == {Verdict.SOLVED, Verdict.UNSOLVABLE}


@pytest.mark.parametrize("variant", [None, "bisley"])
def test_aces_and_kings_compiled_is_the_python_search(variant):
    verdicts = set()
    for seed in range(40):
        p = A.deal(seed, variant)
        a, b = AK.search_python(p, max_nodes=20_000), A.solve(p, max_nodes=20_000, restarts=False)
        assert b.verdict == a.verdict and b.moves == a.moves, seed
        # A search stopped by its node limit counts the node that hit it in Python only.
        assert b.nodes == a.nodes - (a.verdict is Verdict.UNKNOWN), seed
        verdicts.add(b.verdict)
        if b.solved:
            assert A.won(replay(A.play, p, b.moves))
    assert Verdict.SOLVED in verdicts and Verdict.UNKNOWN in verdicts
    if variant == "bisley":
        assert Verdict.UNSOLVABLE in verdicts   # seed 2 of bisley: lost after 23,013 positions


def test_aces_and_kings_compiled_on_constructed_positions():
    # Positions near the end, crowded into a few columns (test_games._near_end): the columns move a lot.
    from test_games import _near_end

    for trial in range(60):
        rng = random.Random(trial)
        p = _near_end(rng, trial % 2 == 1, most_out=5)
        a, b = AK.search_python(p, max_nodes=50_000), A.solve(p, max_nodes=50_000, restarts=False)
        assert b.verdict == a.verdict and b.moves == a.moves, trial


def test_compiled_limits_end_in_unknown():
    r = A.solve(A.deal(28), max_nodes=1000)
    assert r.verdict is Verdict.UNKNOWN and r.limit == "nodes" and r.nodes == 1000
    r = A.solve(A.deal(28), max_memory_mb=1, restarts=False)   # 1 MiB: the table cannot grow past 2^15 positions
    assert r.verdict is Verdict.UNKNOWN and r.limit == "memory" and 0 < r.nodes < 1 << 16
    r = A.solve(A.deal(28), max_memory_mb=1)   # won, but only by a search longer than 1 MiB holds
    assert r.verdict is Verdict.UNKNOWN and r.limit == "memory"
    # The old name, max_memory, still works for a release, with a DeprecationWarning; both at once is an error.
    with pytest.warns(DeprecationWarning, match="max_memory is now max_memory_mb"):
        r = A.solve(A.deal(28), max_memory=1, restarts=False)
    assert r.verdict is Verdict.UNKNOWN and r.limit == "memory"
    with pytest.raises(CanfieldError, match="max_memory_mb alone"):
        A.solve(A.deal(28), max_memory=1, max_memory_mb=1)
    r = A.solve(A.deal(28), max_seconds=0.2, restarts=False)
    assert r.verdict is Verdict.UNKNOWN and r.limit == "seconds" and r.seconds < 2
    r = N.solve(N.deal(1), max_nodes=2)
    assert r.verdict is Verdict.UNKNOWN and r.limit == "nodes"
    r = T.solve(T.deal(3), max_nodes=5)
    assert r.verdict is Verdict.UNKNOWN and r.limit == "nodes"


def test_aces_and_kings_restarts_decide_what_one_order_does_not():
    # Seed 28: the first order reaches 11.5 million positions in 20 s without a win; the restarts win it
    # in under a million nodes. Every verdict with restarts agrees with the single search where that
    # decides, and a bisley loss is proven by either.
    p = A.deal(28)
    r = A.solve(p, max_nodes=2_000_000)
    assert r.solved and r.extra["searches"] > 1 and A.won(replay(A.play, p, r.moves))
    assert A.solve(p, max_nodes=2_000_000, restarts=False).verdict is Verdict.UNKNOWN
    assert A.solve(p, max_nodes=2_000_000).moves == r.moves   # seeded orders: reproducible
    for seed in range(30):
        for variant in (None, "bisley"):
            q = A.deal(seed, variant)
            one, many = A.solve(q, max_nodes=100_000, restarts=False), A.solve(q, max_nodes=400_000)
            if one.verdict is not Verdict.UNKNOWN:
                assert many.verdict is one.verdict, (seed, variant)
    assert A.solve(A.deal(2, "bisley")).verdict is Verdict.UNSOLVABLE


def test_frozen_card():
    # A column 3H 9H 5H 7H 6H (6H free): 6H is frozen when the cards it may go on (5H 7H 5D 7D) are home
    # or below it, and both its piles are blocked by hearts below it (3H lower, 9H higher).
    h = lambda r: 2 * 13 + r - 1   # noqa: E731  hearts, ranks 1..13
    d = lambda r: 1 * 13 + r - 1   # noqa: E731
    col = (h(3), h(9), h(5), h(7), h(6))
    rest = tuple(c for c in range(2 * 13 + 2, 3 * 13) if c not in col)   # the other hearts but A, 2
    p = A.Position((col, rest) + ((),) * 11, (13, 13, 2, 13), (0, 0, 0, 0))   # every diamond on its ace pile
    assert AK.frozen_card(p) == h(6)
    r = A.solve(p)
    assert r.verdict is Verdict.UNSOLVABLE and r.nodes == 0
    # With 6D and 7D still in the tableau, 6H may yet go on 7D: not frozen (and the deal can be won).
    q = A.Position((col, rest, (d(7), d(6))) + ((),) * 10, (13, 5, 2, 13), (0, 6, 0, 0))
    assert AK.frozen_card(q) is None


def test_frozen_positions_are_lost_by_exhaustive_search():
    # Random late positions crowded into five columns (test_games._near_end): wherever the frozen-card
    # test fires, a breadth-first search over raw positions (no canonical key, no pruning) finds no win.
    from test_games import _near_end, _reachable_win

    fired = 0
    for seed in range(200):
        for in_suit in (False, True):
            p = _near_end(random.Random(seed), in_suit)
            if AK.frozen_card(p) is not None:
                fired += 1
                assert not _reachable_win(p), (seed, in_suit)
    assert fired >= 3
