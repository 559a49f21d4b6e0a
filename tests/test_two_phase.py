"""Two-phase studies: the stratified estimate and its interval, the sample, the store, resume, the CLI."""

import itertools
import json
import math

import pytest
from click.testing import CliRunner

from canfield_solver import get_rules
from canfield_solver.errors import CanfieldError
from canfield_solver.studies.settings import StudySettings
from canfield_solver.studies.stores.parquet import ParquetResults
from canfield_solver.studies.stores.sqlite import ResultStore, StoredResult
from canfield_solver.studies.study import run_study, wilson_interval
from canfield_solver.studies.two_phase import (
    complete_prefix,
    draw_sample,
    followup_rules,
    run_followup,
    run_two_phase,
    stored_two_phase,
    two_phase_interval,
)
from canfield_solver.surfaces.cli import cli

from helpers import needs_jit

Z = 1.959963984540054


def test_estimate_and_interval_by_hand():
    # N = 1000: 600 won, 300 lost, 100 unknown; 50 of the unknowns followed up: 20 won, 25 lost, 5 unknown.
    est, (lo, hi) = two_phase_interval(600, 300, 100, 20, 25, 5)
    assert est == pytest.approx(0.64)  # (600 + 100 * 20/50) / 1000
    # Low end: p = 0.64, the sample's unknowns lost. Agresti-Coull proportions in the variance:
    # p~ = (640 + 2) / 1004, q~ = (20 + 2) / 54; finite-population factor 1 - 50/100.
    pa, qa = 642 / 1004, 22 / 54
    var_lo = pa * (1 - pa) / 1000 + 0.1**2 * qa * (1 - qa) / 50 * 0.5
    # High end: p = 0.65, the sample's unknowns won: q~ = 27/54 = 0.5.
    pb = 652 / 1004
    var_hi = pb * (1 - pb) / 1000 + 0.1**2 * 0.25 / 50 * 0.5
    assert lo == pytest.approx(0.64 - Z * math.sqrt(var_lo))
    assert hi == pytest.approx(0.65 + Z * math.sqrt(var_hi))
    assert (round(lo, 4), round(hi, 4)) == (0.6087, 0.6812)


def test_the_interval_widens_when_sample_deals_stay_unknown():
    _, decided = two_phase_interval(600, 300, 100, 20, 30, 0)
    _, open5 = two_phase_interval(600, 300, 100, 20, 25, 5)
    _, open15 = two_phase_interval(600, 300, 100, 20, 15, 15)
    assert decided[0] == open5[0] == open15[0]  # the low end counts them lost, as the decided sample did
    assert decided[1] < open5[1] < open15[1]


def test_following_up_every_unknown_leaves_only_the_binomial_share():
    est, (lo, hi) = two_phase_interval(600, 300, 100, 30, 70, 0)
    assert est == pytest.approx(0.63)  # every deal decided: the plain share of wins, with Wilson's interval
    assert (lo, hi) == wilson_interval(630, 1000)
    # No unknowns at all, and none won: Wilson's upper end (0.38%), not a normal interval's.
    assert two_phase_interval(0, 1000, 0, 0, 0, 0) == (0.0, wilson_interval(0, 1000))
    assert round(100 * wilson_interval(0, 1000)[1], 2) == 0.38
    # A larger sample of the same unknowns gives a narrower interval.
    small = two_phase_interval(600, 300, 100, 6, 14, 0)[1]
    large = two_phase_interval(600, 300, 100, 24, 56, 0)[1]
    assert large[1] - large[0] < small[1] - small[0]


def test_an_all_lost_sample_still_carries_sampling_error():
    est, (lo, hi) = two_phase_interval(600, 300, 100, 0, 20, 0)
    assert est == pytest.approx(0.6)
    no_unknowns = two_phase_interval(600, 400, 0, 0, 0, 0)[1]
    assert hi - lo > no_unknowns[1] - no_unknowns[0]


def test_no_sample_yet_and_bad_counts():
    assert two_phase_interval(600, 300, 100, 0, 0, 0) == (None, (0.6, 0.7))
    assert two_phase_interval(0, 0, 0, 0, 0, 0) == (None, (0.0, 1.0))
    with pytest.raises(ValueError, match="sample of 11 deals drawn from 10"):
        two_phase_interval(5, 5, 10, 11, 0, 0)
    with pytest.raises(ValueError, match="non-negative"):
        two_phase_interval(5, -1, 10, 0, 0, 0)


