"""The second design (issue 70): the abstract game over card classes (``search.ranks``), the searches for wins
(``search.ranks.find``, ``search.playout``), the wider safe rule where any suit builds, and the portfolio that
runs them before the exact search (``search.portfolio``).

The abstract game's one promise is that an exhausted search means a lost deal: checked against the exhaustive
reference search on reduced decks of every rule set where classes exist, alternate colours included (where the
solver does not run it), and on the same deals with the swap moves taken away, which must break the promise.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from canfield_solver import Deal, Position, Rules, get_rules
from canfield_solver.budget import Deadline, Limits
from canfield_solver.engine.position import replay
from canfield_solver.search import arrays, playout, ranks, schedule
from canfield_solver.search import codec as C
from canfield_solver.search import kernel as K
from canfield_solver.search.ranks import kernel as RK
from canfield_solver.solver import Verdict, solve

from helpers import examples, needs_jit
from reference_search import exhaustive_winnable

ANY_DRAW1 = Rules(name="any-suit-draw1", build="any", draw=1, redeals=0)
CLASS_RULES = {
    "rainbow": get_rules("rainbow"),
    "chameleon": get_rules("chameleon"),
    "pysolfc-rainbow": get_rules("pysolfc-rainbow"),
    "canfield": get_rules("canfield"),
    "superior-canfield": get_rules("superior-canfield"),
    "canfield-sequences": get_rules("canfield-sequences"),
    "any-suit-draw1": ANY_DRAW1,
    "any-suit-runs": Rules(name="any-suit-runs", build="any", column_moves="runs", gap_fill="any"),
}
# Shapes (ranks, reserve, columns) where lost deals are common enough to be proved.
SHAPES = [(4, 3, 1), (4, 2, 2), (5, 2, 1), (5, 2, 2), (4, 4, 1), (5, 3, 2)]


def _deal(name: str, shape: tuple[int, int, int], seed: int) -> Deal:
    ranks_, reserve, columns = shape
    r = CLASS_RULES[name].replace(name=f"{name}-{ranks_}r{reserve}c{columns}", ranks=ranks_, reserve_size=reserve,
                                  columns=columns)
    return Deal.from_seed(seed, r)


def test_classes_exist_only_where_they_are_sound_and_merge_something():
    assert ranks.classes(get_rules("storehouse")) is None  # in suit: every class one card
    assert ranks.classes(get_rules("solvitaire-canfield")) is None  # a part moves when it frees a card: identities
    cls, peers = ranks.classes(get_rules("rainbow"))
    assert cls[0] == cls[13] == cls[26] == cls[39] == 0  # the four aces
    assert sorted(peers[0][peers[0] >= 0]) == [13, 26, 39]
    cls, peers = ranks.classes(get_rules("canfield"))
    assert cls[13] == cls[26] != cls[0] == cls[39]  # red aces, black aces
    assert list(peers[13][peers[13] >= 0]) == [26]
    for name in ("rainbow", "canfield", "storehouse", "pysolfc-chameleon", "solvitaire-canfield"):
        r = get_rules(name)
        assert (schedule.family(r) == "any-suit") == (r.build == "any" and ranks.usable(r)), name
    assert schedule.family(get_rules("rainbow")) == "any-suit" and schedule.family(get_rules("canfield")) == "exact"


def _prove_counts(monkeypatch: pytest.MonkeyPatch | None = None):
    """A property over reduced deals of every class rule set: what ``prove`` says against the truth."""
    seen = {"lost": 0, "proved": 0, "won": 0}

    # The same examples every run (derandomize): the counts below are of what was drawn, and a random draw of
    # 60 held fewer than 5 won deals now and then (a default-tier failure, 2026-12-07).
    @settings(max_examples=examples(60), deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
    @given(name=st.sampled_from(sorted(CLASS_RULES)), shape=st.sampled_from(SHAPES), seed=st.integers(0, 2**64 - 1))
    def check(name, shape, seed):
        deal = _deal(name, shape, seed)
        try:
            truth = exhaustive_winnable(deal, max_states=20_000)
        except RuntimeError:
            assume(False)
        p = ranks.prove(Position(deal), Limits(memory_mb=64))
        assert p.ended in ("won", "exhausted") and not p.stats["cut"]  # no line cut at the depth cap
        assert p.proved_lost == (p.ended == "exhausted")  # an abstract win proves nothing
        if truth:
            seen["won"] += 1
            assert p.ended == "won", (name, shape, seed, "a won deal's abstract game was exhausted")
        else:
            seen["lost"] += 1
            seen["proved"] += p.proved_lost

    check()
    return seen


@needs_jit
def test_an_exhausted_game_over_classes_means_a_lost_deal():
    seen = _prove_counts()
    print(seen)  # -rP shows it
    assert seen["won"] >= 5 and seen["lost"] >= 3
    assert seen["proved"] >= 1, "the abstract game proved no lost deal lost"


# Won deals whose merged keys hide every win from the real moves alone: found by running the search below over
# seeds 0-399 of shape (5, 2, 2) for each rule set (these were the only ones; the reference search confirms each
# is won every time the test runs).
HIDDEN_WINS = [("canfield", 153), ("rainbow", 182), ("any-suit-draw1", 182)]


@needs_jit
@pytest.mark.parametrize("name,seed", HIDDEN_WINS)
def test_without_its_swap_moves_the_game_over_classes_calls_won_deals_lost(name, seed):
    """The swap moves are what make the merged keys sound: without them (the classes' key over the real moves
    alone, which is ``find``) this won deal's search is exhausted; with them it is won. So the property above
    can fail."""
    deal = _deal(name, (5, 2, 2), seed)
    assert exhaustive_winnable(deal, max_states=20_000)
    found = ranks.find(Position(deal), Limits(memory_mb=64))
    assert found.ended == "exhausted" and not found.proved_lost  # the phases' one Outcome: no loss read into it
    proved = ranks.prove(Position(deal), Limits(memory_mb=64))
    assert proved.ended == "won" and not proved.won and not proved.proved_lost


@needs_jit
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(CLASS_RULES)), shape=st.sampled_from(SHAPES), seed=st.integers(0, 2**64 - 1))
def test_wins_found_without_the_exact_search_replay(name, shape, seed):
    deal = _deal(name, shape, seed)
    start = Position(deal)
    for o in (ranks.find(start, Limits(nodes=200_000, memory_mb=64)),
              playout.nested(start, Limits(nodes=200_000), rounds=8), playout.greedy(start, Limits(nodes=50_000))):
        if o.won:
            chk = replay(deal, o.decode(o.solution), strict=True)
            assert chk.legal and chk.position.is_won()
        else:
            assert o.solution == []
    w = playout.nested(start, Limits(nodes=100_000), rounds=4)
    if not w.won:  # the best line followed is a real line to its score
        chk = replay(deal, w.decode(w.best_path), strict=False)
        assert chk.legal and chk.position.score == w.best_score


@needs_jit
def test_playouts_from_a_start_without_moves_end_at_once():
    """This deal's start has one legal move (a draw) that the kernel never plays (the exact search proves the deal
    lost): every playout ends where it starts, without a step. Under a node limit alone the playouts once went on
    forever (a CI run stalled on it); they end, unwon, with no limit reached. The deadline only turns a
    regression into a failure instead of a hang."""
    start = Position(_deal("any-suit-runs", (4, 3, 1), 28))
    assert start.legal_moves() == ["draw"]
    for o in (playout.greedy(start, Limits(deadline=Deadline(30), nodes=50_000)),
              playout.nested(start, Limits(deadline=Deadline(30), nodes=50_000))):
        assert (o.won, o.limit, o.nodes) == (False, None, 0)
        assert o.ended == "rounds" and not o.proved_lost  # a lost deal, but playouts never prove it


@needs_jit
def test_the_same_seed_plays_the_same_nested_searches():
    start = Position(Deal.from_seed(1003, get_rules("rainbow")))
    a = playout.nested(start, Limits(nodes=300_000), seed=7)
    b = playout.nested(start, Limits(nodes=300_000), seed=7)
    assert (a.nodes, a.stats, a.best_score, a.best_path) == (b.nodes, b.stats, b.best_score, b.best_path)


def _safe(rules: Rules, card: int, heights: list[int], base: int) -> bool:
    deal = Deal.from_seed(0, rules)
    prob = arrays.LoneSearch(Position(deal))
    lut = arrays._lookup_table(rules, base)
    sc = np.zeros((1, C.NSC), np.int64)
    sc[0, C.SC_F:C.SC_F + 4] = heights
    return bool(K.is_safe(card, sc, 0, prob.params, lut))


def test_any_suit_safe_rule_needs_every_foundation_one_rank_below():
    # base ace (rank index 0): the 5 of hearts (rel 4) hosts the four 4s (rel 3). With every foundation holding
    # three cards, each 4 not home goes straight home: the 5 is safe; with one foundation at two, not.
    five_h = 2 * 13 + 4
    rainbow = get_rules("rainbow")
    assert _safe(rainbow, five_h, [3, 3, 4, 3], 0)
    assert not _safe(rainbow, five_h, [3, 2, 4, 4], 0)
    # The 2 (rel 1) hosts the aces, and under full wrap an ace may carry a king: only when the aces are home.
    two_c = 1
    assert not _safe(rainbow, two_c, [1, 0, 0, 0], 0)
    assert _safe(rainbow, two_c, [1, 1, 1, 1], 0)
    # Relative to the base no card goes on a base card: the 2 is safe at once.
    assert _safe(rainbow.replace(name="rel", tableau_wrap="relative-to-base"), two_c, [1, 0, 0, 0], 0)
    # Under the old rule (SAFE_ANY off) the 5 waits for all four 4s.
    assert _safe_mode_old(rainbow) == 3


def _safe_mode_old(r: Rules) -> int:
    saved = arrays.SAFE_ANY
    arrays.SAFE_ANY = False
    try:
        return arrays._safe_mode(r)
    finally:
        arrays.SAFE_ANY = saved


@needs_jit
def test_the_portfolio_decides_what_the_exact_search_leaves_and_says_which_phase():
    # rainbow 1004: the exact search alone is unknown at 2 s; a nested search wins it in milliseconds.
    start = Position(Deal.from_seed(1004, get_rules("rainbow")))
    alone = solve(start, max_nodes=2_000_000, method="depth-first")
    assert alone.verdict is Verdict.UNKNOWN
    r = solve(start, max_seconds=60)
    assert r.verdict is Verdict.SOLVED and r.stats["decided_by"] == "nested"
    assert replay(start.to_deal(), list(r.moves)).position.is_won()
    # chameleon 1003: lost; the exact search needs 5 s, the game over ranks under one.
    start = Position(Deal.from_seed(1003, get_rules("chameleon")))
    r = solve(start, max_seconds=60)
    assert r.verdict is Verdict.UNSOLVABLE and r.stats["decided_by"] == "prove"
    assert [p["phase"] for p in r.stats["phases"]] == ["probe", "nested", "adapt", "prove"]
    assert r.nodes == sum(p["nodes"] for p in r.stats["phases"])
    # chameleon 640021: the exact search proves it lost in 805 nodes, so the probe answers, node for node as
    # the exact search alone, with no phase (it waited 1.5 s for the policy adaptation before the probe).
    start = Position(Deal.from_seed(640021, get_rules("chameleon")))
    r, alone = solve(start, max_seconds=60), solve(start, method="depth-first")
    assert r.verdict is alone.verdict is Verdict.UNSOLVABLE and "phases" not in r.stats
    assert (r.nodes, r.positions) == (alone.nodes, alone.positions) and r.seconds < 1.0
    # Where it is not wanted the exact search runs alone, as before.
    r = solve(Position(Deal.from_seed(2, get_rules("canfield"))))
    assert "phases" not in r.stats


@needs_jit
@pytest.mark.integration
def test_the_search_under_the_key_of_ranks_runs_where_the_abstract_game_stops_unfinished(monkeypatch):
    """The published solver's Rainbow 1016 (its rule set): the abstract game runs past its share unfinished,
    and the search under the key of ranks wins it in 1.5 M nodes, which the exact search does not in 7 M. It
    used to run only where the abstract game was won, and the deal ended unknown (issue 70). Node limits,
    so that the phases' shares are the same on any machine. The policy adaptation, which runs before them,
    now wins this deal itself (tests/test_adapt.py), so it is left out here."""
    rules = get_rules("solvitaire-canfield-strict").replace(name="solvitaire-rainbow", build="any", draw=1,
                                                             redeals=0)
    start = Position(Deal.from_seed(1016, rules))
    # The shares this deal's node counts were measured at (the game over ranks half of what is left), whatever
    # schedules.json now says: the test is of the row that runs after an unfinished abstract game.
    rows = schedule.changed(schedule.changed(schedule.rows_for(rules), "adapt", share=0.0), "prove", share=0.5)
    monkeypatch.setitem(schedule.SCHEDULES, "any-suit", rows)
    r = solve(start, max_nodes=14_000_000)
    assert r.verdict is Verdict.SOLVED and r.stats["decided_by"] == "find", r.stats
    assert [(p["phase"], p["ended"]) for p in r.stats["phases"]] == [("probe", "nodes"), ("nested", "rounds"),
                                                                     ("prove", "nodes"), ("find", "won")]
    assert replay(start.to_deal(), list(r.moves)).position.is_won()
    # as before: the exact search gets it all
    monkeypatch.setitem(schedule.SCHEDULES, "any-suit", tuple(r for r in rows if r.when != "abstract-unfinished"))
    r = solve(start, max_nodes=14_000_000)
    assert r.verdict is Verdict.UNKNOWN and [p["phase"] for p in r.stats["phases"]] == ["probe", "nested", "prove",
                                                                                       "exact"]


@needs_jit
def test_a_node_limit_ends_the_portfolio_unknown_within_it():
    start = Position(Deal.from_seed(610000, get_rules("rainbow")))  # 1003 is won by the policy adaptation now
    r = solve(start, max_nodes=300_000)
    assert r.verdict is Verdict.UNKNOWN and r.limit == "nodes"
    assert r.nodes <= 300_000 + 10_000  # the exact search stops at its budget's next expansion
    assert replay(start.to_deal(), list(r.best_line), strict=False).position.score == r.best_score


def test_the_class_key_sorts_columns_and_reads_classes_only():
    rules = get_rules("rainbow")
    cls, _peers = ranks.classes(rules)
    start = Position(Deal.from_seed(5, rules))
    prob = arrays.LoneSearch(start)
    words = np.zeros(4, np.uint64)
    RK._class_key(prob.cols, prob.sc, prob.mask, 0, prob.params, cls, words, prob.scratch)
    first = words.copy()
    # The same columns in another order, each card swapped for another of its rank: the same key.
    n = rules.columns
    prob.cols[0, :n, 0] = [(c + 13) % 52 for c in prob.cols[0, :n, 0][::-1]]
    RK._class_key(prob.cols, prob.sc, prob.mask, 0, prob.params, cls, words, prob.scratch)
    assert (words == first).all()
    prob.sc[0, C.SC_F] += 1  # a foundation height is in the key
    RK._class_key(prob.cols, prob.sc, prob.mask, 0, prob.params, cls, words, prob.scratch)
    assert not (words == first).all()


@needs_jit
@pytest.mark.integration
def test_a_ctrl_c_during_the_first_compile_of_the_phases_is_passed_on(tmp_path):
    """The phases compile by running throwaway searches, which end "interrupted" on a Ctrl-C; their warm-up
    used to drop that, so a Ctrl-C in the first seconds of `canfield analyze` on a fresh install was lost and the
    analysis ran its whole limit (a flake hunt's run on a fresh checkout). In a fresh cache, the compile takes
    seconds: a Ctrl-C a second into it ends it with KeyboardInterrupt, and nothing is recorded as compiled."""
    code = ("import os, signal, threading\n"
            "from canfield_solver.search import portfolio\n"
            "from canfield_solver import compiles\n"
            "portfolio._kernels()\n"
            "assert not compiles.compiled('nested')\n"
            "threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()\n"
            "try:\n    portfolio.warm_up()\nexcept KeyboardInterrupt:\n    print('interrupted')\n"
            "else:\n    print('compiled')\n")
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path)),
                         capture_output=True, text=True, timeout=600)
    assert out.stdout.strip() == "interrupted", out.stderr[-2000:]


@needs_jit
@pytest.mark.parametrize("preset, shape", [("rainbow", (4, 3, 1)), ("pysolfc-chameleon", (4, 4, 1))])
def test_on_reduced_decks_every_verdict_through_the_phases_is_the_exhaustive_searchs(monkeypatch, preset, shape):
    """The agreement properties (test_solver_agreement.py) run ``solve`` on reduced decks, which the exact
    search's probe now decides before any phase. Without the probe every deal of a losing shape goes through
    the phases: each verdict equals the exhaustive search's, each win replays, and phases decide some deals
    both ways (the paths are reached)."""
    rows = schedule.changed(schedule.rows_for(get_rules(preset)), "probe", nodes=0)
    monkeypatch.setitem(schedule.SCHEDULES, "any-suit", schedule.changed(rows, "adapt", cap=0.05))  # a lost deal
    # waits this long for the proofs
    ranks_, reserve, columns = shape   # reduced chameleon and rainbow differ only in these, so the gap rule too
    rules = get_rules(preset).replace(name=f"{preset}-{ranks_}r{reserve}c{columns}", ranks=ranks_,
                                      reserve_size=reserve, columns=columns)
    by = {}
    for seed in range(40):
        deal = Deal.from_seed(seed, rules)
        r = solve(deal)
        assert r.verdict is not Verdict.UNKNOWN and (r.verdict is Verdict.SOLVED) == exhaustive_winnable(deal), seed
        if r.solved:
            assert replay(deal, list(r.moves), strict=True).position.is_won(), seed
        key = (r.verdict.value, r.stats.get("decided_by", "exact"))
        by[key] = by.get(key, 0) + 1
    print(preset, by)  # -rP shows it
    won_by_phases = sum(n for (v, who), n in by.items() if v == "solved" and who != "exact")
    lost_by_phases = sum(n for (v, who), n in by.items() if v == "unsolvable" and who != "exact")
    assert won_by_phases >= 5 and lost_by_phases >= 1, by

