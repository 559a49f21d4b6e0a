"""The command line's start-up (startup.py): no collection scans what the imports built, a library user's
collector is left alone, and the kernel's load reads the same types Numba would without Numba's slow path."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from helpers import IMPORT_ROOT, needs_jit


def _python(code: str, *args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": IMPORT_ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode in (0, 1), out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


LIBRARY = '''
import gc, json
gc.set_threshold(555, 7, 9)
from canfield_solver import startup, solver, jit
startup.settle()
print(json.dumps({"threshold": gc.get_threshold(), "frozen": gc.get_freeze_count(), "paused": startup.paused()}))
'''


def test_a_library_users_collector_is_left_as_they_set_it():
    # importing the package, and the jit module that settles, neither pauses nor freezes anything
    assert _python(LIBRARY) == {"threshold": [555, 7, 9], "frozen": 0, "paused": False}


PAUSED = '''
import gc, json
from canfield_solver import startup
before = gc.get_threshold()
startup.pause()
during = gc.get_threshold()
import numpy
paused = startup.paused()
from canfield_solver import jit   # Numba imported: the start-up's bulk is built, jit settles
print(json.dumps({"before": before, "during": during, "paused_until_jit": paused, "after": gc.get_threshold(),
                  "frozen": gc.get_freeze_count() > 50_000, "paused": startup.paused()}))
'''


def test_a_pause_holds_collections_off_until_numba_is_imported_and_then_freezes_what_was_built():
    got = _python(PAUSED)
    assert got["during"] == [1_000_000, *got["before"][1:]]
    assert got["paused_until_jit"] and not got["paused"]
    assert got["after"] == got["before"] and got["frozen"]


# The entry point as the ``canfield`` script runs it, with every automatic collection recorded: whether the
# start-up had settled, and whether the command line and Numba were imported by then.
COLLECTIONS = '''
import gc, json, sys
seen = []
def watch(phase, info):
    if phase == "start":
        startup = sys.modules.get("canfield_solver.startup")
        seen.append({"generation": info["generation"], "paused": bool(startup and startup.paused()),
                     "numba": "numba" in sys.modules,
                     "cli": "canfield_solver.surfaces.cli" in sys.modules})
gc.callbacks.append(watch)
sys.argv = ["canfield", *sys.argv[1:]]
from canfield_solver._entry import main
try:
    main()
except SystemExit:
    pass
print(json.dumps(seen))
'''


@needs_jit
def test_a_solve_collects_nothing_before_numba_is_imported_and_never_the_oldest_generation():
    # Before: 135 young, 12 middle and one full collection of the imports' objects (~50 ms of a warm solve).
    # A _python run prints the json list last (it exits through _entry's sys.exit: caught above).
    env = {**os.environ, "PYTHONPATH": IMPORT_ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", COLLECTIONS, "solve", "--seed", "2", "--json"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.strip().splitlines()
    assert json.loads(lines[0])["verdict"] == "solved"
    seen = json.loads(lines[-1])
    # the command line is imported after the pause began (_entry.main), Numba after the command line
    assert not [c for c in seen if c["paused"] or (c["cli"] and not c["numba"])], seen
    assert not [c for c in seen if c["generation"] == 2]


def test_the_kernel_loads_with_the_types_numba_would_give_its_arguments():
    from numba import typeof

    from canfield_solver.search import kernel_load as kc

    calls = kc._kernel_calls()
    assert len(calls) == 3
    for _disp, args in calls:
        assert kc._signature(args) == tuple(typeof(a) for a in args)
    grid = np.zeros((4, 6), np.uint64)
    frozen = np.arange(5, dtype=np.int32)
    frozen.flags.writeable = False
    odd = (grid, np.asfortranarray(grid), grid[:, ::2], frozen, np.uint64(3), 7, np.zeros(0, np.int8))
    assert kc._signature(odd) == tuple(typeof(a) for a in odd)
    assert [str(t) for t in kc._signature(odd)[:4]] == [
        "array(uint64, 2d, C)", "array(uint64, 2d, F)", "array(uint64, 2d, A)", "readonly array(int32, 1d, C)"]


@needs_jit
def test_a_function_always_inlined_gets_no_cache_of_its_own():
    from canfield_solver.jit import SourcesCache
    from canfield_solver.search import kernel as K

    # codec's small functions, inlined by Numba into the kernel's IR; the entry points keep their cache
    assert not isinstance(K.move_kind._cache, SourcesCache) and K.move_kind.targetoptions.get("inline") == "always"
    assert K.move_kind.py_func.__name__ == "move_kind"
    assert isinstance(K.search._cache, SourcesCache) and isinstance(K.init_codes._cache, SourcesCache)
