"""Every first compile the product makes, said and timed, and made once a machine.

Each of ``NAMES`` is compiled with Numba the first time it runs on a machine and loaded from its on-disk
cache afterwards: Canfield's search kernel (``"kernel"``), the searches that run before it where any suit
builds or gaps wait (``"nested"``, ``"adapt"``, ``"ranks"``, ``"beam"``: one each, so that each phase runs as soon as its own
compile is done), its layered proof (``"layered"``), the pairs games' search (``"pairs"``: nine-packets,
ten-columns) and aces-and-kings' (``"aces-and-kings"``, bisley too). Whatever compiles or loads one of them
does it inside ``compiling(what)`` (or, for several in a row in one process, ``compile_in_turn``), which

- holds a lock file for ``what`` (``fcntl.flock``, released when the process ends however it ends), so
  that several processes that start cold together (a study's workers, a solve beside a background
  compile) compile it once: the first compiles, the others wait and then load what it wrote; the holder
  writes when it took the lock into the file, so another process can say how long it has been compiling
  (``since``);
- when it compiles (``compiled(what)`` False: the package's one answer to "is it compiled?"), tells the
  listeners before (``Notice`` with the figure to expect) and after (the seconds it took), and records
  those seconds in the cache directory, so the next notice on this machine quotes this machine's own
  figure, not a constant;
- keeps a Ctrl-C (or SIGTERM) that lands in the compile from being lost (``processes.interrupts_kept``):
  the block ends with the ``KeyboardInterrupt``, never with Numba's ``RuntimeError`` after it.

The surfaces listen (the CLI prints a line on stderr, and a ticking line on a terminal). Numba-free:
the lock and the figures are plain files.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from .processes import interrupts_kept

try:
    import fcntl
except ImportError:  # not POSIX: no lock; a compile may then happen in two processes at once
    fcntl = None  # type: ignore[assignment]

# What each compile took on the 2-core development machine, in seconds, with a fresh cache (medians;
# benchmarks/bench_first_answer.py for the kernel, bench_compile.py --what for the others).
# Quoted only until this machine has compiled it once and recorded its own figure.
MEASURED = {"kernel": 19.0, "nested": 12.5, "ranks": 5.5, "adapt": 12.0, "beam": 6.0, "layered": 28.0,
            "pairs": 3.0, "aces-and-kings": 11.5}

NAMES = {
    "kernel": "the search kernel",
    "nested": "the nested searches for wins",
    "ranks": "the game over ranks",
    "adapt": "the policy adaptation",
    "beam": "the beam search",
    "layered": "the layered proof",
    "pairs": "the pairs games' search",
    "aces-and-kings": "the aces-and-kings search",
    "phases": "the searches for wins and over ranks",  # nested, ranks, adapt and beam, in one notice
}

_RECORD = "canfield-compiles.json"


@dataclass(frozen=True)
class Notice:
    """One compile, told to the listeners: ``what`` (a key of NAMES); ``phase`` "start" (``seconds`` is
    the figure to expect), "background" (a process of its own compiles it while this one searches without
    it; ``seconds`` as for start), "wait" (another process is compiling it; ``seconds`` as for start) or
    "end" (``seconds`` it took); ``source`` of a figure: "this machine" or "the development machine"."""

    what: str
    phase: str
    seconds: float
    source: str = ""

    @property
    def name(self) -> str:
        return NAMES.get(self.what, self.what)


listeners: list[Callable[[Notice], None]] = []


def tell(notice: Notice) -> None:
    """Tell every listener ``notice``."""
    for listen in list(listeners):
        listen(notice)


def cache_dir() -> Path:
    """Where the locks and figures live: NUMBA_CACHE_DIR when set (Numba's cache is there too), else the
    package's ``search/__pycache__`` where it can be written (Numba's in-tree cache), else a folder under
    the user's cache directory."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    if env:
        return Path(env)
    tree = Path(__file__).resolve().parent / "search" / "__pycache__"
    try:
        tree.mkdir(exist_ok=True)
        if os.access(tree, os.W_OK):
            return tree
    except OSError:
        pass
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "canfield-solver"
    try:
        home.mkdir(parents=True, exist_ok=True)
        return home
    except OSError:
        return Path(tempfile.gettempdir())


def _records() -> dict[str, float]:
    try:
        data = json.loads((cache_dir() / _RECORD).read_text())
        return {k: float(v) for k, v in data.items() if isinstance(v, (int, float))}
    except (OSError, ValueError, AttributeError):
        return {}


def estimate(what: str) -> tuple[float, str]:
    """The seconds a compile of ``what`` is expected to take and where the figure comes from: this
    machine's last compile of it, or the development machine's measurement."""
    mine = _records().get(what)
    if mine is not None:
        return mine, "this machine"
    return MEASURED.get(what, 30.0), "the development machine"


def record(what: str, seconds: float) -> None:
    """Remember that compiling ``what`` took ``seconds`` on this machine (best effort)."""
    data = _records()
    data[what] = round(seconds, 1)
    path = cache_dir() / _RECORD
    try:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        os.replace(tmp, path)
    except OSError:
        pass


