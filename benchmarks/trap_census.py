"""How often a trap in the last pass's order would cut the exact search's positions (a loss-proof family, counted first).

    python benchmarks/trap_census.py --rules chameleon --seeds 800000,800012 --max-seconds 10
    python benchmarks/trap_census.py --rules benchmarks/rules/canfield-draw1-passes2.json --seeds 840025,840035

The stuck-card test (solver notes) finds tableau cards that can never move: a card leaves a column only
by going home or onto a host, never into a gap. In the stock's last pass the waste is a pile too (cards
leave it from the top only; the stock's cards land on top of it), and so is the reserve. Their cards can
also go into a gap; but where every column's bottom card is stuck no column ever empties, so no gap ever
opens. The *extended* test runs the stuck-card fixpoint over the tableau, the last pass's waste and the
reserve together, and keeps the result only when every column's bottom card is in it:

    S = tableau + waste (last pass) + reserve cards; repeatedly drop Y from S unless
      (a) a lower card of Y's suit, not home, is in S or lies under a card of S in its pile, and
      (b) each host of Y is home or lies under a card of S in its pile;
    lost when S is not empty and every column is non-empty with its bottom card in S.

Why it is sound: take the first move of any card of S. Until then every column's bottom card is in place,
so no column has been empty and no gap has opened: the card goes home or onto a host, and (a) or (b) says
it cannot (the cards that block it are in S, or under cards of S, which have not moved; a pile gives up
only its top, and in the last pass the waste never turns over).

This runs the exact depth-first search alone for ``--max-seconds`` on each deal, decodes a sample of its
table's rows into positions (every stored position was entered, or made and found not stuck), and counts
those the plain test calls lost (a check: it should be none) and those the extended test calls lost: the
share of the search's positions, with everything below them, such a detector would cut. Nothing here
changes a search, and the extended test is a measurement, not yet a proof in the solver.
"""

from __future__ import annotations

import sys
import time
from typing import NamedTuple

import numpy as np
from loss_census import arguments, each_seed, searched

from canfield_solver import Deal, Position
from canfield_solver.engine.rules import Rules
from canfield_solver.search import codec as C
from canfield_solver.search.rows import level_from_row


