"""``ten-columns``: the solver. Best play chooses the placement too: the deal is won when some placement
of the last two cards leads to a win. Removals only remove cards, so each placement is a search of a DAG
(``base.search_removals``), and the positions proven lost are remembered by the columns' heights across
all placements: a position reached after different placements, once the columns that differ are
back above row 6, is the same position."""

from __future__ import annotations

import time

from ...budget import Limit
from ...solver import Verdict
from ..base import GameResult, Limits, old_memory_name, replay
from . import game as G

__all__ = ["solve", "placement_wins"]


def _search(p: G.Position, lim: Limits, lost: set, dealt: tuple[int, ...]) -> tuple[Verdict, list[str]]:
    """The search of ``base.search_removals`` (the removals by column pair in increasing order, positions
    proven lost remembered in ``lost``), on columns of ranks and a list of heights changed in place
    instead of position objects: 1.8x faster. A position's key is the columns' heights and which placed
    card each column taller than it was dealt (``dealt``: the heights before the placement) holds: the
    whole position, the same whichever placement reached it, so one placement's losses serve every
    other's."""
    cols = p.columns
    ranks = [[c % 13 for c in col] for col in cols]
    h = [len(c) for c in cols]
    tall = [(i, cols[i][dealt[i]]) for i in range(len(cols)) if h[i] > dealt[i]]  # the placed cards
    n = len(cols)
    path: list[str] = []

    class Stop(Exception):
        pass

    def k() -> tuple:
        return tuple(h) + tuple(c for i, c in tall if h[i] > dealt[i])

    def dfs(left: int) -> bool:
        if lim.spend():
            raise Stop
        if not left:
            return True
        kk = k()
        if kk in lost:
            return False
        tops = [ranks[i][h[i] - 1] if h[i] else -1 for i in range(n)]
        for a in range(n):
            ra = tops[a]
            if ra < 0:
                continue
            for b in range(a + 1, n):
                if tops[b] == ra:
                    h[a] -= 1
                    h[b] -= 1
                    path.append(f"C{a + 1}+C{b + 1}")
                    if dfs(left - 2):
                        return True
                    path.pop()
                    h[a] += 1
                    h[b] += 1
        lost.add(kk)
        return False

    try:
        found = dfs(sum(h))
    except Stop:
        return Verdict.UNKNOWN, []
    return (Verdict.SOLVED, path) if found else (Verdict.UNSOLVABLE, [])


class _Compiled:
    """The compiled search (``games.pairs_kernel``) of one deal, the same as ``_search`` node for node: the
    ranks of the deal's columns with the two cards to place (if any) at their placed heights, and the
    lost positions shared by every placement."""

    def __init__(self, p: G.Position):
        import numpy as np

        from .. import pairs_kernel as PK

        PK.warm()
        self.PK, self.np = PK, np
        self.dealt = np.array([len(c) for c in p.columns], np.int64)
        self.ranks = np.zeros((G.COLUMNS, int(self.dealt.max()) + 1), np.int64)
        for i, col in enumerate(p.columns):
            self.ranks[i, :len(col)] = [c % 13 for c in col]
        self.to_place = [c % 13 for c in p.to_place]
        self.lost = PK.LostTable()
        self.lost.bits = PK.key_bits(self.dealt + 1, self.dealt)   # room for every placement's heights

    @classmethod
    def of(cls, p: G.Position) -> "_Compiled | None":
        """The compiled search of ``p``, or None when its columns are too tall for the kernel's key (a
        constructed position, never a deal's: then the plain-Python search runs)."""
        import numpy as np

        from .. import pairs_kernel as PK

        h = np.array([len(c) + 1 for c in p.columns], np.int64)
        return cls(p) if PK.key_bits(h, h) is not None else None

    def __call__(self, lim: Limits, a: int | None, b: int | None) -> tuple[Verdict, list[str]]:
        np = self.np
        h = self.dealt.copy()
        tall = np.zeros(G.COLUMNS, np.int64)
        if a is not None:
            for code, (col, rank) in enumerate(((a, self.to_place[0]), (b, self.to_place[1])), 1):
                self.ranks[col, h[col]] = rank
                h[col] += 1
                tall[col] = code
        verdict, pairs = self.PK.run(self.ranks, h, lim, 0, self.lost, tall, self.dealt)
        return verdict, [f"C{x + 1}+C{y + 1}" for x, y in pairs]


