"""Do the refuted blocks of a lost search share small reasons? (issue 60, item 5: nogoods, measured first)

    python benchmarks/archive/nogood_census.py                       # canfield, shape 6 ranks / 2 reserve / 2 columns
    python benchmarks/archive/nogood_census.py --shape 5,2,3 --seeds 0:40 --rules canfield-whole-pile

Learned dead ends (Steinmetz & Hoffmann, AAAI 2016) cut a search where a
small set of facts, once shown to doom a position, recurs in positions not
yet searched. This script asks whether Canfield's refuted blocks have such
reasons, on reduced decks where the whole position graph fits in memory and
every position's fate is known exactly (the plain-Python reference engine;
nothing here touches the solver).

For each deal: every reachable position (columns sorted, as the solvers key
them), each labelled winnable or lost by backward reachability from the won
positions. A position's *facts*: card X directly on card Y in a column, X at
a column's bottom, the same two for the reserve, the stock and the waste,
"X not home" for each card off the foundations, and the redeals used. A
nogood is a set of facts; it matches a position that has all of them; it is
*sound* if it matches no winnable position.

A *block* is what the layered proof closes at once: the positions of one
progress state (foundation heights, reserve count, cards left in stock and
waste). For every block whose positions are all lost it reports:

- ``core``: the facts every position of the block shares, the most a learner
  that sees only the block could generalise to; whether that core is sound
  (matches no winnable position anywhere in the graph).
- ``min``: the core shrunk greedily, fact by fact, for as long as it stays
  sound, with the exact labels as an oracle: an upper bound on what any
  learner could find (a real one must prove each nogood, not look it up).
- ``spared``: the lost positions of later layers (more progress: the
  layered proof never goes back) that some earlier block's shrunk nogood
  matches: what such learning could at most spare; and of them those the
  stuck-card test (SOLVER-NOTES §2, here as written in Python) does not
  already cut.

In a lost deal every position is lost, so every set of facts is "sound"
and the oracle says nothing: those deals are listed and left out of the
totals. What a learner needs there is a proof that its nogood is entailed,
which is the open part of the bet.

Summed per deal and in total. The measurement is the issue's "whether refuted
blocks of a hard deal share small reasons that can cut the rest".
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict

from canfield_solver.engine.stuck import stuck_cards


def facts(p) -> frozenset:
    f: list[tuple] = []
    for col in p.tableau:
        if col:
            f.append(("tb", col[0]))
            f.extend(("t", a, b) for b, a in zip(col, col[1:]))
    for name, pile in (("r", p.reserve), ("s", p.stock), ("w", p.waste)):
        if pile:
            f.append((name + "b", pile[0]))
            f.extend((name, a, b) for b, a in zip(pile, pile[1:]))
    n = p.rules.ranks
    for s in range(4):
        for i in range(p.foundations[s], n):
            f.append(("out", s * 13 + (p.base_rank + i) % n))
    f.append(("redeals", p.redeals_used))
    return frozenset(f)


def graph(deal, max_states):
    from canfield_solver import Position

    def key(p):
        k = p.key()
        return (k[0], tuple(sorted(k[1])), *k[2:])

    start = Position(deal)
    ids = {key(start): 0}
    pos = [start]
    succ: list[list[int]] = []
    i = 0
    while i < len(pos):
        p = pos[i]
        out = []
        if not p.is_won():
            for m in p.legal_moves():
                q = p.copy()
                q.play(m)
                k = key(q)
                j = ids.get(k)
                if j is None:
                    j = ids[k] = len(pos)
                    pos.append(q)
                    if len(pos) > max_states:
                        return None
                out.append(j)
        succ.append(out)
        i += 1
    return pos, succ


def label(pos, succ):
    pred = defaultdict(list)
    for i, out in enumerate(succ):
        for j in out:
            pred[j].append(i)
    win = [p.is_won() for p in pos]
    todo = [i for i, w in enumerate(win) if w]
    while todo:
        j = todo.pop()
        for i in pred[j]:
            if not win[i]:
                win[i] = True
                todo.append(i)
    return win


def census(deal, max_states):
    g = graph(deal, max_states)
    if g is None:
        return None
    pos, succ = g
    win = label(pos, succ)
    fs = [facts(p) for p in pos]
    # Inverted index: fact -> the winnable positions holding it.
    holders: dict[tuple, set[int]] = defaultdict(set)
    for i, f in enumerate(fs):
        if win[i]:
            for x in f:
                holders[x].add(i)

    def sound(ns) -> bool:
        it = iter(sorted(ns, key=lambda x: len(holders.get(x, ()))))
        first = next(it, None)
        if first is None:
            return not any(win)
        live = set(holders.get(first, ()))
        for x in it:
            if not live:
                break
            live &= holders.get(x, set())
        return not live

    def progress(p):
        return (tuple(p.foundations), len(p.reserve), len(p.stock) + len(p.waste))

    blocks: dict[tuple, list[int]] = defaultdict(list)
    for i, p in enumerate(pos):
        blocks[progress(p)].append(i)
    moved = lambda pr: sum(pr[0]) * 2 - pr[1] - pr[2]  # noqa: E731  more is later (solver notes §9)
    stuck = [not win[i] and bool(stuck_cards(p)) for i, p in enumerate(pos)]
    rows = []
    learned: dict[tuple, list[frozenset]] = defaultdict(list)   # rarest fact -> nogoods holding it
    spared = spared_free = 0
    for m in sorted({moved(pr) for pr in blocks}):
        layer = [(pr, ms) for pr, ms in blocks.items() if moved(pr) == m]
        # First the positions of this layer that nogoods of earlier layers match (a learner could skip them).
        for _, members in layer:
            for i in members:
                if win[i]:
                    continue
                hit = any(ng <= fs[i] for x in fs[i] for ng in learned.get(x, ()))
                spared += hit
                spared_free += hit and not stuck[i]
        # Then what this layer's refuted blocks teach.
        new = []
        for _, members in layer:
            if any(win[i] for i in members):
                continue
            core = frozenset.intersection(*(fs[i] for i in members))
            ok = sound(core)
            small = set(core)
            if ok:
                for x in sorted(core, key=lambda x: -len(holders.get(x, ()))):
                    small.discard(x)
                    if not sound(small):
                        small.add(x)
                if small:
                    new.append(frozenset(small))
            rows.append({"size": len(members), "core": len(core), "sound": ok,
                         "min": len(small) if ok else None})
        for ng in new:
            learned[min(ng, key=lambda x: len(holders.get(x, ())))].append(ng)
    lost = [i for i in range(len(pos)) if not win[i]]
    return {"states": len(pos), "lost": len(lost), "start_won": win[0], "blocks": rows,
            "stuck": sum(stuck), "spared": spared, "spared_free": spared_free}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="canfield")
    ap.add_argument("--shape", default="6,2,2", help="ranks,reserve,columns")
    ap.add_argument("--seeds", default="0:30", help="START:STOP")
    ap.add_argument("--max-states", type=int, default=150_000)
    a = ap.parse_args(argv)
    from canfield_solver import Deal, get_rules

    ranks, reserve, columns = (int(x) for x in a.shape.split(","))
    rules = get_rules(a.rules).replace(name=f"{a.rules}-{a.shape}", ranks=ranks, reserve_size=reserve,
                                       columns=columns)
    lo, hi = (int(x) for x in a.seeds.split(":"))
    print(f"{a.rules}, {ranks} ranks, {reserve} reserve, {columns} columns, seeds {lo}:{hi}")
    print(f"{'seed':>5} {'states':>7} {'lost':>7} {'stuck':>6} {'won?':>5} {'blocks':>6} {'sound':>6} {'core':>5} "
          f"{'min':>4} {'spared':>7} {'not stuck':>9}")
    tot = defaultdict(int)
    mins: list[int] = []
    cores: list[int] = []
    t0 = time.perf_counter()
    for seed in range(lo, hi):
        c = census(Deal.from_seed(seed, rules), a.max_states)
        if c is None:
            print(f"{seed:>5} over {a.max_states} positions, skipped")
            continue
        b = c["blocks"]
        snd = [r for r in b if r["sound"]]
        cm = statistics.median([r["core"] for r in b]) if b else 0
        mm = statistics.median([r["min"] for r in snd]) if snd else 0
        print(f"{seed:>5} {c['states']:>7} {c['lost']:>7} {c['stuck']:>6} {'won' if c['start_won'] else 'lost':>5} "
              f"{len(b):>6} {len(snd):>6} {cm:>5} {mm:>4} {c['spared']:>7} {c['spared_free']:>9}")
        tot["deals"] += 1
        if not c["start_won"]:
            tot["lost_deals"] += 1
            continue       # in a lost deal every set of facts is a nogood: the oracle says nothing there
        tot["blocks"] += len(b)
        tot["sound"] += len(snd)
        tot["lost"] += c["lost"]
        tot["stuck"] += c["stuck"]
        tot["spared"] += c["spared"]
        tot["spared_free"] += c["spared_free"]
        cores += [r["core"] for r in b]
        mins += [r["min"] for r in snd]
    print(f"\n{tot['deals']} deals ({tot['lost_deals']} lost, left out below), {time.perf_counter() - t0:.0f} s")
    if tot["blocks"]:
        print(f"won deals' refuted blocks: {tot['blocks']}; the facts a block shares are a sound nogood in "
              f"{tot['sound']} ({100 * tot['sound'] / tot['blocks']:.1f}%): learning them as they stand would "
              f"call winnable positions lost in the rest; shared facts, median {statistics.median(cores)}")
    if mins:
        print(f"shrunk with the exact labels as oracle: median {statistics.median(mins)} facts (1 to {max(mins)})")
        print(f"lost positions of won deals: {tot['lost']}; stuck (the solver's test cuts them already): "
              f"{tot['stuck']}; matched by an oracle nogood of an earlier layer: {tot['spared']}, of them not "
              f"stuck: {tot['spared_free']} ({100 * tot['spared_free'] / max(tot['lost'], 1):.1f}% of the lost)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