def stuck(piles: list[list[int]], cards: list[int], foundations: list[int], base: int, r: Rules) -> set[int]:
    """The stuck-card fixpoint over ``cards`` (each in one of ``piles``, bottom first): the greatest set S
    whose cards each satisfy (a) and (b) of the module's docstring."""
    def rel(c: int) -> int:
        return (c % 13 - base) % r.ranks

    def home(c: int) -> bool:
        return rel(c) < foundations[c // 13]

    hosts = {c: [h for h in r.deck if r.fits_tableau(base, c, h)] for c in cards}
    s = set(cards)
    while True:
        under = {p[j] for p in piles for i in range(len(p)) if p[i] in s for j in range(i)}
        keep = {y for y in s
                if any(x // 13 == y // 13 and rel(x) < rel(y) and not home(x) and (x in s or x in under)
                       for x in cards)
                and all(home(h) or h in under for h in hosts[y])}
        if keep == s:
            return s
        s = keep


def verdicts(tableau: list[list[int]], waste: list[int], reserve: list[int], foundations: list[int], base: int,
             r: Rules, last_pass: bool) -> tuple[bool, bool]:
    """(the plain stuck-card test says lost, the extended test says lost) for one position."""
    plain = bool(stuck(tableau, [c for col in tableau for c in col], foundations, base, r))
    if plain or not last_pass or any(not col for col in tableau):
        return plain, plain
    piles = [*tableau, waste, reserve]
    s = stuck(piles, [c for p in piles for c in p], foundations, base, r)
    return plain, bool(s) and all(col[0] in s for col in tableau)


def position(deal: Deal, s: "Sampled") -> Position:
    """The reference engine's position for a decoded row (its stock's next card last, as Position keeps it)."""
    pos = Position(deal)
    pos.tableau, pos.waste, pos.stock = [list(c) for c in s.tableau], list(s.waste), list(reversed(s.stock))
    pos.reserve, pos.foundations, pos.redeals_used = list(s.reserve), list(s.foundations), s.redeals
    return pos


def check_again(positions: list[Position], seconds: float) -> dict[str, int]:
    """Each position a test calls lost, solved again from scratch: a win would make the test unsound."""
    from canfield_solver import solve

    got = {"checked": 0, "check_solved": 0, "check_lost": 0, "check_unknown": 0}
    for pos in positions:
        v = solve(pos, max_seconds=seconds).verdict.value
        got["checked"] += 1
        got["check_" + {"solved": "solved", "unsolvable": "lost"}.get(v, "unknown")] += 1
    return got


class Sampled(NamedTuple):
    """One row of the exact search's table, decoded: its piles (bottom first; the stock in dealing order)."""

    tableau: list[list[int]]
    waste: list[int]
    stock: list[int]
    reserve: list[int]
    foundations: list[int]
    redeals: int


def sampled(rules: Rules, seed: int, max_seconds: float, sample: int,
            max_memory: int) -> tuple[Deal, dict, list[Sampled] | None]:
    """The exact search alone on one deal (``searched``) and ``sample`` rows of its short table, decoded; None
    for the rows where they have no foundation heights, a cover field, or no last pass."""
    deal, row, kept = searched(rules, seed, max_seconds, max_memory)
    prob, tables = kept["problem"], kept["tables"]
    p = prob.params
    if not p[C.P_FKEY] or p[C.P_COVER] or rules.redeals is None:
        return deal, row, None
    short = tables.short
    used = np.flatnonzero(short[:, 0])
    row["rows"] = len(used)
    pick = np.random.default_rng(seed).choice(used, size=min(sample, len(used)), replace=False)
    tb, wb = int(p[C.P_TALON_BITS]), int(p[C.P_WPOS_BITS])
    cols = np.zeros((1, C.MAXCOLS, C.COLCAP), np.int8)
    sc = np.zeros((1, C.NSC), np.int64)
    mask = np.zeros(1, np.uint64)
    out = []
    for i in pick:
        hi, lo = short[i, 0], short[i, 1]
        level_from_row(hi, lo, p, prob.reserve, prob.talon, prob.lut, cols, sc, mask, rules.ranks)
        wpos = int((int(lo) >> tb) & ((1 << wb) - 1))
        present = [j for j in range(len(prob.talon) - 1) if (int(mask[0]) >> j) & 1]
        out.append(Sampled([[int(c) for c in cols[0, k, :sc[0, C.SC_LEN + k]]] for k in range(rules.columns)],
                           [int(prob.talon[j]) for j in present[:wpos]],
                           [int(prob.talon[j]) for j in present[wpos:]],
                           [int(c) for c in prob.reserve[:sc[0, C.SC_RES]]],
                           [int(sc[0, C.SC_F + s]) for s in range(4)], int(sc[0, C.SC_RDL])))
    return deal, row, out


def census(rules: Rules, seed: int, max_seconds: float, sample: int, max_memory: int, check: int = 0,
           check_seconds: float = 1.0) -> dict:
    deal, row, rows = sampled(rules, seed, max_seconds, sample, max_memory)
    if rows is None:
        return {**row, "skipped": "rows without foundation heights, with a cover field, or no last pass"}
    counts = {"sampled": 0, "last_pass": 0, "plain": 0, "extended": 0}
    fired: list[Position] = []
    t0 = time.perf_counter()
    for s in rows:
        last = s.redeals == rules.redeals
        plain, extended = verdicts(s.tableau, s.waste, s.reserve, s.foundations, deal.base_rank, rules, last)
        counts["sampled"] += 1
        counts["last_pass"] += last
        counts["plain"] += plain
        counts["extended"] += extended
        if extended and not plain and len(fired) < check:
            fired.append(position(deal, s))
    secs = time.perf_counter() - t0
    return {**row, **counts, "python_us_a_position": round(1e6 * secs / max(counts["sampled"], 1)),
            **(check_again(fired, check_seconds) if check else {})}


def main(argv: list[str] | None = None) -> None:
    ap = arguments(__doc__)
    ap.add_argument("--sample", type=int, default=20_000, help="rows decoded and tested a deal")
    ap.add_argument("--check", type=int, default=0,
                    help="solve this many positions the extended test calls lost again (a win would be a bug)")
    ap.add_argument("--check-seconds", type=float, default=1.0)
    a = ap.parse_args(argv)
    each_seed(a, lambda rules, seed: census(rules, seed, a.max_seconds, a.sample, a.max_memory, a.check,
                                            a.check_seconds))


if __name__ == "__main__":
    sys.exit(main())
