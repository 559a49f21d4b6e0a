import json
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from canfield_solver import Deal
from canfield_solver.surfaces.cli import cli

README = Path(__file__).resolve().parents[1] / "README.md"


def invoke(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input)


def test_deal_text_and_json():
    r = invoke("deal", "0")
    assert r.exit_code == 0 and "Reserve  (13): 9H" in r.output and "T1:  QS" in r.output
    j = invoke("deal", "0", "--json")
    assert Deal.from_json(j.stdout) == Deal.from_seed(0)
    assert json.loads(invoke("deal", "5", "--rules", "Storehouse-Aces", "--json").stdout)["rules"] == "storehouse-aces"


def one_line_error(r, pattern):
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and re.search(pattern, lines[0]), r.output
    assert "Traceback" not in r.output


def test_bad_input_is_one_line_exit_2(tmp_path):
    one_line_error(invoke("deal", "x"), "SEED")
    one_line_error(invoke("deal", str(2**64)), "SEED")
    one_line_error(invoke("deal", "1", "--rules", "nope"), "unknown rules 'nope'")
    bad = tmp_path / "d.json"
    data = json.loads(Deal.from_seed(0).to_json())
    data["stock"][0] = "9H"
    bad.write_text(json.dumps(data))
    moves = tmp_path / "m.txt"
    moves.write_text("draw\n")
    one_line_error(invoke("check", str(bad), str(moves)), "duplicate card 9H")
    one_line_error(invoke("check", str(tmp_path / "missing.json"), str(moves)), "cannot read deal file")
    good = tmp_path / "g.json"
    good.write_text(Deal.from_seed(0).to_json())
    moves.write_text("draw\nW>X9\n")
    r = invoke("check", str(good), str(moves))
    assert r.exit_code == 1 and "unknown move 'W>X9'" in r.output


def test_check_replays_and_reports(tmp_path):
    deal = tmp_path / "d.json"
    deal.write_text(Deal.from_seed(0).to_json())
    moves = tmp_path / "m.txt"
    moves.write_text("# first pass\ndraw\nW>T4\n")
    r = invoke("check", str(deal), str(moves))
    assert r.exit_code == 0 and "legal: all 2 moves" in r.output and "score: 1/52" in r.output
    assert "won: no" in r.output and "stalled: no" in r.output
    moves.write_text(json.dumps(["draw", "W>T4", "T1>T4"]))
    r = invoke("check", str(deal), str(moves), "--json")
    out = json.loads(r.stdout)
    assert r.exit_code == 1 and out["legal"] is False and out["illegal_index"] == 2 and out["played"] == 2
    assert "does not fit" in out["error"]


def test_readme_opens_with_install_and_test_commands():
    lines = [ln for ln in README.read_text().splitlines() if ln.startswith("pip install")]
    assert len(lines) >= 2
    assert "canfield" in lines[0] and "pytest" in lines[1]


def test_empty_and_blank_option_values_are_refused(tmp_path):
    """An empty value is never taken as "use the default": one line, exit 2, for every text option."""
    deal = tmp_path / "d.json"
    deal.write_text(Deal.from_seed(0).to_json())
    moves = tmp_path / "m.txt"
    moves.write_text("draw\n")
    for blank in ("", " ", "\t"):
        one_line_error(invoke("deal", "1", "--rules", blank), "--rules.*must not be empty")
        one_line_error(invoke("deal", "1", "--rules-file", blank), "--rules-file.*must not be empty")
        one_line_error(invoke("solve", "--seed", "2", "--rules", blank), "--rules.*must not be empty")
        one_line_error(invoke("solve", "--deal", blank), "--deal.*must not be empty")
        one_line_error(invoke("solve", "--seed", "2", "--moves-played", blank), "--moves-played.*must not be empty")
        one_line_error(invoke("check", blank, str(moves)), "DEAL.*must not be empty")
        one_line_error(invoke("hint", blank, str(moves)), "DEAL.*must not be empty")
        one_line_error(invoke("hint", "2", blank), "MOVES.*must not be empty")
        one_line_error(invoke("check", str(deal), blank), "MOVES.*must not be empty")
        one_line_error(invoke("winrate", "--seeds", blank, "--max-nodes", "5"), "--seeds.*must not be empty")
        one_line_error(invoke("winrate", "--seeds", "0:2", "--db", blank, "--max-nodes", "5"), "--db.*must not be empty")
        one_line_error(invoke("analyze", "--seed", "2", "--rules", blank), "--rules.*must not be empty")
        one_line_error(invoke("pick", "--rules", blank), "--rules.*must not be empty")
    for opt in ("--seed", "--max-seconds", "--max-nodes", "--max-memory"):
        one_line_error(invoke("solve", opt, "") if opt == "--seed" else invoke("solve", "--seed", "2", opt, ""),
                       f"Invalid value for '{opt}")
    one_line_error(invoke("deal", ""), "SEED")


