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

The command's own clock is here too: ``elapsed`` counts from the moment the process started (the
interpreter's start-up and every import included), so that a command's ``--max-seconds`` bounds the time
its user waits, not the time after its imports.
"""

from __future__ import annotations

import gc
import os
import time

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


def _started() -> float:
    """When this process started, on ``time.monotonic``'s clock: read from /proc (Linux: the process's start in
    clock ticks since boot, against the seconds since boot), else when this module was imported."""
    now = time.monotonic()
    try:
        with open("/proc/self/stat") as f:
            after_name = f.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        age = uptime - int(after_name[19]) / os.sysconf("SC_CLK_TCK")  # field 22 of stat: starttime
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - age if 0.0 <= age < 60.0 else now  # no sense (a clock moved, a long-lived caller): from now


_STARTED = _started()
_from_process_start = False  # set by the ``canfield`` entry point: its command began when the process did


def command_is_the_process() -> None:
    """Said by the ``canfield`` entry point (``_entry.main``): the command about to run began with this process,
    so its clock counts the interpreter's start-up and imports (``command_started``)."""
    global _from_process_start
    _from_process_start = True


def command_started() -> float:
    """When the command now starting began, on ``time.monotonic``'s clock: this process's start for the
    ``canfield`` command itself (once), now for a command run inside a longer-lived process (a test runner,
    a notebook, the PySolFC bridge)."""
    global _from_process_start
    if _from_process_start:
        _from_process_start = False
        return _STARTED
    return time.monotonic()
