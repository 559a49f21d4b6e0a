"""Wins first where cards build by colour and gaps wait for a move (issue 70): the exact search's first
``portfolio.PROBE_NODES`` nodes, then the policy adaptation (``search.adapt``) in ``SHARE`` of what is
left, at most ``MAX_SECONDS``, then the exact search again with what they leave.

Under `superior-canfield` a gap takes any card and is filled only by a move, so most of the exact search's
moves fill gaps (58% of those generated on its 2-s unknowns, benchmarks/gap_census.py) and it walks past
wins: of 20 deals at 60 s, 17 won and 3 unknown, none lost. Counted first (benchmarks/nrpa_census.py,
benchmarks/results/issue70-wins-first.txt): of 11 deals the exact search leaves unknown at 2 s the policy
adaptation alone won 3 within 0.25 s and 6 within 2.4 s, where the exact search decides almost every deal it
decides in under 0.7 s. Under the strict profile and `canfield-draw1` it won none of 8 such deals, so those
rules search as before (``wanted`` False), node for node.

The phases' machinery (compiled or not, shares, their lines in ``stats["phases"]``, the best line kept) is
``search.portfolio``'s; only the schedule is this module's. Every win is a real line, replayed by the solver
as every line is; nothing the adaptation does proves a loss.
"""

from __future__ import annotations

from typing import Callable

from ..budget import Limits
from ..engine.position import Position
from ..engine.rules import Rules
from . import portfolio
from .outcome import Outcome

SHARE = 0.2        # of the time limit (and of the nodes), for the policy adaptation before the exact search
MAX_SECONDS = 1.5  # and at most this many seconds of it (a deal the exact search decides waits this long)


def wanted(r: Rules) -> bool:
    """Whether the adaptation runs first under these rules: where gaps wait for a move (``gap_autofill``
    false) and the portfolio of any-suit building does not run already."""
    return not r.gap_autofill and not portfolio.wanted(r)


def search(start: Position, limits: Limits, exact: Callable[[Limits], Outcome]) -> Outcome:
    """The exact search's probe (``portfolio.probe``: its first ``portfolio.PROBE_NODES`` nodes), then the
    adaptation, then ``exact(limits left)``; the Outcome that decided. The probe decides the deals the exact
    search decides at once (98 of 120 decided `superior-canfield` deals need fewer nodes) with no wait and
    node for node as before; what it searched is searched again after the adaptation (a twentieth of a
    second)."""
    if SHARE <= 0:
        return exact(limits)
    run = portfolio.probe(start, limits, exact, ("adapt",))
    if isinstance(run, Outcome):
        return run
    return run.adapted(SHARE, MAX_SECONDS) or run.rest(exact)
