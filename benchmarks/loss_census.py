"""Where the exact search's positions go on deals it leaves unknown: progress, talon, tableau.

    python benchmarks/loss_census.py --rules chameleon --seeds 800000,800005 --max-seconds 10
    python benchmarks/loss_census.py --rules benchmarks/rules/canfield-draw1-passes2.json --seeds 18,74

A loss proof has to visit, or rule out, every position the exact search holds. This runs the exact
depth-first search alone (no phase before it) for ``--max-seconds`` on each deal, then reads every row of
its short table (kernel.compact's layout with foundation heights in the first field: the heights, the waste
position, the reserve count and the redeals used in the lowest bits) and splits the rows three ways:

- *progress*: the foundation heights and the reserve count (what no move takes back);
- *talon*: within a progress, the waste position and the redeals used;
- *tableau*: within both, the rows left, which differ only in the columns: which talon cards went to the
  tableau and how the columns are arranged.

So rows = progress states × talon states a progress × tableau arrangements a (progress, talon) state.
It also counts the rows left when the waste position and the redeals used are taken out: positions alike
but for how far the talon has been dealt, of which the one dealt least reaches the others by draws and
redeals alone.
A detector that reads only progress and talon (a trap in the talon's order, a dead-end learned over
them) cuts whole (progress, talon) states; one that reads the columns cuts arrangements. Nothing here
changes a search: it counts what one holds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

from canfield_solver import Deal, Position
from canfield_solver.budget import Deadline, Limits
from canfield_solver.engine.rules import Rules, get_rules
from canfield_solver.jit import njit
from canfield_solver.search import codec as C
from canfield_solver.search import depth_first
from canfield_solver.search.rows import _columns


@njit  # no disk cache: compiled in each run, so never stale against the kernel's files
def _tableau_sets(hi, lo, ncols, sb, ranks, out):  # pragma: no cover - compiled
    """Each short row's tableau card mask (SC_TAB), decoded from its column stream."""
    cols = np.zeros((1, C.MAXCOLS, C.COLCAP), np.int8)
    sc = np.zeros((1, C.NSC), np.int64)
    for i in range(hi.shape[0]):
        _columns(hi[i], lo[i], ncols, sb, ranks, cols, sc)
        out[i] = np.uint64(sc[0, C.SC_TAB])


def rules_named(name: str) -> Rules:
    """A preset by its name, or the rules of a ``.json`` file."""
    return Rules.from_json_file(name) if name.endswith(".json") else get_rules(name)


def split(hi: np.ndarray, lo: np.ndarray, params: np.ndarray, ranks: int) -> dict[str, float]:
    """The rows' three-way split (see the module), and the states of two abstractions that forget the
    columns' order: the tableau as its set of cards, and as its count of cards of each rank."""
    tb, wb, rb, db = (int(params[k]) for k in (C.P_TALON_BITS, C.P_WPOS_BITS, C.P_RES_BITS, C.P_RDL_BITS))
    heights = lo & np.uint64(0xFFFF)
    wpos = (lo >> np.uint64(tb)) & np.uint64((1 << wb) - 1)
    res = (lo >> np.uint64(tb + wb)) & np.uint64((1 << rb) - 1)
    rdl = (lo >> np.uint64(tb + wb + rb)) & np.uint64((1 << db) - 1) if db else np.zeros_like(lo)
    progress = heights | (res << np.uint64(16))
    talon = progress | (wpos << np.uint64(24)) | (rdl << np.uint64(40))
    tab = np.zeros(len(lo), np.uint64)
    _tableau_sets(hi, lo, int(params[C.P_NCOLS]), int(params[C.P_SUITBITS]), ranks, tab)
    by_rank = np.zeros(len(lo), np.uint64)  # 3 bits a rank: how many of its cards are on the tableau
    for card in range(4 * 13):  # card ids are suit * 13 + rank (engine.cards)
        on = (tab >> np.uint64(card)) & np.uint64(1)
        by_rank += on << np.uint64(3 * (card % 13))
    n = len(lo)
    p = len(np.unique(progress))
    with_set = len(np.unique(np.stack([talon, tab], axis=1), axis=0))
    # the rows again with the waste position and redeals used taken out: positions that differ only in how
    # far the talon has been dealt, the one with the least (redeals used, waste position) reaching the others
    # by draws and redeals alone (a limited-pass covering would keep one row of them)
    fields = np.uint64(((1 << wb) - 1) << tb) | (np.uint64(((1 << db) - 1) << (tb + wb + rb)) if db else np.uint64(0))
    rest = len(np.unique(np.stack([hi, lo & ~fields], axis=1), axis=0))
    with_ranks = len(np.unique(np.stack([talon, by_rank], axis=1), axis=0))
    t = len(np.unique(talon))
    # the largest progress state's share: where the search piles up
    _, counts = np.unique(progress, return_counts=True)
    return {"rows": n, "progress": p, "talon_states": t, "talon_per_progress": t / max(p, 1),
            "tableau_per_talon": n / max(t, 1), "largest_progress_share": float(counts.max() / max(n, 1)),
            "states_tableau_as_set": with_set, "states_tableau_as_rank_counts": with_ranks,
            "rows_but_talon_position": rest}


