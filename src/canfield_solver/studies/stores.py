"""What a study reads and writes results through (``Store``), and opening one by path, written once.

Two classes keep a study's rows: ``store.ResultStore`` (one SQLite file, the default) and
``dataset.ParquetResults`` (a folder of Parquet parts, for a study shared through files). Studies take
either, or a path: ``store_at`` opens a path for the length of a ``with`` block (and only then closes it);
``open_stored`` opens what an existing study left, to recount it.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Protocol, Union

from ..errors import CanfieldError
from .store import RulesKey

if TYPE_CHECKING:
    from .store import StoredResult

Ranges = Iterable[tuple[int, int]]


class Store(Protocol):
    """The methods of a result store that studies use (both ``ResultStore`` and ``ParquetResults`` have them)."""

    def close(self) -> None: ...
    def put_many(self, rules: RulesKey, rows: Iterable["StoredResult"]) -> None: ...
    def count_verdicts(self, rules: RulesKey, ranges: Ranges) -> dict[str, int]: ...
    def unknown_in(self, rules: RulesKey, ranges: Ranges) -> list[int]: ...
    def results_in(self, rules: RulesKey, ranges: Ranges) -> list["StoredResult"]: ...
    def count_done(self, rules: RulesKey, max_seconds: float | None, ranges: Ranges, *args: Any, **kw: Any) -> int: ...
    def done_in(self, rules: RulesKey, max_seconds: float | None, lo: int, hi: int, *args: Any, **kw: Any) -> Any: ...
    def claim(self, rules: RulesKey, seeds: list[int], owner: str, lease: float, max_seconds: float | None,
              *args: Any, **kw: Any) -> Any: ...
    def renew(self, rules: RulesKey, owner: str, lease: float) -> None: ...
    def release(self, rules: RulesKey, owner: str) -> None: ...
    def held_by_others(self, rules: RulesKey, owner: str, lo: int, hi: int) -> set[int]: ...
    def status(self, rules: RulesKey, seeds: list[int], owner: str, max_seconds: float | None, *args: Any,
               **kw: Any) -> Any: ...


StoreOrPath = Union[Store, str, "os.PathLike[str]", None]


@contextmanager
def store_at(store: StoreOrPath) -> Iterator[Store | None]:
    """``store`` as a ``Store``: a path is opened as a ``ResultStore`` (created if new) and closed at the end of
    the block; a store is used as it is, and left open (its owner closes it); None stays None."""
    if isinstance(store, (str, os.PathLike)):
        from .store import ResultStore

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
        from .store import ResultStore

        return ResultStore(db, create=False)
    assert parquet is not None
    if os.path.isdir(parquet):
        from .dataset import ParquetResults

        return ParquetResults(parquet, create=False)
    return None
