"""solve() and `canfield solve`: verdicts, limits, replay, JSON and exit codes."""

import csv
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from canfield_solver import Deal, Position, replay
from canfield_solver.solver import Verdict, solve
from canfield_solver.surfaces.cli import cli

from helpers import needs_jit, play_until_stalled

DATA = Path(__file__).resolve().parent / "data" / "reference-verdicts.csv"

# Full-size deals searched by the plain-Python kernel would take hours.

def reference_rows():
    """The published solver's verdicts on seeds 0-199 (a copy of shared/data/reference-verdicts.csv)."""
    with open(DATA) as fh:
        return list(csv.DictReader(fh))


def test_easy_deals_solve_and_replay():
    for seed in (2, 3, 5, 8, 10, 11):
        r = solve(seed)
        assert r.verdict is Verdict.SOLVED, seed
        res = replay(Deal.from_seed(seed), r.moves)
        assert res.position.is_won() and r.best_score == 52


def test_dead_deal_is_unsolvable_with_best_score():
    r = solve(4)
    assert r.verdict is Verdict.UNSOLVABLE and r.moves == ()
    # Nothing at all can move in deal 4 except the stock; the base card is the only one home.
    assert r.best_score == 1


def test_tiny_node_limit_gives_unknown_never_a_verdict():
    for seed in (1, 6, 9):
        r = solve(seed, max_nodes=50)
        assert r.verdict is Verdict.UNKNOWN and r.limit == "nodes" and r.nodes <= 50


def test_time_and_memory_limits_give_unknown():
    r = solve(6, max_seconds=0.2)
    assert r.verdict is Verdict.UNKNOWN and r.limit == "seconds"
    r = solve(6, max_memory_mb=1)
    assert r.verdict is Verdict.UNKNOWN and r.limit == "memory"


def test_the_last_growth_takes_what_the_cap_allows():
    """A table's last growth goes to the most rows the cap allows (any count, not a power of two), the
    cap holding both tables and the old copy at every step; once the other table has grown, growth is
    fourfold or twofold as before."""
    import numpy as np

    from canfield_solver.search.arrays import SearchTables

    for cap_mb, last in ((720, 38_731_776), (16, 720_896)):
        t = SearchTables(4, cap_mb << 20)
        sizes = [t.short.shape[0]]
        while rows := t._grown_rows(t.short):
            assert t.short.nbytes + t.long.nbytes + rows * 16 <= cap_mb << 20
            t.short = np.zeros((rows, 2), np.uint64)
            sizes.append(rows)
        assert sizes[-1] == last and sizes[-1] & (sizes[-1] - 1) != 0, sizes
        assert all(b == 4 * a for a, b in zip(sizes[:-2], sizes[1:-1]))
        assert t._grown_rows(t.long) > t.long.shape[0]  # the other table can still grow
    t = SearchTables(4, 720 << 20)
    t.long = np.zeros((t.long.shape[0] * 4, 4), np.uint64)  # the long table grew first
    t.short = np.zeros((1 << 23, 2), np.uint64)
    assert t._grown_rows(t.short) == 1 << 25


def test_a_larger_cap_keeps_the_base_caps_tables_then_doubles():
    """A cap past the old fixed 720 MiB (the machine-sized default) grows the short table through exactly
    the 720-MiB sizes, fills the last of them to the same load, and only then grows, twofold at a time and
    within the cap: a deal that fits in 720 MiB gets the same tables (and nodes) under any cap."""
    import numpy as np

    from canfield_solver.search.arrays import FULL_LOAD, SearchTables

    def steps(cap_mb):
        t = SearchTables(4, cap_mb << 20)
        sizes = [(t.short.shape[0], t.grow_at(t.short))]
        while rows := t._grown_rows(t.short):
            assert t.short.nbytes + t.long.nbytes + rows * 16 <= cap_mb << 20
            t.short = np.zeros((rows, 2), np.uint64)
            sizes.append((rows, t.grow_at(t.short)))
        return sizes

    base = steps(720)
    assert base[-1] == (38_731_776, int(38_731_776 * FULL_LOAD))
    for cap_mb in (2_000, 11_000):
        big = steps(cap_mb)
        assert big[:len(base)] == base, cap_mb
        past = [rows for rows, _ in big[len(base) - 1:]]
        assert len(past) >= 2 and all(b == 2 * a for a, b in zip(past[:-2], past[1:-1])), past
        assert past[-1] <= 2 * past[-2]
    assert len(steps(11_000)) > len(steps(2_000))


@needs_jit
def test_a_table_of_any_size_searches_the_same_positions():
    """kernel.slot maps a hash onto any row count: a proof in tables whose last growth is not a
    power of two (16 MiB cap) visits exactly the nodes and positions of one in power-of-two tables."""
    big, small = solve(0), solve(0, max_memory_mb=16)
    assert small.stats["table_rows"] & (small.stats["table_rows"] - 1) != 0
    assert (small.verdict, small.nodes, small.positions) == (big.verdict, big.nodes, big.positions)
    assert big.verdict is Verdict.UNSOLVABLE


