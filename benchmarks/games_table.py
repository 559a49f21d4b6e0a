"""The figures of the other games (docs/games-spec.md) (issue 30), counted from the committed dataset alone.

    python benchmarks/games_table.py run      # the studies (resumable: deals in the dataset are skipped)
    python benchmarks/games_table.py table    # the Markdown table, with the command of each row

Each row is one ``canfield winrate --game NAME`` study into the Parquet dataset
``benchmarks/results/games``. The table adds the games' own figures from the
rows' metrics: for ``nine-packets`` the page's advice played as a policy
(face-down cards first) beside best play; for ``ten-columns`` the share of
the 90 placements of the last two cards that win, beside the rate when they
are dealt on (``ten-columns-dealt``).
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATASET = HERE / "results" / "games"
# (game, deals, seconds per deal), every row searched by the compiled solvers (games/*kernel.py).
# Rows left with unknowns get a two-phase follow-up: (sample, seconds) of the deals left unknown.
FOLLOWUP = {"aces-and-kings": (8, 120)}
ROWS = [("aces-and-kings", 10_000, 30), ("bisley", 10_000, 30), ("nine-packets", 1_000_000, 30),
        ("ten-columns-dealt", 1_000_000, 30), ("suit-neighbours", 1_000_000, 30), ("ten-columns", 1_000_000, 30)]
Z = 1.959963984540054


def _command(game: str, n: int, seconds: int) -> list[str]:
    fu = FOLLOWUP.get(game)
    extra = ["--followup", str(fu[0]), "--followup-seconds", str(fu[1]), "-j", "1"] if fu else []
    return ["canfield", "winrate", "--game", game, "--seeds", f"0:{n}", "--max-seconds", str(seconds), *extra,
            "--parquet-dir", str(DATASET.relative_to(HERE.parent))]


def _two_phase(game: str, n: int) -> str:
    """The two-phase estimate of a row from the dataset (``canfield winrate --summary``), or ''."""
    p = subprocess.run(["canfield", "winrate", "--summary", "--game", game, "--seeds", f"0:{n}", "--parquet",
                        str(DATASET), "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if p.returncode or not p.stdout.strip():
        return ""
    tp = json.loads(p.stdout).get("two_phase")
    if not tp or tp.get("win_rate") is None:
        return ""
    f = tp["followup"]
    lo, hi = tp["ci95"]
    return (f"; two-phase {100 * tp['win_rate']:.2f}% ({100 * lo:.2f}–{100 * hi:.2f}%), follow-up of {f['sampled']} "
            f"at {f['max_seconds']:g} s: {f['won']} won, {f['lost']} lost, {f['unknown']} unknown")


def run(a: argparse.Namespace) -> int:
    for game, n, secs in ROWS:
        if a.only and game != a.only:
            continue
        cmd = _command(game, n, secs) + ["--json", "-q"]
        print("$ " + shlex.join(cmd), flush=True)
        if subprocess.run(cmd, cwd=HERE.parent).returncode:
            return 1
    return 0


def _wilson(k: int, n: int) -> tuple[float, float]:
    if not n:
        return 0.0, 1.0
    p, z2 = k / n, Z * Z
    c = p + z2 / (2 * n)
    h = Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return (c - h) / (1 + z2 / n), (c + h) / (1 + z2 / n)


def table(a: argparse.Namespace) -> int:
    import pyarrow.dataset as ds

    t = ds.dataset(DATASET, format="parquet", partitioning="hive").to_table(
        columns=["rules", "verdict", "seconds", "metrics"]).to_pylist()
    print("| game | deals | won / lost / unknown | win rate (95% CI) | core-s per deal | the game's own figure |")
    print("|---|---|---|---|---|---|")
    cmds = []
    for game, n, secs_limit in ROWS:
        rows = [r for r in t if r["rules"] == game]
        if not rows:
            continue
        w = sum(r["verdict"] == "solved" for r in rows)
        lost = sum(r["verdict"] == "unsolvable" for r in rows)
        u = len(rows) - w - lost
        lo, hi = _wilson(w, w + lost)
        lo_all, hi_all = _wilson(w, len(rows))[0], _wilson(w + u, len(rows))[1]
        rate = f"{100 * w / max(w + lost, 1):.3f}% ({100 * lo:.3f}–{100 * hi:.3f}%)"
        if u:
            rate += f"; unknowns both ways {100 * lo_all:.2f}–{100 * hi_all:.2f}%" + _two_phase(game, len(rows))
        secs = sum(r["seconds"] for r in rows) / len(rows)
        extra = ""
        ms = [json.loads(r["metrics"]) for r in rows if r["metrics"]]
        if game == "nine-packets" and ms:
            k = sum(m["advice_won"] for m in ms)
            alo, ahi = _wilson(k, len(ms))
            extra = f"the page's advice as a policy wins {100 * k / len(ms):.2f}% ({100 * alo:.2f}–{100 * ahi:.2f}%)"
        if game == "ten-columns" and ms:
            won_pl = sum(m["placements_won"] for m in ms)
            tot = sum(m["placements_won"] + m["placements_lost"] + m["placements_unknown"] for m in ms)
            extra = (f"{100 * won_pl / tot:.2f}% of the 90 placements win (over all deals); of the won deals, "
                     f"{100 * won_pl / max(1, sum(90 for m in ms if m['placements_won'])):.1f}% of placements win")
        print(f"| `{game}` | {len(rows):,} | {w:,} / {lost:,} / {u:,} | {rate} | {secs:.4f} | {extra} |")
        cmds.append(shlex.join(_command(game, n, secs_limit)))
    print()
    for c in cmds:
        print(f"    {c}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("--only", default=None)
    sub.add_parser("table")
    a = ap.parse_args(argv)
    return run(a) if a.what == "run" else table(a)


if __name__ == "__main__":
    sys.exit(main())
