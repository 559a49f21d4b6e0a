"""The ``canfield`` command's entry point (``pyproject.toml``'s script, and ``python -m canfield_solver``).

It imports the command line itself, so that a Ctrl-C at any moment (while click and the commands are
imported, inside a command, or while the interpreter shuts down: joining a pool's threads) ends with one
line and exit code 130, never a traceback. The commands themselves say what an interrupt kept. Before the
imports it pauses the garbage collector's automatic runs (``startup``), which the import of Numba ends,
and gives standard output a reader that may leave (``_ReaderMayLeave``: ``canfield solve 2 | head -1``
exits with the verdict's code, not click's 1 for a closed pipe).
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any


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


class _ReaderMayLeave:
    """Standard output for a reader that may stop reading (``canfield solve 2 --moves | head -1``): once the
    pipe is closed the rest of the output is dropped, and the command runs to its end and exits with its
    own code (a verdict's, say). Without it the first write into the closed pipe ends the command, and
    click exits 1, the code of 'unsolvable'."""

    def __init__(self, stream: Any):
        self._stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return int(self._stream.write(text))
            except BrokenPipeError:
                self._leave()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._leave()

    def _leave(self) -> None:
        self.gone = True
        try:  # what is still buffered goes nowhere, so the interpreter's last flush meets no closed pipe
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._stream.fileno())
            os.close(null)
        except (OSError, ValueError):
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def main() -> None:
    from . import startup

    if sys.stdout is not None and not isinstance(sys.stdout, _ReaderMayLeave):
        sys.stdout = _ReaderMayLeave(sys.stdout)

    startup.pause()  # until the imports are done (startup.py): their objects live as long as the process
    startup.command_is_the_process()  # its --max-seconds counts from the process's start
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
