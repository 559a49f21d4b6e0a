"""Compiling the kernel, or loading it from Numba's on-disk cache.

Numba compiles the kernel on its first call in a process, or loads it from
its on-disk cache (``__pycache__`` beside kernel.py, or NUMBA_CACHE_DIR).
A compile takes seconds (benchmarks/bench_compile.py); it is not counted
as search time: solve() loads the kernel before the search's clock starts,
reports the load in ``stats["compile_seconds"]`` and takes it off what is
left of the caller's time limit.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import time
from typing import Callable

import numpy as np

from .. import compiles, jit
from ..engine.deal import Deal
from ..engine.position import Position
from ..engine.rules import get_rules
from . import kernel as K
from .arrays import LoneSearch, SearchTables, key_words


def _kernel_calls() -> list[tuple[Callable[..., object], tuple]]:
    """(dispatcher, arguments) of every kernel entry point solve() calls, on a throwaway problem."""
    prob = LoneSearch(Position(Deal.from_seed(0, get_rules("canfield"))), init_codes=False)
    tables = SearchTables(key_words(prob.rules), 16 << 20)
    return [
        (K.init_codes, (prob.cols, prob.sc, 0, prob.params)),
        (K.search, prob.search_args(tables, 0)),
        (K.tt_rehash, (tables.short, tables.short, prob.words, np.uint64(0), 1)),
    ]


# The kernel's entry points, which ``compiles.compiled("kernel")`` asks Numba about. Registered here, not in
# kernel.py: ``interpreted`` runs kernel.py's text a second time as plain Python.
compiles.entry_points("kernel", K.init_codes, K.search, K.tt_rehash)


def _signature(args: tuple) -> tuple:
    """Numba's types of ``args``, as ``numba.typeof`` gives them; an array's (and a tuple of arrays') read
    here, since ``typeof`` first imports ``numpy.ma`` (~8 ms of a warm start) to refuse masked arrays, which
    these never are."""
    from numba import typeof, types
    from numba.np import numpy_support

    def one(a: object) -> object:
        if type(a) is np.ndarray:
            return types.Array(numpy_support.from_dtype(a.dtype), a.ndim, numpy_support.map_layout(a),
                               readonly=not a.flags.writeable)
        if isinstance(a, tuple):  # the kernel's argument groups (codec.DealArrays, ...): typed as typeof does
            return types.BaseTuple.from_types([one(x) for x in a], type(a))
        return typeof(a)

    return tuple(one(a) for a in args)


@functools.cache  # once a process
def _compile_all() -> float:
    """Compile (or load) every kernel entry point solve() calls; the seconds it took."""
    t0 = time.perf_counter()
    for disp, args in _kernel_calls():
        if hasattr(disp, "compile"):
            disp.compile(_signature(args))
    return time.perf_counter() - t0


def _loaded() -> bool:
    """Whether this process has run ``_compile_all`` already."""
    return _compile_all.cache_info().currsize > 0


def load_kernel() -> float:
    """Compile the kernel, or load it from Numba's cache; the seconds it took (0.0 once loaded).

    Once a machine: under ``compiles.compiling``'s lock, so a process that starts while another compiles
    waits for it and then loads; a compile is told to ``compiles.listeners`` and its time recorded.
    """
    if _loaded():
        return 0.0
    with compiles.compiling("kernel"):
        return _compile_all()


def background(what: str = "kernel", module: str = "canfield_solver.search.kernel_load") -> subprocess.Popen | None:
    """Start compiling ``what`` (the kernel, or the portfolio's phases) in a process of its own
    (``python -m module``), which fills Numba's cache under the machine's compile lock and finishes even if
    this process ends first. None when another process is compiling it already, when there is no disk cache
    to fill (``jit.DISK_CACHE``), or the process cannot be started."""
    if compiles.busy(what) or not jit.DISK_CACHE:  # without a disk cache its compile would help no one
        return None
    try:
        return subprocess.Popen([sys.executable, "-m", module],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True, env=dict(os.environ))
    except OSError:
        return None


if __name__ == "__main__":  # python -m canfield_solver.search.kernel_load: fill the cache (quick's background)
    load_kernel()


