"""``aces-and-kings`` / ``bisley``: the solver, a depth-first graph search.

Column moves can be undone (a card goes back where it came from when the card it uncovered fits it), so
positions repeat: the search keeps every position it has reached, by the canonical key of
``game.Position.key`` (the 13 columns are interchangeable, so a position is its multiset of non-empty
columns and its foundations), and never expands one twice. That is complete: a win reachable from a
position already reached is searched from its first visit. Foundation moves are tried first (``_order``); no move is
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

import time

from ...solver import Verdict
from ..base import GameResult, Limits, replay
from . import game as G

__all__ = ["MAX_MEMORY_MIB", "safe_move", "search_python", "solve"]


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
        stack.append((r, iter(_children(r))))
    moves = tuple(G.format_move(m) for m in line) if verdict is Verdict.SOLVED else ()
    if verdict is Verdict.SOLVED and not G.won(replay(G.play, p, moves)):
        raise AssertionError("aces-and-kings: a winning line that does not replay")
    name = "bisley" if p.in_suit else G.NAME
    return GameResult(name, verdict, moves, lim.nodes, lim.seconds, lim.hit, seed, {"positions": len(seen)})

MAX_MEMORY_MIB = 1024   # the default cap on the table and the stack of one search


def solve(p: G.Position, *, max_nodes: int | None = None, max_seconds: float | None = None,
          max_memory: int | None = None, seed: int | None = None) -> GameResult:
    """Won with a move list (replayed by the reference engine), lost once every reachable position is
    searched, or unknown when a limit stops it (``"nodes"``, ``"seconds"``, or ``"memory"``: the table of
    reached positions and the stack together would pass ``max_memory`` MiB). The compiled search
    (``kernel``), the same search as ``search_python``, node for node."""
    import numpy as np

    from . import kernel as K

    K.warm()
    lim = Limits(max_nodes, max_seconds)
    cap_bytes = (MAX_MEMORY_MIB if max_memory is None else max_memory) << 20
    if isinstance(max_memory, bool) or (max_memory is not None and (not isinstance(max_memory, int)
                                                                     or max_memory < 1)):
        from ...errors import CanfieldError
        raise CanfieldError(f"max_memory must be a positive number of MiB, not {max_memory!r}")
    cols = np.zeros((13, K.CAP), np.int64)
    lens = np.zeros(13, np.int64)
    for i, col in enumerate(p.columns):
        cols[i, :len(col)] = col
        lens[i] = len(col)
    fnd = np.array([*p.up, *p.down], np.int64)
    h1 = np.zeros((13, K.CAP + 1), np.uint64)
    h2 = np.zeros((13, K.CAP + 1), np.uint64)
    t1, t2 = np.zeros(1 << 12, np.uint64), np.zeros(1 << 12, np.uint64)
    frames = 1 << 10
    buf = np.zeros(frames * 16, np.int64)
    fstart, fcount, fnext = (np.zeros(frames, np.int64) for _ in range(3))
    meta = np.zeros(8, np.int64)
    meta[K.M_INSUIT] = int(p.in_suit)
    status = K.init(cols, lens, fnd, h1, h2, t1, t2, buf, fstart, fcount, fnext, meta)
    budget, hit = 1 << 12, None

    def used(table: int, nframes: int, nbuf: int) -> int:
        return table * 16 + nframes * 24 + nbuf * 8

    while status not in (K.WON, K.EXHAUSTED):
        if status == K.NEED_TABLE:
            if used(2 * t1.size, fstart.size, buf.size) > cap_bytes:
                hit = "memory"
                break
            n1, n2 = np.zeros(2 * t1.size, np.uint64), np.zeros(2 * t1.size, np.uint64)
            K.rehash(t1, t2, n1, n2)
            t1, t2 = n1, n2
        elif status == K.NEED_STACK:
            if used(t1.size, 2 * fstart.size, 2 * buf.size) > cap_bytes:
                hit = "memory"
                break
            fstart, fcount, fnext = (np.concatenate([a, np.zeros_like(a)]) for a in (fstart, fcount, fnext))
            buf = np.concatenate([buf, np.zeros_like(buf)])
        step = budget
        if lim.max_nodes is not None:
            step = min(step, lim.max_nodes - int(meta[K.M_NODES]))
            if step <= 0:
                hit = "nodes"
                break
        t0 = time.perf_counter()
        status = K.search(cols, lens, fnd, h1, h2, t1, t2, buf, fstart, fcount, fnext, meta, step)
        if lim.max_seconds is not None and lim.seconds > lim.max_seconds and status not in (K.WON, K.EXHAUSTED):
            hit = "seconds"
            break
        if time.perf_counter() - t0 < 0.02:    # calls of about 20-50 ms: the clock is read often enough
            budget = min(budget * 2, 1 << 22)
    nodes = int(meta[K.M_NODES])
    if status == K.WON:
        d = int(meta[K.M_DEPTH])
        line = [int(buf[fstart[k] + fnext[k] - 1]) for k in range(d)]
        moves = tuple(G.format_move(((m >> 4) & 15, _TARGET.get(m & 15, m & 15))) for m in line)
        if not G.won(replay(G.play, p, moves)):
            raise AssertionError("aces-and-kings: a winning line that does not replay")  # a solver bug
        verdict = Verdict.SOLVED
    elif status == K.EXHAUSTED:
        verdict, moves = Verdict.UNSOLVABLE, ()
    else:
        verdict, moves = Verdict.UNKNOWN, ()
    name = "bisley" if p.in_suit else G.NAME
    return GameResult(name, verdict, moves, nodes, lim.seconds, hit if verdict is Verdict.UNKNOWN else None,
                      seed, {"positions": int(meta[K.M_COUNT]),
                                                         "most_home": int(meta[K.M_BEST])})


_TARGET = {13: G.ACE, 14: G.KING}
