"""``aces-and-kings`` / ``bisley``: the solver, a depth-first graph search.

Column moves can be undone (a card goes back where it came from when the card it uncovered fits it), so
positions repeat: the search keeps every position it has reached, by the canonical key of
``game.Position.key`` (the 13 columns are interchangeable, so a position is its multiset of non-empty
columns and its foundations), and never expands one twice. That is complete: a win reachable from a
position already reached is searched from its first visit. Foundation moves are tried first (``_order``).
A limit ends the search with ``unknown``.

**Safe moves.** A foundation move of a card ``c`` of suit ``s`` and rank ``r`` is played alone, the
position's only child, when no card but ``c``'s own suit neighbours could ever be built on ``c``: in
``bisley`` always; in ``aces-and-kings`` when the other suit of ``c``'s colour has ranks ``r - 1`` and
``r + 1`` home (or they do not exist). Why that loses no win, for the ace pile (``r`` is its next rank,
so every rank below ``r`` of ``s`` is home): take a winning line from the position with ``c`` in the
tableau, and play it from the position with ``c`` home, skipping every move of ``c`` and of the cards
built on ``c``. Only ``(s, r + 1)`` can be built on ``c`` (``(s, r - 1)`` is home, the other suit's
neighbours are home by the condition), then only ``(s, r + 2)`` on that, and so on: whenever the line
builds such a card on that run, the ace pile takes it instead (it is the pile's next rank), and a later
move of it, home or elsewhere, is skipped. Every other move is of a card not in that run onto a card not
in it, and sees the same top cards in both plays: covering or uncovering by the run only ever hid cards
in the original (a card under the run is exposed earlier with ``c`` home, which takes no move away). So
the line stays legal and ends with the same cards home: all 52. The king pile is the mirror image
(``r`` its next rank, every rank above ``r`` home, the run built downward). The agreement tests run the
search against a breadth-first search over raw positions, which uses no such rule.
"""

from __future__ import annotations

from ...budget import Limit, Pace, Step, drive
from ...solver import Verdict
from .. import codes
from ..base import GameResult, Limits, old_memory_name, replay
from . import game as G

__all__ = ["FIRST_PROBE", "MAX_MEMORY_MIB", "frozen_card", "safe_move", "search_python", "solve"]


def _home(p: G.Position, suit: int, rank: int) -> bool:
    """Whether card (suit, rank) is on a foundation; a rank off the deck counts as home."""
    return not 0 <= rank <= 12 or rank < p.up[suit] or rank > 12 - p.down[suit]


def safe_move(p: G.Position) -> tuple[int, int] | None:
    """A foundation move that is safe to play alone (the module's notes), or ``None``."""
    from ...engine.cards import rank_of, suit_of

    for i, col in enumerate(p.columns):
        if not col:
            continue
        c = col[-1]
        s, r = suit_of(c), rank_of(c)
        target = G.ACE if r == p.up[s] else (G.KING if r == 12 - p.down[s] else None)
        if target is None:
            continue
        if p.in_suit:
            return i, target
        other = {0: 3, 3: 0, 1: 2, 2: 1}[s]  # the other suit of c's colour
        if _home(p, other, r - 1) and _home(p, other, r + 1):
            return i, target
    return None