def searched(rules: Rules, seed: int, max_seconds: float, max_memory: int) -> tuple[Deal, dict, dict]:
    """The exact depth-first search alone on one deal: the deal, its line of figures (verdict, nodes,
    seconds), and the search's arrays (``problem`` and ``tables``, ``depth_first.How.keep``)."""
    deal = Deal.from_seed(seed, rules)
    kept: dict = {}
    t0 = time.perf_counter()
    o = depth_first.search(Position(deal), Limits(Deadline(max_seconds), memory_mb=max_memory), 0.0,
                           depth_first.How(keep=kept, passes_cover=False))
    row = {"rules": rules.name, "seed": seed, "seconds": round(time.perf_counter() - t0, 2), "nodes": o.nodes,
           "verdict": "won" if o.won else "lost" if o.proved_lost else f"unknown ({o.limit})"}
    return deal, row, kept


def census(rules: Rules, seed: int, max_seconds: float, max_memory: int) -> dict:
    _deal, row, kept = searched(rules, seed, max_seconds, max_memory)
    prob, tables = kept["problem"], kept["tables"]
    if not prob.params[C.P_FKEY] or prob.params[C.P_COVER]:
        return {**row, "skipped": "rows without foundation heights, or with a cover field"}
    short = tables.short
    used = np.flatnonzero(short[:, 0])
    hi, lo = short[used, 0].copy(), short[used, 1].copy()
    longs = int(np.count_nonzero(tables.long[:, 0]))
    return {**row, "long_rows": longs, **split(hi, lo, prob.params, rules.ranks)}


def arguments(doc: str | None) -> argparse.ArgumentParser:
    """The options every census of a deal's table takes (this script's and ``trap_census.py``'s)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="chameleon", help="a preset, or a rules file (.json)")
    ap.add_argument("--seeds", required=True, help="comma list")
    ap.add_argument("--max-seconds", type=float, default=10.0)
    ap.add_argument("--max-memory", type=int, default=4000, help="table cap in MiB")
    ap.add_argument("--out", default=None, help="append each deal's JSON line to this file")
    return ap


def each_seed(a: argparse.Namespace, measure: Callable[[Rules, int], dict]) -> None:
    """``measure(rules, seed)`` for every seed of ``--seeds``, each a JSON line printed (and appended to
    ``--out``)."""
    rules = rules_named(a.rules)
    for seed in [int(s) for s in a.seeds.split(",") if s]:
        line = json.dumps(measure(rules, seed))
        print(line, flush=True)
        if a.out:
            with Path(a.out).open("a") as f:
                f.write(line + "\n")


def main(argv: list[str] | None = None) -> None:
    a = arguments(__doc__).parse_args(argv)
    each_seed(a, lambda rules, seed: census(rules, seed, a.max_seconds, a.max_memory))


if __name__ == "__main__":
    sys.exit(main())
