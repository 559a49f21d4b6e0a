"""The search kernel as plain Python: kernel.py's own text, run by the interpreter instead of compiled.

The same functions make the same moves in the same order, so a search gives the same verdict, nodes and
line as the compiled kernel (the test suite's ``NUMBA_DISABLE_JIT`` tier runs the kernel this way), about
a thousand times slower: some 4,000 nodes a second. That is enough for the easy deals, which is most of
them, while the compiled kernel is still being compiled for the first time (``quick``).
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from types import ModuleType

from numba import config

from . import kernel as K

NAME = __name__.rsplit(".", 1)[0] + "._kernel_interpreted"


@functools.cache  # once a process
def kernel() -> ModuleType:
    """kernel.py loaded a second time, under Numba's DISABLE_JIT: every ``njit`` and ``helper`` in it is
    the plain function."""
    spec = importlib.util.spec_from_file_location(NAME, K.__file__)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    before = config.DISABLE_JIT
    config.DISABLE_JIT = True
    try:
        sys.modules[NAME] = mod
        spec.loader.exec_module(mod)
    finally:
        config.DISABLE_JIT = before
    return mod