@contextlib.contextmanager
def machine_lock(what: str, *, wait: bool = True) -> Iterator[bool]:
    """Hold the lock for compiling ``what`` on this machine; yields True. With ``wait`` False and the lock
    held elsewhere, yields False at once (holding nothing). Waiting is told to the listeners."""
    if fcntl is None:
        yield True
        return
    try:
        f = open(cache_dir() / f"canfield-{what}.lock", "a+")
    except OSError:  # an unwritable cache: no lock, as without fcntl
        yield True
        return
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            if not wait:
                yield False
                return
            secs, source = estimate(what)
            tell(Notice(what, "wait", secs, source))
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            try:  # when the lock was taken, for ``since`` in other processes
                f.seek(0)
                f.truncate()
                f.write(f"{time.time():.3f}\n")
                f.flush()
            except OSError:
                pass
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def busy(what: str) -> bool:
    """Whether another process holds the lock for ``what`` now (it is compiling it)."""
    with machine_lock(what, wait=False) as got:
        return not got


def since(what: str) -> float | None:
    """How many seconds another process has held the lock for ``what`` (compiling it, or holding it for a
    compile next in its turn: ``compile_in_turn``); None when no other process holds it."""
    if not busy(what):
        return None
    try:
        taken = float((cache_dir() / f"canfield-{what}.lock").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
    return max(0.0, time.time() - taken)


# The compiled functions of each ``what``, registered by their module when it is imported (``entry_points``).
_ENTRY_POINTS: dict[str, tuple[object, ...]] = {}
# Where each ``what`` keeps the cache index of its main function: (its folder in the package, "file.function").
_INDEX = {
    "kernel": ("search", "kernel.search"),
    "layered": ("search/layered", "close.close_entries"),
    "pairs": ("games", "pairs_kernel.search"),
    "aces-and-kings": ("games/aces_and_kings", "kernel.search"),
    "nested": ("search/playout", "kernel.nested"),
    "ranks": ("search/ranks", "kernel.rehash"),  # compiled after ranks' search (portfolio's warm-up)
    "adapt": ("search/adapt", "kernel.search"),
    "beam": ("search/beam", "kernel.search"),
}


def entry_points(what: str, *dispatchers: object) -> None:
    """Register the compiled functions of ``what`` (a key of NAMES): the module that defines them calls this
    when it is imported, so that ``compiled`` can ask Numba about them."""
    _ENTRY_POINTS[what] = dispatchers


def compiled(what: str) -> bool:
    """Whether ``what`` (a key of NAMES) runs without compiling first: the one answer to "compiled?".

    Where its module is imported in this process (its functions registered by ``entry_points``): each
    function is loaded here, or has entries in Numba's on-disk cache written from its present source (Numba's
    index reads empty when its stamp no longer matches); this reads Numba's private cache API, and where that
    fails says False (a compile is then announced that may turn out to be a load). Where its module is not
    imported (a parent process whose searches run in workers keeps Numba out): whether the cache holds an
    index file of it, judged from file names alone, without importing Numba (``_indexed``).
    """
    dispatchers = _ENTRY_POINTS.get(what)
    if dispatchers is None:
        return _indexed(what)
    for d in dispatchers:
        if not hasattr(d, "overloads"):  # NUMBA_DISABLE_JIT: a plain function
            continue
        if d.overloads:
            continue
        try:
            if not d._cache._cache_file._load_index():  # type: ignore[attr-defined]
                return False
        except Exception:
            return False
    return True


def _indexed(what: str) -> bool:
    """Whether the cache holds an index file of ``what``'s main function: in the package's ``__pycache__``
    (Numba's in-tree cache), or under NUMBA_CACHE_DIR or ``~/.cache/numba`` in the folder Numba names after
    the source's folder (its name and the SHA-1 of its absolute path). Whether that index is still valid
    only Numba can read (its stamp is pickled beside Numba's types); a stale one makes this say True, and the
    compile that follows is then not announced."""
    folder, name = _INDEX[what]
    here = Path(__file__).resolve().parent / folder
    mirrored = f"{here.name}_{hashlib.sha1(str(here).encode()).hexdigest()}"
    env = os.environ.get("NUMBA_CACHE_DIR")
    places = [Path(env) / mirrored] if env else [here / "__pycache__", Path.home() / ".cache" / "numba" / mirrored]
    return any(any(place.glob(f"{name}-*.nbi")) for place in places)


@contextlib.contextmanager
def compiling(what: str, *, held: bool = False) -> Iterator[None]:
    """Around compiling or loading ``what``: under its machine lock (``held``: the caller holds it already,
    as ``compile_in_turn`` does); ``compiled(what)`` (asked once the lock is held) says whether it only
    loads. A compile is told before and after, and its seconds recorded; a Ctrl-C meanwhile ends it with
    ``KeyboardInterrupt`` (``interrupts_kept``)."""
    with (contextlib.nullcontext(True) if held else machine_lock(what)), interrupts_kept():
        if compiled(what):
            yield
            return
        secs, source = estimate(what)
        tell(Notice(what, "start", secs, source))
        t0 = time.perf_counter()
        yield
        took = time.perf_counter() - t0
        record(what, took)
        tell(Notice(what, "end", took))


def compile_in_turn(steps: list[tuple[str, Callable[[], object]]]) -> None:
    """Compile several things one after another in this process (a background compile): every step's lock
    is taken first, so that other processes see all of them as being compiled (``busy``, ``since``) and start
    no second compile of a later one, and each lock is let go as soon as its own compile is done, so that
    what is ready can be used at once. ``steps``: (``what``, a function that compiles or loads it)."""
    stacks = [contextlib.ExitStack() for _ in steps]
    try:
        for (what, _), stack in zip(steps, stacks):
            stack.enter_context(machine_lock(what))
        for (what, run), stack in zip(steps, stacks):
            with compiling(what, held=True):
                run()
            stack.close()
    finally:
        for stack in stacks:
            stack.close()
