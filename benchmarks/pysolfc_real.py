"""The plugin in the real PySolFC 3.6.1, at length: verdicts, demo wins, mid-game solves, legal moves, screenshots.

    python benchmarks/pysolfc_real.py                           # 30 numbers a game, 2 mid-game each
    python benchmarks/pysolfc_real.py --numbers 1:11 --games Canfield,Rainbow
    python benchmarks/pysolfc_real.py --record tests/data/pysolfc-tables.jsonl --shots docs/images/pysolfc

Needs PySolFC set up (``benchmarks/pysolfc_setup.py``). For each game, one PySolFC session (Xvfb) with the
plugin and the test driver (tests/pysolfc_driver.py): each game number dealt by PySolFC, solved from its
live table through the plugin as the Solver dialog does (``--max-iters``, 100 nodes an iteration), the
verdict compared with this package's on ``pysolfc_deal(N)`` at the same node limit (what ``canfield solve
--pysolfc N --max-nodes ...`` says), every "solvable" played by PySolFC's demo until it stops, PySolFC's own
"Game solved" counted; the first ``--midgame`` solvable numbers stopped after 20 demo moves and solved again
from there; a random game's every position checked move for move against PySolFC's stacks. Prints a table
and exits 1 on any disagreement.

``--record FILE`` writes the tables the tests replay (tests/test_pysolfc.py): the first two start tables of
each game and its mid-game tables with their lines. ``--shots DIR`` takes screenshots of the Solver dialog
on the first number of each game. Then ``--winnable`` new games of each "(Winnable)" variant, dealt by
PySolFC's own "New game": each number must be in the shipped list, and the demo must win it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import pysolfc_runner  # noqa: E402
from test_pysolfc_real import TITLES, compare_legal  # noqa: E402

from canfield_solver.formats.pysolfc import PYSOLFC_RULES, pysolfc_deal, table_deal  # noqa: E402
from canfield_solver.solver import solve  # noqa: E402

STATE = {"solved": "solved", "unsolvable": "unsolved", "unknown": "intractable"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default=",".join(TITLES))
    ap.add_argument("--numbers", default="1:31", help="START:STOP game numbers (default 1:31)")
    ap.add_argument("--midgame", type=int, default=2, help="solvable numbers a game stopped mid-way")
    ap.add_argument("--max-iters", type=int, default=100_000, help="the Solver dialog's default")
    ap.add_argument("--legal-steps", type=int, default=300)
    ap.add_argument("--winnable", type=int, default=20, help="new games of each '(Winnable)' variant (0: none)")
    ap.add_argument("--record", type=Path, default=None)
    ap.add_argument("--shots", type=Path, default=None)
    a = ap.parse_args(argv)
    why = pysolfc_runner.why_not()
    if why:
        print(f"error: {why}", file=sys.stderr)
        return 2
    lo, hi = (int(x) for x in a.numbers.split(":"))
    numbers = list(range(lo, hi))
    bad = 0
    records = []
    print(f"{'game':<18} {'numbers':>7} {'solved':>6} {'lost':>5} {'unknown':>7} {'same':>5} {'demo won':>8} "
          f"{'mid-game':>8} {'legal pos':>9} {'seconds':>7}")
    for title in a.games.split(","):
        rules = PYSOLFC_RULES[title]
        ours = {n: solve(pysolfc_deal(n, rules), max_nodes=a.max_iters * 100) for n in numbers}
        # (The first number goes through the real dialog when screenshots are taken: not a mid-game one.)
        mid = [n for n in numbers if ours[n].solved and not (a.shots and n == numbers[0])][: a.midgame]
        job = {"numbers": numbers, "midgame": mid, "max_iters": a.max_iters, "legal_numbers": [hi],
               "legal_steps": a.legal_steps, "dialog_numbers": [numbers[0]] if a.shots else [],
               "shots": str(a.shots.resolve()) if a.shots else None}
        if a.shots:
            a.shots.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        out, stderr = pysolfc_runner.run_job(title, job, timeout=3600)
        secs = time.perf_counter() - t0
        if out.get("error"):
            print(f"{title}: driver error: {out['error']}\n{stderr[-2000:]}", file=sys.stderr)
            bad += 1
            continue
        same = won = mids = 0
        counts = {"solved": 0, "unsolved": 0, "intractable": 0}
        for r in out["results"]:
            st = r["solve"]["state"]
            counts[st] += 1
            if st == STATE[ours[r["number"]].verdict.value] and table_deal(r["table"]) == pysolfc_deal(r["number"], rules):
                same += 1
            else:
                bad += 1
                print(f"  DIFFERENT: {title} {r['number']}: PySolFC {st}, ours {ours[r['number']].verdict.value}")
            if st == "solved":
                if r.get("demo", {}).get("won") and r["demo"]["said"][-1:] and r["demo"]["said"][-1].startswith("Game solved"):
                    won += 1
                else:
                    bad += 1
                    print(f"  NOT WON by the demo: {title} {r['number']}: {r.get('demo')}")
            if "midgame" in r:
                mids += r["midgame"]["solve"]["state"] == "solved"
                if r["midgame"]["solve"]["state"] != "solved":
                    m = r["midgame"]
                    print(f"  mid-game {title} {r['number']}: after {m['after_demo_moves']} demo moves "
                          f"{m['solve']['state']} ({m['solve']['nodes']} nodes)")
                records.append({"title": title, "number": r["number"], "kind": "midgame", "table": r["midgame"]["table"],
                                "line": r["solve"]["line"]})
        for r in out["results"][:2]:
            records.append({"title": title, "number": r["number"], "kind": "start", "table": r["table"]})
        try:
            legal = compare_legal(title, out.get("legal", []))
        except AssertionError as e:
            bad += 1
            legal = -1
            print(f"  LEGAL MOVES DIFFER: {e}")
        print(f"{title:<18} {len(out['results']):>7} {counts['solved']:>6} {counts['unsolved']:>5} "
              f"{counts['intractable']:>7} {same:>5} {won:>8} {mids:>4}/{len(mid):<3} {legal:>9} {secs:>7.1f}")
        if "canfield-solver plugin" in stderr:
            print("  stderr: " + " | ".join(x for x in stderr.splitlines() if "canfield-solver plugin" in x))
    if a.winnable:
        from canfield_solver.pysolfc.install import shipped_winnable

        shipped = shipped_winnable()
        print(f"\n{'(Winnable) variant':<30} {'new games':>9} {'in the list':>11} {'solved':>6} {'demo won':>8}")
        for title in a.games.split(","):
            if not shipped.get(title):
                print(f"{title + ' (Winnable)':<30} no shipped numbers")
                continue
            out, stderr = pysolfc_runner.run_job(f"{title} (Winnable)", {"numbers": [], "new_games": a.winnable,
                                                                          "max_iters": a.max_iters}, timeout=3600)
            if out.get("error"):
                print(f"{title} (Winnable): driver error: {out['error']}\n{stderr[-2000:]}", file=sys.stderr)
                bad += 1
                continue
            rows = out["results"]
            listed = sum(r["number"] in set(shipped[title]) for r in rows)
            solved = sum(r["solve"]["state"] == "solved" for r in rows)
            won = sum(bool(r.get("demo", {}).get("won")) for r in rows)
            bad += (len(rows) - listed) + (len(rows) - won)
            print(f"{title + ' (Winnable)':<30} {len(rows):>9} {listed:>11} {solved:>6} {won:>8}")
    if a.record:
        a.record.write_text("".join(json.dumps(r) + "\n" for r in records))
        print(f"recorded {len(records)} tables in {a.record}")
    print("all agree" if not bad else f"{bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