@needs_jit
def test_reference_solved_deals_are_solved_here():
    """Where the independent solver found a win under its narrower rules, ours must too."""
    rows = [r for r in reference_rows() if r["whole_pile_subset_verdict"] == "solved"]
    rows = sorted(rows, key=lambda r: int(r["whole_pile_subset_states"]))[:25]
    for row in rows:
        seed = int(row["seed"])
        for rules in ("canfield", "canfield-whole-pile"):
            r = solve(seed, rules, max_seconds=20)
            assert r.verdict is Verdict.SOLVED, (seed, rules, r.verdict)


def test_solve_from_mid_game_position():
    d = Deal.from_seed(2)
    full = solve(d).moves
    pos = Position(d)
    for m in full[:40]:
        pos.play(m)
    r = solve(pos)
    assert r.verdict is Verdict.SOLVED
    assert replay(pos.to_deal(), r.moves).position.is_won()


def test_bad_arguments():
    from canfield_solver import CanfieldError
    with pytest.raises(CanfieldError, match="max_nodes"):
        solve(2, max_nodes=-1)
    with pytest.raises(CanfieldError, match="takes a Deal"):
        solve("2")


# CLI -------------------------------------------------------------------------

def invoke(*args):
    return CliRunner().invoke(cli, list(args))


def test_cli_exit_codes_and_json_schema():
    r = invoke("solve", "--seed", "2", "--json")
    assert r.exit_code == 0
    out = json.loads(r.stdout)
    assert {"seed", "rules", "verdict", "moves", "nodes", "seconds", "best_score"} <= set(out)
    assert out["seed"] == 2 and out["rules"] == "canfield" and out["verdict"] == "solved"
    assert replay(Deal.from_seed(2), out["moves"]).position.is_won()
    assert invoke("solve", "--seed", "4").exit_code == 1
    r = invoke("solve", "--seed", "6", "--max-nodes", "100", "--json")
    assert r.exit_code == 3 and json.loads(r.stdout)["verdict"] == "unknown"


def test_cli_text_and_moves():
    r = invoke("solve", "--seed", "2", "--moves", "--rules", "canfield-whole-pile")
    assert r.exit_code == 0 and "solved" in r.output
    from canfield_solver.play.transcript import parse_steps

    moves = parse_steps("\n".join(r.output.strip().splitlines()[2:]))
    assert replay(Deal.from_seed(2, "canfield-whole-pile"), moves).position.is_won()


@pytest.mark.parametrize("args,pattern", [
    (["solve"], "exactly one of --seed"),
    (["solve", "--seed", "1", "--deal", "x.json"], "exactly one of --seed"),
    (["solve", "--seed", "-3"], "--seed"),
    (["solve", "--seed", "1", "--max-nodes", "0"], "--max-nodes"),
    (["solve", "--seed", "1", "--rules", "spider"], "unknown rules 'spider'"),
    (["solve", "--deal", "/nonexistent.json"], "cannot read deal file"),
])
def test_cli_bad_input_exit_2(args, pattern):
    r = invoke(*args)
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and pattern in lines[0] and "Traceback" not in r.output


def test_cli_moves_played(tmp_path):
    moves = solve(2).moves
    f = tmp_path / "played.txt"
    f.write_text("\n".join(moves[:30]))
    r = invoke("solve", "--seed", "2", "--moves-played", str(f), "--json")
    out = json.loads(r.stdout)
    assert r.exit_code == 0 and out["verdict"] == "solved" and out["moves_played"] == 30 and not out["stalled"]
    f.write_text("draw\nT1>T4\n")
    r = invoke("solve", "--seed", "0", "--moves-played", str(f))
    assert r.exit_code == 2 and "move 2" in r.output


def test_cli_moves_played_stalled(tmp_path):
    pos, played = play_until_stalled(0, 3)
    f = tmp_path / "played.txt"
    f.write_text("\n".join(played))
    r = invoke("solve", "--seed", "0", "--moves-played", str(f))
    assert r.exit_code == 1 and "stalled" in r.output
    assert solve(pos).verdict is Verdict.UNSOLVABLE  # the solver agrees


def test_readme_first_command_runs():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    first = next(ln for ln in readme.splitlines() if ln.startswith("pip install"))
    args = first.split("&&")[1].split("#")[0].split()
    assert args[:2] == ["canfield", "solve"]
    r = invoke(*args[1:])
    assert r.exit_code == 0 and "solved" in r.output
    from canfield_solver.play.transcript import parse_steps

    moves = parse_steps("\n".join(r.output.strip().splitlines()[2:]))
    assert replay(Deal.from_seed(int(args[args.index("--seed") + 1])), moves).position.is_won()


