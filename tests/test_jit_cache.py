"""The package's compiled code is never loaded stale from Numba's cache (jit.py).

A copy of the package's codec and jit modules in a temporary folder, with a probe module that compiles a
cached function calling codec's ``move_kind`` (as the kernel does); codec is then edited, and a new process
must compute with the new text. The same probe under Numba's own ``cache=True`` keeps the old code: the
failure this guards against.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import PACKAGE, needs_jit

PROBE = '''
from numba import njit as numba_njit

from . import codec as C
from ..jit import njit

_kind = njit(cache=True)(C.move_kind)
_kind_plain = numba_njit(cache=True)(C.move_kind)


@njit(cache=True)
def ours(mv):
    return _kind(mv)


@numba_njit(cache=True)
def numbas(mv):
    return _kind_plain(mv)
'''

RUN = '''
import json
from canfield_solver.search import _probe as p
a, b = int(p.ours(0x25)), int(p.numbas(0x25))
hits = sum(p.ours.stats.cache_hits.values())
print(json.dumps({"ours": a, "numbas": b, "ours_from_cache": hits > 0}))
'''


def run(root: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT")}
    env["PYTHONPATH"] = str(root)
    out = subprocess.run([sys.executable, "-c", RUN], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def probe_package(tmp_path: Path, probe: str) -> Path:
    """A package of its own in ``tmp_path``: copies of search/codec.py, jit.py and the startup.py it imports, and
    ``probe`` as search/_probe.py."""
    pkg = tmp_path / "canfield_solver"
    (pkg / "search").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "search" / "__init__.py").write_text("")
    shutil.copy(PACKAGE / "search" / "codec.py", pkg / "search" / "codec.py")
    shutil.copy(PACKAGE / "jit.py", pkg / "jit.py")
    shutil.copy(PACKAGE / "startup.py", pkg / "startup.py")
    (pkg / "search" / "_probe.py").write_text(probe)
    return pkg


@pytest.mark.integration  # three fresh processes, each compiling
@needs_jit
def test_an_edit_of_an_inlined_file_recompiles(tmp_path):
    pkg = probe_package(tmp_path, PROBE)

    first = run(tmp_path)
    assert first == {"ours": 5, "numbas": 5, "ours_from_cache": False}
    again = run(tmp_path)
    assert again == {"ours": 5, "numbas": 5, "ours_from_cache": True}  # the cache is used while nothing changed

    codec = pkg / "search" / "codec.py"
    text = codec.read_text()
    old = "    return mv & MV_KIND_MASK\n"
    assert old in text
    codec.write_text(text.replace(old, "    return (mv & MV_KIND_MASK) + 100\n"))
    after = run(tmp_path)
    assert after["ours"] == 105 and not after["ours_from_cache"]  # recompiled from the edited codec
    if after["numbas"] != 5:
        pytest.fail("Numba's own cache now sees an edit of another file: jit.py may be simplified")


# Numba 0.58-0.61 named the cache locators with a leading underscore; a future release may rename more. The
# package must then compile without a disk cache (never load a stale entry, never crash) and say so once.
HIDE = '''
import numba.core.caching as caching
del caching.InTreeCacheLocator
'''

PROBE_HELPER = PROBE + '''
from ..jit import helper

_kind_helper = helper(_nrt=False, forceinline=True)(C.move_kind)


@njit(cache=True)
def through_helper(mv):
    return _kind_helper(mv) + 1
'''

RUN_FALLBACK = HIDE + '''
import json
from canfield_solver import jit
from canfield_solver.search import _probe as p
a, c = int(p.ours(0x25)), int(p.through_helper(0x25))
print(json.dumps({"ours": a, "helper": c, "disk_cache": jit.DISK_CACHE,
                  "ours_from_cache": sum(p.ours.stats.cache_hits.values()) > 0}))
'''


@pytest.mark.integration  # two fresh processes, each compiling
@needs_jit
def test_a_numba_without_the_cache_internals_compiles_without_a_disk_cache(tmp_path):
    pkg = probe_package(tmp_path, PROBE_HELPER)
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT")}
    env["PYTHONPATH"] = str(tmp_path)
    for _ in range(2):  # the second run finds no cache written by the first: it compiles again
        out = subprocess.run([sys.executable, "-c", RUN_FALLBACK], env=env, capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        assert json.loads(out.stdout.strip().splitlines()[-1]) == {
            "ours": 5, "helper": 6, "disk_cache": False, "ours_from_cache": False}
        lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1, out.stderr
        assert "InTreeCacheLocator" in lines[0] and "without a disk cache" in lines[0]
    assert not list((pkg / "search").glob("**/*.nbi"))  # nothing was written to be loaded later


def test_the_kernels_stamp_covers_every_file_it_inlines():
    """kernel.py inlines the pieces split out of it (base.py, stuck.py, pool.py) and codec's functions: each is
    in the stamp of its cached entry points, and of the searches that inline the kernel in turn, so an edit of
    any of them compiles them again instead of loading stale code."""
    from canfield_solver import jit
    from canfield_solver.search import kernel
    from canfield_solver.search.layered import close
    from canfield_solver.search.ranks import kernel as ranks_kernel

    pieces = {"search/kernel.py", "search/base.py", "search/stuck.py", "search/pool.py", "search/codec.py"}
    for module in (kernel, close, ranks_kernel):
        stamped = {str(p.relative_to(jit.PACKAGE_ROOT)) for p in jit.sources(module.__file__)}
        assert pieces <= stamped, (module.__name__, pieces - stamped)
