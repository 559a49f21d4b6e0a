"""The layered proof on several workers (search/layered/workers.py ``Closing``, solver notes §9 "a layer on several
workers"): every worker count from 1 to 4 gives the exhaustive search's verdict on reduced decks, and every
layer's entries are the same set whatever the worker count (no child lost, none counted twice); a limit, an
interrupt or a failing worker ends the run without a verdict and leaves no thread running.

Small layers are closed in chunks of one entry here (``MIN_CHUNK``), so that the workers share them."""

import hashlib
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_layered import LAYER_SHAPES, SHORT_RULES
from test_solver_agreement import reduced

from canfield_solver import Deal
from canfield_solver.engine.position import replay
from canfield_solver.search.layered import workers as closing
from canfield_solver.search.layered.phase import Phase
from canfield_solver.solver import Verdict, solve

from helpers import examples, interruptible, needs_jit
from reference_search import exhaustive_winnable


@pytest.fixture(autouse=True)
def one_entry_chunks(monkeypatch):
    monkeypatch.setattr(closing, "MIN_CHUNK", 1)


def _layers(monkeypatch):
    """Record each layer's entries (its number, its row count, a digest of its rows) as the phase takes them.

    A row's cover field is taken as the waste positions the layer expands: the cycle's bit counts only where
    no residue is named (an entry with a residue never expands the cycle's position, solver notes §6). Which
    worker meets a position of a layer first decides whether a child at the cycle's position is written
    beside one at a residue's, so that bit alone may differ from one run to the next."""
    seen = []
    take = Phase.entries

    def entries(self, m):
        e = take(self, m)
        rows = np.array(e)
        if self.cover:
            f = (rows[:, 1] & self.field) >> np.uint64(self.tb)
            f = np.where(f >> np.uint64(1) != 0, f & ~np.uint64(1), f)
            rows[:, 1] = (rows[:, 1] & ~self.field) | (f << np.uint64(self.tb))
        seen.append((m, len(e), hashlib.sha1(rows.tobytes()).hexdigest()))
        return e

    monkeypatch.setattr(Phase, "entries", entries)
    return seen


@pytest.mark.exhaustive
@pytest.mark.parametrize("preset", SHORT_RULES)
@settings(max_examples=examples(6), deadline=None,
          suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), seed=st.integers(0, 2**64 - 1), workers=st.integers(1, 4))
def test_the_layered_phase_on_workers_agrees_with_the_exhaustive_search(preset, data, seed, workers):
    deal = Deal.from_seed(seed, reduced(preset, data.draw(st.sampled_from(LAYER_SHAPES))))
    try:
        truth = exhaustive_winnable(deal, max_states=20_000)
    except RuntimeError:
        assume(False)
    res = solve(deal, method="layered", workers=workers)
    assert res.verdict is not Verdict.UNKNOWN, res.limit
    assert (res.verdict is Verdict.SOLVED) == truth, (preset, seed, workers, res.verdict)


@pytest.mark.exhaustive
@pytest.mark.parametrize("preset", ["canfield", "canfield-whole-pile"])
def test_every_layer_holds_the_same_entries_on_any_worker_count(preset, monkeypatch):
    """Lost reduced deals closed on 1, 2, 3 and 4 workers: the same layers with the same rows (keys and the
    waste positions expanded), and the exhaustive search's verdict; won ones: the verdict, and a line that
    replays."""
    seen = _layers(monkeypatch)
    compared = won = 0
    for shape in LAYER_SHAPES:
        for seed in range(4):
            deal = Deal.from_seed(seed, reduced(preset, shape))
            try:
                truth = exhaustive_winnable(deal, max_states=20_000)
            except RuntimeError:
                continue
            runs = {}
            for workers in (1, 2, 3, 4):
                seen.clear()
                res = solve(deal, method="layered", workers=workers)
                assert (res.verdict is Verdict.SOLVED) == truth and res.limit is None, (shape, seed, workers)
                if truth:
                    assert replay(deal, list(res.moves)).won
                runs[workers] = list(seen)
            if not truth:  # a won run stops at its first win, which depends on the timing
                assert runs[1] == runs[2] == runs[3] == runs[4], (shape, seed)
                compared += len(runs[1]) > 2
            won += truth
    assert compared >= 3 and won >= 1, (compared, won)