def test_an_unknown_verdict_says_what_stopped_the_search():
    res = CliRunner().invoke(cli, ["solve", "--seed", "6", "--max-nodes", "1000"])
    assert res.exit_code == 3 and "unknown" in res.output and "stopped by the nodes limit" in res.output
    assert "to go further, run: canfield solve --seed 6 --max-nodes 4000 --jobs 2\n" in res.output
    from canfield_solver.surfaces.cli.common import go_further, why_stopped

    assert why_stopped("interrupted") == "interrupted (Ctrl-C)"
    # The limits from solver.further_limits, spelled as the options (tested at that layer in test_solver.py),
    # in the user's own command line: every other option kept, the raised ones replaced, in any spelling.
    argv = ["solve", "--seed", "110", "--rules", "canfield-whole-pile", "--max-seconds=120", "-j", "1", "--json"]
    assert go_further("memory", 60.0, None, 16, None, argv) == \
        "to go further, run: canfield solve --seed 110 --rules canfield-whole-pile -j 1 --json --max-memory 64 " \
        "--max-seconds 240"
    assert go_further("seconds", 0.5, None, 720, 1, ["solve", "--deal", "my deal.json", "--jobs", "1"]) == \
        "to go further, run: canfield solve --deal 'my deal.json' --max-seconds 2 --jobs 2"
    assert go_further("nodes", 60.0, 1000, 720, None, ["solve", "--max-nodes", "1000", "--seed", "6"]) == \
        "to go further, run: canfield solve --seed 6 --max-nodes 4000"
    # Ctrl-C: the same command again, its limits as they were (nothing of the search is kept to resume).
    assert go_further("interrupted", 60.0, None, 720, 1, ["solve", "205", "--max-seconds", "60"]) == \
        "to search again, run: canfield solve 205 --max-seconds 60"
    assert go_further(None, 60.0, None, 720, 1) is None


def test_solve_method_layered_and_its_refusals():
    # No time limit: a first compile of the kernel and of the layered proof is inside the limit, and on a fresh
    # cache of a loaded machine it took more than solve's default 60 s (108 s beside the flake hunt: "unknown").
    res = invoke("solve", "--seed", "0", "--method", "layered", "--max-seconds", "inf", "--json")
    assert res.exit_code == 1 and json.loads(res.stdout)["verdict"] == "unsolvable"
    from unittest import mock

    import canfield_solver.search.arrays as problem

    with mock.patch.object(problem, "SHORT_KEYS", False):  # a start whose key is long (a huge talon would do it)
        res = invoke("solve", "--seed", "0", "--method", "layered", "--rules", "rainbow")
    assert res.exit_code == 2 and "keeps short keys only" in res.output and "Traceback" not in res.output
    res = invoke("solve", "--seed", "0", "--method", "layered", "--rules", "rainbow", "--max-nodes", "1000")
    assert res.exit_code == 3 and "Traceback" not in res.output  # any-suit keys are short: the phase runs
    res = invoke("solve", "--seed", "0", "--method", "sideways")
    assert res.exit_code == 2 and "'sideways' is not one of" in res.output
    res = invoke("solve", "--seed", "0", "--method", "layered", "--max-nodes", "1000")
    assert res.exit_code == 3 and "--jobs" not in res.output  # one thread: no --jobs to offer


