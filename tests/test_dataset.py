"""Studies written as a partitioned Parquet dataset (``--parquet-dir``): same rows as the SQLite store, resume,
a SIGKILL mid-study, one writer at a time, bad directories."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest
from click.testing import CliRunner
from test_solver import needs_jit

from canfield_solver.studies.stores.sqlite import StoredResult, StoreError
from canfield_solver.studies.study import run_study
from canfield_solver.surfaces.cli import cli

pq = pytest.importorskip("pyarrow.parquet")
pads = pytest.importorskip("pyarrow.dataset")

from canfield_solver.studies.stores.parquet import ParquetResults  # noqa: E402  (needs pyarrow)

NODES = 100_000


def _rows_of(path):
    """(seed, verdict, nodes) of every row, read by pyarrow as one Hive-partitioned table (as a user would)."""
    import pyarrow as pa

    part = pads.partitioning(pa.schema([("rules_id", pa.string())]), flavor="hive")
    t = pads.dataset(str(path), format="parquet", partitioning=part).to_table()
    return sorted(zip(*(t.column(c).to_pylist() for c in ("seed", "verdict", "nodes")))), t


@pytest.fixture(scope="module")
def want(tmp_path_factory):
    db = tmp_path_factory.mktemp("db") / "s.sqlite"
    r = CliRunner().invoke(cli, ["winrate", "--seeds", "0:40", "--max-nodes", str(NODES), "--jobs", "1", "-q",
                                 "--db", str(db), "--json"])
    assert r.exit_code == 0, r.output
    rows = sqlite3.connect(db).execute("SELECT seed, verdict, nodes FROM results ORDER BY seed").fetchall()
    return rows, json.loads(r.stdout)


@needs_jit
def test_dataset_study_has_the_stores_rows_and_resumes(tmp_path, want):
    rows, summary = want
    d = tmp_path / "ds"
    r = CliRunner().invoke(cli, ["winrate", "--seeds", "0:25", "--max-nodes", str(NODES), "--jobs", "1", "-q",
                                 "--parquet-dir", str(d), "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["searched"] == 25, r.output
    r = CliRunner().invoke(cli, ["winrate", "--seeds", "0:40", "--max-nodes", str(NODES), "--jobs", "1", "-q",
                                 "--parquet-dir", str(d), "--json"])
    got = json.loads(r.stdout)
    assert r.exit_code == 0 and got["searched"] == 15 and got["reused"] == 25
    assert (got["won"], got["lost"], got["unknown"]) == (summary["won"], summary["lost"], summary["unknown"])
    table_rows, t = _rows_of(d)
    assert table_rows == rows  # every deal once, the same verdicts and node counts as the SQLite store
    from canfield_solver.engine.rules import get_rules
    from canfield_solver.studies.stores.sqlite import rules_id

    rid = rules_id(get_rules("canfield"))
    assert set(t.column("rules_id").to_pylist()) == {rid}  # the partition names the rules
    parts = sorted(os.listdir(d / f"rules_id={rid}"))
    assert len(parts) == 2 and parts[0].startswith("part-0-24-") and parts[1].startswith("part-25-39-"), parts
    # --summary from the dataset: the same counts and intervals, nothing searched.
    r = CliRunner().invoke(cli, ["winrate", "--summary", "--seeds", "0:40", "--parquet", str(d), "--json"])
    s = json.loads(r.stdout)
    assert r.exit_code == 0 and s["ci95"] == summary["ci95"] and s["won"] == summary["won"]
    r = CliRunner().invoke(cli, ["winrate", "--summary", "--seeds", "10:20", "--parquet", str(d), "--json"])
    assert json.loads(r.stdout)["deals"] == 10


@pytest.mark.integration
@needs_jit
def test_dataset_survives_sigkill_and_the_rerun_completes_it_once(tmp_path, want):
    """Killed mid-study, the dataset holds the parts flushed so far (whole files only); the re-run searches
    the rest and every deal ends with exactly one row."""
    rows, _ = want
    d = tmp_path / "ds"
    script = textwrap.dedent(f"""
        import sys
        from canfield_solver.studies.stores.parquet import ParquetResults
        from canfield_solver.studies.study import run_study
        with ParquetResults({str(d)!r}, flush_rows=2) as ds:
            run_study("canfield", range(40), jobs=1, max_nodes={NODES}, store=ds, chunk=2)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    part_dir = None
    deadline = time.time() + 120
    while time.time() < deadline:
        time.sleep(0.2)
        if os.path.isdir(d):
            subs = [n for n in os.listdir(d) if n.startswith("rules_id=")]
            if subs and len([n for n in os.listdir(d / subs[0]) if n.endswith(".parquet")]) >= 3:
                part_dir = d / subs[0]
                break
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert part_dir is not None, "the study wrote no parts"
    before = _rows_of(d)[0]
    assert 6 <= len(before) < 40 and all(r in rows for r in before)
    with ParquetResults(d) as ds:  # the dead writer's lock went with it
        res = run_study("canfield", range(40), jobs=1, max_nodes=NODES, store=ds)
    assert res.reused == len(before) and res.searched == 40 - len(before)
    assert _rows_of(d)[0] == rows


