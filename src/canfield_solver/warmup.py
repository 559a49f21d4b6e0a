"""Every first compile, made now: ``warm_up`` compiles (or loads from Numba's cache) everything a search of
this package may run, so that no later command waits for a compile or answers ``unknown`` while one runs
in the background. For a Docker image or a CI job: ``canfield warmup`` once after ``pip install``.

What it compiles (keys of ``compiles.NAMES``, in this order): Canfield's search kernel; the searches that run
before it where any suit builds or gaps wait for a move (the nested searches, the game over ranks, the
policy adaptation, the beam search); the layered proof, which takes over when a search's table fills its
memory cap; and the other games' searches (the pairs games', aces-and-kings'). Each is compiled under the machine's compile lock
(``compiles.compiling``): one that another process is compiling is waited for and then loaded, one already
in the cache is loaded in a fraction of a second.
"""

from __future__ import annotations

import time
from typing import Callable

from . import compiles
from .errors import CanfieldError
from .solver import SEARCH_COMPILES, compile_search

__all__ = ["warm_up", "ALL"]

ALL = (*SEARCH_COMPILES, "pairs", "aces-and-kings")


def _compile(what: str) -> None:
    if what in SEARCH_COMPILES:
        compile_search(what)
    elif what == "pairs":
        from .games import pairs_kernel

        pairs_kernel.warm()
    else:
        from .games.aces_and_kings import kernel

        kernel.warm()


def warm_up(what: tuple[str, ...] = ALL,
            progress: Callable[[str, int, int, float | None], None] | None = None) -> dict[str, float]:
    """Compile (or load) each of ``what`` (keys of ``ALL``), in ``ALL``'s order; the seconds each took.

    ``progress(what, number, count, seconds)`` is called before each (``seconds`` None) and after it (the
    seconds it took). A Ctrl-C ends it with ``KeyboardInterrupt``; what was compiled before stays compiled.
    """
    unknown = [w for w in what if w not in ALL]
    if unknown:
        raise CanfieldError(f"no such compile: {', '.join(map(repr, unknown))}; one of {', '.join(ALL)}")
    todo = [w for w in ALL if w in what]
    took: dict[str, float] = {}
    for i, w in enumerate(todo, 1):
        if progress is not None:
            progress(w, i, len(todo), None)
        t0 = time.perf_counter()
        _compile(w)
        took[w] = time.perf_counter() - t0
        if progress is not None:
            progress(w, i, len(todo), took[w])
    return took


def name(what: str) -> str:
    """``what`` for a person (``compiles.NAMES``)."""
    return compiles.NAMES.get(what, what)
