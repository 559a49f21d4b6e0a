"""The first run on a machine: the interpreted kernel searches exactly as the compiled one, the quick start
hands over to the compiled kernel without changing an answer, and every compile is said, timed and made
once a machine (compiles.py)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from canfield_solver import compiles
from canfield_solver.budget import Limit, Limits
from canfield_solver.engine.deal import Deal
from canfield_solver.engine.position import Position
from canfield_solver.engine.rules import get_rules

from helpers import IMPORT_ROOT, needs_jit


@needs_jit
@pytest.mark.parametrize("preset", ["canfield", "canfield-whole-pile", "storehouse", "rainbow"])
def test_the_interpreted_kernel_searches_node_for_node_as_the_compiled_one(preset):
    import numpy as np

    from canfield_solver.search import depth_first, interpreted

    slow = interpreted.kernel()
    for seed in (0, 1, 2, 5):
        start = Position(Deal.from_seed(seed, get_rules(preset)))
        fast = depth_first.search(start, Limits(nodes=1500, memory_mb=64))
        with np.errstate(all="ignore"):
            plain = depth_first.search(start, Limits(nodes=1500, memory_mb=64), 0.0, depth_first.How(slow, 256))
        assert (plain.won, plain.limit, plain.nodes, plain.positions, plain.best_score, plain.solution,
                plain.best_path) == (fast.won, fast.limit, fast.nodes, fast.positions, fast.best_score, fast.solution,
                                     fast.best_path), (preset, seed)


class _Proc:
    def __init__(self, done: bool):
        self.done = done

    def poll(self):
        return 0 if self.done else None


def _quick(monkeypatch, done: bool):
    from canfield_solver.search import quick

    monkeypatch.setattr(quick.kc, "background", lambda *a, **k: _Proc(done))
    monkeypatch.setattr(quick.portfolio, "start_background", lambda: ())
    told: list[compiles.Notice] = []
    monkeypatch.setattr(compiles, "listeners", [told.append])
    return quick, told


def test_the_quick_start_answers_an_easy_deal_itself(monkeypatch):
    quick, told = _quick(monkeypatch, done=False)
    out, spent = quick.search(Position(Deal.from_seed(2)), Limits())
    assert out is not None and out.won and out.stats["interpreted"] and out.nodes == 222 and spent < 30
    assert [n.phase for n in told] == ["background"]


def test_only_the_run_that_starts_a_compile_says_first_run(monkeypatch):
    """A run that finds the kernel's compile going in another process (the background compile not started: it
    returns None) tells no notice; its answer, if undecided, names the compile it searched without."""
    quick, told = _quick(monkeypatch, done=False)
    monkeypatch.setattr(quick.kc, "background", lambda *a, **k: None)
    monkeypatch.setattr(compiles, "busy", lambda what: True)
    out, _spent = quick.search(Position(Deal.from_seed(205)), Limits(nodes=300))
    assert told == [] and out is not None and out.limit is Limit.NODES and out.stats["compiling"][0] == "kernel"
    monkeypatch.setattr(quick.portfolio, "start_background", lambda: ("nested", "ranks", "adapt"))
    quick.search(Position(Deal.from_seed(205, get_rules("rainbow"))), Limits(nodes=300))
    assert [(n.what, n.phase) for n in told] == [("phases", "background")]  # one notice for the three


def test_the_quick_start_hands_over_when_the_compile_is_done_or_its_cap_is_reached(monkeypatch):
    quick, _ = _quick(monkeypatch, done=True)
    out, _spent = quick.search(Position(Deal.from_seed(0)), Limits())
    assert out is None  # the compile finished: the compiled kernel searches from the start
    quick, _ = _quick(monkeypatch, done=False)
    monkeypatch.setattr(quick, "QUICK_NODES", 600)
    assert quick.search(Position(Deal.from_seed(0)), Limits())[0] is None  # its own cap
    out, _spent = quick.search(Position(Deal.from_seed(0)), Limits(nodes=300))  # the caller's limit: final
    assert out is not None and out.limit is Limit.NODES and out.nodes <= 300


def test_compile_figures_are_this_machines_once_recorded(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert compiles.estimate("layered") == (compiles.MEASURED["layered"], "the development machine")
    told: list[compiles.Notice] = []
    monkeypatch.setattr(compiles, "listeners", [told.append])
    monkeypatch.setattr(compiles, "compiled", lambda what: True)
    with compiles.compiling("layered"):
        pass
    assert told == []  # a load says nothing
    monkeypatch.setattr(compiles, "compiled", lambda what: False)
    with compiles.compiling("layered"):
        time.sleep(0.05)
    assert [n.phase for n in told] == ["start", "end"] and told[1].seconds >= 0.05
    secs, source = compiles.estimate("layered")
    assert source == "this machine" and secs == round(told[1].seconds, 1)
    assert json.loads((tmp_path / "canfield-compiles.json").read_text())["layered"] == secs


@needs_jit
def test_compiled_asks_numba_in_process_and_the_index_files_without_it(tmp_path):
    code = ("import sys; from canfield_solver import compiles\n"
            "print(compiles.compiled('kernel'), 'numba' in sys.modules)\n"
            "from canfield_solver.search import kernel_load\n"
            "print(compiles.compiled('kernel'), 'numba' in sys.modules)\n")
    here = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=IMPORT_ROOT),
                          capture_output=True, text=True, check=True)
    # the session fixture loaded the kernel: its index is in the cache, seen first without Numba, then by Numba
    assert here.stdout.split() == ["True", "False", "True", "True"], here.stdout
    empty = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=IMPORT_ROOT, NUMBA_CACHE_DIR=str(tmp_path)),
                           capture_output=True, text=True, check=True)
    assert empty.stdout.split() == ["False", "False", "False", "True"], empty.stdout
    # without Numba, an index file where Numba would write it counts
    kernel_py = Path(IMPORT_ROOT) / "canfield_solver" / "search" / "kernel.py"
    folder = kernel_py.parent.resolve()
    mirrored = tmp_path / f"{folder.name}_{hashlib.sha1(str(folder).encode()).hexdigest()}"
    mirrored.mkdir(exist_ok=True)  # Numba made it when the run above imported the kernel
    probe = "from canfield_solver import compiles; print(compiles.compiled('kernel'), compiles.compiled('pairs'))"
    env = dict(os.environ, PYTHONPATH=IMPORT_ROOT, NUMBA_CACHE_DIR=str(tmp_path))
    (mirrored / "kernel.search-500.py311.nbi").write_bytes(b"")
    assert subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True).stdout.split() == [
        "True", "False"]


def test_a_compile_lock_held_elsewhere_is_seen_and_waited_for(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from canfield_solver import compiles\n"
         "with compiles.machine_lock('pairs'):\n    print('held', flush=True); time.sleep(1.5)"],
        env=dict(os.environ, PYTHONPATH=IMPORT_ROOT), stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    assert compiles.busy("pairs") and not compiles.busy("layered")
    told: list[compiles.Notice] = []
    monkeypatch.setattr(compiles, "listeners", [told.append])
    t0 = time.perf_counter()
    with compiles.machine_lock("pairs") as got:
        assert got and time.perf_counter() - t0 > 0.3  # waited for the holder to let go
    assert [n.phase for n in told] == ["wait"]
    holder.wait(10)
    assert not compiles.busy("pairs")


def _cli(cache: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=IMPORT_ROOT, NUMBA_CACHE_DIR=str(cache))
    return subprocess.run([sys.executable, "-m", "canfield_solver", *args], env=env, capture_output=True, text=True,
                          timeout=600)


def _wait_for_record(cache: Path, what: str, timeout: float = 600) -> None:
    t_end = time.monotonic() + timeout
    while time.monotonic() < t_end:
        try:
            if what in json.loads((cache / "canfield-compiles.json").read_text()):
                if not compiles_busy(cache, what):
                    return
        except (OSError, ValueError):
            pass
        time.sleep(0.5)
    raise AssertionError(f"no {what} compile recorded in {timeout} s")


def compiles_busy(cache: Path, what: str) -> bool:
    code = f"from canfield_solver import compiles; print(compiles.busy({what!r}))"
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=IMPORT_ROOT, NUMBA_CACHE_DIR=str(cache)),
                         capture_output=True, text=True, check=True)
    return out.stdout.strip() == "True"


@needs_jit
@pytest.mark.integration
def test_a_cold_first_solve_answers_before_the_compile_and_the_next_run_loads_it(tmp_path):
    first = _cli(tmp_path, "solve", "--seed", "2", "--json")
    assert first.returncode == 0, first.stderr
    assert "compiling the search kernel in the background" in first.stderr
    a = json.loads(first.stdout)
    assert a["verdict"] == "solved" and a["nodes"] == 222
    _wait_for_record(tmp_path, "kernel")  # the background compile ended after the answer, and filled the cache
    second = _cli(tmp_path, "solve", "--seed", "2", "--json")
    assert second.returncode == 0 and "compil" not in second.stderr, second.stderr
    b = json.loads(second.stdout)
    assert (b["verdict"], b["nodes"], b["moves"]) == (a["verdict"], a["nodes"], a["moves"])


@needs_jit
@pytest.mark.integration
def test_processes_that_start_cold_together_compile_once(tmp_path):
    code = ("from canfield_solver import compiles\n"
            "compiles.listeners.append(lambda n: print(n.phase, flush=True))\n"
            "from canfield_solver.solver import load_kernel\nload_kernel()\n")
    env = dict(os.environ, PYTHONPATH=IMPORT_ROOT, NUMBA_CACHE_DIR=str(tmp_path))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=600)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(outs) == [["start", "end"], ["wait"]], outs  # one compiled; the other waited, then loaded



def test_a_deadline_is_fixed_once_and_counts_down():
    """``budget.Deadline``: every phase of a search asks what is left of the one limit (issue 62 item 3)."""
    from canfield_solver.budget import Deadline

    assert Deadline(None).left() is None  # no limit
    d = Deadline(5.0, start=time.perf_counter() - 2.0)  # started two seconds ago
    assert 2.9 < d.left() <= 3.0
    assert Deadline(1.0, start=time.perf_counter() - 2.0).left() == 0.0  # spent: never negative
    a = Deadline(10.0)
    first = a.left()
    time.sleep(0.01)
    assert a.left() < first


def test_limits_travel_as_one_value_and_a_share_never_outlasts_them():
    """``budget.Limits`` (issue 72): one value from ``solve`` to ``drive``; a phase's share ends no later than
    the search's deadline and asks no more nodes than are left; ``spent`` takes a phase's nodes off."""
    from canfield_solver.budget import Deadline, Limits

    lim = Limits(Deadline(10.0), nodes=1000, memory_mb=64, workers=2)
    part = lim.share(seconds=2.0, nodes=300, memory_mb=32)
    assert part.deadline.at < lim.deadline.at and 1.9 < part.seconds <= 2.0
    assert (part.nodes, part.memory_mb, part.workers) == (300, 32, 2)
    assert lim.share(seconds=60.0).deadline is lim.deadline  # a longer share is the search's own deadline
    assert lim.share(nodes=5000).nodes == 1000  # never more nodes than the search has
    assert lim.spent(400).nodes == 600 and lim.spent(4000).nodes == 0 and Limits().spent(5).nodes is None
    assert Limits().share(seconds=1.0, nodes=7).nodes == 7  # no node limit: the share's own
