"""A projection built for unsolvability: the game with its columns forgotten but for how many runs their cards fill.

    python benchmarks/capacity_census.py --rules chameleon --seeds 800000,800012 --max-seconds 10
    python benchmarks/capacity_census.py --rules benchmarks/rules/canfield-draw1-passes2.json --seeds 840025

The exact search spends its positions telling column arrangements apart (``loss_census.py``). This abstract
game keeps everything else exact (the foundations, the reserve, the stock, the waste and the redeals used)
and forgets the columns: their cards are whatever is in none of those piles, and the one thing kept of them
is that they fill at most C runs (C the columns), a run being cards each of which fits on the one below it
by the building rule. The fewest runs that hold a multiset of cards is a sum over card types: for each type,
the cards of it beyond the cards of its host type (each host holds one guest), and one run for a cycle of
types (where the rank wraps) whose counts are all equal. Its moves:

- a draw or a redeal, as the real game's;
- the waste's top or the reserve's top home, or onto the columns when they still fill at most C runs;
- any column card home, when the rest still fill at most C runs.

Why a lost abstract game proves the deal lost: a real position maps to one abstract state (its columns are
C runs, so their cards fill at most C), every real move maps to an abstract move or to no change (a card
from column to column), and a won real position maps to the won abstract state. So a real win would be an
abstract win. It is a projection onto the talon, the reserve and the foundations with one invariant of the
columns kept: of the detector families of solver notes §12, the projection kind, which coarsens nothing of
the talon and everything of the tableau.

For each deal this runs the abstract game from the deal (``root``) and from ``--sample`` positions decoded
from the exact search's table after ``--max-seconds`` (``trap_census.sampled``), each under ``--cap`` abstract
states; the states an exhausted run visited are kept as dead for the later runs (dead ends learned over the
talon, the reserve and the foundations). It prints the share of the sampled positions the abstract game
calls lost: the share of the search's positions, with everything below them, such a detector would cut.
Nothing here changes a search.
"""

from __future__ import annotations

import sys
import time
from statistics import median

from loss_census import arguments, each_seed
from trap_census import check_again, position, sampled

from canfield_solver import Deal
from canfield_solver.engine.cards import rank_of, suit_of
from canfield_solver.engine.rules import Rules

State = tuple  # (heights, reserve count, stock in dealing order, waste bottom first, redeals used)


