"""No input breaks the CLI: generated bad arguments and files over every command end in one line, no traceback.

Each case runs one command with a few options drawn from values that are
empty, blank, huge, negative, not numbers, or files that are directories,
binary, truncated, too large or not what the option wants. The answer must
be a documented exit code (0, 1, 2, 3); exit 2 must print exactly one line
starting ``canfield: error:``; nothing may print a traceback or an internal
error; and no input file may change. CI runs a few hundred cases; ``-m
slow`` runs 1,500 random ones.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from canfield_solver import Deal
from canfield_solver.surfaces.cli import cli

from helpers import examples

CASES = int(os.environ.get("CANFIELD_FUZZ_CASES", "250"))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return make_files(tmp_path_factory.mktemp("fuzz"))


def make_files(d: Path) -> Path:
    """The input files the generated invocations use, in folder ``d``: good and bad deals, moves, rules,
    stores, packs and a folder for outputs."""
    (d / "deal.json").write_text(Deal.from_seed(3).to_json())
    (d / "moves.txt").write_text("draw\ndraw\n")
    (d / "moves.json").write_text('["draw", "W>F"]')
    (d / "binary.dat").write_bytes(bytes(range(256)) * 8)
    (d / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (d / "rules.json").write_text(json.dumps({"name": "x", "draw": 1}))
    (d / "badrules.json").write_text(json.dumps({"name": "x", "draw": 0, "colour": 1}))
    (d / "notjson.txt").write_text("{{{ nope")
    (d / "big.txt").write_text("draw\n" * 300_000)  # 1.5 MB: past the 1 MiB input limit
    (d / "dir").mkdir()
    con = sqlite3.connect(d / "other.sqlite")
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    store = d / "store.sqlite"
    assert CliRunner().invoke(cli, ["winrate", "--seeds", "0:2", "--max-nodes", "50", "--jobs", "1", "-q",
                                    "--db", str(store)]).exit_code == 0
    assert CliRunner().invoke(cli, ["winrate", "--seeds", "0:2", "--max-nodes", "50", "--jobs", "1", "-q",
                                    "--parquet-dir", str(d / "dataset")]).exit_code == 0
    data = store.read_bytes()
    (d / "truncated.sqlite").write_bytes(data[: len(data) // 3])
    (d / "pack.jsonl").write_text('{"numbering": "spec", "number": 3}\n[1, 2]\n')
    (d / "out").mkdir()
    return d


TEXT_BAD = ["", " ", "\t", "x", "-1", "-0", "0", "1e309", "nan", "inf", "-inf", "1:2:3", "5:2", "0x10",
            str(2**64), str(2**64 - 1), str(2**70), "9" * 40, "\x00", "é", "1,", ",", "ms5", "#7", "0:0"]


def values(files: Path, kind: str):
    f = lambda name: str(files / name)  # noqa: E731
    ins = [f(n) for n in ("deal.json", "moves.txt", "moves.json", "binary.dat", "deep.json", "rules.json",
                          "badrules.json", "notjson.txt", "big.txt", "dir", "other.sqlite", "truncated.sqlite",
                          "store.sqlite", "pack.jsonl", "dataset", "missing.json")]
    outs = [f("dir"), f("out/x.html"), f("out/x.csv"), "/nonexistent-dir/x", ""]
    if kind == "in":
        return st.sampled_from(ins + ["", " "])
    if kind == "out":
        return st.sampled_from(outs)
    if kind == "int":
        return st.one_of(st.sampled_from(TEXT_BAD), st.integers(-2**70, 2**70).map(str))
    return st.one_of(st.sampled_from(TEXT_BAD), st.text(max_size=12))


# command -> (base arguments that keep a valid run cheap, {option: kind})
COMMANDS = {
    "deal": (["3"], {"--rules": "text", "--format": "text", "--pysolfc": "text", "--rules-file": "in"}),
    "solve": (["--max-nodes", "2000"], {"--seed": "int", "--deal": "in", "--rules": "text", "--rules-file": "in",
                                        "--moves-played": "in", "--max-seconds": "text", "--max-memory": "int",
                                        "--pysolfc": "text"}),
    "check": ([], {"@DEAL": "in", "@MOVES": "in", "--rules": "text", "--pysolfc": "text"}),
    "hint": (["--max-nodes", "2000"], {"@DEAL": "in", "@MOVES": "in", "--max-seconds": "text", "--pysolfc": "text"}),
    "winrate": (["--max-nodes", "20", "--jobs", "1", "-q"], {"--seeds": "text", "--db": "in", "--chunk": "int",
                                                             "--max-memory": "int", "--pysolfc": "text",
                                                             "--rules": "text", "--parquet-dir": "out",
                                                             "--parquet": "in", "--summary": "flag"}),
    "export": ([], {"--db": "in", "--csv": "out", "--parquet": "out"}),
    "analyze": (["--probe-nodes", "50", "--playouts", "1", "--max-seconds", "2"],
                {"--seed": "int", "--deal": "in", "--playouts": "int", "--rules": "text"}),
    "pick": (["--max-candidates", "2", "--jobs", "1", "--max-seconds", "1"],
             {"--count": "int", "--start": "int", "--difficulty": "text", "--pysolfc": "int", "--format": "text"}),
    "show": (["--max-seconds", "2"], {"--seed": "int", "--deal": "in", "--moves": "in", "--out": "out"}),
    "verify": ([], {"@PACK": "in"}),
    "rules": ([], {"--bogus": "text"}),
}


INPUTS = ("deal.json", "moves.txt", "moves.json", "binary.dat", "deep.json", "rules.json", "badrules.json",
          "notjson.txt", "big.txt", "other.sqlite", "truncated.sqlite", "store.sqlite", "pack.jsonl")


def _digest(d: Path) -> dict:
    return {n: hashlib.sha256((d / n).read_bytes()).hexdigest() for n in INPUTS}


@st.composite
def invocation(draw, files):
    cmd = draw(st.sampled_from(sorted(COMMANDS)))
    base, opts = COMMANDS[cmd]
    chosen = draw(st.lists(st.sampled_from(sorted(opts)), min_size=1, max_size=3, unique=True))
    args, positional = [cmd, *base], []
    for o in chosen:
        if opts[o] == "flag":
            args.append(o)
            continue
        v = draw(values(files, opts[o]))
        if o.startswith("@"):
            positional.append(v)
        else:
            args += [o, v]
    if cmd == "show" and "--out" not in chosen:
        args += ["--out", str(files / "out" / "page.html")]
    return args + positional


def _check(files: Path, args: list[str]) -> None:
    before = _digest(files)
    r = CliRunner().invoke(cli, args)
    out = r.output
    assert "Traceback" not in out and "internal error" not in out, (args, out[-800:])
    assert r.exit_code in (0, 1, 2, 3), (args, r.exit_code, out[-800:])
    if r.exit_code == 2:
        lines = [ln for ln in out.splitlines() if ln.strip() and not ln.startswith("compiling")]
        assert len(lines) == 1 and lines[0].startswith("canfield: error:"), (args, out[-800:])
    after = _digest(files)
    if r.exit_code != 2 and "--db" in args:  # a study that ran may add its deals to a valid store
        after.pop("store.sqlite")
        before = {k: v for k, v in before.items() if k != "store.sqlite"}
    assert after == before, (args, "an input file changed")


@settings(max_examples=examples(CASES), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_generated_bad_input_is_one_line(files, data):
    _check(files, data.draw(invocation(files)))


@pytest.mark.slow
@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_generated_bad_input_is_one_line_many(files, data):
    _check(files, data.draw(invocation(files)))


@pytest.mark.parametrize("args", [
    ["solve", "--seed", "2", "--max-seconds", "nan"],
    ["solve", "--seed", "1", "--rules-file", "{d}/binary.dat"],
    ["solve", "--deal", "{d}/deep.json"],
    ["check", "1", "{d}/deep.json"],
    ["check", "1", "{d}/big.txt"],
    ["solve", "--deal", "{d}/dir"],
    ["winrate", "--seeds", f"0:{2**64 + 1}", "--max-nodes", "5"],
    ["winrate", "--pysolfc", "0:3", "--max-nodes", "5"],
    ["export", "--db", "{d}/truncated.sqlite", "--csv", "{d}/out/t.csv"],
    ["winrate", "--seeds", "0:2", "--db", "{d}/other.sqlite", "--max-nodes", "5"],
    ["verify", "{d}/binary.dat"],
])
def test_known_bad_inputs(files, args):
    args = [a.replace("{d}", str(files)) for a in args]
    before = _digest(files)
    r = CliRunner().invoke(cli, args)
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("canfield: error:"), (args, r.output)
    assert _digest(files) == before


def test_seeds_past_2_63_are_studied_and_stored(tmp_path):
    db = tmp_path / "s.sqlite"
    top = 2**64 - 1
    r = CliRunner().invoke(cli, ["winrate", "--seeds", f"{top - 1}:{top + 1}", "--max-nodes", "5", "--jobs", "1",
                                 "-q", "--db", str(db), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["deals"] == 2


def test_locked_and_full_stores_end_in_one_line(tmp_path, monkeypatch):
    import resource
    import signal
    import subprocess
    import sys

    db = tmp_path / "s.sqlite"
    cmd = [sys.executable, "-m", "canfield_solver", "winrate", "--seeds", "0:3", "--max-nodes", "5", "--jobs", "1",
           "-q", "--db", str(db)]
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    con = sqlite3.connect(db, timeout=0.1)
    con.execute("BEGIN EXCLUSIVE")
    env = dict(os.environ, CANFIELD_STORE_TIMEOUT="0.5")
    r = subprocess.run([*cmd[:5], "0:6", *cmd[6:]], capture_output=True, text=True, env=env)
    con.rollback()
    con.close()
    assert r.returncode == 2 and "locked" in r.stderr and "Traceback" not in r.stderr, r.stderr

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (40_000, 40_000))

    full = tmp_path / "full.sqlite"
    r = subprocess.run([*cmd[:5], "0:3000", *cmd[6:-1], str(full)], capture_output=True, text=True,
                       preexec_fn=small_files)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
