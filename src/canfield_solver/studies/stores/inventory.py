"""What a result store holds (``canfield stored``): per rules, the deals and their verdicts, the seed spans,
the limits (and threads) they were searched at and the solver versions, read from the store alone (nothing searched).

Three kinds of store are read: a SQLite result store (``--db``), a ``--parquet-dir`` dataset folder and a
one-file Parquet export (``export --parquet``). A study's follow-up rows are rules of their own
(``<name>+followup``, ``studies.two_phase``), listed beside the first pass they follow up.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable, Iterator, NamedTuple

from .parquet import pyarrow_modules
from .sqlite import ADDED_COLUMNS, ResultStore, StoreError

__all__ = ["Held", "seed_spans", "store_contents"]

_FIELDS = ("rules_id", "rules", "seed", "verdict", "max_seconds", "max_nodes", "threads", "solver_version")


class _Row(NamedTuple):
    """The columns of a stored row that say what a store holds (``_FIELDS``)."""

    rules_id: str
    rules: str
    seed: int
    verdict: str
    max_seconds: float | None
    max_nodes: int | None
    threads: int | None
    solver_version: str | None


def seed_spans(seeds: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted seeds as half-open runs ``[(start, stop), ...]`` of consecutive numbers."""
    out: list[tuple[int, int]] = []
    for s in sorted(set(seeds)):
        if out and out[-1][1] == s:
            out[-1] = (out[-1][0], s + 1)
        else:
            out.append((s, s + 1))
    return out


def _limit(max_seconds: float | None, max_nodes: int | None, threads: int | None = None) -> str:
    """A row's limits in words (``300 s``, ``2 s, 1 thread``); rows stored before threads were kept name none."""
    parts = []
    if max_seconds is not None:
        parts.append(f"{max_seconds:g} s")
    if max_nodes is not None:
        parts.append(f"{max_nodes:,} nodes")
    text = " and ".join(parts) or "no limit"
    return text if threads is None else f"{text}, {threads} thread{'' if threads == 1 else 's'}"


@dataclass
class Held:
    """One rules set of a store: ``deals`` results over ``spans`` (half-open seed runs), ``verdicts`` by name,
    ``limits`` (how many deals were searched at each limit), the ``versions`` of the solver that wrote them."""

    rules: str
    rules_id: str
    deals: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    spans: list[tuple[int, int]] = field(default_factory=list)
    limits: dict[str, int] = field(default_factory=dict)
    versions: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {"rules": self.rules, "rules_id": self.rules_id, "deals": self.deals, "verdicts": self.verdicts,
                "spans": [list(s) for s in self.spans], "limits": self.limits, "versions": self.versions}

    def spans_text(self, most: int = 4) -> str:
        """The seed spans as ``A:B`` (``A`` for one seed), the first ``most`` and how many more."""
        shown = [f"{a}" if b == a + 1 else f"{a}:{b}" for a, b in self.spans[:most]]
        more = len(self.spans) - most
        return ", ".join(shown) + (f" and {more:,} more spans" if more > 0 else "")

    def __str__(self) -> str:
        v = self.verdicts
        counts = " / ".join(f"{v.get(k, 0):,} {k}" for k in ("solved", "unsolvable", "unknown"))
        limits = ", ".join(f"{n:,} at {lim}" for lim, n in sorted(self.limits.items(), key=lambda kv: -kv[1]))
        return (f"{self.rules}: {self.deals:,} deals ({counts}); seeds {self.spans_text()}; searched {limits}; "
                f"solver {', '.join(self.versions)}")


def _sqlite_rows(path: str) -> Iterator[_Row]:
    with ResultStore(path, create=False) as st:
        for d in st.iter_rows():
            yield _Row._make(d[k] for k in _FIELDS)


def _parquet_rows(path: str) -> Iterator[_Row]:
    pyarrow_modules()
    import pyarrow.dataset as ds

    try:
        if os.path.isdir(path):
            import pyarrow as pa

            # The parts' columns united (an older part lacks a newer column), the partition's typed as text.
            options = dict(format="parquet", partitioning=ds.partitioning(pa.schema([("rules_id", pa.string())]),
                                                                          flavor="hive"),
                           exclude_invalid_files=True, ignore_prefixes=["_", "."])
            data = ds.dataset(path, **options)
            if data.files:
                data = ds.dataset(path, schema=pa.unify_schemas(
                    [data.schema] + [f.physical_schema for f in data.get_fragments()]), **options)
        else:
            data = ds.dataset(path, format="parquet")
        names = set(data.schema.names)
        missing = [k for k in _FIELDS if k not in names and k not in ADDED_COLUMNS]  # older data lacks these
        if missing:
            raise StoreError(f"{path!r} is not a result store's Parquet data (no {', '.join(missing)} column)")
        cols = [k for k in _FIELDS if k in names]
        for batch in data.to_batches(columns=cols, batch_size=65_536):
            columns = {k: batch.column(i).to_pylist() for i, k in enumerate(cols)}
            n = batch.num_rows
            for i in range(n):
                yield _Row._make(columns[k][i] if k in columns else None for k in _FIELDS)
    except OSError as e:
        raise StoreError(f"cannot read Parquet data {path!r}: {e}") from None
    except Exception as e:  # pyarrow's own errors for data that is not Parquet
        if type(e).__module__.startswith("pyarrow"):
            raise StoreError(f"{path!r} is neither a Parquet export nor a --parquet-dir dataset of a result "
                             "store") from None
        raise


def store_contents(db: "str | os.PathLike[str] | None" = None,
                   parquet: "str | os.PathLike[str] | None" = None) -> list[Held]:
    """Every rules set ``db`` (a SQLite result store) or ``parquet`` (a ``--parquet-dir`` dataset folder or a
    Parquet export) holds, by rules name; exactly one of the two is given. Raises ``StoreError`` naming the
    path when it is missing or not a result store."""
    if (db is None) == (parquet is None):
        raise StoreError("give exactly one of a result store (db) or Parquet data (parquet)")
    path = os.fspath(db if db is not None else parquet)  # type: ignore[arg-type]
    if not os.path.exists(path):
        raise StoreError(f"no result store at {path!r}")
    rows = _sqlite_rows(path) if db is not None else _parquet_rows(path)
    held: dict[str, Held] = {}
    seeds: dict[str, list[int]] = {}
    versions: dict[str, set[str]] = {}
    for rid, rules, seed, verdict, max_seconds, max_nodes, threads, version in rows:
        h = held.get(rid)
        if h is None:
            h = held[rid] = Held(rules=rules, rules_id=rid)
            seeds[rid], versions[rid] = [], set()
        h.deals += 1
        h.verdicts[verdict] = h.verdicts.get(verdict, 0) + 1
        lim = _limit(max_seconds, max_nodes, threads)
        h.limits[lim] = h.limits.get(lim, 0) + 1
        seeds[rid].append(int(seed))
        if version:
            versions[rid].add(str(version))
    for rid, h in held.items():
        h.spans = seed_spans(seeds[rid])
        h.versions = sorted(versions[rid])
    return sorted(held.values(), key=lambda h: (h.rules.split("+")[0], h.rules, h.rules_id))
