"""Every Python example in docs/ runs (issue 63 item 5; README.md's are doctests, run by the README's own test
command). Each block is saved as a file in a fresh folder and run there by this interpreter, as a reader who
copies it would run it (issue 71: run in-process, the studies page's example passed while the same text saved
as a script stopped at once, wanting the ``if __name__ == "__main__":`` guard its worker processes need); the
play server's example against a real `canfield play` on a free port, and the longer ones in the integration
tier."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import interruptible, needs_jit

DOCS = Path(__file__).resolve().parent.parent / "docs"
LONG = {("studies.md", 0), ("play.md", 0)}  # a study with follow-ups; a server to start


def _blocks() -> list[tuple[str, int, str]]:
    out = []
    for path in sorted(DOCS.glob("*.md")):
        for i, code in enumerate(re.findall(r"^```python\n(.*?)^```", path.read_text(), re.S | re.M)):
            out.append((path.name, i, code))
    return out


BLOCKS = _blocks()


def _params():
    for name, i, code in BLOCKS:
        marks = [pytest.mark.integration] if (name, i) in LONG else []
        yield pytest.param(name, i, code, id=f"{name}-{i}", marks=marks)


def test_the_docs_have_python_examples():
    assert len(BLOCKS) >= 5 and {n for n, _, _ in BLOCKS} >= {"python.md", "games.md", "studies.md", "play.md"}


def _run_as_a_script(code: str, where: Path, name: str) -> None:
    script = where / "example.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=where, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"docs/{name}'s example, saved as a file and run, failed:\n{done.stderr[-3000:]}"


@needs_jit
@pytest.mark.parametrize("name, index, code", list(_params()))
def test_every_python_example_in_the_docs_runs(name, index, code, tmp_path):
    if name == "play.md":
        pytest.importorskip("starlette")
        pytest.importorskip("uvicorn")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen([sys.executable, "-m", "canfield_solver", "play", "--no-browser", "--port", str(port),
                                   "--workers", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  start_new_session=True, preexec_fn=interruptible)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                with socket.socket() as probe:
                    if probe.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.2)
            _run_as_a_script(code.replace("8765", str(port)), tmp_path, name)
        finally:
            os.killpg(server.pid, signal.SIGINT)
            server.wait(timeout=60)
        return
    _run_as_a_script(code, tmp_path, name)


def test_a_study_example_without_its_guard_is_what_the_script_run_catches(tmp_path):
    """The check above can fail: the studies page's example as it was (no ``__main__`` guard) stops with an
    error when saved and run, though ``exec`` in this process ran it."""
    code = ("from canfield_solver.studies.two_phase import run_two_phase\n"
            "wr = run_two_phase('canfield', range(4), max_seconds=1, followup=1, followup_seconds=1, "
            "store='s.sqlite')\n")
    with pytest.raises(AssertionError, match="saved as a file and run, failed"):
        _run_as_a_script(code, tmp_path, "studies.md")


# --- The Getting started page's console blocks: each `$ command` run in order in one folder, its output matched
# against the lines shown under it (``...`` stands for anything, across lines too).

GETTING_STARTED = DOCS / "getting-started.md"


def _console_steps(text: str) -> list[tuple[str, str]]:
    """(command, expected output) for every ``$ `` line of the page's ```console blocks."""
    steps: list[tuple[str, str]] = []
    for block in re.findall(r"^```console\n(.*?)^```", text, re.S | re.M):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, expected = chunk.partition("\n")
            steps.append((command, expected.rstrip("\n")))
    return steps


def _matches(expected: str, output: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, output.rstrip("\n"), re.S) is not None


def test_the_matcher_can_fail():
    assert _matches("seed 2 · canfield: solved in ... s, ... nodes", "seed 2 · canfield: solved in 0.7 s, 222 nodes")
    assert not _matches("seed 2 · canfield: solved in ... s", "seed 2 · canfield: unknown in 0.7 s")
    assert not _matches("best score: 52/52", "best score: 52/52\nanother line")


def test_the_getting_started_page_has_console_examples():
    steps = _console_steps(GETTING_STARTED.read_text(encoding="utf-8"))
    assert len(steps) >= 6 and any(c.startswith("canfield winrate") and "--plan" in c for c, _ in steps)


@needs_jit
def test_the_getting_started_pages_commands_print_what_it_shows(tmp_path):
    """A reader who types the page's commands one after another (in one folder: the rules file and the store
    are made by earlier ones) sees what the page shows."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               COLUMNS="200")
    for command, expected in _console_steps(GETTING_STARTED.read_text(encoding="utf-8")):
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300)
        assert _matches(expected, done.stdout), (f"docs/getting-started.md: `{command}` printed\n{done.stdout}"
                                                 f"{done.stderr[-2000:]}\nwhere the page shows\n{expected}")
