"""The search kernel as plain Python: kernel.py's own text (and that of the pieces it imports, base.py,
stuck.py and pool.py), run by the interpreter instead of compiled.

The same functions make the same moves in the same order, so a search gives the same verdict, nodes and
line as the compiled kernel (the test suite's ``NUMBA_DISABLE_JIT`` tier runs the kernel this way), about
a thousand times slower: some 4,000 nodes a second. That is enough for the easy deals, which is most of
them, while the compiled kernel is still being compiled for the first time (``quick``).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
from types import ModuleType

from numba import config

from . import kernel as K

NAME = __name__.rsplit(".", 1)[0] + "._kernel_interpreted"


PARTS = ("base", "stuck", "pool")  # the files kernel.py imports its compiled pieces from, in import order


def _load(name: str, path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@functools.cache  # once a process
def kernel() -> ModuleType:
    """kernel.py loaded a second time, under Numba's DISABLE_JIT: every ``njit`` and ``helper`` in it is
    the plain function. The pieces it imports (``PARTS``) are loaded a second time too, and stand in for the
    compiled ones under their own names while the copy's imports run."""
    package = K.__name__.rsplit(".", 1)[0]
    folder = os.path.dirname(K.__file__)
    real = {part: sys.modules.get(f"{package}.{part}") for part in PARTS}
    before = config.DISABLE_JIT
    config.DISABLE_JIT = True
    try:
        for part in PARTS:
            copy = _load(f"{package}._{part}_interpreted", os.path.join(folder, f"{part}.py"))
            sys.modules[f"{package}.{part}"] = copy  # what the next copies' ``from .part import`` finds
        return _load(NAME, K.__file__)
    finally:
        config.DISABLE_JIT = before
        for part, mod in real.items():
            if mod is None:
                sys.modules.pop(f"{package}.{part}", None)
            else:
                sys.modules[f"{package}.{part}"] = mod
