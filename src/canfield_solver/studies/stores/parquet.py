"""Study results as a partitioned Parquet dataset, for runs too big for one SQLite file.

``canfield winrate --parquet-dir DIR`` (or ``run_study(store=ParquetResults(DIR))``)
writes results as Hive-partitioned Parquet, the layout pandas, pyarrow,
DuckDB, Spark and Dask read as one table::

    DIR/_canfield.json                                  marks the directory as ours
    DIR/rules_id=<id>/part-<first>-<last>-<writer>-<n>.parquet

Each part holds the rows of one flush (up to ``flush_rows`` rows, or what
``flush_seconds`` gathered), sorted by seed; ``first`` and ``last`` in its
name are its lowest and highest seed, so a study resuming in a window of
seeds opens only the parts that overlap it. The seeds and verdicts of the
parts last read are kept, up to about a million rows (16 bytes a row),
whatever the size of the dataset: a follow-up's many small parts are read
from disk once, not once a batch. Each part is written to a
temporary name and renamed: a reader never sees half a file, and a study
killed with SIGKILL loses only the rows it had not flushed (at most
``flush_seconds`` of work), which the next run searches again.

What it does not do, by design (use the SQLite store, ``--db``, for these):

- Claims. One study writes to a dataset at a time (an exclusive lock on
  ``DIR/.lock``); a second gets a one-line error instead of repeating the
  work. Many machines divide one study through ``--db``, or through one
  parent on a Dask cluster writing here.
- Re-searching. A deal with a row in the dataset is never searched again,
  unknowns included, so every deal has exactly one row.

The other Parquet helpers live here too: ``pyarrow_modules`` (pyarrow, or a one-line error naming the
extra), ``parquet_schema`` (a result row's Arrow schema), ``export_parquet`` (a SQLite store's rows to one
file, ``canfield export --parquet``) and ``parquet_verdicts`` (verdict counts read back from such a file).
"""

from __future__ import annotations

import bisect
import json
import os
import re
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Iterable

from ...errors import install_hint
from ...files import replacing, write_atomically
from ...solver import Verdict, verdict_counts
from .sqlite import (
    COLUMNS,
    RulesKey,
    StoredResult,
    StoreError,
    owner_id,
    rules_id,
)

if TYPE_CHECKING:
    import numpy as np

__all__ = ["ParquetResults"]

_Table = Any  # a pyarrow.Table: pyarrow is an optional extra, with no annotations
_Arrow = Any  # pyarrow and pyarrow.parquet, the modules

MARKER = "_canfield.json"
FORMAT = "canfield-solver-parquet-dataset"
_PART = re.compile(r"^part-(\d+)-(\d+)-[A-Za-z0-9_.-]+-\d+\.parquet$")
_CACHE_ROWS = 1 << 20  # seeds and verdicts kept in memory: about 16 MiB
_VERDICTS = {v.value: v.value for v in Verdict}  # one str object each, shared by every cached row


