"""``njit`` for the search's compiled code, with an on-disk cache that is never loaded stale.

Numba stamps a cached function with the source of the function's own file only (numba issue #1833). A
compiled function that calls or inlines a function of another file (``layered._close`` runs the kernel's
move generation; the kernel compiles ``codec``'s packing functions) keeps the callee's old code in the
cache after that other file changes, and Numba would load it. Here the stamp of every cached function is a
hash of its own file and of every file of this package that file imports, directly or through others (read
from the import statements, so a new import is covered the moment it is written): change any of them and
the index no longer matches, so the function compiles again and its cache entry is rewritten.

Use ``njit`` from here exactly as Numba's (same options); ``cache=True`` gets the stamp above. Under
``NUMBA_DISABLE_JIT`` it returns the plain function, as Numba's does.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from pathlib import Path
from typing import Any, Callable

from numba import config
from numba import njit as _numba_njit
from numba.core.caching import (
    CompileResultCacheImpl,
    FunctionCache,
    InTreeCacheLocator,
    UserProvidedCacheLocator,
    UserWideCacheLocator,
)

PACKAGE_ROOT = Path(__file__).resolve().parent.parent  # src/canfield_solver
PACKAGE = PACKAGE_ROOT.name


def _module_file(name: str) -> Path | None:
    """The file of module ``name`` (dotted, absolute) if it is in this package."""
    parts = name.split(".")
    if parts[0] != PACKAGE:
        return None
    base = PACKAGE_ROOT.joinpath(*parts[1:])
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#]+)", re.M)


def _imports(path: Path) -> set[Path]:
    """The files of this package that ``path`` imports (its own statements, read with two regular expressions:
    this runs at import time, where parsing the files would cost a tenth of a second)."""
    rel = path.relative_to(PACKAGE_ROOT).with_suffix("")
    pkg = [PACKAGE, *rel.parts[:-1]]  # the package a relative import starts from
    text = path.read_text()
    names: list[str] = []
    for dots, module, what in _FROM.findall(text):
        level = len(dots)
        if level:
            base = pkg[: len(pkg) - (level - 1)] if level > 1 else pkg
            mod = ".".join(base + ([module] if module else []))
        else:
            mod = module
        # ``from . import kernel`` binds a module; ``from .codec import X`` a name of codec's
        for item in what.strip("()").replace("\n", " ").split(","):
            name = item.split(" as ")[0].strip()
            if name:
                names.append(f"{mod}.{name}" if _module_file(f"{mod}.{name}") else mod)
    for what in _IMPORT.findall(text):
        names += [item.split(" as ")[0].strip() for item in what.split(",")]
    return {f for f in map(_module_file, names) if f is not None}


@functools.lru_cache(maxsize=None)
def sources(path: str) -> tuple[Path, ...]:
    """``path`` and every file of this package it imports, directly or not, sorted."""
    start = Path(path).resolve()
    seen = {start}
    todo = [start]
    while todo:
        for f in _imports(todo.pop()):
            if f not in seen:
                seen.add(f)
                todo.append(f)
    return tuple(sorted(seen))


@functools.lru_cache(maxsize=None)
def sources_stamp(path: str) -> str:
    """A hash of the contents of ``sources(path)``: what a cached function compiled from ``path`` depends on."""
    h = hashlib.sha256()
    for f in sources(path):
        h.update(str(f.relative_to(PACKAGE_ROOT)).encode() + b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


class _SourcesStamp:
    """A locator mix-in: the stamp is the hash of the function's file and everything of ours it imports."""

    _py_file: str

    def get_source_stamp(self) -> Any:
        return ("canfield-sources", sources_stamp(self._py_file))

    @classmethod
    def from_function(cls, py_func: Callable, py_file: str) -> Any:
        if not os.path.exists(py_file) or not Path(py_file).resolve().is_relative_to(PACKAGE_ROOT):
            return None
        return super().from_function(py_func, py_file)  # type: ignore[misc]


class _UserProvided(_SourcesStamp, UserProvidedCacheLocator):
    pass


class _InTree(_SourcesStamp, InTreeCacheLocator):
    pass


class _UserWide(_SourcesStamp, UserWideCacheLocator):
    pass


class _Impl(CompileResultCacheImpl):
    _locator_classes = [_UserProvided, _InTree, _UserWide]


class SourcesCache(FunctionCache):
    """Numba's per-function cache, stamped with ``sources_stamp``."""

    _impl_class = _Impl


def njit(*args: Any, **opts: Any) -> Any:
    """``numba.njit``; with ``cache=True`` the cache is ``SourcesCache``."""
    cache = bool(opts.pop("cache", False))

    def wrap(fn: Callable) -> Any:
        disp = _numba_njit(**opts)(fn)
        if cache and not config.DISABLE_JIT and hasattr(disp, "py_func"):
            disp._cache = SourcesCache(disp.py_func)
        return disp

    if args and callable(args[0]) and len(args) == 1:
        return wrap(args[0])
    if args:
        raise TypeError("canfield_solver.search.jit.njit takes options as keywords only")
    return wrap
