"""``njit`` for the package's compiled code (Canfield's search and the games' kernels), with an on-disk
cache that is never loaded stale.

Numba stamps a cached function with the source of the function's own file only (numba issue #1833). A
compiled function that calls or inlines a function of another file (``layered.close.close_entries`` runs the kernel's
move generation; the kernel compiles ``codec``'s packing functions, the games' kernels ``games/codes.py``'s) keeps the callee's old code in the
cache after that other file changes, and Numba would load it. Here the stamp of every cached function is a
hash of its own file and of every file of this package that file imports, directly or through others (read
from the import statements, so a new import is covered the moment it is written): change any of them and
the index no longer matches, so the function compiles again and its cache entry is rewritten.

Use ``njit`` from here exactly as Numba's (same options); ``cache=True`` gets the stamp above. Under
``NUMBA_DISABLE_JIT`` it returns the plain function, as Numba's does.

The stamp and ``helper`` below subclass Numba internals (its cache classes and its JIT code library), which
Numba does not promise to keep. ``pyproject.toml`` pins Numba to the releases CI tests; should this module
meet a Numba whose internals differ all the same, ``DISK_CACHE`` is False: every function compiles with
plain ``numba.njit`` and no disk cache (each process compiles: a slower start, never a stale load), and one
line on stderr says so (``FALLBACK_NOTE``).

Importing this module imports Numba, the bulk of a command's start-up, and so ends the command line's
pause of the garbage collector (``startup.settle``).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable

import numba
from numba import config
from numba import njit as _numba_njit

from . import startup

# Compile options by name: every compiled function of the package takes one of these sets, never options
# spelled out (tests/test_kernel_docs.py holds that), so a kind of function compiles one way everywhere.
CACHED = {"cache": True}                    # a function with its own cache entry
THREADED = {**CACHED, "nogil": True}        # ... that threads run at once (the GIL released)
NO_NRT = {**CACHED, "_nrt": False}          # ... that allocates nothing: no reference counting (a search's
                                            # every array is made in Python and passed in; the counting
                                            # measured as a large share of a node's time)
ENTRY = {**NO_NRT, "nogil": True}           # a search's entry point: both (worker threads search at once)
IR_INLINE = {"inline": "always"}            # small, inlined by Numba into each caller before typing
IR_INLINE_CACHED = {**CACHED, **IR_INLINE}
IR_INLINE_NO_NRT = {**IR_INLINE, "_nrt": False}
IR_INLINE_NO_NRT_CACHED = {**IR_INLINE, **NO_NRT}
# ``helper``'s: inlined by LLVM (``alwaysinline``) into the search, which a call between Numba functions
# would cost seven scalars an array; CANFIELD_KERNEL_NOINLINE=1 keeps them as functions, for profiling by
# function (benchmarks/profile_kernel.py, which compiles into a fresh cache).
INLINE = {"_nrt": False, "forceinline": os.environ.get("CANFIELD_KERNEL_NOINLINE", "") != "1"}

Dispatcher = Any  # what Numba's njit returns: a dispatcher (or, without the JIT, the function); Numba has no annotations

try:  # Numba's internals that the stamp and ``helper`` subclass (see the docstring)
    from numba.core import codegen as _codegen
    from numba.core import compiler as _compiler
    from numba.core.caching import (
        CompileResultCacheImpl,
        FunctionCache,
        InTreeCacheLocator,
        UserProvidedCacheLocator,
        UserWideCacheLocator,
    )
    from numba.core.registry import CPUDispatcher

    _MISSING = ", ".join(
        f"{cls.__name__}.{attr}" for cls, attrs in (
            (FunctionCache, ("_guard_against_spurious_io_errors", "_load_overload", "_index_key")),
            (_codegen.JITCodeLibrary, ("_finalize_final_module", "_finalize_dynamic_globals",
                                       "_verify_declare_only_symbols")),
            (_compiler.Compiler, ("compile_extra",)),
            (InTreeCacheLocator, ("from_function", "get_source_stamp")),
            (CompileResultCacheImpl, ("_locator_classes",)),
        ) for attr in attrs if not hasattr(cls, attr))
    if _MISSING:
        _MISSING = "missing " + _MISSING
except (ImportError, AttributeError) as exc:  # the classes below are then defined over stand-ins, never used
    _MISSING = f"{type(exc).__name__}: {exc}"

    class _StandIn:
        JITCodeLibrary = Compiler = object

    _codegen = _compiler = _StandIn
    CompileResultCacheImpl = FunctionCache = InTreeCacheLocator = object
    UserProvidedCacheLocator = UserWideCacheLocator = CPUDispatcher = object

startup.settle()  # Numba's objects, the bulk of a command's start-up, are built: freeze them (startup.py)

DISK_CACHE = not _MISSING  # False: every cached function compiles afresh in each process (see the docstring)
FALLBACK_NOTE = (f"canfield-solver: Numba {numba.__version__} lacks internals its compile cache relies on "
                 f"({_MISSING}); compiling without a disk cache (every run compiles; supported Numba: "
                 f"see pyproject.toml)")
_noted = False


def _note_fallback() -> None:
    """Say once a process, on stderr, that the disk cache is off."""
    global _noted
    if not _noted:
        _noted = True
        print(FALLBACK_NOTE, file=sys.stderr, flush=True)


PACKAGE_ROOT = Path(__file__).resolve().parent  # src/canfield_solver
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

    def get_source_stamp(self) -> tuple[str, str]:
        return ("canfield-sources", sources_stamp(self._py_file))

    @classmethod
    def from_function(cls, py_func: Callable, py_file: str) -> "_SourcesStamp | None":
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
    uses_nrt = True  # njit's ``_nrt`` option of the function: False for the kernel's, which never allocate

    def load_overload(self, sig: object, target_context: object) -> object:
        # Numba's first loads every typing and lowering registry (``target_context.refresh()``: half a second
        # of a warm start), which only a compile needs, and a compile refreshes the context itself. A loaded
        # function needs only Numba's runtime (allocation), which that refresh would also have started.
        if self.uses_nrt:
            from numba.core.runtime import rtsys

            rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)


def njit(*args: Callable, **opts: object) -> Dispatcher:
    """``numba.njit``; with ``cache=True`` the cache is ``SourcesCache``. A function with ``inline="always"``
    gets no cache (``cache=True`` is dropped): Numba inlines it into each compiled caller's IR, so it is
    compiled on its own only when called from Python, and making its cache at import costs ~0.7 ms a
    function (Numba's locator tries a temporary file in the cache directory), ~10 ms of the kernel's import."""
    cache = bool(opts.pop("cache", False)) and opts.get("inline") != "always"

    def wrap(fn: Callable) -> Dispatcher:
        disp = _numba_njit(**opts)(fn)
        if cache and not config.DISABLE_JIT and not DISK_CACHE:
            _note_fallback()  # compiled in this process, from this source: nothing on disk to be stale
        elif cache and not config.DISABLE_JIT and hasattr(disp, "py_func"):
            disp._cache = SourcesCache(disp.py_func)
            disp._cache.uses_nrt = bool(opts.get("_nrt", True))
        return disp

    if args and callable(args[0]) and len(args) == 1:
        return wrap(args[0])
    if args:
        raise TypeError("canfield_solver.jit.njit takes options as keywords only")
    return wrap


# --- Helpers: compiled only to be inlined -------------------------------------------------------------------
#
# The kernel is a few entry points (cached) built of some forty helpers that LLVM inlines into them
# (``forceinline``). Numba compiles each helper as a function of its own first: a CPython wrapper, a C
# wrapper, a cache entry and machine code for it, all thrown away once it is inlined (the entry point's module
# is compiled to machine code again, helpers and all). ``helper`` compiles a function only as far as the
# optimised LLVM IR its callers link in: no wrappers, no cache entry, no machine code of its own. The entry
# points' code is the same as with Numba's own path; the compile is shorter (benchmarks/bench_first_answer.py).


class _Codegen:
    """The JIT codegen as a link-only library sees it: a function that gets no machine code gets no
    environment pointer either (``set_env`` writes one into machine code)."""

    def __init__(self, codegen: object):
        self._codegen = codegen

    def set_env(self, env_name: str, env: object) -> None:
        pass

    def __getattr__(self, name: str) -> object:
        return getattr(self._codegen, name)


class _LinkOnlyLibrary(_codegen.JITCodeLibrary):
    """A code library that is only ever linked into others: finalising it makes no machine code of it.
    Its module is still optimised as Numba's own are, so that the IR its callers link in, and so their
    code, is exactly what it was (skipping that too saved 3 s more of the compile, but the entry points
    it gave measured up to 9% slower a node, within this machine's noise but not clearly so)."""

    @property
    def codegen(self) -> _Codegen:
        return _Codegen(self._codegen)

    def _finalize_final_module(self) -> None:
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True

    def get_pointer_to_function(self, name: str) -> int:
        return 0


class _LinkOnlyCompiler(_compiler.Compiler):
    def compile_extra(self, func: Callable) -> object:
        if self.state.library is None:
            self.state.library = _LinkOnlyLibrary(self.state.targetctx.codegen(), func.__qualname__)
        return super().compile_extra(func)


class HelperDispatcher(CPUDispatcher):
    """The dispatcher of a ``helper``. Compiled callers link its IR in. Called from Python (tests,
    benchmarks) it runs a twin: the same function compiled with a wrapper and cached, on first use."""

    _twin: "Dispatcher | None" = None

    def __call__(self, *args: object, **kws: object) -> object:
        if self._twin is None:
            self._twin = njit(cache=True, _nrt=self.targetoptions.get("_nrt", True))(self.py_func)
        return self._twin(*args, **kws)


def helper(**opts: object) -> Callable[[Callable], Dispatcher]:
    """A decorator: ``fn`` compiled only to be inlined into compiled callers (see above). Options as
    ``njit``'s (``cache`` is refused: a helper is cached inside its callers). Under ``NUMBA_DISABLE_JIT``
    the plain function."""
    if opts.pop("cache", False):
        raise TypeError("a helper has no cache entry of its own")

    def wrap(fn: Callable) -> Dispatcher:
        if config.DISABLE_JIT:
            return fn
        if not DISK_CACHE:  # Numba's own path: wrappers and machine code the callers do not use, same callers
            return _numba_njit(**opts)(fn)
        targetoptions = {"nopython": True, **opts, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}
        return HelperDispatcher(py_func=fn, locals={}, targetoptions=targetoptions,
                                pipeline_class=_LinkOnlyCompiler)

    return wrap