def test_one_writer_at_a_time_and_bad_directories(tmp_path):
    d = tmp_path / "ds"
    with ParquetResults(d):
        with pytest.raises(StoreError, match="being written by another study"):
            ParquetResults(d)
        ParquetResults(d, create=False).close()  # reading needs no lock
    ParquetResults(d).close()  # free again once the first closed
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="not a canfield-solver Parquet dataset"):
        ParquetResults(tmp_path / "other")
    assert (tmp_path / "other" / "notes.txt").read_text() == "mine" and os.listdir(tmp_path / "other") == ["notes.txt"]
    (tmp_path / "f").write_text("x")
    with pytest.raises(StoreError, match="is a file"):
        ParquetResults(tmp_path / "f")
    with pytest.raises(StoreError, match="not a canfield-solver Parquet dataset"):
        ParquetResults(tmp_path / "nothing", create=False)
    (d / "_canfield.json").write_text("{}")
    with pytest.raises(StoreError, match="damaged or not ours"):
        ParquetResults(d)
    r = CliRunner().invoke(cli, ["winrate", "--seeds", "0:2", "--parquet-dir", str(tmp_path / "ds2"),
                                 "--db", str(tmp_path / "s.sqlite")])
    assert r.exit_code == 2 and "not both" in r.output and not os.path.exists(tmp_path / "s.sqlite")
    r = CliRunner().invoke(cli, ["winrate", "--summary", "--seeds", "0:2", "--parquet", str(tmp_path / "other")])
    assert r.exit_code == 2 and "not a canfield-solver Parquet dataset" in r.output


def _row(seed, verdict="solved"):
    return StoredResult("canfield", seed, verdict, 10, 0.01, 52, 80, 0, 30.0, None, None, None, "test")


def test_parts_are_found_by_their_names_and_huge_seeds_round_trip(tmp_path):
    """A window opens only the parts whose seed span meets it; seeds up to 2^64-1 are kept exactly; a damaged
    part is a one-line error."""
    from canfield_solver.engine.rules import get_rules
    from canfield_solver.studies.stores.sqlite import rules_id

    r = get_rules("canfield")
    top = 2**64 - 1
    with ParquetResults(tmp_path / "ds", flush_rows=3) as ds:
        ds.put_many(r, [_row(s) for s in (5, 1, 3)])              # part 1-5
        ds.put_many(r, [_row(s, "unknown") for s in (10, 12, 11)])  # part 10-12
        ds.put_many(r, [_row(top), _row(top - 1, "unsolvable"), _row(2**63)])
        ds.put_many(r, [_row(s) for s in (20, 27, 29)])  # two parts whose spans overlap (workers finish
        ds.put_many(r, [_row(s) for s in (22, 23, 28)])  # out of order)
        assert ds.done_in(r, None, 0, 2**64) == {1, 3, 5, 10, 11, 12, 20, 22, 23, 27, 28, 29,
                                                    2**63, top - 1, top}
        assert ds.done_in(r, None, 4, 11) == {5, 10}
        assert ds.done_in(r, None, 24, 29) == {27, 28} and ds.done_in(r, None, 21, 22) == set()
        assert ds._parts(rules_id(r), 6, 10) == [] and len(ds._parts(rules_id(r), 5, 6)) == 1
        assert ds.count_verdicts(r, [(0, 2**64)]) == {"solved": 11, "unsolvable": 1, "unknown": 3}
        assert [x.seed for x in ds.results_in(r, [(2**63, 2**64)])] == [2**63, top - 1, top]
    part = next(p for p in (tmp_path / "ds").rglob("part-1-5-*.parquet"))
    part.write_bytes(b"not parquet at all")
    with ParquetResults(tmp_path / "ds", create=False) as ds, pytest.raises(StoreError, match="not a readable part"):
        ds.count_verdicts(r, [(0, 10)])


def test_parts_read_once_while_they_fit_the_cache_and_evicted_past_it(tmp_path, monkeypatch):
    """A follow-up asks for a few seeds at a time over many small parts: each part is read from disk once while
    the kept rows fit ``_CACHE_ROWS``, parts whose seeds miss a window are not opened whole, and past the bound
    the oldest parts go (the answers stay the same)."""
    from canfield_solver.engine.rules import get_rules
    from canfield_solver.studies.stores import parquet as dataset

    r = get_rules("canfield")
    with ParquetResults(tmp_path / "ds", flush_rows=2) as ds:
        for s in range(0, 40, 4):  # ten parts of two seeds each: {0, 100}, {4, 104}, ... spans overlap widely
            ds.put_many(r, [_row(s), _row(s + 100, "unknown")])
        reads: list[str] = []
        table = ds._table
        monkeypatch.setattr(ds, "_table", lambda path, cols: reads.append(os.path.basename(path)) or table(path, cols))
        for s in range(0, 40, 4):
            assert [x.seed for x in ds.results_in(r, [(s, s + 1)])] == [s]
        assert ds.count_verdicts(r, [(0, 200)]) == {"solved": 10, "unsolvable": 0, "unknown": 10}
        assert ds.unknown_in(r, [(0, 200)]) == list(range(100, 140, 4))
        # ten seed reads (each part once) and ten whole reads (each seed's own part), nothing read twice
        assert len(reads) == 20 and len(set(reads)) == 10
        monkeypatch.setattr(dataset, "_CACHE_ROWS", 5)
        ds._cache.clear()
        ds._cached_rows = 0
        reads.clear()
        assert ds.done_in(r, None, 0, 200) == set(range(0, 40, 4)) | set(range(100, 140, 4))
        assert ds._cached_rows <= 5 and len(ds._cache) == 2
        assert ds.done_in(r, None, 0, 200) == set(range(0, 40, 4)) | set(range(100, 140, 4))
        assert len(reads) == 20  # too small to keep them: every query reads every part again
