"""canfield-solver's plugin in the real PySolFC 3.6.1, headless (Xvfb): what a player gets.

Runs where PySolFC is set up (``benchmarks/pysolfc_setup.py``; see tests/pysolfc_runner.py) and skips with
the reason elsewhere, as on CI, which cannot reach PySolFC's source. For each of the five games, one PySolFC
session: a few game numbers solved from PySolFC's own table as the Solver dialog solves them, each verdict
compared with this package's on ``--pysolfc N``, each "solvable" played by PySolFC's demo to its own "Game
solved"; one game stopped mid-way and solved again from there; PySolFC's legal moves compared with ours in
every position of a random game. The longer run behind the issue's numbers is ``benchmarks/pysolfc_real.py``.
"""

import pysolfc_runner
import pytest

from canfield_solver.formats.pysolfc import PYSOLFC_RULES, pysolfc_deal, table_deal
from canfield_solver.solver import solve

pytestmark = pytest.mark.skipif(pysolfc_runner.why_not() is not None, reason=str(pysolfc_runner.why_not()))

MAX_ITERS = 20_000              # the dialog's "Max iterations": 2 M nodes (plugin.NODES_PER_ITERATION)
TITLES = {"Canfield": "Canfield", "Superior Canfield": "SuperiorCanfield", "Rainbow": "Rainbow",
          "Storehouse": "Storehouse", "Chameleon": "Chameleon"}


def renaming(deal, m):
    """A whole column (a lone card included) moved into a gap: the same position, its columns renumbered."""
    if not m.startswith("T") or ">T" not in m:
        return False
    a, b = m.split(">")
    src, dst = int(a[1:].rstrip("*")) - 1, int(b[1:]) - 1
    return not deal.tableau[dst] and ("*" in a or len(deal.tableau[src]) == 1)


def compare_legal(title, legal):
    """Every position of PySolFC's random game: the moves its stacks allow equal our engine's, but for
    moving a whole column into a gap (our engine leaves it out: the same position, columns renamed)."""
    from canfield_solver import Position

    count = 0
    for game in legal:
        for step in game["steps"]:
            deal = table_deal(step["table"])
            assert deal.rules.name == PYSOLFC_RULES[title]
            ours = set()
            for m in Position(deal).legal_moves():
                if "*" in m and len(deal.tableau[int(m[1:m.index("*")]) - 1]) == 1:
                    m = m.replace("*", "")
                ours.add(m)

            theirs = {m for m in step["legal"] if not renaming(deal, m)}
            assert ours == theirs, (title, game["number"], step["table"])
            count += 1
    return count


@pytest.mark.parametrize("title", list(TITLES))
def test_the_plugin_in_the_real_pysolfc(title):
    numbers = [1, 2, 3, 4, 5, 6]
    job = {"numbers": numbers, "midgame": numbers, "midgame_moves": 20, "max_iters": MAX_ITERS,
           "legal_numbers": [7], "legal_steps": 150}
    out, stderr = pysolfc_runner.run_job(title, job)
    assert out["error"] is None, out["error"] + stderr
    assert out["title"] == TITLES[title]
    assert [r["number"] for r in out["results"]] == numbers
    midgames = 0
    for r in out["results"]:
        ours = solve(pysolfc_deal(r["number"], PYSOLFC_RULES[title]), max_nodes=MAX_ITERS * 100)
        assert table_deal(r["table"]) == pysolfc_deal(r["number"], PYSOLFC_RULES[title])
        state = {"solved": "solved", "unsolvable": "unsolved", "unknown": "intractable"}[ours.verdict.value]
        assert r["solve"]["state"] == state, r
        if state == "solved":
            assert r["demo"]["won"] and r["demo"]["said"][-1].startswith("Game solved in"), r["demo"]
        if "midgame" in r:
            midgames += 1
            assert r["midgame"]["solve"]["state"] == "solved"      # a position on a winning line
    assert midgames >= 1 or all(r["solve"]["state"] != "solved" for r in out["results"])
    assert compare_legal(title, out.get("legal", [])) >= 50
    assert "canfield-solver plugin" not in stderr


