"""Wins first where cards build by colour and gaps wait for a move (issue 70): the exact search's first
``PROBE_NODES``, then the policy adaptation (``search.adapt``) in ``SHARE`` of what is left, at most
``MAX_SECONDS``, then the exact search again with what they leave.

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

import time
from typing import Callable

from ..budget import Limit, Limits
from ..engine.position import Position
from ..engine.rules import Rules
from . import portfolio
from .outcome import Outcome

SHARE = 0.2        # of the time limit (and of the nodes), for the policy adaptation before the exact search
MAX_SECONDS = 1.5  # and at most this many seconds of it (a deal the exact search decides waits this long)
PROBE_NODES = 100_000  # the exact search's first look, before the adaptation (about 0.04 s)


def wanted(r: Rules) -> bool:
    """Whether the adaptation runs first under these rules: where gaps wait for a move (``gap_autofill``
    false) and the portfolio of any-suit building does not run already."""
    return not r.gap_autofill and not portfolio.wanted(r)


def search(start: Position, limits: Limits, exact: Callable[[Limits], Outcome]) -> Outcome:
    """The exact search for ``PROBE_NODES``, then the adaptation, then ``exact(limits left)``; the Outcome that
    decided. The probe decides the deals the exact search decides at once (98 of 120 decided `superior-canfield`
    deals need fewer nodes) with no wait and node for node as before; what it searched is searched again after
    the adaptation (a twentieth of a second). Where the phases' kernels are not compiled and their compile does
    not fit the time left, the exact search runs alone with what the probe left."""
    if SHARE <= 0:
        return exact(limits)
    t0 = time.perf_counter()
    probe = exact(limits.share(nodes=PROBE_NODES)) if PROBE_NODES > 0 else None
    if probe is not None and (probe.limit is not Limit.NODES
                              or (limits.nodes is not None and probe.nodes >= limits.nodes)):
        return probe  # decided, or ended by the caller's limits (time, nodes, memory, Ctrl-C)
    spent = 0 if probe is None else probe.nodes
    if not portfolio.ready(limits.spent(spent)):
        out = exact(limits.spent(spent))
        out.nodes += spent
        out.seconds = time.perf_counter() - t0
        return out
    run = portfolio.Phases(start, limits)
    if probe is not None:
        run.t0, run.spent = t0, spent
        run.phases.append({"phase": "probe", "ended": "nodes", "nodes": spent, "seconds": round(probe.seconds, 4)})
        run.best = (probe.best_score, probe.best_path, probe.decode)
    return run.adapted(SHARE, MAX_SECONDS) or run.rest(exact)