def test_the_sample_is_a_fixed_function_of_the_unknowns_and_the_seed():
    pool = list(range(0, 3000, 3))
    a = draw_sample(pool, 50)
    assert a == draw_sample(reversed(pool), 50) and len(set(a)) == 50 and set(a) <= set(pool)
    assert draw_sample(pool, 50, sample_seed=1) != a
    assert draw_sample(pool, 20) == a[:20]  # a larger sample extends a smaller one
    assert sorted(draw_sample(pool[:10], 50)) == pool[:10]
    # Growing the pool keeps every earlier sample deal still among the lowest ranks.
    grown = draw_sample(pool + list(range(1, 3000, 3)), 100)
    assert len(set(a) & set(grown)) >= 40
    # Roughly uniform: a draw of half the pool takes about half of each of its halves.
    half = draw_sample(pool, 500)
    assert 200 < sum(s < 1500 for s in half) < 300
    with pytest.raises(CanfieldError, match="non-negative"):
        draw_sample(pool, -1)


def test_the_complete_prefix_is_what_a_store_can_count():
    pool = range(100)
    order = draw_sample(pool, 100)
    assert complete_prefix(pool, set(order[:30])) == order[:30]
    # A gap ends it: what was followed up past the first deal without a follow-up is not counted.
    assert complete_prefix(pool, set(order[:30]) | set(order[31:40])) == order[:30]
    assert complete_prefix(pool, set()) == []


def _row(seed, verdict, limit=1.0, name="canfield"):
    return StoredResult(name, seed, verdict, 10, 0.01, 52, 0, 0, limit, "seconds" if verdict == "unknown" else None)


def _constructed(store, r):
    """1000 deals: 600 won, 300 lost, 100 unknown (seeds 900..999); follow-ups of the first 50 unknowns in
    sampling order (20 won, 25 lost, 5 unknown), of the 52nd (past a gap: not counted) and of a deal the
    first pass decided (not counted)."""
    store.put_many(r, [_row(s, "solved") for s in range(600)] + [_row(s, "unsolvable") for s in range(600, 900)]
                   + [_row(s, "unknown") for s in range(900, 1000)])
    f = followup_rules(r)
    order = draw_sample(range(900, 1000), 100)
    verdicts = ["solved"] * 20 + ["unsolvable"] * 25 + ["unknown"] * 5
    store.put_many(f, [_row(s, v, 300.0, f.name) for s, v in zip(order, verdicts)]
                   + [_row(order[51], "solved", 300.0, f.name), _row(5, "unsolvable", 300.0, f.name)])
    return order


def test_the_estimate_recounted_from_a_constructed_store(tmp_path):
    r = get_rules("canfield")
    with ResultStore(tmp_path / "s.sqlite") as st:
        order = _constructed(st, r)
    tp = stored_two_phase(r, range(1000), db=tmp_path / "s.sqlite")
    assert (tp.won, tp.lost, tp.unknown, tp.sampled) == (600, 300, 100, 50)
    assert (tp.sample_won, tp.sample_lost, tp.sample_unknown, tp.followup_seconds) == (20, 25, 5, 300.0)
    assert tp.estimate == pytest.approx(0.64)
    assert tuple(round(x, 4) for x in tp.interval) == (0.6087, 0.6812)
    # Over part of the seeds only the follow-ups of that part's unknowns count.
    part = stored_two_phase(r, range(950, 1000), db=tmp_path / "s.sqlite")
    followed = set(order[:50]) | {order[51]}
    expect = list(itertools.takewhile(lambda x: x in followed, draw_sample(range(950, 1000), 50)))
    assert (part.deals, part.unknown, part.sampled) == (50, 50, len(expect))
    assert part.sampled >= len(set(order[:50]) & set(range(950, 1000)))
    # Another sample seed orders the unknowns differently: hardly any complete prefix.
    other = stored_two_phase(r, range(1000), db=tmp_path / "s.sqlite", sample_seed=7)
    assert other is None or other.sampled < 10
    assert stored_two_phase(r, range(0, 900), db=tmp_path / "s.sqlite") is None


