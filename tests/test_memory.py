"""The table's cap when none is given: a share of the free memory, split and claimed (canfield_solver.memory)."""

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from canfield_solver import memory
from canfield_solver.surfaces.cli import cli


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """This process as if it had claimed nothing yet, with claims kept in ``tmp_path``."""
    monkeypatch.setattr(memory, "claims_dir", lambda: tmp_path / "claims")
    monkeypatch.setattr(memory, "_mine", {})
    yield tmp_path / "claims"
    memory._release()


def test_half_the_free_memory_split_among_the_searches(fresh, monkeypatch):
    monkeypatch.setenv(memory.ENV_FREE, "20000")
    cap = memory.machine_cap(2)
    assert cap.mb == 5000 and "50% of 20,000 MiB free" in cap.source and "split 2 ways" in cap.source
    assert (fresh / str(os.getpid())).read_text() == "10000"  # the whole share, claimed for this process
    assert memory.machine_cap(1).mb == 10000  # asked again (the follow-up's one search): the same claim


def test_a_machine_with_little_free_memory_gets_a_smaller_cap(fresh, monkeypatch):
    monkeypatch.setenv(memory.ENV_FREE, "300")
    assert memory.machine_cap(1).mb == 150  # not the old fixed 720: not a crash, not the OOM killer


def test_other_processes_claims_are_taken_and_ended_ones_ignored(fresh, monkeypatch):
    monkeypatch.setenv(memory.ENV_FREE, "20000")
    fresh.mkdir()
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (fresh / str(other.pid)).write_text("6000")  # a live study that claimed 6,000 MiB
        gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout.strip()
        (fresh / gone).write_text("9000")  # a process that ended without removing its claim
        cap = memory.machine_cap(1)
        assert cap.mb == 10000 - 6000 and "less 6,000 MiB claimed" in cap.source
        assert not (fresh / gone).exists()
    finally:
        other.kill()
        other.wait()


def test_the_cap_never_falls_below_the_old_default_while_the_machine_has_it(fresh, monkeypatch):
    monkeypatch.setenv(memory.ENV_FREE, "4000")
    fresh.mkdir()
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (fresh / str(other.pid)).write_text("2000")  # another test worker took the whole share
        assert memory.machine_cap(1).mb == 720
    finally:
        other.kill()
        other.wait()


def test_an_explicit_cap_wins_and_one_past_the_free_memory_is_reduced_with_a_line(monkeypatch):
    monkeypatch.setenv(memory.ENV_FREE, "1000")
    assert memory.checked(800) == (800, None)
    mb, note = memory.checked(5000)
    assert mb == 900 and "more than the 1,000 MiB this machine has free: using 900 MiB" in note
    res = CliRunner().invoke(cli, ["solve", "--seed", "2", "--json", "--max-memory", "5000"])
    assert res.exit_code == 0, res.output
    assert "canfield: --max-memory 5,000 MiB is more than the 1,000 MiB" in res.stderr
    out = json.loads(res.stdout)
    assert out["max_memory_mb"] == 900 and out["memory_source"].startswith("given")


def test_a_solve_says_the_cap_in_force_and_where_it_came_from(tmp_path):
    env = {**os.environ, memory.ENV_FREE: "3000", memory.ENV_CLAIMS: str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "canfield_solver", "solve", "--seed", "2", "--json"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["max_memory_mb"] == 1500 and d["memory_source"] == "this machine: 50% of 3,000 MiB free"
