"""Worker processes and Ctrl-C: a Ctrl-C on a terminal reaches every process of the foreground group, so the
worker processes of a study (``studies.study``) and of the play server's meter (``surfaces.web.meter``) would
each print their own ``KeyboardInterrupt`` traceback, even while they are still importing. The process that
owns them handles Ctrl-C for all (it stops the pool and keeps what finished).

``spawning_quietly()`` blocks SIGINT in the thread that starts workers (``ProcessPoolExecutor.submit``
spawns them); the signal mask survives fork and exec, so each worker starts with SIGINT blocked, and
``ignore_interrupts()``, its first act, ignores SIGINT and then unblocks it. The standard library's
resource tracker starts the same way.
"""

from __future__ import annotations

import signal
from contextlib import contextmanager
from typing import Iterator

__all__ = ["ignore_interrupts", "spawning_quietly"]

_MASKABLE = hasattr(signal, "pthread_sigmask")


@contextmanager
def spawning_quietly() -> Iterator[None]:
    """SIGINT blocked in this thread meanwhile: the processes started here start with it blocked. On the main
    thread a Ctrl-C that came meanwhile is raised as soon as the block ends."""
    if not _MASKABLE:
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def ignore_interrupts() -> None:
    """In a worker process: Ctrl-C is its owner's to handle. Ignore SIGINT, then take it off the mask that
    ``spawning_quietly`` gave the process (a Ctrl-C pending since is dropped)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _MASKABLE:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
