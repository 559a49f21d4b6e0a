"""The ``canfield`` command's entry point (``pyproject.toml``'s script, and ``python -m canfield_solver``).

It imports the command line itself, so that a Ctrl-C at any moment (while click and the commands are
imported, inside a command, or while the interpreter shuts down: joining a pool's threads) ends with one
line and exit code 130, never a traceback. The commands themselves say what an interrupt kept. Before the
imports it pauses the garbage collector's automatic runs (``startup``), which the import of Numba ends.
"""

from __future__ import annotations

import os
import signal
import sys


def _quiet_exit(code: int | str | None) -> None:
    """Exit with ``code``; a Ctrl-C or SIGTERM from now on (the interpreter joining threads, flushing) ends
    the process at once, silently, instead of raising into the shutdown."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    except ValueError:  # not the main thread: nothing to change
        pass
    if code in (130, 143):
        # Interrupted: what the command keeps is written (its stores closed, its pools ended, in its own
        # clean-up). Python itself would end a process that met a Ctrl-C by re-raising SIGINT (exit -2),
        # whatever code it exits with; this ends it with the code the docs promise.
        _release_semaphores()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def _release_semaphores() -> None:
    """What ``os._exit`` skips of multiprocessing's exit: unlinking the named semaphores of a worker pool
    (finalizers of priority 0), which would otherwise leave the resource tracker to warn of "leaked semaphore
    objects" on stderr after the interrupt's line. Only when multiprocessing was used."""
    util = sys.modules.get("multiprocessing.util")
    if util is not None:
        try:
            util._run_finalizers(0)
        except Exception:
            pass


def main() -> None:
    from . import startup

    startup.pause()  # until the imports are done (startup.py): their objects live as long as the process
    try:
        from .surfaces.cli import main as run

        run()
        code: int | str | None = 0
    except SystemExit as e:
        code = e.code
    except KeyboardInterrupt as e:
        terminated = type(e).__name__ == "Terminated"
        print(f"canfield: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        code = 143 if terminated else 130
    _quiet_exit(code)