def frozen_card(p: G.Position) -> int | None:
    """A card that can never leave its column, or ``None``; with one, the position is lost.

    Card ``x`` (suit ``s``, rank ``r``) in column ``i`` is frozen when (1) neither pile can take it while
    the cards below it in column ``i`` stay there: the ace pile takes ``x`` only once every lower card of
    ``s`` is home, the king pile once every higher one is, and for each pile one of those cards lies
    below ``x`` (so ``x`` is not a king, whose pile needs nothing, nor either pile's next card); and (2)
    every card ``x`` may go on in the tableau (one rank up or down, of its colour; ``bisley``: its suit) is
    home or lies below ``x`` in column ``i``. Then ``x`` never leaves: a card leaves its column only as
    its free card, to a pile or onto another column's free card; the cards below ``x`` cannot move
    before ``x`` does, so (1) holds as long as ``x`` stays, a home card never returns to the tableau,
    and a card below ``x`` cannot be another column's free card before ``x`` leaves. So ``x`` never goes
    home, and no position reached from this one is won: the search does not expand it. The test is the
    same in every position reached from it, so a position skipped this way has no won position beneath
    it either way (the agreement tests search every position, without the test)."""
    home = lambda s, r: r < p.up[s] or r > 12 - p.down[s]  # noqa: E731
    for col in p.columns:
        for k, x in enumerate(col):
            s, r = x // 13, x % 13
            if r == 12 or r == p.up[s] or r == 12 - p.down[s]:
                continue
            below = set(col[:k])
            if not any(s * 13 + q in below for q in range(p.up[s], r)):
                continue
            if not any(s * 13 + q in below for q in range(r + 1, 13 - p.down[s])):
                continue
            if all(home(t // 13, t % 13) or t in below for t in G._ONTO[p.in_suit][x]):
                return x
    return None


def _order(p: G.Position, m: tuple[int, int]) -> tuple[int, int]:
    """The search's order (it decides how soon a win is found, never what is found): foundation moves,
    then column moves that uncover a card that can go home, then ones that uncover a card with somewhere
    to go, then the rest, longer columns first; moving a column's last card comes last. On seeds 0-29
    at 100 k nodes this leaves 4 aces-and-kings deals unknown where the plain order of ``legal`` left 12."""
    i, t = m
    if t < 0:
        return (-10, 0)
    col = p.columns[i]
    if len(col) < 2:
        return (5, 0)
    u = col[-2]
    s, r = u // 13, u % 13
    if r == p.up[s] or r == 12 - p.down[s]:
        return (-5, -len(col))
    frees = {c[-1] for c in p.columns if c}
    if any(x in frees for x in G._ONTO[p.in_suit][u]):
        return (-2, -len(col))
    return (0, -len(col))


def _children(p: G.Position) -> list[tuple[int, int]]:
    m = safe_move(p)
    if m is not None:
        return [m]
    return sorted(G.legal(p), key=lambda mv: _order(p, mv))


def search_python(p: G.Position, *, max_nodes: int | None = None, max_seconds: float | None = None,
                  seed: int | None = None) -> GameResult:
    """The search in plain Python, over ``game.Position`` values: the reference the compiled one
    (``solve``) is tested against, node for node."""
    lim = Limits(max_nodes, max_seconds)
    seen = {p.key}
    stack = [(p, iter(_children(p)))]
    line: list[tuple[int, int]] = []
    verdict = Verdict.UNSOLVABLE
    if G.won(p):
        verdict = Verdict.SOLVED
    elif frozen_card(p) is not None:
        stack = []
    while stack and verdict is not Verdict.SOLVED:
        q, it = stack[-1]
        m = next(it, None)
        if m is None:
            stack.pop()
            if line:
                line.pop()
            continue
        r = G.apply(q, m)
        k = r.key
        if k in seen:
            continue
        if lim.spend():
            verdict = Verdict.UNKNOWN
            break
        seen.add(k)
        line.append(m)
        if G.won(r):
            verdict = Verdict.SOLVED
            break
        if frozen_card(r) is not None:   # lost: not expanded
            line.pop()
            continue
        stack.append((r, iter(_children(r))))
    moves = tuple(G.format_move(m) for m in line) if verdict is Verdict.SOLVED else ()
    if verdict is Verdict.SOLVED and not G.won(replay(G.play, p, moves)):
        raise AssertionError("aces-and-kings: a winning line that does not replay")
    name = "bisley" if p.in_suit else G.NAME
    return GameResult(name, verdict, moves, lim.nodes, lim.seconds, lim.hit, seed, {"positions": len(seen)})

MAX_MEMORY_MIB = 1024   # the default cap on the table and the stack of one search
FIRST_PROBE = 1 << 12   # the node budget of the first search; each restart doubles it


class _Probe:
    """One run of the compiled search (``kernel``) from ``p``, with its own table of reached positions:
    ``order_seed`` 0 is ``search_python``'s order, others a pseudo-random order within its classes."""

    def __init__(self, p: G.Position, order_seed: int, cap_bytes: int):
        import numpy as np

        from . import kernel as K

        self.K, self.np, self.cap = K, np, cap_bytes
        self.cols = np.zeros((13, K.CAP), np.int64)
        self.lens = np.zeros(13, np.int64)
        for i, col in enumerate(p.columns):
            self.cols[i, :len(col)] = col
            self.lens[i] = len(col)
        self.fnd = np.array([*p.up, *p.down], np.int64)
        self.h1 = np.zeros((13, K.CAP + 1), np.uint64)
        self.h2 = np.zeros((13, K.CAP + 1), np.uint64)
        self.t1, self.t2 = np.zeros(1 << 12, np.uint64), np.zeros(1 << 12, np.uint64)
        frames = 1 << 10
        self.buf = np.zeros(frames * 16, np.int64)
        self.fstart, self.fcount, self.fnext = (np.zeros(frames, np.int64) for _ in range(3))
        self.meta = np.zeros(8, np.int64)
        self.meta[K.M_INSUIT] = int(p.in_suit)
        x = (order_seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % 2**64 if order_seed else 0
        self.rng = np.array([x], np.uint64)
        self.board = K.Board(self.cols, self.lens, self.fnd, self.h1, self.h2)
        self.status = K.init(self.board, K.Table(self.t1, self.t2),
                             K.Frames(self.buf, self.fstart, self.fcount, self.fnext), self.meta, self.rng)

    def _used(self, table: int, frames: int, buf: int) -> int:
        return table * 16 + frames * 24 + buf * 8

    def run(self, lim: Limits, budget: int | None) -> Limit | None:
        """Search until decided (``status`` WON or EXHAUSTED), or until ``budget`` nodes of this probe (then
        None), or a limit of ``lim`` (then the ``Limit``: nodes, seconds, memory), driven in budgets by
        ``budget.drive``."""
        K, np = self.K, self.np
        if self.status in (K.WON, K.EXHAUSTED):
            return None

        def call(step: int) -> Step:
            if self.status == K.NEED_TABLE:
                if self._used(2 * self.t1.size, self.fstart.size, self.buf.size) > self.cap:
                    return Step.NO_MEMORY
                n1, n2 = np.zeros(2 * self.t1.size, np.uint64), np.zeros(2 * self.t1.size, np.uint64)
                K.rehash(self.t1, self.t2, n1, n2)
                self.t1, self.t2 = n1, n2
            elif self.status == K.NEED_STACK:
                if self._used(self.t1.size, 2 * self.fstart.size, 2 * self.buf.size) > self.cap:
                    return Step.NO_MEMORY
                self.fstart, self.fcount, self.fnext = (np.concatenate([a, np.zeros_like(a)])
                                                        for a in (self.fstart, self.fcount, self.fnext))
                self.buf = np.concatenate([self.buf, np.zeros_like(self.buf)])
            self.status = K.search(self.board, K.Table(self.t1, self.t2),
                                   K.Frames(self.buf, self.fstart, self.fcount, self.fnext), self.meta, self.rng, step)
            return Step.DONE if self.status in (K.WON, K.EXHAUSTED) else Step.GOING

        def nodes() -> int:
            return int(self.meta[K.M_NODES])

        caps = [x for x in (budget, None if lim.max_nodes is None else lim.max_nodes - lim.nodes) if x is not None]
        hit = drive(call, nodes, lim.bound(min(caps) if caps else None),
                    Pace(1 << 12, max_chunk=1 << 22, t0=lim.t0))  # calls of 20-50 ms: the clock is read often enough
        if hit is Limit.NODES and budget is not None and nodes() >= budget:
            return None  # this probe's budget, not the search's limit
        return hit

    def line(self) -> list[int]:
        return [int(self.buf[self.fstart[k] + self.fnext[k] - 1]) for k in range(int(self.meta[self.K.M_DEPTH]))]


@old_memory_name
def solve(p: G.Position, *, max_nodes: int | None = None, max_seconds: float | None = None,
          max_memory_mb: int | None = None, seed: int | None = None, restarts: bool = True) -> GameResult:
    """Won with a move list (replayed by the reference engine), lost once every reachable position is
    searched, or unknown when a limit stops it (``Limit`` nodes, seconds, or memory: one search's
    table of reached positions and stack together would pass ``max_memory_mb`` MiB).

    The compiled search (``kernel``), with restarts: a first search in ``search_python``'s order for
    ``FIRST_PROBE`` nodes, then searches in other (seeded, so reproducible) orders within the same move
    classes, each with twice the budget of the one before, until one decides the deal or a limit ends it.
    Each is a complete search on its own (``search_python``'s notes): one that runs out of positions
    proves the deal lost, whatever its order. Why restart: a depth-first order that goes wrong early can
    spend millions of positions below a bad move on a deal another order wins in a hundred (seed 0: 25
    million positions without a win in the first order; won in 92 to 1,055,010 in four others); the
    doubling keeps the last search at least half of all the work, so a deal that needs one long
    exhaustive search is proven within about twice its own cost. ``restarts=False``: the first search
    alone, to the limits (node for node ``search_python``)."""
    from . import kernel as K

    if isinstance(max_memory_mb, bool) or (max_memory_mb is not None and (not isinstance(max_memory_mb, int)
                                                                     or max_memory_mb < 1)):
        from ...errors import CanfieldError
        raise CanfieldError(f"max_memory_mb must be a positive number of MiB, not {max_memory_mb!r}")
    K.warm()
    lim = Limits(max_nodes, max_seconds)
    cap_bytes = (MAX_MEMORY_MIB if max_memory_mb is None else max_memory_mb) << 20
    order, budget, hit, positions, best = 0, FIRST_PROBE, None, 0, p.home
    verdict = Verdict.UNKNOWN
    moves: tuple[str, ...] = ()
    while True:
        probe = _Probe(p, order, cap_bytes)
        hit = probe.run(lim, budget if restarts else None)
        lim.nodes += int(probe.meta[K.M_NODES])
        positions = max(positions, int(probe.meta[K.M_COUNT]))
        best = max(best, int(probe.meta[K.M_BEST]))
        if probe.status == K.WON:
            moves = tuple(G.format_move((codes.ak_source(m), _TARGET.get(codes.ak_target(m), codes.ak_target(m)))) for m in probe.line())
            if not G.won(replay(G.play, p, moves)):
                raise AssertionError("aces-and-kings: a winning line that does not replay")  # a solver bug
            verdict = Verdict.SOLVED
            break
        if probe.status == K.EXHAUSTED:
            verdict = Verdict.UNSOLVABLE
            break
        if hit is not None:
            break
        order, budget = order + 1, budget * 2
    name = "bisley" if p.in_suit else G.NAME
    return GameResult(name, verdict, moves, lim.nodes, lim.seconds, hit if verdict is Verdict.UNKNOWN else None,
                      seed, {"positions": positions, "most_home": best, "searches": order + 1})


_TARGET = {codes.A_PILE: G.ACE, codes.K_PILE: G.KING}
