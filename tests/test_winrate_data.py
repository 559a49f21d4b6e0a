"""The committed win-rate dataset (benchmarks/results/winrates) is what the tables are counted from: check it.

Rules that only add moves can only win more: a deal won under the narrower
rules and proved lost under the wider ones would be a wrong verdict (or a
row stored under the wrong rules). Same seed, same deal: the deals of these
rules share one layout (SPEC §2), which the first test pins.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ds = pytest.importorskip("pyarrow.dataset")

from canfield_solver import Deal  # noqa: E402
from canfield_solver.engine.rules import Rules  # noqa: E402
from canfield_solver.studies.two_phase import FOLLOWUP_SUFFIX as FOLLOWUP  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATASET = ROOT / "benchmarks" / "results" / "winrates"

# (narrower, wider): every move of the first is a move of the second.
INCLUDED = [
    ("canfield-draw3-passes1", "canfield-draw3-passes2"), ("canfield-draw3-passes2", "canfield-draw3-passes3"),
    ("canfield-draw3-passes3", "canfield"),
    ("canfield-draw1-passes1", "canfield-draw1-passes2"), ("canfield-draw1-passes2", "canfield-draw1-passes3"),
    ("canfield-draw1-passes3", "canfield-draw1"),
    ("canfield-whole-pile", "canfield"), ("canfield", "canfield-sequences"), ("canfield", "pysolfc-canfield"),
    ("storehouse-aces-strict", "storehouse-aces"),
]


@pytest.fixture(scope="module")
def rows() -> dict[str, dict[int, tuple[str, float]]]:
    t = ds.dataset(DATASET, format="parquet", partitioning="hive").to_table(
        columns=["rules", "seed", "verdict", "max_seconds"])
    out: dict[str, dict[int, tuple[str, float]]] = {}
    for r, s, v, m in zip(*(t.column(c).to_pylist() for c in ("rules", "seed", "verdict", "max_seconds"))):
        assert s not in out.setdefault(r, {}), f"{r}: seed {s} stored twice"
        out[r][s] = (v, m)
    return out


def _final(rows, name: str) -> dict[int, str]:
    v = {s: x[0] for s, x in rows[name].items()}
    for s, (verdict, _) in rows.get(name + FOLLOWUP, {}).items():
        if verdict != "unknown":
            v[s] = verdict
    return v


def test_the_rules_compared_share_one_layout():
    for seed in (0, 7, 12345):
        deals = [Deal.from_seed(seed, n) for n in ("canfield", "canfield-sequences", "canfield-whole-pile")]
        deals.append(Deal.from_seed(seed, Rules.from_json_file(str(ROOT / "benchmarks/rules/canfield-draw1-passes2.json"))))
        assert len({(d.reserve, d.tableau, d.stock, d.foundations) for d in deals}) == 1
        a, b = Deal.from_seed(seed, "storehouse-aces"), Deal.from_seed(seed, "storehouse-aces-strict")
        assert (a.reserve, a.tableau, a.stock) == (b.reserve, b.tableau, b.stock)


def test_wider_rules_never_lose_a_deal_narrower_rules_win(rows):
    compared = 0
    for narrow, wide in INCLUDED:
        n, w = _final(rows, narrow), _final(rows, wide)
        both = set(n) & set(w)
        bad = sorted(s for s in both if n[s] == "solved" and w[s] == "unsolvable")
        assert not bad, f"won under {narrow} but proved lost under {wide}: seeds {bad[:10]}"
        compared += sum(1 for s in both if n[s] == "solved")
    assert compared > 3_000  # the check has something to bite on (3,729 pairs when written)


def test_followups_are_of_first_pass_unknowns_at_a_larger_limit(rows):
    followed = 0
    for name, seeds in rows.items():
        if not name.endswith(FOLLOWUP):
            continue
        first = rows[name[: -len(FOLLOWUP)]]
        for s, (_, limit) in seeds.items():
            verdict, first_limit = first[s]
            assert verdict == "unknown", f"{name}: seed {s} followed up but {verdict} in the first pass"
            assert limit > first_limit
            followed += 1
    assert followed >= 100


def test_each_first_pass_covers_a_prefix_of_the_seeds(rows):
    # The tables count seeds 0..N-1; a gap would make a row's deal count lie.
    for name, seeds in rows.items():
        if not name.endswith(FOLLOWUP):
            assert sorted(seeds) == list(range(len(seeds))), name