@old_memory_name
def solve(p: G.Position, *, max_nodes: int | None = None, max_seconds: float | None = None,
          max_memory_mb: int | None = None, seed: int | None = None, compiled: bool = True) -> GameResult:
    """Won with a move list (the placement first, while the two cards wait), lost after every placement's
    search is exhausted, or unknown when a limit stops it. ``compiled=False`` runs the plain-Python search
    (the reference the tests hold the compiled one to); the lost positions are a few thousand a deal, so
    ``max_memory_mb`` never binds (it is taken for the games' common signature)."""
    fast = _Compiled.of(p) if compiled else None    # loads the kernel before the clock starts
    lim = Limits(max_nodes, max_seconds)
    lost: set = set()
    dealt = tuple(len(c) for c in p.columns)
    verdict, line = Verdict.UNSOLVABLE, []
    choices: list[tuple[int, int] | None] = [*G.placements(p)] or [None]  # None: the cards are placed already
    for ab in choices:
        if fast is not None:
            v, rest = fast(lim, *(ab or (None, None)))
        else:
            v, rest = _search(p if ab is None else G.place(p, *ab), lim, lost, dealt)
        if v is Verdict.SOLVED:
            verdict, line = v, ([] if ab is None else [f"place {ab[0] + 1} {ab[1] + 1}"]) + rest
            break
        if v is Verdict.UNKNOWN:
            verdict = v
            break
    if verdict is Verdict.SOLVED and not G.won(replay(G.play, p, line)):
        raise AssertionError("ten-columns: a winning line that does not replay")
    return GameResult(G.NAME, verdict, tuple(line), lim.nodes, lim.seconds, lim.hit, seed)


def placement_wins(p: G.Position, *, max_nodes: int | None = None, max_seconds: float | None = None,
                   compiled: bool = True) -> tuple[int, int, int]:
    """Of the 90 placements of the last two cards: how many win, how many lose, how many a limit left
    unknown (the page's question: how much the placement matters)."""
    fast = _Compiled.of(p) if compiled else None
    lim = Limits(max_nodes, max_seconds)
    seen: set = set()
    dealt = tuple(len(c) for c in p.columns)
    won = lost = unknown = 0
    for a, b in G.placements(p):
        v, _ = fast(lim, a, b) if fast is not None else _search(G.place(p, a, b), lim, seen, dealt)
        if v is Verdict.SOLVED:
            won += 1
        elif v is Verdict.UNSOLVABLE:
            lost += 1
        else:
            unknown += 1
            lim.hit = None
    return won, lost, unknown


@old_memory_name
def study(p: G.Position, *, max_nodes: int | None = None, max_seconds: float | None = None,
          max_memory_mb: int | None = None, seed: int | None = None) -> tuple[GameResult, dict]:
    """A study's row. While the two cards wait (``ten-columns``), every one of the 90 placements is decided
    (``placement_wins``) and the deal is won when any is: the row counts the placements won, lost and
    unknown; once they are placed (``ten-columns-dealt``), the solver's result alone."""
    if not p.to_place:
        return solve(p, max_nodes=max_nodes, max_seconds=max_seconds, max_memory_mb=max_memory_mb, seed=seed), {}
    t0 = time.perf_counter()
    w, lost, u = placement_wins(p, max_nodes=max_nodes, max_seconds=max_seconds)
    verdict = Verdict.SOLVED if w else (Verdict.UNKNOWN if u else Verdict.UNSOLVABLE)
    limit = (Limit.NODES if max_nodes else Limit.SECONDS) if u else None
    r = GameResult(G.NAME, verdict, (), 0, time.perf_counter() - t0, limit, seed)
    return r, {"placements_won": w, "placements_lost": lost, "placements_unknown": u}
