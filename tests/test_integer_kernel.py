"""The search's hot paths compile to integer code: no float arithmetic where the source meant integers.

Numba types an operation between a uint64 and a signed integer as float64 (NumPy's rule), silently: the
layered decoder once took every card's rank with a float remainder (``numba_fmod``, about 3% of a layered
node), and the waste targets compared talon counts as floats. The compiled LLVM of the depth-first search's
entry point (its helpers are inlined into it) must hold no float instruction at all, and the layered
decoder and close kernel no float remainder or uint64-to-float conversion in their decoding. Inspecting
LLVM needs a compile in the process (Numba keeps no LLVM for cached code), so this runs in a process of
its own with an empty cache: the integration tier.
"""

import json
import os
import subprocess
import sys

import pytest

from helpers import needs_jit

RUN = '''
import json, re
import canfield_solver as cs
cs.solve(2, "canfield", max_nodes=20_000)
cs.solve(2, "canfield", method="layered", max_nodes=20_000)
from canfield_solver.search import kernel as K, rows as R
from canfield_solver.search.layered import close
FLOAT = ("frem", "fadd", "fsub", "fmul", "fdiv", "fcmp", "uitofp", "sitofp", "fptosi", "fptoui")
found = {}
for name, disp in (("kernel.search", K.search), ("rows._columns", R._columns),
                   ("rows.level_from_row", R.level_from_row), ("close.close_entries", close.close_entries)):
    for cres in disp.overloads.values():
        ir = cres.library.get_llvm_str()
        found[name] = {op: len(re.findall(r"= " + op + " ", ir)) for op in FLOAT}
print(json.dumps(found))
'''


@pytest.mark.integration
@needs_jit
def test_hot_paths_hold_no_float_arithmetic(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba")  # empty: everything compiles here, LLVM kept
    out = subprocess.run([sys.executable, "-c", RUN], env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert set(found) == {"kernel.search", "rows._columns", "rows.level_from_row", "close.close_entries"}
    assert not any(found["kernel.search"].values()), found["kernel.search"]
    for name in ("rows._columns", "rows.level_from_row"):
        assert not any(found[name].values()), (name, found[name])
    # the close kernel's table growth takes a float load factor (TABLE_LOAD): a multiply and its conversions,
    # once a growth; never a remainder, and at most the one uint64-to-float conversion it has today
    assert found["close.close_entries"]["frem"] == 0, found["close.close_entries"]
    assert found["close.close_entries"]["uitofp"] <= 1, found["close.close_entries"]