def test_each_command_is_imported_from_the_module_the_lazy_table_names():
    """``canfield solve`` imports only the module of its command; the table that says which module defines
    which command must list every command those modules define, and no other."""
    import importlib
    import subprocess
    import sys

    from canfield_solver.surfaces.cli.common import _Group

    for module in _Group.LAZY:
        importlib.import_module(f"canfield_solver.surfaces.cli.{module}")
    assert set(cli.commands) == {name for names in _Group.LAZY.values() for name in names}
    code = ("import sys; from canfield_solver.surfaces.cli import cli\n"
            "try:\n    cli.main(['deal', '3'], prog_name='canfield')\nexcept SystemExit:\n    pass\n"
            "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('canfield_solver.surfaces.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "['common', 'one_deal', 'other_games']"  # not studies, not play


def test_every_command_that_takes_a_deal_takes_a_positional_seed_and_seed_option(tmp_path):
    """Issue 63 item 4: one way to give a seed. `solve 42` said only 'Got unexpected extra argument (42)'."""
    a = invoke("solve", "2", "--json")
    b = invoke("solve", "--seed", "2", "--json")
    assert a.exit_code == b.exit_code == 0 and json.loads(a.stdout)["moves"] == json.loads(b.stdout)["moves"]
    assert invoke("analyze", "2", "--json", "--max-seconds", "5").exit_code == 0
    assert invoke("show", "2", "--out", str(tmp_path / "p.html")).exit_code == 0 and (tmp_path / "p.html").exists()
    assert invoke("deal", "--seed", "42").stdout == invoke("deal", "42").stdout
    moves = tmp_path / "m.txt"
    moves.write_text("draw\n")
    assert invoke("check", "--seed", "42", str(moves), "--json").stdout == invoke("check", "42", str(moves), "--json").stdout
    h = invoke("hint", "--seed", "2", str(moves), "--json", "--max-seconds", "5")
    assert h.exit_code == 0 and json.loads(h.stdout)["verdict"] == "solved"
    deal_file = tmp_path / "d.json"
    deal_file.write_text(invoke("deal", "2", "--json").stdout)
    assert json.loads(invoke("solve", str(deal_file), "--json").stdout)["moves"] == json.loads(a.stdout)["moves"]
    twice = invoke("solve", "2", "--seed", "3")
    assert twice.exit_code == 2 and "given twice" in twice.output and "Traceback" not in twice.output
    none = invoke("solve")
    assert none.exit_code == 2 and "exactly one of --seed N" in none.output and "[SEED|FILE]" in invoke(
        "solve", "--help").output
    assert invoke("deal", "1", "--seed", "2").exit_code == 2


@pytest.mark.parametrize("args, code", [(["solve", "2", "--moves"], 0), (["solve", "20", "--moves"], 1),
                                        (["solve", "0", "--rules", "rainbow", "--max-nodes", "3000", "--moves"], 3)])
def test_a_reader_that_stops_reading_does_not_change_the_exit_code(args, code):
    """Issue 63: `canfield solve … | head -1` exited 1, the code of 'unsolvable', whatever the verdict: the
    first write into the closed pipe ended the command. Now the rest of the output is dropped."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "canfield_solver", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # the reader is gone before the first line (head -0; head -1 after its line)
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == code and "Traceback" not in err, err


def test_a_summary_without_seeds_counts_every_deal_the_store_holds(tmp_path):
    """Issue 63: `winrate --summary --db long.sqlite` without --seeds summarised only seeds 0:1000, silently."""
    db = str(tmp_path / "s.sqlite")
    ran = invoke("winrate", "--seeds", "0:2,1500:1502", "--db", db, "--jobs", "1", "--max-seconds", "5", "-q")
    assert ran.exit_code == 0, ran.output
    everything = invoke("winrate", "--summary", "--db", db, "--json")
    assert json.loads(everything.stdout)["deals"] == 4  # seeds 1500 and 1501 too
    assert "over every deal stored of canfield (4)" in invoke("winrate", "--summary", "--db", db).output
    part = invoke("winrate", "--summary", "--db", db, "--seeds", "0:10")
    assert "canfield: 2 deals" in part.output and "8 of the 10 seeds asked for have no stored result" in part.output


def test_analyze_exits_as_solve_does_and_says_how_to_go_further():
    """Issue 63: analyze exited 0 for lost, unknown and interrupted deals and gave no next command."""
    assert invoke("analyze", "2", "--max-seconds", "5", "--playouts", "2").exit_code == 0
    assert invoke("analyze", "20", "--max-seconds", "5", "--playouts", "2").exit_code == 1
    # rainbow 610000: unknown at 6 s (1003, used here before, is now won by the policy adaptation in 0.05 s)
    unknown = invoke("analyze", "610000", "--rules", "rainbow", "--max-seconds", "0.5", "--playouts", "2")
    assert unknown.exit_code == 3 and "to go further, run: canfield analyze 610000" in unknown.output


def test_wording_counts_and_columns():
    """Issue 63's wording: one move is "1 move", the rules list keeps a gap after its longest name, and the
    help says 95%, not 95%%."""
    names = [line.split()[0] for line in invoke("rules").output.splitlines() if line and not line.startswith(" ")
             and not line.startswith("other")]
    for line in invoke("rules").output.splitlines():
        if line.split() and line.split()[0] in names:
            assert line[len(line.split()[0])] == " " and "  " in line[:40], line  # a gap after every name
    assert "95%%" not in invoke("winrate", "--help").output


def test_the_advice_on_unknown_says_when_a_preset_is_mostly_undecided():
    """Issue 63: under rainbow and chameleon the advice went 60 -> 240 -> 960 s with no word that most of
    those presets' deals stay unknown at any reasonable limit."""
    hard = invoke("solve", "700000", "--rules", "chameleon", "--max-nodes", "20000")  # unknown at 60 s
    assert hard.exit_code == 3 and "note: under chameleon most deals stay undecided: 56% of 1,000" in hard.output
    # rainbow's first 1,000 deals were 87% unknown at 2 s before issue 70's build and are 39% now (the study's
    # rows measured again): the note follows the committed study, not a list of presets
    now = invoke("solve", "700000", "--rules", "rainbow", "--max-nodes", "20000")
    assert now.exit_code == 3 and "to go further" in now.output and "most deals stay undecided" not in now.output
    strict = invoke("solve", "35", "--max-nodes", "20000")
    assert strict.exit_code == 3 and "to go further" in strict.output and "most deals stay undecided" not in strict.output


def test_inf_seconds_is_no_limit_from_the_parsing_on():
    """Issue 62 item 3: ``--max-seconds inf`` is None (the API's "no limit") as soon as it is parsed, so no
    command converts it again; a time that must end (the meter's) refuses it."""
    from canfield_solver.surfaces.cli.common import FINITE_SECONDS, SECONDS, go_further

    assert SECONDS.convert("inf", None, None) is None and SECONDS.convert("2.5", None, None) == 2.5
    with pytest.raises(click.BadParameter, match="finite"):
        FINITE_SECONDS.convert("inf", None, None)
    # memory filled with no time limit: the advice raises the memory and adds no time limit
    advice = go_further("memory", None, None, 16, None, ["solve", "6", "--max-seconds", "inf", "--max-memory", "16"])
    assert advice is not None and "--max-memory 64" in advice and "--max-seconds inf" in advice
    res = invoke("play", "--meter-seconds", "inf", "--no-browser")
    assert res.exit_code == 2 and "finite number of seconds" in res.output


def test_a_hint_cut_short_says_what_stopped_it_in_words(tmp_path):
    """Issue 63's wording: "the interrupted limit stopped the search" read as if Ctrl-C were a limit; hint now
    says it as solve does (``why_stopped``)."""
    moves = tmp_path / "moves.txt"
    moves.write_text("")
    res = invoke("hint", "205", str(moves), "--max-nodes", "1000")
    assert res.exit_code == 3 and "unknown — stopped by the nodes limit after" in res.output, res.output
    assert "limit stopped the search" not in res.output
    from canfield_solver.surfaces.cli.common import why_stopped

    assert why_stopped("interrupted") == "interrupted (Ctrl-C)"
