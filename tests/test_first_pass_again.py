"""benchmarks/first_pass_again.py: a win-rate row's first pass searched again, its follow-ups kept where they apply.

The script rewrites committed data (benchmarks/results/winrates), so these tests run it on a dataset of their
own: a first pass stored as an older build left it (a deal this build decides stored unknown), a follow-up
of that deal and one of a deal that stays unknown.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from canfield_solver.engine.rules import get_rules
from canfield_solver.studies.stores.parquet import ParquetResults
from canfield_solver.studies.stores.sqlite import StoredResult, rules_id
from canfield_solver.studies.two_phase import followup_rules

pytestmark = pytest.mark.integration  # two real first passes at 2 s, in processes of their own
ROOT = Path(__file__).resolve().parent.parent
WON, HARD = 2, 35  # seed 2 is won in milliseconds; seed 35 takes the strict profile about a minute


def _row(name: str, seed: int, verdict: str, seconds: float) -> StoredResult:
    return StoredResult(rules=name, seed=seed, verdict=verdict, nodes=1, seconds=0.1, best_score=0,
                        solution_length=0, redeals=0, max_seconds=seconds, limit_hit=None)


def _dataset(path: Path, first_won: str) -> None:
    rules = get_rules("canfield")
    with ParquetResults(str(path)) as st:
        st.put_many(rules, [_row("canfield", WON, first_won, 2.0), _row("canfield", HARD, "unknown", 2.0)])
        fr = followup_rules(rules)
        st.put_many(fr, [_row(fr.name, WON, "solved", 300.0), _row(fr.name, HARD, "unknown", 300.0)])


def _run(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "first_pass_again.py"), "--rules", "canfield",
                           "--seeds", f"{WON},{HARD}", "--max-seconds", "2", "--jobs", "2",
                           "--dataset", str(path / "data"), "--backup", str(path / "before")],
                          capture_output=True, text=True, timeout=300)


def _seeds(part: Path) -> dict[int, str]:
    import pyarrow.parquet as pq

    return {int(r["seed"]): r["verdict"] for f in part.glob("*.parquet") for r in pq.read_table(f).to_pylist()}


def test_a_deal_decided_now_leaves_the_sample_and_one_still_unknown_stays(tmp_path):
    pytest.importorskip("pyarrow")
    _dataset(tmp_path / "data", first_won="unknown")
    p = _run(tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    rules = get_rules("canfield")
    first = tmp_path / "data" / f"rules_id={rules_id(rules)}"
    follow = tmp_path / "data" / f"rules_id={rules_id(followup_rules(rules))}"
    assert _seeds(first) == {WON: "solved", HARD: "unknown"}  # searched again: the old unknown is decided
    assert _seeds(follow) == {HARD: "unknown"}  # the decided deal's follow-up left the sample
    assert _seeds(tmp_path / "before" / follow.name) == {WON: "solved"}  # and was kept aside, as was the old pass
    assert _seeds(tmp_path / "before" / first.name) == {WON: "unknown", HARD: "unknown"}
    assert "newly decided 1 (1 won)" in p.stdout and "1 kept" in p.stdout


def test_a_deal_with_two_verdicts_stops_it_and_leaves_the_follow_ups_alone(tmp_path):
    pytest.importorskip("pyarrow")
    _dataset(tmp_path / "data", first_won="unsolvable")  # an older "build" that proved a won deal lost
    p = _run(tmp_path)
    assert p.returncode == 1 and "VERDICTS DIFFER on seeds [2]" in p.stderr
    follow = tmp_path / "data" / f"rules_id={rules_id(followup_rules(get_rules('canfield')))}"
    assert _seeds(follow) == {WON: "solved", HARD: "unknown"}
