"""``winrate --target``: the planner against the textbook optimum, and a small study run to its target."""

import json
import math

import pytest
from click.testing import CliRunner

from canfield_solver.errors import CanfieldError
from canfield_solver.studies.target import Figures, plan
from canfield_solver.surfaces.cli import cli

from helpers import needs_jit

Z = 1.959963984540054


def brute(target, p, u, q, c1, c2, floor=0.0):
    """The cheapest (cost, N, n) on a grid of first-pass sizes, each with the least n that meets the variance."""
    v = ((target - floor) / 100 / Z) ** 2
    a, b = p * (1 - p), u * u * q * (1 - q)
    best = None
    n_all = math.ceil(a / v)
    for deals in range(n_all, 40 * n_all, max(1, n_all // 400)):
        # the least n with a / N + b / n * (1 - n / (u N)) <= v; following every unknown leaves a / N
        left = v - (a - b / u) / deals if b else v
        need = math.ceil(b / left) if b else 0
        if need > u * deals:
            need = math.ceil(u * deals)
        cost = c1 * deals + c2 * need
        if best is None or cost < best[0]:
            best = (cost, deals, need)
    return best


@pytest.mark.parametrize("case", [
    (0.5, 0.717, 0.092, 0.21, 0.283, 28.0),   # the strict profile's shares and costs (docs/win-rates.md)
    (1.0, 0.86, 0.11, 0.5, 0.341, 23.0),      # pysolfc-canfield's
    (1.0, 0.70, 0.02, 0.3, 0.06, 9.0),        # few unknowns
    (2.0, 0.60, 0.30, 0.5, 0.01, 0.02),       # follow-ups nearly as cheap as deals: follow up every unknown
])
def test_the_plan_is_the_cheapest_pair_that_meets_the_target(case):
    target, p, u, q, c1, c2 = case
    got = plan(target, Figures(p, u, q, c1, c2))
    cost, deals, need = brute(target, p, u, q, c1, c2)
    assert got.core_seconds <= cost * 1.005 + c1 + c2, (got, deals, need)
    # and it meets the target: its standard error is within the half-width
    se = math.sqrt(p * (1 - p) / got.deals + (u * u * q * (1 - q) / got.followups if got.followups else 0) *
                   (1 - got.followups / (u * got.deals) if got.followups < u * got.deals else 0))
    assert 100 * Z * se <= target * 1.001
    assert got.followups <= math.floor(u * got.deals) + 1


def test_what_is_done_is_never_undone_and_the_floor_is_said():
    got = plan(1.0, Figures(0.7, 0.1, 0.3, 0.3, 30.0, done_deals=10 ** 6, done_followups=5))
    assert got.deals == 10 ** 6 and got.followups >= 5
    assert "NOT reachable" in str(plan(1.0, Figures(0.7, 0.1, 0.3, 0.3, 30.0, floor=1.2)))
    with pytest.raises(CanfieldError, match="positive number of points"):
        plan(0, Figures(0.7, 0.1, 0.3, 0.3, 30.0))


def test_a_follow_up_costs_the_threads_it_searched_with(tmp_path):
    """A follow-up's core-seconds are its seconds times its own threads, whatever the next run's; a row from
    before threads were kept is priced at the next run's. A resumed study once priced 2-thread follow-ups at
    one thread when run with --jobs 1, and planned half their cost."""
    from canfield_solver import get_rules
    from canfield_solver.studies.stores.sqlite import ResultStore, StoredResult
    from canfield_solver.studies.target import measure
    from canfield_solver.studies.two_phase import followup_rules

    r = get_rules("canfield")
    fu = followup_rules(r)
    with ResultStore(tmp_path / "s.sqlite") as st:
        st.put_many(r, [StoredResult("canfield", s, "unknown" if s < 3 else "solved", 9, 0.5, 9, 0, 0, 2.0, None,
                                     threads=1) for s in range(10)])
        st.put_many(fu, [StoredResult(fu.name, 0, "solved", 9, 10.0, 52, 0, 0, 300.0, None, threads=2),
                         StoredResult(fu.name, 1, "unsolvable", 9, 4.0, 9, 0, 0, 300.0, None, threads=1),
                         StoredResult(fu.name, 2, "unsolvable", 9, 6.0, 9, 0, 0, 300.0, None)])
        for next_threads, c2 in [(1, (20 + 4 + 6) / 3), (4, (20 + 4 + 24) / 3)]:
            m = measure(st, r, 10, followup_threads=next_threads)
            assert m.c1 == 0.5 and m.c2 == pytest.approx(c2)


@needs_jit
def test_a_study_run_to_its_target_stops_there_and_recounts_from_its_store(tmp_path):
    db = tmp_path / "t.sqlite"
    args = ["winrate", "--rules", "solvitaire-canfield", "--target", "10", "--pilot", "150", "--max-seconds", "0.2",
            "--followup-seconds", "3", "--db", str(db), "--jobs", "1", "--json", "-q"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout.strip().splitlines()[-1])
    tp = out["two_phase"]
    lo, hi = tp["ci95"]
    est = tp["win_rate"]
    assert 100 * (hi - lo) / 2 <= 10  # stopped at the target
    again = CliRunner().invoke(cli, ["winrate", "--rules", "solvitaire-canfield", "--summary", "--db", str(db),
                                     "--seeds", f"0:{out['deals']}", "--json"])
    assert again.exit_code == 0, again.output
    recount = json.loads(again.stdout.strip().splitlines()[-1])["two_phase"]
    assert recount["ci95"] == tp["ci95"] and recount["win_rate"] == est  # the interval, from the store alone
    plan_only = CliRunner().invoke(cli, [*args[:-2], "--plan"])
    assert plan_only.exit_code == 0 and "plan for ±10 points" in plan_only.stdout


@needs_jit
def test_a_resumed_target_run_reports_every_follow_up_the_store_holds(tmp_path):
    # A dataset holding 25 follow-ups (node limits: the same counts on any machine), then --target: it searches
    # nothing and reports the store's recount. It once reported only its first round's pilot sample (20).
    d = str(tmp_path / "wr")
    two_phase = CliRunner().invoke(cli, ["winrate", "--rules", "canfield", "--seeds", "0:100", "--max-nodes", "3000",
                                         "--followup", "25", "--followup-nodes", "200000", "--parquet-dir", d,
                                         "--jobs", "1", "--json", "-q"])
    assert two_phase.exit_code == 0, two_phase.output
    held = json.loads(two_phase.stdout.strip().splitlines()[-1])
    assert held["unknown"] >= 25 and held["two_phase"]["followup"]["sample_size"] == 25
    res = CliRunner().invoke(cli, ["winrate", "--rules", "canfield", "--target", "45", "--pilot", "100",
                                   "--parquet-dir", d, "--jobs", "1", "--json", "-q"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["searched"] == 0 and out["two_phase"]["followup"]["searched"] == 0
    tp = out["two_phase"]
    assert tp["followup"]["sample_size"] == 25
    assert tp["ci95"] == held["two_phase"]["ci95"] and tp["win_rate"] == held["two_phase"]["win_rate"]


# --- A plan before the first deal (issue 59 item 5): the project's own studies, or the pilot's cost -----------

def test_a_plan_before_the_first_deal_comes_from_the_projects_study_and_writes_nothing(tmp_path):
    db = tmp_path / "new.sqlite"
    out = CliRunner().invoke(cli, ["winrate", "--rules", "chameleon", "--target", "1", "--plan", "--db", str(db)])
    assert out.exit_code == 0, out.output
    assert "planned from the project's own study of chameleon (1,000 deals" in out.output
    assert "not from your store" in out.output and "core-hours" in out.output and "Dask" in out.output
    assert "canfield winrate --rules chameleon --target 1 --db" in out.output  # the command to run it
    assert list(tmp_path.iterdir()) == []  # nothing written
    pq = tmp_path / "dataset"
    out = CliRunner().invoke(cli, ["winrate", "--rules", "rainbow", "--target", "1", "--plan", "--parquet-dir",
                                   str(pq), "--json"])
    got = json.loads(out.output)
    assert got["prior"]["rules"] == "rainbow" and got["plan"]["deals"] > 1000
    assert any("follow-up" in a for a in got["plan"]["assumed"])  # rainbow has no follow-up: said as assumed
    assert not pq.exists()


def test_rules_the_project_never_studied_get_the_pilots_cost(tmp_path):
    rules = tmp_path / "mine.json"
    rules.write_text('{"name": "canfield", "draw": 1, "redeals": 2}')  # a preset's name, other rules
    out = CliRunner().invoke(cli, ["winrate", "--rules-file", str(rules), "--target", "1", "--plan",
                                   "--max-seconds", "2", "--db", str(tmp_path / "s.sqlite")])
    assert out.exit_code == 0, out.output
    assert "no study of these rules in the project" in out.output and "planned from" not in out.output
    assert "1,000 deals at 2 s, then 20 follow-ups" in out.output and "core-s" in out.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.json"]


def test_the_shipped_priors_are_the_committed_datasets():
    """priors.json says what benchmarks/results/winrates holds (benchmarks/make_priors.py wrote it)."""
    from pathlib import Path

    from canfield_solver.engine.rules import get_rules
    from canfield_solver.studies.priors import prior
    from canfield_solver.studies.stores.parquet import ParquetResults
    from canfield_solver.studies.target import measure, stored_extent

    dataset = Path(__file__).resolve().parent.parent / "benchmarks" / "results" / "winrates"
    if not dataset.is_dir():
        pytest.skip("the committed dataset is not beside this package (an installed copy without the repository)")
    pytest.importorskip("pyarrow")
    for name in ("chameleon", "canfield-draw1"):
        r = get_rules(name)
        st = ParquetResults(str(dataset), create=False)
        try:
            m = measure(st, r, stored_extent(st, r), followup_threads=2)
        finally:
            st.close()
        pr = prior(r)
        assert pr is not None
        assert (pr.deals, pr.won, pr.lost, pr.unknown, pr.followups) == (m.deals, m.won, m.lost, m.unknown, m.followups)
        assert pr.c1 == pytest.approx(m.c1, abs=1e-3)


def test_a_plan_says_which_figures_it_assumed():
    from canfield_solver.studies.target import Measured, plan_from

    few = plan_from(Measured(12, 9, 3, 0, 0, 0, 0, 0, 0.2, 30.0, None), 1.0)
    assert any("from 12 deals only" in a for a in few.assumed) and "ASSUMED" in str(few)
    nofollow = plan_from(Measured(1000, 700, 200, 100, 0, 0, 0, 0, 0.3, 30.0, None), 1.0)
    assert len(nofollow.assumed) == 2 and "no follow-up stored" in str(nofollow)
    measured = plan_from(Measured(1000, 700, 200, 100, 20, 8, 12, 0, 0.3, 25.0, None), 1.0)
    assert measured.assumed == () and "ASSUMED" not in str(measured)


def test_a_target_run_says_what_its_pilot_spends_before_it_spends_it(tmp_path):
    """Issue 63: --target started spending before saying what its pilot costs."""
    db = str(tmp_path / "t.sqlite")
    args = ["winrate", "--rules", "storehouse-aces-strict", "--target", "5", "--pilot", "20", "--max-seconds", "1",
            "--followup-seconds", "5", "--db", db, "--jobs", "1"]
    first = CliRunner().invoke(cli, args)
    assert first.exit_code == 0, first.output
    assert "the pilot: 20 deals at 1 s, then up to 20 follow-ups at 5 s: at most 120 core-s" in first.output
    again = CliRunner().invoke(cli, args)  # resumed from the store: no pilot to announce
    assert again.exit_code == 0 and "the pilot:" not in again.output


@needs_jit
def test_a_target_run_searches_at_every_limit_it_is_given(tmp_path):
    """``--target`` takes the study's settings whole: its node limits reach both passes (it once kept only the
    time limits, and searched every deal to its seconds whatever --max-nodes said)."""
    from canfield_solver import get_rules
    from canfield_solver.studies.stores.sqlite import ResultStore
    from canfield_solver.studies.two_phase import followup_rules

    db = tmp_path / "t.sqlite"
    res = CliRunner().invoke(cli, ["winrate", "--rules", "canfield", "--target", "45", "--pilot", "30",
                                   "--max-seconds", "5", "--max-nodes", "2000", "--followup-seconds", "30",
                                   "--followup-nodes", "50000", "--db", str(db), "--jobs", "1", "--json", "-q"])
    assert res.exit_code == 0, res.output
    with ResultStore(db) as st:
        first = st.results(get_rules("canfield"))
        followed = st.results(followup_rules(get_rules("canfield")))
    assert first and followed
    assert {row.max_nodes for row in first} == {2000} and {row.max_nodes for row in followed} == {50_000}
