"""The layered proof's store on disk: the runs waiting for each layer and each layer's merged entries, in a
temporary directory removed at the end."""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Callable

import numpy as np


class Layers:
    """The phase's temporary directory: the runs waiting for each layer (one file a layer, appended run by
    run) and each layer's merged entries (one file a layer, mapped into memory while the layer is closed,
    and kept for finding a won line again: ``keeping`` turns off, and the kept files go, when the disk is
    nearly full). So the memory holds one layer's index, its own table and one chunk's children, and the
    pages of the mapped layer the system keeps in its cache."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="canfield-layers-")
        self.offsets: dict[int, list[int]] = {}  # layer -> where each run waiting for it starts, in rows
        self.kept: dict[int, tuple[str, int]] = {}  # layer -> its entries' file and rows
        self.keeping = True

    def __bool__(self) -> bool:
        return bool(self.offsets)

    def first(self) -> int:
        return min(self.offsets)

    def _runs(self, m: int) -> str:
        return os.path.join(self.dir, f"pending-{m}.bin")

    def add(self, m: int, run: np.ndarray) -> None:
        """A sorted run for layer ``m``."""
        if len(run) == 0:
            return
        offs = self.offsets.setdefault(m, [0])
        with open(self._runs(m), "ab") as f:
            f.write(run.tobytes())
        offs.append(offs[-1] + len(run))

    def take(self, m: int, merge: Callable[[np.ndarray, np.ndarray, np.ndarray], int]) -> np.ndarray:
        """Layer ``m``'s entries: its runs merged (one row a key) into a file of its own, mapped; the runs'
        file removed. OSError when the disk cannot hold them."""
        offs = np.array(self.offsets.pop(m), np.int64)
        runs = self._runs(m)
        rows = np.memmap(runs, dtype=np.uint64, mode="c").reshape(-1, 2)  # "c": typed as a writable array
        n = merge(rows, offs, np.empty((0, 2), np.uint64))
        path = os.path.join(self.dir, f"layer-{m}.bin")
        with open(path, "wb") as f:  # the room taken now, so that a full disk is an OSError, not a SIGBUS
            os.posix_fallocate(f.fileno(), 0, max(16, 16 * n))
        mapped = np.memmap(path, dtype=np.uint64, mode="r+", shape=(max(n, 1), 2))
        entries = mapped[:n]
        merge(rows, offs, entries)
        mapped.flush()
        del rows
        os.remove(runs)
        if self.keeping and shutil.disk_usage(self.dir).free < (1 << 30):
            self.keeping = False
            for old, _n in self.kept.values():
                os.remove(old)
            self.kept = {}
        if self.keeping:
            self.kept[m] = (path, n)
        else:
            os.remove(path)  # the mapping stays readable until it is dropped
        return entries

    def rows(self) -> int:
        return sum(o[-1] for o in self.offsets.values())

    def load(self, m: int) -> np.ndarray | None:
        if m not in self.kept:
            return None
        path, n = self.kept[m]
        return np.memmap(path, dtype=np.uint64, mode="c", shape=(max(n, 1), 2))[:n]

    def disk_bytes(self) -> int:
        return sum(e.stat().st_size for e in os.scandir(self.dir))

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