class Projection:
    """The abstract game of one deal (the module's docstring)."""

    def __init__(self, deal: Deal):
        r = deal.rules
        self.rules, self.base, self.deck = r, deal.base_rank, r.deck
        self.reserve = list(deal.reserve)
        kinds = {"any": lambda c: rank_of(c), "alternate": lambda c: (rank_of(c), suit_of(c) in (1, 2)),
                 "suit": lambda c: c}
        kind = kinds[r.build]
        types = sorted({kind(c) for c in self.deck}, key=str)
        self.type_of = {c: types.index(kind(c)) for c in self.deck}
        self.host = [-1] * len(types)
        for c in self.deck:
            hosts = [h for h in self.deck if r.fits_tableau(self.base, c, h)]
            if hosts:
                self.host[self.type_of[c]] = self.type_of[hosts[0]]
        self.cycles = self._cycles()

    def _cycles(self) -> list[list[int]]:
        """The cycles of types (each type's host type, round to itself)."""
        found, seen = [], set()
        for t in range(len(self.host)):
            path, u = [], t
            while u >= 0 and u not in path and u not in seen:
                path.append(u)
                u = self.host[u]
            if u >= 0 and u in path:
                found.append(path[path.index(u):])
            seen.update(path)
        return found

    def runs(self, counts: list[int]) -> int:
        """The fewest runs that hold cards of these counts a type."""
        n = sum(max(0, c - (counts[self.host[t]] if self.host[t] >= 0 else 0)) for t, c in enumerate(counts))
        for cyc in self.cycles:
            if counts[cyc[0]] > 0 and all(counts[t] == counts[cyc[0]] for t in cyc):
                n += 1
        return n

    def start(self, p: "sampled_row") -> State:
        return (tuple(p.foundations), len(p.reserve), tuple(p.stock), tuple(p.waste), p.redeals)

    def _next(self, heights: tuple, card: int) -> bool:
        s, n = suit_of(card), self.rules.ranks
        return heights[s] < n and rank_of(card) == (self.base + heights[s]) % n

    def _columns(self, st: State) -> list[int]:
        heights, res, stock, waste, _ = st
        n = self.rules.ranks
        elsewhere = set(self.reserve[:res]) | set(stock) | set(waste)
        return [c for c in self.deck if c not in elsewhere and (rank_of(c) - self.base) % n >= heights[suit_of(c)]]

    def children(self, st: State) -> list[State]:
        heights, res, stock, waste, rdl = st
        cols = self._columns(st)
        counts = [0] * len(self.host)
        for c in cols:
            counts[self.type_of[c]] += 1
        cap = self.rules.columns
        out = []

        def up(card: int) -> tuple:
            h = list(heights)
            h[suit_of(card)] += 1
            return tuple(h)

        def fits_with(card: int, delta: int) -> bool:
            counts[self.type_of[card]] += delta
            ok = self.runs(counts) <= cap
            counts[self.type_of[card]] -= delta
            return ok

        for card, rest in ((self.reserve[res - 1] if res else None, (res - 1, stock, waste)),
                           (waste[-1] if waste else None, (res, stock, waste[:-1]))):
            if card is None:
                continue
            if self._next(heights, card):
                out.append((up(card), *rest, rdl))
            if fits_with(card, 1):
                out.append((heights, *rest, rdl))
        out += [(up(c), res, stock, waste, rdl) for c in cols if self._next(heights, c) and fits_with(c, -1)]
        draw, redeals = self.rules.draw, self.rules.redeals
        if stock:
            k = min(draw, len(stock))
            out.append((heights, res, stock[k:], waste + tuple(stock[:k]), rdl))
        elif waste and (redeals is None or rdl < redeals):
            out.append((heights, res, tuple(waste), (), rdl + 1))
        return out

    def explore(self, st: State, dead: set, cap: int) -> tuple[str, int]:
        """("won" | "lost" | "limit", abstract states visited) from ``st``; an exhausted run's states join
        ``dead``."""
        seen, todo = set(), [st]
        while todo:
            s = todo.pop()
            if s in seen or s in dead:
                continue
            if sum(s[0]) == 4 * self.rules.ranks:
                return "won", len(seen)
            if len(seen) >= cap:
                return "limit", len(seen)
            seen.add(s)
            todo.extend(self.children(s))
        dead |= seen
        return "lost", len(seen)


sampled_row = object  # trap_census.Sampled, or anything with its fields


def census(rules: Rules, seed: int, max_seconds: float, sample: int, max_memory: int, cap: int,
           check: int = 0, check_seconds: float = 1.0) -> dict:
    deal, row, rows = sampled(rules, seed, max_seconds, sample, max_memory)
    proj = Projection(deal)
    dead: set = set()
    t0 = time.perf_counter()
    root, root_states = proj.explore((tuple(deal.foundation_counts()), len(deal.reserve), tuple(reversed(deal.stock)),
                                      tuple(deal.waste), deal.redeals_used), dead, cap)
    got = {"root": root, "root_states": root_states, "root_seconds": round(time.perf_counter() - t0, 2)}
    if rows is None:
        return {**row, **got, "skipped": "rows without foundation heights, with a cover field, or no last pass"}
    ends = {"won": 0, "lost": 0, "limit": 0}
    sizes, fired = [], []
    t0 = time.perf_counter()
    for s in rows:
        end, n = proj.explore(proj.start(s), dead, cap)
        ends[end] += 1
        sizes.append(n)
        if end == "lost" and len(fired) < check:
            fired.append(position(deal, s))
    return {**row, **got, "sampled": len(rows), **ends, "states_median": median(sizes) if sizes else 0,
            "dead_learned": len(dead), "ms_a_position": round(1e3 * (time.perf_counter() - t0) / max(len(rows), 1), 1),
            **(check_again(fired, check_seconds) if check else {})}


def main(argv: list[str] | None = None) -> None:
    ap = arguments(__doc__)
    ap.add_argument("--sample", type=int, default=500, help="rows decoded and tested a deal")
    ap.add_argument("--cap", type=int, default=20_000, help="abstract states at most a run")
    ap.add_argument("--check", type=int, default=0,
                    help="solve this many positions the abstract game calls lost again (a win would be a bug)")
    ap.add_argument("--check-seconds", type=float, default=1.0)
    a = ap.parse_args(argv)
    each_seed(a, lambda rules, seed: census(rules, seed, a.max_seconds, a.sample, a.max_memory, a.cap, a.check,
                                            a.check_seconds))


if __name__ == "__main__":
    sys.exit(main())
