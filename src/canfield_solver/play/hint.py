"""``hint``: in the middle of a game, can it still be won, and what to play next.

>>> from canfield_solver.play.hint import hint
>>> h = hint(Deal.from_seed(2), ["draw"] * 7)     # doctest: +SKIP
>>> h.verdict, h.next_moves                        # doctest: +SKIP
(<Verdict.SOLVED: 'solved'>, ('W>F',))

The position after the played moves is decided by the exact solver (a
stalled position, SPEC §3, is lost without a search); a winning line from
there gives the next step, printed the way ``transcript`` prints steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..budget import Deadline
from ..engine.deal import Deal, as_deal
from ..engine.moves import Move
from ..engine.position import move_list, replay
from ..solver import SolveResult, Verdict, decide
from .transcript import LogReview, Step, review, steps

__all__ = ["Hint", "hint", "losing_move"]


@dataclass(frozen=True)
class Hint:
    """What ``hint`` found.

    verdict
        For the position after the played moves: solved (it can still be
        won), unsolvable (it cannot), unknown (a limit stopped the search).
    stalled
        No progress move can ever be reached again (SPEC §3); then the
        verdict is unsolvable without a search.
    next_moves
        SPEC §4 moves of the next step of a winning line: any draws and
        redeals, up to and including the first card move. Empty unless solved
        (and when the game is already won).
    next_steps
        The same moves as printed steps, numbered on from the played moves.
    solution
        The whole winning line from the position (empty unless solved).
    log
        What the played moves themselves show (``transcript.review``).
    result
        The search behind the verdict (None when the position was stalled).
    """

    moves_played: int
    verdict: Verdict
    stalled: bool
    next_moves: tuple[str, ...]
    next_steps: tuple[Step, ...]
    solution: tuple[str, ...]
    log: LogReview
    result: SolveResult | None

    def to_dict(self) -> dict[str, object]:
        return {
            "moves_played": self.moves_played,
            "verdict": self.verdict.value,
            "stalled": self.stalled,
            "next_moves": list(self.next_moves),
            "next": [s.text for s in self.next_steps],
            "solution": list(self.solution),
            "last_progress": self.log.last_progress,
            "passes_since_progress": self.log.passes_since_progress,
            "repeat": list(self.log.repeat) if self.log.repeat else None,
            "nodes": self.result.nodes if self.result else 0,
            "seconds": round(self.result.seconds, 6) if self.result else 0.0,
            "limit": self.result.limit if self.result else None,
        }


def hint(
    deal: "Deal | int",
    moves: Sequence["str | Move"],
    *,
    max_seconds: float | None = 60.0,
    max_nodes: int | None = None,
    max_memory_mb: int | None = None,
) -> Hint:
    """Decide the position after ``moves`` from ``deal`` and give the next step of a winning line.

    Raises ``IllegalMoveError``/``MoveError`` (with the move's number) when a
    played move is illegal or malformed.
    """
    deal = as_deal(deal)
    played = move_list(moves)
    pos = replay(deal, played).position
    log = review(deal, played)
    res = decide(pos, max_seconds=max_seconds, max_nodes=max_nodes, max_memory_mb=max_memory_mb)
    if res.stalled:
        return Hint(len(played), Verdict.UNSOLVABLE, True, (), (), (), log, None)
    nxt: list[str] = []
    for m in res.moves:
        nxt.append(m)
        if m not in ("draw", "redeal"):
            break
    shown = steps(pos, nxt)
    first = _steps_played(deal, played) + 1
    shown = [Step(first + i, s.moves, s.text, s.pass_number, s.progress) for i, s in enumerate(shown)]
    return Hint(len(played), res.verdict, False, tuple(nxt), tuple(shown), res.moves, log, res)


def _steps_played(deal: Deal, played: "list[str | Move]") -> int:
    return len(steps(deal, played))


def losing_move(deal: Deal, moves: Sequence[str], max_seconds: float | None) -> tuple[int | None, str]:
    """The 1-based move after which a game can no longer be won (None if never, or if the solver cannot tell),
    and why, in words: a bisection over the moves played, each position decided (``show`` and ``hint``), all of
    them within ``max_seconds`` together (a position that finds no time left is undecided)."""
    deadline = Deadline(max_seconds)

    def verdict(k: int) -> Verdict:
        pos = replay(deal, moves[:k]).position
        if pos.is_won():
            return Verdict.SOLVED
        left = deadline.left()
        if left is not None and left <= 0:
            return Verdict.UNKNOWN
        return decide(pos, max_seconds=left).verdict

    first, last = verdict(0), verdict(len(moves))
    if first is not Verdict.SOLVED:
        return None, ("the deal could not be won from the start" if first is Verdict.UNSOLVABLE
                      else "the solver could not decide the deal in time")
    if last is Verdict.SOLVED:
        return None, "the game could still be won after the last move"
    if last is Verdict.UNKNOWN:
        return None, "the solver could not decide the last position in time"
    lo, hi = 0, len(moves)  # winnable after lo moves, lost after hi moves: lost stays lost
    while hi - lo > 1:
        mid = (lo + hi) // 2
        v = verdict(mid)
        if v is Verdict.UNKNOWN:
            return None, f"the solver could not decide the position after move {mid} in time"
        lo, hi = (mid, hi) if v is Verdict.SOLVED else (lo, mid)
    return hi, f"after move {hi} the game could no longer be won"
