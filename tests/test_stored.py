"""``canfield stored`` / ``studies.stores.inventory``: what a result store holds, read from the store alone."""

import json

import pytest
from click.testing import CliRunner

from canfield_solver.engine.rules import PRESETS
from canfield_solver.studies.stores.inventory import seed_spans, store_contents
from canfield_solver.studies.stores.parquet import export_parquet
from canfield_solver.studies.stores.sqlite import ResultStore, StoredResult
from canfield_solver.studies.two_phase import followup_rules
from canfield_solver.surfaces.cli import cli

CANFIELD = PRESETS["canfield"]
RAINBOW = PRESETS["rainbow"]


def _row(rules, seed, verdict, max_seconds=2.0, max_nodes=None):
    return StoredResult(rules.name, seed, verdict, 10, 0.1, 52 if verdict == "solved" else 7, 0, 0,
                        max_seconds, None, None, None, "9.9.9", max_nodes)


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "s.sqlite"
    with ResultStore(path) as st:
        st.put_many(CANFIELD, [_row(CANFIELD, s, v) for s, v in
                               [(0, "solved"), (1, "solved"), (2, "unknown"), (3, "unsolvable"), (7, "solved"),
                                (8, "unknown")]])
        fu = followup_rules(CANFIELD)
        st.put_many(fu, [_row(fu, 2, "unsolvable", max_seconds=300.0)])
        st.put_many(RAINBOW, [_row(RAINBOW, 10**12, "unknown", max_seconds=None, max_nodes=5000)])
    return path


def test_seed_spans_are_half_open_runs():
    assert seed_spans([5, 1, 2, 3, 9, 2]) == [(1, 4), (5, 6), (9, 10)]
    assert seed_spans([]) == []


def test_the_store_says_rules_counts_spans_and_limits(store):
    held = {h.rules: h for h in store_contents(db=store)}
    assert set(held) == {"canfield", "canfield+followup", "rainbow"}
    c = held["canfield"]
    assert c.deals == 6 and c.verdicts == {"solved": 3, "unknown": 2, "unsolvable": 1}
    assert c.spans == [(0, 4), (7, 9)] and c.limits == {"2 s": 6} and c.versions == ["9.9.9"]
    assert held["canfield+followup"].limits == {"300 s": 1}
    assert held["rainbow"].spans == [(10**12, 10**12 + 1)] and held["rainbow"].limits == {"5,000 nodes": 1}


def test_the_command_lists_each_rules_set_and_its_json(store):
    r = CliRunner().invoke(cli, ["stored", "--db", str(store)])
    assert r.exit_code == 0, r.output
    assert "canfield: 6 deals (3 solved / 1 unsolvable / 2 unknown); seeds 0:4, 7:9; searched 6 at 2 s" in r.output
    assert "3 rules sets in" in r.output
    r = CliRunner().invoke(cli, ["stored", "--db", str(store), "--json"])
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [d["rules"] for d in rows] == ["canfield", "canfield+followup", "rainbow"]
    assert rows[0]["spans"] == [[0, 4], [7, 9]]


def test_a_parquet_export_holds_the_same(store, tmp_path):
    pytest.importorskip("pyarrow")
    out = tmp_path / "e.parquet"
    with ResultStore(store, create=False) as st:
        export_parquet(st.iter_rows(), str(out))
    assert [h.to_dict() for h in store_contents(parquet=out)] == [h.to_dict() for h in store_contents(db=store)]


def test_a_dataset_with_parts_from_before_threads_were_kept(tmp_path):
    """A --parquet-dir dataset whose older parts lack the threads column (written before rows kept it) and
    whose newer parts have it: each row reads back as written, and the limits name the threads where known."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from canfield_solver.studies.stores.parquet import ParquetResults, parquet_schema
    from canfield_solver.studies.stores.sqlite import rules_id

    fu = followup_rules(CANFIELD)
    path = tmp_path / "ds"
    with ParquetResults(path) as ds:
        ds.put_many(fu, [_row(fu, 5, "solved", max_seconds=300.0)])
    part = next((path / f"rules_id={rules_id(fu)}").iterdir())
    old = pq.read_table(part)
    old = old.drop_columns(["threads"])  # as a part written before the column existed
    assert old.schema.names == [n for n in parquet_schema(pa).names if n not in ("threads", "rules_id")]
    pq.write_table(old, part)
    with ParquetResults(path) as ds:
        ds.put_many(fu, [StoredResult(fu.name, 9, "unsolvable", 10, 4.0, 7, 0, 0, 300.0, None, threads=2)])
    with ParquetResults(path, create=False) as ds:
        assert [(x.seed, x.threads) for x in ds.results_in(fu, [(0, 100)])] == [(5, None), (9, 2)]
    held = {h.rules: h for h in store_contents(parquet=path)}
    assert held["canfield+followup"].limits == {"300 s": 1, "300 s, 2 threads": 1}


@pytest.mark.parametrize("args, says", [
    ([], "give exactly one of --db FILE or --parquet PATH"),
    (["--db", "nowhere.sqlite"], "no result store at 'nowhere.sqlite'"),
    (["--parquet", "nowhere"], "no result store at 'nowhere'"),
])
def test_bad_input_is_one_line(args, says):
    r = CliRunner().invoke(cli, ["stored", *args])
    assert r.exit_code == 2 and says in r.output and "Traceback" not in r.output


def test_a_file_that_is_no_store_is_named(tmp_path):
    f = tmp_path / "notes.txt"
    f.write_text("hello")
    for opt in ("--db", "--parquet"):
        if opt == "--parquet":
            pytest.importorskip("pyarrow")
        r = CliRunner().invoke(cli, ["stored", opt, str(f)])
        assert r.exit_code == 2 and "notes.txt" in r.output and "Traceback" not in r.output
        assert f.read_text() == "hello"  # nothing written