def test_the_estimate_recounted_from_a_parquet_dataset(tmp_path):
    r = get_rules("canfield")
    with ParquetResults(tmp_path / "ds") as ds:
        _constructed(ds, r)
    tp = stored_two_phase(r, range(1000), parquet=tmp_path / "ds")
    assert (tp.sample_won, tp.sample_lost, tp.sample_unknown) == (20, 25, 5)
    assert tuple(round(x, 4) for x in tp.interval) == (0.6087, 0.6812)


def test_cli_summary_prints_the_two_phase_estimate(tmp_path):
    r = get_rules("canfield")
    with ResultStore(tmp_path / "s.sqlite") as st:
        _constructed(st, r)
    res = CliRunner().invoke(cli, ["winrate", "--summary", "--db", str(tmp_path / "s.sqlite"), "--seeds", "0:1000",
                                   "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["unknown"] == 100 and d["two_phase"]["followup"]["sampled"] == 50
    assert [round(x, 4) for x in d["two_phase"]["ci95"]] == [0.6087, 0.6812]
    text = CliRunner().invoke(cli, ["winrate", "--summary", "--db", str(tmp_path / "s.sqlite"),
                                    "--seeds", "0:1000"]).output
    assert "two-phase estimate 64.00% (95% CI 60.87%..68.12%" in text


# --- Real searches: seeds 0..39 under a 2,000-node first pass leave 22 unknown --------------------------
FIRST = dict(max_seconds=None, max_nodes=2000, jobs=1)


def FOLLOW(sample, nodes):  # noqa: N802 (a constant's maker)
    """A follow-up of ``sample`` deals at ``nodes`` nodes each, no time limit, one thread."""
    return StudySettings(jobs=1, followup=sample, followup_seconds=None, followup_nodes=nodes)


def test_a_followup_searches_its_sample_once_and_resumes(tmp_path):
    db = str(tmp_path / "s.sqlite")
    r = get_rules("canfield")
    first = run_study(r, range(40), store=db, **FIRST)
    assert first.unknown >= 10
    with ResultStore(db) as st:
        unknown = st.unknown_in(r, [(0, 40)])
        want = draw_sample(unknown, 4)
        stopped = []

        def stop_after_one(done, total, counts, elapsed):
            if done >= 1:
                stopped.append(done)
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            run_followup(r, range(40), first, FOLLOW(4, 200_000), store=st, progress=stop_after_one)
        assert stopped and 1 <= len(st.results_in(followup_rules(r), [(0, 40)])) < 4
        assert len(complete_prefix(unknown, {x.seed for x in st.results_in(followup_rules(r), [(0, 40)])})) < 4
        tp = run_followup(r, range(40), first, FOLLOW(4, 200_000), store=st)
        assert tp.reused >= 1 and tp.searched + tp.reused == 4 and tp.sampled == 4
        rows = st.results_in(followup_rules(r), [(0, 40)])
        assert [x.seed for x in rows] == sorted(want) and all(x.max_nodes == 200_000 for x in rows)
        assert all(x.threads == 1 for x in rows) and all(st.get(r, s).threads == 1 for s in range(40))
        # The first pass's rows of those deals are kept, with their own limit.
        assert all(st.get(r, s).verdict == "unknown" and st.get(r, s).max_nodes == 2000 for s in want)
        again = run_followup(r, range(40), first, FOLLOW(4, 200_000), store=st)
        assert (again.searched, again.reused) == (0, 4)
        assert (again.sample_won, again.sample_lost, again.sample_unknown) == \
            (tp.sample_won, tp.sample_lost, tp.sample_unknown)
    # The store alone gives the same estimate.
    assert stored_two_phase(r, range(40), db=db).interval == tp.interval


def test_a_follow_up_stops_where_it_has_enough(tmp_path):
    """``enough`` ends the pass at a batch boundary, with the estimate over the prefix done (what --target
    asks, so that a round stops at the target and not at its end); it is never asked over reused rows alone."""
    db = str(tmp_path / "s.sqlite")
    r = get_rules("canfield")
    first = run_study(r, range(40), store=db, **FIRST)
    assert first.unknown >= 12
    asked = []

    def enough(tp):
        asked.append(tp.sampled)
        return tp.sampled >= 6

    with ResultStore(db) as st:
        want = draw_sample(st.unknown_in(r, [(0, 40)]), 12)
        tp = run_followup(r, range(40), first, FOLLOW(12, 20_000), store=st, enough=enough)
        assert asked == [4, 8] and (tp.sample_size, tp.sampled, tp.searched) == (8, 8, 8)
        assert sorted(x.seed for x in st.results_in(followup_rules(r), [(0, 40)])) == sorted(want[:8])
        assert tp.interval == two_phase_interval(first.won, first.lost, first.unknown, tp.sample_won,
                                                 tp.sample_lost, tp.sample_unknown)[1]
        asked.clear()
        again = run_followup(r, range(40), first, FOLLOW(12, 20_000), store=st,
                             enough=lambda tp: asked.append(tp.sampled) or True)
        assert asked == [] and (again.reused, again.searched, again.sampled) == (8, 4, 12)  # the last batch


@needs_jit
def test_each_row_keeps_the_threads_its_deal_had(tmp_path):
    """A deal searched with two threads says so in its row (what a follow-up's core-seconds are priced by)."""
    db = str(tmp_path / "s.sqlite")
    r = get_rules("canfield")
    run_study(r, range(3), store=db, max_seconds=None, max_nodes=5000, jobs=1, threads=2)
    with ResultStore(db) as st:
        assert [(x.seed, x.threads) for x in st.results(r)] == [(0, 2), (1, 2), (2, 2)]


def test_run_two_phase_without_a_store_and_the_cli(tmp_path):
    wr = run_two_phase("canfield", range(40), followup=3, followup_seconds=None, followup_nodes=200_000, **FIRST)
    tp = wr.two_phase
    assert tp.unknown == wr.unknown and tp.sampled == 3 and tp.estimate is not None
    assert tp.interval[0] <= tp.estimate <= tp.interval[1]
    assert wr.interval_all[0] <= tp.interval[1] and tp.interval[0] <= wr.interval_all[1]
    db = str(tmp_path / "s.sqlite")
    args = ["winrate", "--seeds", "0:40", "--max-nodes", "2000", "--jobs", "1", "--db", db, "--followup", "3",
            "--followup-nodes", "200000", "--json", "-q"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    d = json.loads(res.output.strip().splitlines()[-1])
    assert d["two_phase"]["followup"]["sampled"] == 3 and d["two_phase"]["first_pass"]["unknown"] == wr.unknown
    # The same sample as the API drew (the same unknowns, the same default sample seed), searched once.
    assert (d["two_phase"]["followup"]["won"], d["two_phase"]["followup"]["lost"]) == (tp.sample_won, tp.sample_lost)
    d2 = json.loads(CliRunner().invoke(cli, args).output.strip().splitlines()[-1])
    assert d2["two_phase"]["followup"]["searched"] == 0 and d2["two_phase"]["ci95"] == d["two_phase"]["ci95"]


@needs_jit
def test_progress_counts_never_go_back_and_end_at_the_table(tmp_path):
    """Issue 48: the follow-up's counts jumped back between batches and ended at one batch's; a resumed
    study's progress left out the stored deals and counted them in its rate."""
    from canfield_solver.studies.two_phase import run_followup

    calls = []

    def progress(done, total, counts, elapsed):
        calls.append((done, total, dict(counts)))

    db = tmp_path / "p.sqlite"
    with ResultStore(db) as st:
        first = run_study("canfield", range(30), jobs=1, max_nodes=3_000, max_seconds=None, store=st)
        assert first.unknown >= 9  # enough for a follow-up of three batches
        tp = run_followup("canfield", range(30), first, FOLLOW(9, 400_000), store=st, progress=progress)
    verdicts = ("solved", "unsolvable", "unknown")
    for (d0, _t, c0), (d1, _t1, c1) in zip(calls, calls[1:]):
        assert d1 >= d0 and all(c1.get(v, 0) >= c0.get(v, 0) for v in verdicts), (c0, c1)
    last = calls[-1]
    assert last[0] == last[1] == 9
    assert (last[2]["solved"], last[2]["unsolvable"], last[2]["unknown"]) == \
        (tp.sample_won, tp.sample_lost, tp.sample_unknown)

    calls.clear()  # resumed: every deal from the store, counted as such and not in a rate
    with ResultStore(db) as st:
        again = run_study("canfield", range(30), jobs=1, max_nodes=3_000, max_seconds=None, store=st,
                          progress=progress)
    assert again.searched == 0 and again.reused == 30
    done, total, counts = calls[-1]
    assert done == total == 30 and counts["searched"] == 0 and counts["reused"] == 30
    assert (counts["solved"], counts["unsolvable"], counts["unknown"]) == (again.won, again.lost, again.unknown)