@needs_jit
@pytest.mark.parametrize("preset, column", [("solvitaire-canfield-strict", "whole_pile_subset"),
                                            ("solvitaire-canfield", "sequences_subset")])
def test_compat_preset_agrees_deal_by_deal_with_reference_solver(preset, column):
    """Under the published solver's own rules our verdict must equal its verdict."""
    rows = [r for r in reference_rows() if r[f"{column}_verdict"] in ("solved", "unsolvable")
            and int(r[f"{column}_states"]) < 300_000]
    assert len(rows) > 100
    for row in rows:
        r = solve(int(row["seed"]), preset, max_seconds=20)
        assert r.verdict.value == row[f"{column}_verdict"], (row["seed"], r.verdict)


@needs_jit
def test_sequences_wins_wherever_the_published_solver_wins():
    """Its default Canfield's moves are a subset of canfield-sequences: its wins must be ours."""
    rows = [r for r in reference_rows() if r["sequences_subset_verdict"] == "solved"
            and int(r["sequences_subset_states"]) < 300_000][:40]
    for row in rows:
        assert solve(int(row["seed"]), "canfield-sequences", max_seconds=20).solved, row["seed"]


def test_depth_cap_gives_unknown_not_unsolvable(monkeypatch):
    import canfield_solver.search.arrays as S
    monkeypatch.setattr(S, "MAX_LEVELS", 8)
    r = solve(9)  # unsolvable with the full stack; a cut search must not claim it
    assert r.verdict is Verdict.UNKNOWN and r.limit == "depth"


def test_ctrl_c_ends_cleanly_with_unknown():
    def interrupt(nodes, seconds):
        raise KeyboardInterrupt

    r = solve(6, progress=interrupt)
    assert r.verdict is Verdict.UNKNOWN and r.limit == "interrupted" and r.nodes > 0


def test_public_api_names():
    import subprocess
    import sys
    code = ("import sys, canfield_solver as c; assert 'numba' not in sys.modules; "
            "r = c.solve(c.Deal.from_seed(2)); assert r.verdict is c.Verdict.SOLVED; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


@needs_jit
def test_full_deals_use_both_tables_and_keep_their_verdicts():
    """Most positions of a real deal fit a short key; some (long columns, many talon cards) do not."""
    for seed, verdict in ((253, Verdict.SOLVED), (210, Verdict.UNSOLVABLE)):  # as in tests/data/verdicts.csv
        r = solve(seed, max_nodes=3_000_000)
        assert r.verdict is verdict
        assert 0 < r.stats["short_keys"] < r.positions


def test_further_limits_raise_the_one_that_stopped_the_search():
    from canfield_solver.solver import further_limits

    # The stopping limit four times higher; memory only as far as half the machine's, with seconds beside it.
    assert further_limits("memory", 60.0, None, 16, None) == {"max_memory_mb": 64, "max_seconds": 240.0}
    assert further_limits("memory", 60.0, None, 2 ** 40, None) is None
    assert further_limits("seconds", 0.5, None, 720, None) == {"max_seconds": 2.0}
    assert further_limits("nodes", 60.0, 1000, 720, None) == {"max_nodes": 4000}
    # Idle cores are offered only to a one-thread search that can take them.
    cores = os.cpu_count() or 1
    assert further_limits("seconds", 1.0, None, 720, 1) == ({"max_seconds": 4.0, "workers": cores} if cores > 1
                                                            else {"max_seconds": 4.0})
    assert further_limits("interrupted", 60.0, None, 720, 1) is None and further_limits(None, 60.0, None, 720, 1) is None


def test_further_memory_is_a_share_of_the_memory_free(monkeypatch):
    """The larger cap offered is bounded as the machine-sized default is: half of the memory free now
    (memory.py's reading), not of the memory installed."""
    from canfield_solver.solver import further_limits

    monkeypatch.setenv("CANFIELD_MEMORY_FREE_MB", "1000")
    assert further_limits("memory", 60.0, None, 400, None) == {"max_memory_mb": 500, "max_seconds": 240.0}
    assert further_limits("memory", 60.0, None, 100, None) == {"max_memory_mb": 400, "max_seconds": 240.0}
    monkeypatch.setenv("CANFIELD_MEMORY_FREE_MB", "600")
    assert further_limits("memory", 60.0, None, 400, None) is None  # 300 MiB would be no more


def test_decide_calls_a_stalled_position_lost_without_a_search():
    from canfield_solver.solver import decide

    pos, _ = play_until_stalled(0, 3)
    r = decide(pos)
    assert r.stalled and r.verdict is Verdict.UNSOLVABLE and r.nodes == 0
    assert not decide(Position(Deal.from_seed(2))).stalled
