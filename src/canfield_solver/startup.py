"""The ``canfield`` command's start-up, without the garbage collector rescanning what the imports build.

A warm ``canfield solve`` imports some 500 modules (numpy, Numba and its registries, click, ours): a few
hundred thousand objects that live as long as the process. CPython's collector scans the young ones every
700 allocations and all of them again in its older generations, which cost a warm solve some 40-60 ms
of its ~0.4 s, for no garbage (benchmarks/bench_startup.py). The command line's entry point therefore
``pause``s the collector's automatic runs (raising the first generation's threshold to ``PAUSED_THRESHOLD``;
the collector stays enabled) and ``settle`` ends the pause once the heavy imports are done: it freezes what
was built so far (``gc.freeze``: never scanned again) and restores the thresholds. ``jit`` settles as soon
as Numba is imported; the command line settles before any long work that imports no Numba (the play
server, studies, batch runs).

A process that never settles is only collected less often: every ``PAUSED_THRESHOLD`` new container
objects instead of 700 (a few hundred MB of cyclic garbage at the very worst), never not at all.
``settle`` does nothing unless ``pause`` ran, so a program that imports ``canfield_solver`` as a library
keeps its collector exactly as it set it.
"""

from __future__ import annotations

import gc

PAUSED_THRESHOLD = 1_000_000  # new container objects between two automatic collections while paused

_saved: tuple[int, ...] | None = None  # the thresholds before ``pause``; None when not paused


def pause() -> None:
    """Hold off automatic collections until ``settle`` (the command line's entry point, first thing)."""
    global _saved
    if _saved is None:
        _saved = gc.get_threshold()
        gc.set_threshold(PAUSED_THRESHOLD, *_saved[1:])


def settle() -> None:
    """End the pause: freeze every object that exists now (the imported modules' world, which lives as
    long as the process) and collect as before from here on. Nothing unless ``pause`` ran."""
    global _saved
    if _saved is not None:
        gc.freeze()
        gc.set_threshold(*_saved)
        _saved = None


def paused() -> bool:
    """Whether ``pause`` ran and ``settle`` has not yet."""
    return _saved is not None
