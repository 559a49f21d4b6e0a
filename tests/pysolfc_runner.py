"""Runs the real PySolFC 3.6.1 headless with canfield-solver's plugin and the test driver (tests/pysolfc_driver.py).

Where PySolFC is set up (``benchmarks/pysolfc_setup.py``: ``$CANFIELD_PYSOLFC``, by default
``~/.cache/canfield-solver/pysolfc``) and ``xvfb-run`` is on PATH, ``run_job`` starts PySolFC from its
source on its own interpreter, in a scratch home whose plugin folder holds the plugin (as ``canfield
pysolfc install-plugin`` writes it) and the driver, and returns what the driver wrote and PySolFC's stderr.
``why_not()`` is the reason it cannot run here, or None.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SETUP = Path(os.environ.get("CANFIELD_PYSOLFC") or Path.home() / ".cache" / "canfield-solver" / "pysolfc")


def paths() -> dict[str, Path]:
    return {"src": SETUP / "src", "python": SETUP / "venv" / "bin" / "python",
            "cardsets": SETUP / "home" / ".PySolFC" / "cardsets"}


def why_not() -> str | None:
    p = paths()
    if not (p["src"] / "pysol.py").exists() or not p["python"].exists() or not p["cardsets"].exists():
        return (f"the real PySolFC 3.6.1 is not set up at {SETUP} (benchmarks/pysolfc_setup.py builds it from "
                "PySolFC's and its cardsets' git repositories, on GitHub, which CI cannot reach)")
    if not shutil.which("xvfb-run"):
        return "xvfb-run is not on PATH (Debian: apt-get install xvfb)"
    return None


def run_job(title: str, job: dict, *, plugin_python: str | None = None, args: tuple[str, ...] = (),
            timeout: float = 900, keep: Path | None = None) -> tuple[dict, str]:
    """Start PySolFC's ``title`` with the driver running ``job``; (the driver's output, PySolFC's stderr)."""
    from canfield_solver.pysolfc.install import install_plugin

    p = paths()
    with tempfile.TemporaryDirectory(prefix="pysolfc-home-") as tmp:
        home = Path(tmp)
        plugins = home / ".PySolFC" / "plugins"
        plugins.mkdir(parents=True)
        (home / ".PySolFC" / "cardsets").symlink_to(p["cardsets"])
        install_plugin(plugins, python=plugin_python or sys.executable)
        shutil.copy(HERE / "pysolfc_driver.py", plugins / "zz_canfield_driver.py")
        out = home / "out.json"
        jobfile = home / "job.json"
        jobfile.write_text(json.dumps({**job, "out": str(out)}))
        env = dict(os.environ, HOME=str(home), CANFIELD_PYSOLFC_JOB=str(jobfile))
        proc = subprocess.Popen(["xvfb-run", "-a", "-s", "-screen 0 1280x900x24", str(p["python"]), "pysol.py",
                                 "--game", title, *args], cwd=p["src"], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            _, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)          # xvfb-run, Xvfb, PySolFC and the bridge with them
            _, stderr = proc.communicate()
            return {"error": "timeout", "still_running_after": timeout, "results": []}, stderr
        if keep is not None:
            shutil.copytree(home / ".PySolFC", keep, dirs_exist_ok=True, ignore=shutil.ignore_patterns("cardsets"))
        if not out.exists():
            return {"error": f"PySolFC exited {proc.returncode} without the driver's output", "results": []}, stderr
        return json.loads(out.read_text()), stderr
