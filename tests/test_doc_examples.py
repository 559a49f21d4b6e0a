"""Every Python example in docs/ runs (issue 63 item 5; README.md's are doctests, run by the README's own test
command). Each block is run as written, in a fresh folder, with the extras the docs name; the play server's
example is run against a real `canfield play` on a free port, and the longer ones in the integration tier."""

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


@needs_jit
@pytest.mark.parametrize("name, index, code", list(_params()))
def test_every_python_example_in_the_docs_runs(name, index, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # what an example writes (a store, a page) stays here
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
            exec(compile(code.replace("8765", str(port)), f"docs/{name}", "exec"), {"__name__": "__doc_example__"})
        finally:
            os.killpg(server.pid, signal.SIGINT)
            server.wait(timeout=60)
        return
    exec(compile(code, f"docs/{name}", "exec"), {"__name__": "__doc_example__"})