class ParquetResults:
    """A Parquet dataset of results with the store interface a study uses (see the module's notes).

    ``create=False`` opens an existing dataset for reading (``winrate --summary``): no lock is taken.
    """

    def __init__(self, path: str | os.PathLike[str], *, create: bool = True, flush_rows: int = 65_536,
                 flush_seconds: float = 120.0):
        self.pa, self.pq = pyarrow_modules()
        self.path = os.fspath(path)
        self.flush_rows, self.flush_seconds = flush_rows, flush_seconds
        self._lock_fd: int | None = None
        self._buffer: dict[str, tuple[RulesKey, list[dict[str, Any]]]] = {}
        self._last_flush = time.monotonic()
        self._index: dict[str, tuple[list[int], list[int], list[str]]] = {}
        self._cache: OrderedDict[str, tuple[_Table, list[str]]] = OrderedDict()
        self._cached_rows = 0
        self._writer = re.sub(r"[^A-Za-z0-9_.-]", "_", owner_id())
        self._seq = 0
        marker = os.path.join(self.path, MARKER)
        if os.path.isdir(self.path) and os.path.exists(marker):
            self._check_marker(marker)
        elif not create:
            raise StoreError(f"{self.path!r} is not a canfield-solver Parquet dataset (no {MARKER} in it)")
        elif os.path.exists(self.path) and not os.path.isdir(self.path):
            raise StoreError(f"{self.path!r} is a file; --parquet-dir needs a directory (new or a dataset)")
        elif os.path.isdir(self.path) and any(not n.startswith(".") for n in os.listdir(self.path)):
            raise StoreError(f"{self.path!r} is a directory that is not a canfield-solver Parquet dataset; "
                             "give a new or empty directory")
        else:
            try:
                os.makedirs(self.path, exist_ok=True)
                write_atomically(marker, json.dumps({"format": FORMAT, "version": 1}).encode())
            except OSError as e:
                raise StoreError(f"cannot create Parquet dataset {self.path!r}: {e.strerror}") from None
        if create:
            self._lock()

    # Opening ---------------------------------------------------------------
    def _check_marker(self, marker: str) -> None:
        try:
            with open(marker, "rb") as fh:
                meta = json.loads(fh.read(4096))
        except (OSError, ValueError):
            meta = None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise StoreError(f"{self.path!r}: {MARKER} is damaged or not ours")
        if int(meta.get("version", 0)) > 1:
            raise StoreError(f"{self.path!r} was written by a newer canfield-solver; upgrade to read it")

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # no advisory locks on this platform: one writer is the user's job
            return
        try:
            fd = os.open(os.path.join(self.path, ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise StoreError(f"cannot write to Parquet dataset {self.path!r}: {e.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise StoreError(f"Parquet dataset {self.path!r} is being written by another study; one study "
                             "writes a dataset at a time (several studies share work through --db)") from None
        self._lock_fd = fd

    def close(self) -> None:
        try:
            self.flush()
        finally:
            if self._lock_fd is not None:
                os.close(self._lock_fd)  # releases the lock
                self._lock_fd = None

    def __enter__(self) -> "ParquetResults":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Writing ---------------------------------------------------------------
    def put_many(self, rules: RulesKey, rows: Iterable[StoredResult]) -> None:
        rid = rules_id(rules)
        now = time.time()
        _, buf = self._buffer.setdefault(rid, (rules, []))
        for r in rows:
            d = r.to_dict()
            d["finished_at"] = now
            d["metrics"] = None if r.metrics is None else json.dumps(r.metrics)
            buf.append(d)
        if sum(len(b) for _, b in self._buffer.values()) >= self.flush_rows or \
                time.monotonic() - self._last_flush >= self.flush_seconds:
            self.flush()

    def flush(self) -> None:
        """Write the buffered rows, one part per rules, each atomically."""
        pa, pq = self.pa, self.pq
        schema = parquet_schema(pa)
        schema = schema.remove(schema.get_field_index("rules_id"))  # the partition directory names it
        for rid, (_, buf) in list(self._buffer.items()):
            if not buf:
                continue
            buf.sort(key=lambda d: d["seed"])
            part = self._part_dir(rid)
            self._seq += 1
            name = f"part-{buf[0]['seed']}-{buf[-1]['seed']}-{self._writer}-{self._seq}.parquet"
            tmp = os.path.join(part, "." + name + ".tmp")
            try:
                os.makedirs(part, exist_ok=True)
                pq.write_table(pa.Table.from_pylist(buf, schema=schema), tmp)
                os.replace(tmp, os.path.join(part, name))
            except OSError as e:
                _remove(tmp)
                raise StoreError(f"cannot write to Parquet dataset {self.path!r}: {e.strerror or e}") from None
            buf.clear()
            self._index.pop(rid, None)
        self._last_flush = time.monotonic()

    # The store interface of a study: no claims (one writer), deals present are done ------------
    def renew(self, rules: RulesKey, owner: str, lease: float) -> None:
        pass

    def release(self, rules: RulesKey, owner: str) -> None:
        self.flush()

    def claim(self, rules: RulesKey, seeds: list[int], owner: str, lease: float, max_seconds: float | None,
              rated: bool = False, since: float = 0.0, max_nodes: int | None = None) -> list[int]:
        return list(seeds)

    def held_by_others(self, rules: RulesKey, owner: str, lo: int, hi: int) -> set[int]:
        return set()

    def status(self, rules: RulesKey, seeds: list[int], owner: str, max_seconds: float | None,
               rated: bool = False, since: float = 0.0, max_nodes: int | None = None) -> tuple[set[int], set[int]]:
        if not seeds:
            return set(), set()
        return self.done_in(rules, max_seconds, min(seeds), max(seeds) + 1) & set(seeds), set()

    def done_in(self, rules: RulesKey, max_seconds: float | None, lo: int, hi: int, rated: bool = False,
                max_nodes: int | None = None) -> set[int]:
        """Seeds in ``lo <= seed < hi`` with a row (any verdict: a dataset never searches a deal twice)."""
        rid = rules_id(rules)
        out: set[int] = set()
        for f in self._parts(rid, lo, hi):
            seeds, _ = self._read(rid, f)
            a, b = _span(seeds, lo, hi)
            out.update(int(x) for x in seeds[a:b])
        out.update(d["seed"] for d in self._buffer.get(rid, (None, []))[1] if lo <= d["seed"] < hi)
        return out

    def count_done(self, rules: RulesKey, max_seconds: float | None, ranges: Iterable[tuple[int, int]],
                   max_nodes: int | None = None) -> int:
        return sum(self.count_verdicts(rules, ranges).values())

    def count_verdicts(self, rules: RulesKey, ranges: Iterable[tuple[int, int]]) -> dict[str, int]:
        """Verdict counts of ``rules`` over half-open seed ``ranges``, one part read at a time."""
        self.flush()
        rid = rules_id(rules)
        out = verdict_counts()
        for lo, hi in ranges:
            for f in self._parts(rid, lo, hi):
                seeds, verdicts = self._read(rid, f)
                a, b = _span(seeds, lo, hi)
                for v in verdicts[a:b]:
                    out[v] = out.get(v, 0) + 1
        return out

    def unknown_in(self, rules: RulesKey, ranges: Iterable[tuple[int, int]]) -> list[int]:
        """The seeds of ``ranges`` whose verdict under ``rules`` is unknown, in increasing order."""
        self.flush()
        rid = rules_id(rules)
        out: set[int] = set()
        for lo, hi in ranges:
            for f in self._parts(rid, lo, hi):
                seeds, verdicts = self._read(rid, f)
                a, b = _span(seeds, lo, hi)
                out.update(int(seeds[i]) for i in range(a, b) if verdicts[i] == "unknown")
        return sorted(out)

    def results_in(self, rules: RulesKey, ranges: Iterable[tuple[int, int]]) -> list[StoredResult]:
        """The rows of ``rules`` whose seeds lie in ``ranges``, by seed."""
        self.flush()
        rid = rules_id(rules)
        out: list[StoredResult] = []
        names = [c for c in COLUMNS if c not in ("rules_id", "finished_at")]
        for lo, hi in ranges:
            for f in self._parts(rid, lo, hi):
                seeds, _ = self._read(rid, f)
                a, b = _span(seeds, lo, hi)
                if a == b:  # a part whose span meets the range but none of whose seeds lies in it
                    continue
                t = self._table(os.path.join(self._part_dir(rid), f), None)
                t = t.select([c for c in names if c in t.schema.names])  # a part older than a column lacks it
                for d in t.to_pylist():
                    if lo <= d["seed"] < hi:
                        d["metrics"] = None if d["metrics"] is None else json.loads(d["metrics"])
                        out.append(StoredResult(**d))
        out.sort(key=lambda r: r.seed)
        return out

    # Reading ---------------------------------------------------------------
    def _part_dir(self, rid: str) -> str:
        return os.path.join(self.path, f"rules_id={rid}")

    def _parts(self, rid: str, lo: int, hi: int) -> list[str]:
        """Part files of ``rid`` whose seed span meets ``[lo, hi)``: by the names alone."""
        if rid not in self._index:
            found = []
            try:
                names = os.listdir(self._part_dir(rid))
            except FileNotFoundError:
                names = []
            except OSError as e:
                raise StoreError(f"cannot read Parquet dataset {self.path!r}: {e.strerror}") from None
            for n in names:
                m = _PART.match(n)
                if m:
                    found.append((int(m.group(1)), int(m.group(2)), n))
            found.sort()
            reach, top = [], -1
            for _, last, _n in found:  # reach[i]: the highest seed in parts 0..i (never falls)
                top = max(top, last)
                reach.append(top)
            self._index[rid] = ([f for f, _, _ in found], reach, [n for _, _, n in found])
        firsts, reach, names = self._index[rid]
        out = []
        i = bisect.bisect_left(firsts, hi) - 1  # parts starting below hi, walked back while any reaches lo
        while i >= 0 and reach[i] >= lo:
            out.append(names[i])
            i -= 1
        return out

    def _read(self, rid: str, name: str) -> tuple[_Table, list[str]]:
        """A part's seeds (sorted, numpy) and verdicts; parts are kept, least recently read out first, up to
        ``_CACHE_ROWS`` rows (a part is written once and never changes, so a kept one is never stale)."""
        key = rid + "/" + name
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        t = self._table(os.path.join(self._part_dir(rid), name), ["seed", "verdict"])
        got = (t.column("seed").to_numpy(), [_VERDICTS.get(v, v) for v in t.column("verdict").to_pylist()])
        while self._cache and self._cached_rows + len(got[0]) > _CACHE_ROWS:
            _, (old, _v) = self._cache.popitem(last=False)
            self._cached_rows -= len(old)
        self._cache[key] = got
        self._cached_rows += len(got[0])
        return got

    def _table(self, path: str, columns: list[str] | None) -> _Table:
        try:
            return self.pq.read_table(path, columns=columns)
        except OSError as e:
            raise StoreError(f"cannot read {path!r}: {e}") from None
        except Exception as e:  # pyarrow's own errors: a damaged part
            if type(e).__module__.startswith("pyarrow"):
                raise StoreError(f"{path!r} is not a readable part of a Parquet dataset ({e})") from None
            raise


def _span(seeds: "np.ndarray", lo: int, hi: int) -> tuple[int, int]:
    """Where ``[lo, hi)`` lies in a sorted uint64 array (``hi`` may be 2^64, past what uint64 holds)."""
    import numpy as np

    a = int(seeds.searchsorted(np.uint64(lo)))
    b = len(seeds) if hi >= 2**64 else int(seeds.searchsorted(np.uint64(hi)))
    return a, b


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def parquet_schema(pa: _Arrow) -> _Arrow:
    """The Arrow schema of a result row (``COLUMNS``), shared by ``export --parquet`` and Parquet datasets."""
    return pa.schema([("rules", pa.string()), ("seed", pa.uint64()), ("verdict", pa.string()),
                      ("nodes", pa.int64()), ("seconds", pa.float64()), ("best_score", pa.int32()),
                      ("solution_length", pa.int32()), ("redeals", pa.int32()), ("max_seconds", pa.float64()),
                      ("max_nodes", pa.int64()), ("threads", pa.int32()),
                      ("limit_hit", pa.string()), ("rating", pa.string()), ("metrics", pa.string()),
                      ("solver_version", pa.string()), ("rules_id", pa.string()), ("finished_at", pa.float64())])


def pyarrow_modules() -> tuple[_Arrow, _Arrow]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise StoreError("Parquet needs pyarrow: " + install_hint("parquet")) from None
    return pa, pq


def parquet_verdicts(path: str, rules: RulesKey, ranges: Iterable[tuple[int, int]]) -> dict[str, int]:
    """Verdict counts of ``rules`` over seed ``ranges`` in an exported Parquet file, read a batch at a time."""
    import bisect

    _, pq = pyarrow_modules()
    spans = sorted(ranges)
    starts = [a for a, _ in spans]
    rid = rules_id(rules)
    out = verdict_counts()
    try:
        f = pq.ParquetFile(path)
        for b in f.iter_batches(batch_size=65_536, columns=["rules_id", "seed", "verdict"]):
            for r_id, seed, verdict in zip(*(b.column(i).to_pylist() for i in range(3))):
                if r_id != rid:
                    continue
                i = bisect.bisect_right(starts, seed) - 1
                if i >= 0 and seed < spans[i][1]:
                    out[verdict] = out.get(verdict, 0) + 1
    except OSError as e:
        raise StoreError(f"cannot read Parquet file {path!r}: {e}") from None
    except Exception as e:  # pyarrow's own errors for a file that is not Parquet
        if type(e).__module__.startswith("pyarrow"):
            raise StoreError(f"{path!r} is not a Parquet export of a result store ({e})") from None
        raise
    return out


def export_parquet(rows: Iterable[dict[str, object]], out: str, batch: int = 65_536) -> int:
    """Write a store's rows (``ResultStore.iter_rows``) to a Parquet file, ``batch`` rows at a time (memory
    stays flat whatever the size); needs pyarrow (the ``parquet`` extra). Returns the row count."""
    pa, pq = pyarrow_modules()
    schema = parquet_schema(pa)
    n = 0
    try:
        with replacing(out, "wb") as fh, pq.ParquetWriter(fh, schema) as w:
            chunk: list[dict[str, object]] = []
            for d in rows:
                chunk.append(d)
                if len(chunk) == batch:
                    w.write_batch(pa.RecordBatch.from_pylist(chunk, schema=schema))
                    n += len(chunk)
                    chunk = []
            if chunk:
                w.write_batch(pa.RecordBatch.from_pylist(chunk, schema=schema))
                n += len(chunk)
    except OSError as e:
        raise StoreError(f"cannot write {out!r}: {e.strerror}") from None
    return n
