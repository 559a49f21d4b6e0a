"""The result stores: what a study reads and writes results through (``Store``), and opening one by path,
written once.

Two classes keep a study's rows: ``sqlite.ResultStore`` (one SQLite file, the default) and
``parquet.ParquetResults`` (a folder of Parquet parts, for a study shared through files); ``inventory``
says what either holds (``canfield stored``). Studies take
either, or a path: ``store_at`` opens a path for the length of a ``with`` block (and only then closes it);
``open_stored`` opens what an existing study left, to recount it; ``open_to_write`` the store a study writes
into; ``open_result_store`` the SQLite store for what only it does (its exports, ``pick``'s reuse). The CLI
opens every store through these.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterable, Iterator, Protocol, Union

from ...errors import CanfieldError
from .sqlite import RulesKey

if TYPE_CHECKING:
    from .sqlite import ResultStore, StoredResult

Ranges = Iterable[tuple[int, int]]


class Store(Protocol):
    """The methods of a result store that studies use (both ``ResultStore`` and ``ParquetResults`` have them)."""

    def close(self) -> None: ...
    def put_many(self, rules: RulesKey, rows: Iterable["StoredResult"]) -> None: ...
    def count_verdicts(self, rules: RulesKey, ranges: Ranges) -> dict[str, int]: ...
    def unknown_in(self, rules: RulesKey, ranges: Ranges) -> list[int]: ...
    def results_in(self, rules: RulesKey, ranges: Ranges) -> list["StoredResult"]: ...
    def count_done(self, rules: RulesKey, max_seconds: float | None, ranges: Ranges,
                   max_nodes: int | None = None) -> int: ...
    def done_in(self, rules: RulesKey, max_seconds: float | None, lo: int, hi: int, rated: bool = False,
                max_nodes: int | None = None) -> set[int]: ...
    def claim(self, rules: RulesKey, seeds: list[int], owner: str, lease: float, max_seconds: float | None,
              rated: bool = False, since: float = ..., max_nodes: int | None = None) -> list[int]: ...
    def renew(self, rules: RulesKey, owner: str, lease: float) -> None: ...
    def release(self, rules: RulesKey, owner: str) -> None: ...
    def held_by_others(self, rules: RulesKey, owner: str, lo: int, hi: int) -> set[int]: ...
    def status(self, rules: RulesKey, seeds: list[int], owner: str, max_seconds: float | None,
               rated: bool = False, since: float = ...,
               max_nodes: int | None = None) -> tuple[set[int], set[int]]: ...


StoreOrPath = Union[Store, str, "os.PathLike[str]", None]


@contextmanager
def store_at(store: StoreOrPath) -> Iterator[Store | None]:
    """``store`` as a ``Store``: a path is opened as a ``ResultStore`` (created if new) and closed at the end of
    the block; a store is used as it is, and left open (its owner closes it); None stays None."""
    if isinstance(store, (str, os.PathLike)):
        from .sqlite import ResultStore

        st = ResultStore(store)
        try:
            yield st
        finally:
            st.close()
    else:
        yield store


def open_stored(db: "str | os.PathLike[str] | None", parquet: "str | os.PathLike[str] | None") -> Store | None:
    """The store an earlier study left, to recount: ``db`` (a result store that must exist) or ``parquet`` (a
    ``--parquet-dir`` dataset folder); None when ``parquet`` is a one-file export (no store to open).
    Exactly one of the two is given."""
    if (db is None) == (parquet is None):
        raise CanfieldError("give exactly one of a result store or a Parquet file or dataset")
    if db is not None:
        from .sqlite import ResultStore

        return ResultStore(db, create=False)
    assert parquet is not None
    if os.path.isdir(parquet):
        from .parquet import ParquetResults

        return ParquetResults(parquet, create=False)
    return None


def open_result_store(db: "str | os.PathLike[str]", create: bool = True) -> "ResultStore":
    """The SQLite result store at ``db`` (created if new, or a one-line error when ``create`` is False and
    there is none), for what only that store does (its CSV and Parquet exports, ``pick``'s reuse)."""
    from .sqlite import ResultStore

    return ResultStore(db, create=create)


def open_to_write(db: "str | os.PathLike[str] | None", parquet_dir: "str | os.PathLike[str] | None") -> Store:
    """The store a study writes into: the Parquet dataset folder ``parquet_dir`` (needs pyarrow) or else the
    SQLite result store ``db``, either created if new. Exactly one of the two is given."""
    if (db is None) == (parquet_dir is None):
        raise CanfieldError("give exactly one of a result store or a Parquet dataset folder")
    if parquet_dir is not None:
        from .parquet import ParquetResults

        return ParquetResults(parquet_dir)
    from .sqlite import ResultStore

    assert db is not None
    return ResultStore(db)
