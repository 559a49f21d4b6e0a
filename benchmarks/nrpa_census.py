"""Count first, for issue 70's wins: nested rollout policy adaptation (NRPA; Rosin, IJCAI 2011) on the deals
the build leaves unknown at 2 s, against the nested Monte Carlo searches the solver runs.

    python benchmarks/nrpa_census.py --rules rainbow --seeds 610000,610001 --level 2 --iterations 100 \
        --steps 20000000

A prototype compiled here (a measurement tool, not the solver's code). A playout plays the deal from its
start by the kernel's moves (a safe move alone where ``kernel.gen`` finds one) and picks each move at
random with a weight exp(policy[code]), among the moves to positions the playout has not entered; a
move's code is the card it moves and where it goes (a foundation, a gap, or the card it lands on), so a
policy says "this card onto that one" for the whole deal. A search of level L runs ``--iterations``
searches of level L - 1 from a copy of its policy, keeps the best line (cards home, then reserve cards
played) and adapts its policy towards that line (each move of the line up by ``--alpha``, every legal
move at that step down by alpha times its probability). Level 0 is one playout. It stops at a win, at
``--steps`` moves made, or when the top level's iterations end. A win is a line of the kernel's moves,
replayed here by the reference engine.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
from numba import njit

from canfield_solver import Deal
from canfield_solver.engine.position import Position, replay
from canfield_solver.engine.rules import get_rules
from canfield_solver.search import codec as C
from canfield_solver.search import kernel as K
from canfield_solver.search.arrays import LoneSearch, decode
from canfield_solver.search.playout import kernel as PK

CODES = 52 * 54
S_STEPS, S_PLAYOUTS, S_BEST, S_WON = range(4)


@njit(cache=True)
def _code(deal, cols, sc, d, mv):
    """The policy's code of move ``mv`` at level ``d``: the card moved times 54 plus where it goes."""
    params, reserve, talon, _lut, _bm = deal
    kind = K.move_kind(mv)
    src = K.move_src(mv)
    dst = K.move_dst(mv)
    if kind == C.K_RF or kind == C.K_RT:
        card = reserve[sc[d, C.SC_RES] - 1]
    elif kind == C.K_WF or kind == C.K_WT:
        card = talon[src]
    elif kind == C.K_TF:
        card = cols[d, src, sc[d, C.SC_LEN + src] - 1]
    else:
        card = cols[d, src, sc[d, C.SC_LEN + src] - K.move_count(mv)]
    if kind == C.K_RF or kind == C.K_WF or kind == C.K_TF:
        where = 52
    else:
        n = sc[d, C.SC_LEN + dst]
        where = 53 if n == 0 else np.int64(cols[d, dst, n - 1])
    return np.int64(card) * 54 + where


@njit(cache=True)
def _playout(deal, stack, visit, pol, line, rng, words, scratch, stats, weights, budget, beta):
    """One playout from level 0 under ``pol``; its moves into ``line``; returns (value, length)."""
    params, reserve, talon, _lut, _bm = deal
    cols, sc, mask, moves, _nmoves, _midx = stack
    maxd = sc.shape[0] - 2
    won = 4 * params[C.P_RANKS]
    stats[S_PLAYOUTS] += 1
    stamp = np.uint64(stats[S_PLAYOUTS])
    d = 0
    K.key(cols, sc, mask, d, params, words, scratch)
    PK.enter(visit, K.key_hash(words), stamp)
    K.copy_level(cols, sc, mask, d)
    while d < maxd and K.score(sc, d) < won and stats[S_STEPS] < budget:
        n = K.gen(deal, cols, sc, mask, d, moves[d], True, scratch, -1, -1, -1)
        total = 0.0
        for k in range(n):
            w = math.exp(pol[_code(deal, cols, sc, d, moves[d, k])] - beta * PK.move_class(moves[d, k], sc, mask, d))
            weights[k] = w
            total += w
        chosen = -1
        left = n
        while left > 0 and chosen < 0:
            r = (np.float64(PK.next_random(rng) >> np.uint64(11)) / 9007199254740992.0) * total
            k = 0
            acc = 0.0
            last = -1
            while k < n:
                if weights[k] > 0.0:
                    acc += weights[k]
                    last = k
                    if acc >= r:
                        break
                k += 1
            if k >= n:
                k = last
            total -= weights[k]
            weights[k] = 0.0
            left -= 1
            K.reset_level(cols, sc, mask, d)
            K.apply(cols, sc, mask, d + 1, moves[d, k], params, reserve, talon)
            stats[S_STEPS] += 1
            K.key(cols, sc, mask, d + 1, params, words, scratch)
            if PK.enter(visit, K.key_hash(words), stamp) == 1:
                chosen = k
        if chosen < 0:
            break
        line[d] = moves[d, chosen]
        d += 1
        K.copy_level(cols, sc, mask, d)
    return PK.line_value(sc, d), d


@njit(cache=True)
def _adapt(deal, stack, pol, new, seq, n, alpha, scratch, probs, beta):
    """``new`` = ``pol`` moved towards the line ``seq[:n]`` (replayed from level 0)."""
    params, reserve, talon, _lut, _bm = deal
    cols, sc, mask, moves, _nmoves, _midx = stack
    new[:] = pol
    for d in range(n):
        K.copy_level(cols, sc, mask, d)
        m = K.gen(deal, cols, sc, mask, d, moves[d], True, scratch, -1, -1, -1)
        z = 0.0
        for k in range(m):
            probs[k] = math.exp(pol[_code(deal, cols, sc, d, moves[d, k])] - beta * PK.move_class(moves[d, k], sc, mask, d))
            z += probs[k]
        for k in range(m):
            new[_code(deal, cols, sc, d, moves[d, k])] -= alpha * probs[k] / z
        new[_code(deal, cols, sc, d, seq[d])] += alpha
        K.reset_level(cols, sc, mask, d)
        K.apply(cols, sc, mask, d + 1, seq[d], params, reserve, talon)


