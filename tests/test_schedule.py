"""The schedule as data (``search.schedule``, ``schedules.json``): read back and checked, printed by
``canfield rules NAME`` as docs/solver.md quotes it, run by one loop in which the exact search goes on from
its probe instead of searching those nodes again, every phase's nodes counted against ``max_nodes``."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from canfield_solver import Deal, Position, get_rules, schedule_of, solve
from canfield_solver.engine.rules import PRESETS
from canfield_solver.search import schedule
from canfield_solver.surfaces.cli import cli

from helpers import needs_jit

ROOT = Path(__file__).resolve().parents[1]


def test_the_data_file_reads_back_as_the_schedules_it_names():
    data = json.loads(resources.files("canfield_solver.search").joinpath("schedules.json").read_text())
    parsed = schedule.parse(data)
    assert set(parsed) == set(schedule.FAMILIES)
    for name, rows in parsed.items():
        assert [r.to_dict() for r in rows] == data["families"][name]  # nothing dropped or added on the way
        assert rows[-1].phase == "exact"
    assert [r.phase for r in parsed["exact"]] == ["exact"]


@pytest.mark.parametrize("bad", [
    [{"phase": "nested", "share": 0.1}],                                   # no exact search last
    [{"phase": "exact"}, {"phase": "exact"}],                              # two
    [{"phase": "nested", "share": 0.1}, {"phase": "probe", "nodes": 5}, {"phase": "exact"}],  # a probe not first
    [{"phase": "teleport", "share": 0.1}, {"phase": "exact"}],             # no such phase
    [{"phase": "find", "share": 0.1, "when": "sometimes"}, {"phase": "exact"}],  # no such condition
    [{"phase": "adapt", "share": 1.5}, {"phase": "exact"}],                # more than what is left
])
def test_a_schedule_it_cannot_run_is_refused(bad):
    with pytest.raises(ValueError):
        schedule.parse({"families": {"any-suit": bad}})


def test_each_preset_has_the_family_its_rules_call_for():
    fam = {name: schedule.family(r) for name, r in PRESETS.items()}
    assert fam["canfield"] == fam["canfield-draw1"] == fam["storehouse"] == "exact"
    assert fam["rainbow"] == fam["chameleon"] == "any-suit"
    assert fam["superior-canfield"] == "gaps-wait"


def test_rules_prints_a_presets_fields_and_its_schedule():
    out = CliRunner().invoke(cli, ["rules", "rainbow"])
    assert out.exit_code == 0, out.output
    assert '  build                 "any"' in out.output
    assert out.output.rstrip().endswith("\n".join(schedule_of("rainbow")))
    assert [ln.split()[1] for ln in schedule_of("rainbow")[1:]] == [r.phase for r in schedule.rows_for(
        get_rules("rainbow"))]
    assert CliRunner().invoke(cli, ["rules", "rainbow", "--rules-file", "x.json"]).exit_code == 2


def test_the_solver_page_quotes_the_printed_schedule():
    """docs/solver.md's block of `canfield rules rainbow`'s schedule is what the command prints now."""
    page = (ROOT / "docs" / "solver.md").read_text()
    block = re.search(r"```console\n( *)\$ canfield rules rainbow\n(.*?)\n *```", page, re.S)
    assert block, "docs/solver.md no longer quotes `canfield rules rainbow`"
    indent = len(block.group(1))
    quoted = [ln[indent:] for ln in block.group(2).splitlines() if ln.strip() != "..."]
    printed = CliRunner().invoke(cli, ["rules", "rainbow"]).output.splitlines()
    assert quoted == printed[-len(quoted):]


@needs_jit
@pytest.mark.parametrize("seed", [650002, 700000])
def test_the_exact_search_goes_on_from_its_probe_node_for_node(monkeypatch, seed):
    """A schedule of the probe and the exact search alone searches as the exact search alone does: the same
    verdict, nodes and positions (before, the exact search started again, the probe's nodes searched twice)."""
    rules = get_rules("rainbow")
    start = Position(Deal.from_seed(seed, rules))
    alone = solve(start, max_nodes=600_000, method="depth-first")
    monkeypatch.setitem(schedule.SCHEDULES, "any-suit", (schedule.Row("probe", nodes=100_000),
                                                         schedule.Row("exact")))
    parts = solve(start, max_nodes=600_000)
    assert [p["name"] for p in parts.phases()] == ["probe", "exact"]
    assert (parts.verdict, parts.nodes, parts.positions, parts.best_score) == (
        alone.verdict, alone.nodes, alone.positions, alone.best_score)
    assert sum(p["nodes"] for p in parts.phases()) == parts.nodes


@needs_jit
def test_every_phase_is_in_the_json_and_the_node_limit_counts_them_all():
    start = Position(Deal.from_seed(700000, get_rules("rainbow")))
    r = solve(start, max_nodes=3_000_000)
    ran = r.to_dict()["phases"]
    assert [p["name"] for p in ran][0] == "probe" and ran[-1]["name"] == "exact", ran
    assert sum(p["nodes"] for p in ran) == r.nodes <= 3_000_000 + 10_000
    assert {"name", "seconds", "nodes", "outcome"} <= set(ran[0])
    lone = solve(2).to_dict()["phases"]
    assert lone == [{"name": "exact", "seconds": lone[0]["seconds"], "nodes": solve(2).nodes, "outcome": "won"}]
