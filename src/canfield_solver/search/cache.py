"""Whether a compiled kernel is in Numba's on-disk cache, judged from its index files alone.

For a parent process whose searches run in worker processes: it stays free
of Numba (its memory stays small) and only needs to know whether the workers
will compile first. In-process, ``compile.kernel_ready`` asks Numba itself.
"""

from __future__ import annotations

import glob
import os


def kernel_cached() -> bool:
    """True when Numba's cache (``__pycache__`` beside kernel.py, ``~/.cache/numba``, or NUMBA_CACHE_DIR)
    holds an index of the search kernel."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    roots = [env] if env else [os.path.join(os.path.dirname(__file__), "__pycache__"),
                               os.path.expanduser("~/.cache/numba")]
    return any(glob.glob(os.path.join(r, "**", "kernel._search-*.nbi"), recursive=True) for r in roots)
