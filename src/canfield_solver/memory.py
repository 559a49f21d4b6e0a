"""The search table's memory cap when the user names none: a share of what this machine has free.

A hard lost deal is decided by the depth-first search alone when its table may hold the proof (1-1.5 GiB
for the tail of seeds 0-299), and otherwise waits for the slower layered proof; a fixed 720 MiB left 97% of
a 24-GiB machine idle. So when no cap is given, ``machine_cap(searches)`` gives each of ``searches``
searches running at once (a study's workers; ``--jobs`` threads share one table, so they are one search)
an equal part of ``SHARE`` of the memory free now, never less than the old fixed ``FLOOR_MB`` while the
machine has that much. The table still grows only as a search needs it: through exactly the sizes it took
under the old 720 MiB, then twofold (``search.arrays.SearchTables``), so a deal that never needed 720 MiB takes
the same tables, nodes, memory and time under a larger cap.

Processes started together (two test workers, two studies) must not each count the same free memory, so
a process that takes a machine-sized cap records it in a claim file (``claims_dir``, one file a process,
removed at exit, ignored once its process is gone), and the next one counts the claims of live processes
as taken. An explicit cap larger than the memory free is reduced to what is free, with one line
(``checked``), so a search never meets the kernel's out-of-memory killer by our choice.

``CANFIELD_MEMORY_FREE_MB`` pretends the machine has that much free (tests, and a person who wants to
keep a search small without naming a cap); ``CANFIELD_MEMORY_CLAIMS`` keeps the claims in a folder of its
own (tests).
"""

from __future__ import annotations

import atexit
import os
from dataclasses import dataclass
from pathlib import Path

from . import compiles

SHARE = 0.5       # of the memory free: the rest stays for the system, the page cache and other programs
FLOOR_MB = 720    # the fixed default before: never less while the machine has it free
ENV_FREE = "CANFIELD_MEMORY_FREE_MB"
ENV_CLAIMS = "CANFIELD_MEMORY_CLAIMS"


@dataclass(frozen=True)
class Cap:
    """A cap in MiB and where it came from, as said in the JSON (``memory_source``) and with --verbose."""

    mb: int
    source: str


def free_mb() -> int | None:
    """The memory this machine has free for new work, in MiB (Linux: ``MemAvailable``); None if unknown."""
    fake = os.environ.get(ENV_FREE)
    if fake:
        try:
            return max(0, int(float(fake)))
        except ValueError:
            pass
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):
        return None


def claims_dir() -> Path:
    """Where the claims live: ``CANFIELD_MEMORY_CLAIMS`` (a folder of its own: tests), else beside the compile
    locks (``compiles.cache_dir``)."""
    own = os.environ.get(ENV_CLAIMS)
    return Path(own) if own else compiles.cache_dir() / "memory-claims"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def others_claimed_mb() -> int:
    """MiB claimed by other live processes (stale claims of ended processes are removed)."""
    total = 0
    try:
        entries = list(claims_dir().iterdir())
    except OSError:
        return 0
    for f in entries:
        try:
            pid = int(f.name)
        except ValueError:
            continue
        if pid == os.getpid():
            continue
        if not _alive(pid):
            try:
                f.unlink()
            except OSError:
                pass
            continue
        try:
            total += int(f.read_text().strip() or 0)
        except (OSError, ValueError):
            pass
    return total


_mine: dict[str, int] = {}


def _claim(mb: int) -> None:
    """Record that this process may use ``mb`` MiB more (best effort: an unwritable cache claims nothing)."""
    _mine["mb"] = _mine.get("mb", 0) + mb
    path = claims_dir() / str(os.getpid())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(str(_mine["mb"]))
    except OSError:
        return
    if _mine.get("registered") is None:
        _mine["registered"] = 1
        atexit.register(_release)


def _release() -> None:
    try:
        (claims_dir() / str(os.getpid())).unlink()
    except OSError:
        pass
    _mine.clear()


def machine_cap(searches: int = 1) -> Cap:
    """The cap of each of ``searches`` searches that run at once when the user names none (see the module),
    claimed for this process."""
    free = free_mb()
    if free is None:
        return Cap(FLOOR_MB, f"the default {FLOOR_MB:,} MiB (this machine's free memory could not be read)")
    if "mb" in _mine:  # this process claimed its share already (a second search, the play server's next)
        mb = max(1, _mine["mb"] // max(1, searches))
        return Cap(mb, f"this machine: {SHARE:.0%} of the {free:,} MiB free when first asked, as claimed")
    others = others_claimed_mb()
    share = int(free * SHARE)
    each = (share - others) // max(1, searches)
    floor = min(FLOOR_MB, share // max(1, searches))
    mb = max(1, each, floor)
    _claim(mb * max(1, searches))
    split = f", split {searches} ways" if searches > 1 else ""
    less = f", less {others:,} MiB claimed by other searches" if others else ""
    return Cap(mb, f"this machine: {SHARE:.0%} of {free:,} MiB free{less}{split}")


def checked(mb: int) -> tuple[int, str | None]:
    """An explicit cap, reduced to the memory free when it asks for more: (the cap, the line that says so)."""
    free = free_mb()
    if free is None or mb <= free:
        return mb, None
    use = max(1, int(free * 0.9))  # what is free less a tenth for the process itself and the system
    return use, f"--max-memory {mb:,} MiB is more than the {free:,} MiB this machine has free: using {use:,} MiB"