def test_a_full_deal_is_lost_on_two_workers_layer_for_layer(monkeypatch):
    """Seed 0 (lost): two workers sharing every layer give the layers one worker gives, and the verdict."""
    monkeypatch.setattr(closing, "MIN_CHUNK", 64)
    seen = _layers(monkeypatch)
    one = solve(0, method="layered")
    alone = list(seen)
    seen.clear()
    two = solve(0, method="layered", workers=2)
    assert one.verdict is two.verdict is Verdict.UNSOLVABLE
    assert seen == alone and len(alone) == one.stats["layered_layers"] > 30
    assert abs(two.nodes - one.nodes) < 0.05 * one.nodes  # only repeats across two workers' own tables


@pytest.mark.parametrize("limits, limit", [({"max_nodes": 20_000}, "nodes"), ({"max_seconds": 0.5}, "seconds"),
                                           ({"max_memory_mb": 1}, "memory")])
def test_limits_end_a_phase_on_workers_unknown_with_no_thread_left(limits, limit):
    before = threading.active_count()
    res = solve(6, method="layered", workers=3, **limits)
    assert res.verdict is Verdict.UNKNOWN and res.limit == limit
    if limit == "nodes":  # the chunks share what is left, each stopping between two entries
        assert 0 < res.nodes < 20_000 + 3 * 5_000
    assert threading.active_count() == before


@pytest.mark.parametrize("workers", [1, 3])
def test_a_node_limit_past_int64_is_no_limit(workers):
    """A node limit no search reaches (the generated API calls pass ones past 2**63) runs the phase to its end."""
    res = solve(0, method="layered", workers=workers, max_nodes=2**70)
    assert res.verdict is Verdict.UNSOLVABLE and res.limit is None


def test_a_failing_worker_fails_the_run_and_stops_the_others(monkeypatch):
    """A worker that raises (a bug) is never read as a verdict: the error reaches the caller, the other
    workers stop, and the layers' directory is removed."""
    close = Phase.close
    calls = []

    def failing(self, *a, **k):
        calls.append(threading.current_thread().name)
        if len(calls) == 40:
            raise MemoryError("a worker's allocation failed")
        return close(self, *a, **k)

    monkeypatch.setattr(Phase, "close", failing)
    before = threading.active_count()
    with pytest.raises(MemoryError, match="allocation failed"):
        solve(0, method="layered", workers=2)
    assert threading.active_count() == before
    assert any(name.startswith("canfield-layer") for name in calls)


@pytest.mark.integration
@needs_jit
def test_a_two_worker_proof_killed_midway_says_unknown():
    """Ctrl-C in the middle of a layered proof on two workers: ``unknown`` (interrupted), never a verdict,
    and the layers' directory is gone."""
    import contextlib
    import json
    import os
    import tempfile

    tmp = tempfile.mkdtemp()
    # --max-seconds well past the test's own waits: on a loaded machine the layers' directory can appear
    # close to the default 60 s, and the time limit must not end the search before Ctrl-C does.
    cmd = [sys.executable, "-m", "canfield_solver", "solve", "--seed", "3", "--method", "layered", "--jobs", "2",
           "--max-seconds", "900", "--json"]
    env = {**os.environ, "TMPDIR": tmp}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=env, preexec_fn=interruptible)
    try:
        def closed_layers() -> list[str]:  # each layer's merged entries, written as its closing begins
            return [f for d in os.listdir(tmp) if d.startswith("canfield-layers-")
                    for f in os.listdir(os.path.join(tmp, d)) if f.startswith("layer-")]

        deadline = time.time() + 180
        while time.time() < deadline and proc.poll() is None:
            with contextlib.suppress(FileNotFoundError):
                # Two layers' files: the first layer is closed and its nodes counted (its own file is written
                # before its first node, so one file alone can mean a proof that has searched nothing yet).
                if len(closed_layers()) >= 2:
                    break
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    res = json.loads(out)
    assert res["verdict"] == "unknown" and res["limit"] == "interrupted" and res["nodes"] > 0, (out, err)
    assert proc.returncode == 3 and "Traceback" not in err
    assert os.listdir(tmp) == []