@njit(cache=True)
def nrpa(deal, stack, visit, pols, seqs, lens, line, rng, words, scratch, stats, weights, level, iters, alpha,
         budget, beta):
    """A search of ``level`` from level 0 under ``pols[level]``; its best value (its line in
    ``seqs[level, :lens[level]]``). Iterative: ``pols[l]`` is level ``l``'s policy, ``seqs[l]`` its best line."""
    won = 4 * deal.params[C.P_RANKS] * 64 + 63
    best = np.full(level + 1, -1, np.int64)
    it = np.zeros(level + 1, np.int64)
    tmp = np.zeros(pols.shape[1])
    lv = 1 if level > 0 else 0
    # descend: each level below starts from a copy of the policy above
    for lo in range(level - 1, 0, -1):
        pols[lo, :] = pols[lo + 1]
    while True:
        if lv == 1 or level == 0:
            # level 1 (or a lone playout): iterations of playouts under pols[1]
            v, n = _playout(deal, stack, visit, pols[max(lv, 1) if level > 0 else 0], line, rng, words, scratch,
                            stats, weights, budget, beta)
            if v >= won:
                seqs[0, :n] = line[:n]
                lens[0] = n
                stats[S_WON] = 1
                return v
            if level == 0:
                return v
            if v >= best[1]:
                best[1] = v
                seqs[1, :n] = line[:n]
                lens[1] = n
            _adapt(deal, stack, pols[1], tmp, seqs[1], lens[1], alpha, scratch, weights, beta)
            pols[1, :] = tmp
            it[1] += 1
            if stats[S_STEPS] >= budget:
                return best[1]
            if it[1] < iters:
                continue
            # level 1 done: report upwards
            v = best[1]
            lv = 2
            while lv <= level:
                if v >= best[lv]:
                    best[lv] = v
                    seqs[lv, :lens[lv - 1]] = seqs[lv - 1, :lens[lv - 1]]
                    lens[lv] = lens[lv - 1]
                _adapt(deal, stack, pols[lv], tmp, seqs[lv], lens[lv], alpha, scratch, weights, beta)
                pols[lv, :] = tmp
                it[lv] += 1
                if it[lv] < iters:
                    break
                v = best[lv]
                lv += 1
            if lv > level:
                return best[level]
            # restart the levels below lv from copies of pols[lv]
            for lo in range(lv - 1, 0, -1):
                pols[lo, :] = pols[lo + 1]
                best[lo] = -1
                it[lo] = 0
            lv = 1


def run(deal: Deal, level: int, iters: int, alpha: float, steps: int, seed: int, beta: float) -> str:
    start = Position(deal)
    prob = LoneSearch(start)
    levels = prob.moves.shape[0]
    visit = np.zeros((1 << 14, 2), np.uint64)
    pols = np.zeros((max(level, 1) + 1, CODES))
    seqs = np.zeros((max(level, 1) + 1, levels), np.int64)
    lens = np.zeros(max(level, 1) + 1, np.int64)
    stats = np.zeros(4, np.int64)
    rng = np.array([(np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)], np.uint64)
    weights = np.zeros(prob.moves.shape[1] + 8)
    t0 = time.perf_counter()
    restarts = 0
    best = -1
    while stats[S_STEPS] < steps and not stats[S_WON]:
        pols[:] = 0.0
        v = nrpa(prob.deal, prob.stack, visit, pols, seqs, lens, np.zeros(levels, np.int64), rng,
                 np.zeros(4, np.uint64), prob.scratch, stats, weights, level, iters, alpha, steps, beta)
        best = max(best, v)
        restarts += 1
    secs = time.perf_counter() - t0
    if stats[S_WON]:
        n = int(lens[0])
        path = [int(m) & C.MOVE_BITS for m in seqs[0, :n]]
        ok = replay(deal, decode(prob, start, path)).won
        return f"won in {n} moves{'' if ok else ' (DID NOT REPLAY)'}, {stats[S_STEPS]:,} steps, {stats[S_PLAYOUTS]:,} playouts, {secs:.2f} s"
    return (f"not won: best {best // 64} home, {stats[S_STEPS]:,} steps, {stats[S_PLAYOUTS]:,} playouts, "
            f"{restarts} searches, {secs:.2f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="rainbow")
    ap.add_argument("--seeds", required=True, help="a comma list")
    ap.add_argument("--level", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--alpha", type=float, default=1.0)
    ap.add_argument("--steps", type=int, default=20_000_000, help="moves made at most, a deal")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--beta", type=float, default=1.0, help="the prior: a move's weight is exp(policy - beta * "
                    "its class under the greedy playouts' policy)")
    a = ap.parse_args(argv)
    rules = get_rules(a.rules)
    for s in (int(x) for x in a.seeds.split(",")):
        line = run(Deal.from_seed(s, rules), a.level, a.iterations, a.alpha, a.steps, a.seed, a.beta)
        print(f"{a.rules} {s}: {line}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
