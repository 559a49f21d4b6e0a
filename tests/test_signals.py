"""`canfield play` and a study stopped by SIGTERM (``kill``, systemd, a container runtime) or by Ctrl-C end every
process they started: the meter's or the study's worker processes and multiprocessing's resource tracker."""

import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import needs_jit, store_rows


def _descendants(pid):
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [int(x) for x in subprocess.run(["pgrep", "-P", str(p)], capture_output=True, text=True).stdout.split()]
        out += kids
        todo += kids
    return out


def _running(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except OSError:
        return False


def _stop(proc, sig):
    """Ctrl-C reaches the terminal's whole process group; kill and systemd signal the process alone."""
    if sig == signal.SIGINT:
        os.killpg(proc.pid, sig)
    else:
        os.kill(proc.pid, sig)


def _wait_for(cond, seconds, proc):
    deadline = time.time() + seconds
    while time.time() < deadline and proc.poll() is None:
        if cond():
            return True
        time.sleep(0.1)
    return False


@pytest.mark.integration
@needs_jit
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_play_server_leaves_nothing_running(sig):
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    cmd = [sys.executable, "-m", "canfield_solver", "play", "--seed", "2", "--no-browser", "--port", "0",
           "--workers", "1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert "Playing" in proc.stdout.readline()
        assert _wait_for(lambda: len(_descendants(proc.pid)) >= 2, 60, proc), "the meter's worker never started"
        started = _descendants(proc.pid)
        _stop(proc, sig)
        proc.wait(30)
        time.sleep(1)
        assert not [p for p in started if _running(p)], f"left running after {sig.name}: {started}"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.mark.integration
@needs_jit
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_a_study_leaves_nothing_running_and_keeps_its_deals(tmp_path, sig):
    db = tmp_path / "s.sqlite"
    cmd = [sys.executable, "-m", "canfield_solver", "winrate", "--seeds", "0:2000", "--jobs", "2", "-q",
           "--max-seconds", "5", "--db", str(db)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert _wait_for(lambda: store_rows(db) >= 4 and len(_descendants(proc.pid)) >= 2, 120, proc)
        started = _descendants(proc.pid)
        _stop(proc, sig)
        _out, err = proc.communicate(timeout=60)
        time.sleep(1)
        assert not [p for p in started if _running(p)], f"left running after {sig.name}: {started}"
        assert proc.returncode == (143 if sig == signal.SIGTERM else 130), err
        word = "terminated" if sig == signal.SIGTERM else "interrupted"
        assert f"canfield: {word}; finished deals are saved" in err and "Traceback" not in err
        assert store_rows(db) >= 4
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