def test_the_solver_dialog_says_solvable_and_not_solvable_and_plays_to_won():
    out, stderr = pysolfc_runner.run_job("Canfield", {"numbers": [1, 3], "dialog_numbers": [1, 3],
                                                      "max_iters": MAX_ITERS})
    assert out["error"] is None, out["error"] + stderr
    won, lost = out["results"]
    assert won["dialog_text"].startswith("This game is solvable in")
    assert won["demo"]["won"]
    assert lost["dialog_text_after"].startswith("Not solvable: every line loses")


def test_pysolfc_starts_as_before_without_the_plugin_or_with_a_broken_one(tmp_path):
    # --noplugins: neither the plugin nor the driver runs, so PySolFC just stays up, saying nothing of ours.
    out, stderr = pysolfc_runner.run_job("Canfield", {}, args=("--noplugins",), timeout=20)
    assert out["error"] == "timeout" and "canfield-solver plugin" not in stderr and "Traceback" not in stderr
    probe = {"probe": True, "numbers": [1]}
    out, stderr = pysolfc_runner.run_job("Canfield", probe)
    assert out["solver_class"] == "CanfieldSolver"
    from canfield_solver.pysolfc.install import shipped_winnable

    ours = set(PYSOLFC_RULES) | {f"{t} (Winnable)" for t, numbers in shipped_winnable().items() if numbers}
    assert ours <= set(out["games_for_solver"])
    assert not {g for g in out["games_for_solver"] if g.startswith(("Rainfall", "Double Canfield", "Eagle Wing"))}
    assert out["results"][0]["solve"]["state"] == "solved"
    # The interpreter it names is gone: one line on stderr, no solver, PySolFC runs on.
    out, stderr = pysolfc_runner.run_job("Canfield", probe, plugin_python=str(tmp_path / "gone" / "python"))
    assert out["error"] is None and out["solver_class"] is None
    lines = [x for x in stderr.splitlines() if "canfield-solver plugin" in x]
    assert len(lines) == 1 and "is gone" in lines[0]
    # The interpreter is there but has no canfield-solver: the first search fails, said in one line.
    py = pysolfc_runner.paths()["python"]
    out, stderr = pysolfc_runner.run_job("Canfield", probe, plugin_python=str(py))
    assert out["error"] is None and out["results"][0]["solve"]["state"] == "intractable"
    assert any("the bridge failed" in x for x in stderr.splitlines())


def test_the_hint_key_shows_the_solvers_move_and_says_which_move_lost_the_game():
    from canfield_solver import Position

    cases = [{"number": 1, "moves": []}, {"number": 8, "moves": ["draw", "W>F", "R>F", "R>F"]},
             {"number": 8, "moves": ["draw", "W>F", "R>F", "R>F", "W>T1"]}, {"number": 3, "moves": []}]
    out, stderr = pysolfc_runner.run_job("Canfield", {"numbers": [], "hint_cases": cases, "max_iters": MAX_ITERS})
    assert out["error"] is None, out["error"] + stderr
    won1, won8, lost8, lost3 = out["hints"]
    for h in (won1, won8):
        pos = Position(pysolfc_deal(h["number"]))
        for m in h["moves"]:
            pos.play(m)
        first = solve(pos.to_deal(), max_nodes=5_000_000).moves[0]
        if first in ("draw", "redeal"):
            words = "deal from the stock" if first == "draw" else "turn the waste over"
            assert h["arrow"] is None and h["status"].startswith("Solver: " + words + " (winnable")
        else:
            assert h["arrow"] == first and h["status"].startswith("Solver: winnable")
    assert lost8["arrow"] is None
    assert lost8["status"] == "Solver: lost; move %d lost it" % lost8["moves_index"]
    assert lost3["status"] == "Solver: lost from the deal"


@pytest.mark.parametrize("title", ["Canfield", "Rainbow"])
def test_a_winnable_variant_deals_only_numbers_the_demo_wins(title):
    from canfield_solver.pysolfc.install import shipped_winnable

    shipped = set(shipped_winnable()[title])
    out, stderr = pysolfc_runner.run_job(f"{title} (Winnable)", {"numbers": [], "new_games": 3,
                                                                  "max_iters": MAX_ITERS * 5})
    assert out["error"] is None, out["error"] + stderr
    assert out["title"] == TITLES[title] + "Winnable" and len(out["results"]) == 3
    for r in out["results"]:
        assert r["number"] in shipped
        assert table_deal(r["table"]) == pysolfc_deal(r["number"], PYSOLFC_RULES[title])
        assert r["solve"]["state"] == "solved" and r["demo"]["won"], r
