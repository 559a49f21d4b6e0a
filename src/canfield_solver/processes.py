"""Worker processes and Ctrl-C: a Ctrl-C on a terminal reaches every process of the foreground group, so the
worker processes of a study (``studies.study``) and of the play server's meter (``surfaces.web.meter``) would
each print their own ``KeyboardInterrupt`` traceback, even while they are still importing. The process that
owns them handles Ctrl-C for all (it stops the pool and keeps what finished).

``spawning_quietly()`` blocks SIGINT in the thread that starts workers (``ProcessPoolExecutor.submit``
spawns them); the signal mask survives fork and exec, so each worker starts with SIGINT blocked, and
``ignore_interrupts()``, its first act, ignores SIGINT and then unblocks it. The standard library's
resource tracker starts the same way. ``stop_pool()`` ends a pool at once (an interrupt, the server's close)
and waits for what it leaves running, so the process can exit with nothing half done. ``interrupts_held()``
holds Ctrl-C and SIGTERM back in the main thread while a few steps that must happen together run (a pick
written to its pack, printed and counted). ``interrupts_kept()`` lets them through at once but sees that none
is lost: Numba's compile runs Python code inside ctypes callbacks from LLVM, and a ``KeyboardInterrupt`` raised
there is printed as "Exception ignored" and dropped (the compile then fails later with Numba's
``RuntimeError: no compiled object yet``, or not at all).
"""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, Callable, Iterator

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

__all__ = ["ignore_interrupts", "interrupts_held", "interrupts_kept", "spawning_quietly", "stop_pool"]

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


@contextmanager
def interrupts_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held back meanwhile, so a few steps that must happen together (a pick written to its
    pack and printed) all happen or none; a signal that came meanwhile is handled as the block ends, by the
    handler it would have met. Python runs signal handlers in the main thread only (a signal mask there would
    not do: another thread can take the signal), so the handlers are swapped; elsewhere nothing is held."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    old = {s: signal.getsignal(s) for s in held}
    for s in held:
        signal.signal(s, lambda signum, _frame: came.append(signum))
    try:
        yield
    finally:
        for s in held:
            signal.signal(s, old[s])
        for sig in held:
            if sig in came:
                _hand_to(old[sig], sig)


def _raised(e: BaseException) -> bool:
    """Whether ``e`` is, or was caused by, a ``KeyboardInterrupt`` (the CLI's ``Terminated`` too): Numba's
    wrappers report one that lands in a compiled call as a ``SystemError`` around it."""
    cur: BaseException | None = e
    for _ in range(32):
        if cur is None:
            return False
        if isinstance(cur, KeyboardInterrupt):
            return True
        cur = cur.__cause__ or cur.__context__
    return False


@contextmanager
def interrupts_kept() -> Iterator[None]:
    """Ctrl-C and SIGTERM handled at once meanwhile, by their own handlers, and none lost: a signal whose
    handler ran but whose exception did not come out of the block (dropped by a ctypes callback, as inside
    Numba's compile) is handed to that handler again as the block ends, so the block ends with the
    ``KeyboardInterrupt`` (or ``Terminated``) it would have ended with, and not with what followed the loss.
    In the main thread only (where Python runs handlers); elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    old: dict[int, object] = {int(s): signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    kept: dict[int, Callable[[int, FrameType | None], object]] = {s: h for s, h in old.items() if callable(h)}

    def counting(signum: int, frame: FrameType | None) -> None:
        came.append(signum)
        kept[signum](signum, frame)

    for s in kept:
        signal.signal(s, counting)
    try:
        yield
    except BaseException as e:
        if came and not _raised(e):
            _restore(old)
            _hand_to(kept[came[0]], came[0])
        raise
    finally:
        _restore(old)
    if came:
        _hand_to(kept[came[0]], came[0])


def _hand_to(handler: object, sig: int) -> None:
    """Handle ``sig`` now as ``handler`` would have: call it (Ctrl-C's KeyboardInterrupt, the CLI's
    Terminated), or for the default action send the signal again."""
    if callable(handler):
        handler(sig, None)
    elif handler == signal.SIG_DFL:
        os.kill(os.getpid(), sig)


def _restore(old: dict[int, object]) -> None:
    for s, h in old.items():
        if signal.getsignal(s) is not h:
            signal.signal(s, h)  # type: ignore[arg-type]


def ignore_interrupts() -> None:
    """In a worker process: Ctrl-C is its owner's to handle. Ignore SIGINT, then take it off the mask that
    ``spawning_quietly`` gave the process (a Ctrl-C pending since is dropped)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _MASKABLE:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def stop_pool(pool: ProcessPoolExecutor, timeout: float = 5.0) -> None:
    """End ``pool`` now: its queued work cancelled, its workers terminated (SIGTERM), then joined, and its
    manager thread joined too (each for at most ``timeout`` seconds). ``shutdown(wait=False)`` forgets that
    thread, so a later ``shutdown(wait=True)`` cannot join it; left running, it could be closing the pool's
    queues (unlinking their semaphores) while an interrupted process exits, and the resource tracker would
    then warn of a "leaked semaphore" after the interrupt's line."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        p.terminate()
    for p in procs:
        p.join(timeout)
    if manager is not None:
        manager.join(timeout)
