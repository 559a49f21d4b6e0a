"""Perft: how many move sequences of length 1, 2 and 3 each of a set of fixed positions has, counted with the
kernel's move generator and with the reference engine, against the counts in tests/data/perft.json.

The moves are the kernel's: every move of SPEC §4 but draws and redeals, and each waste card reachable by
draws (and redeals, where allowed) as a move of its own (``W[card]>dst``), played by drawing to it as
``problem.decode`` does. A count that moves means a move generator changed; the file was written by the
reference engine (``python tests/test_perft.py --write``), and both generators must keep to it.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from canfield_solver import Deal, Position
from canfield_solver.engine.cards import card_name
from canfield_solver.search import codec as C
from canfield_solver.search import kernel as K
from canfield_solver.search.arrays import LoneSearch, decode

FILE = Path(__file__).parent / "data" / "perft.json"
PRESETS = ["canfield", "canfield-whole-pile", "pysolfc-canfield", "canfield-draw1", "storehouse", "rainbow",
           "superior-canfield", "canfield-sequences"]
DEPTH = 3


def kernel_children(pos: Position) -> dict[str, Position]:
    """The kernel's moves at ``pos`` (its own generator), each with the position it leads to."""
    prob = LoneSearch(pos)
    out = np.zeros(1024, np.int64)
    n = K._gen_all(prob.deal, prob.cols, prob.sc, prob.mask, out)
    children = {}
    for mv in out[:n]:
        kind, src, dst, _cnt, _rd = C.unpack_move(mv)
        child = pos.copy()
        spec = decode(prob, child, [int(mv)])
        for m in spec:
            child.play(m)
        name = spec[-1]
        if kind in (C.K_WF, C.K_WT):
            name = f"W[{card_name(prob.talon_list[src])}]>" + ("F" if kind == C.K_WF else f"T{dst + 1}")
        assert name not in children, f"the kernel generated {name} twice"
        children[name] = child
    return children


def reference_children(pos: Position) -> dict[str, Position]:
    """The same moves from the reference engine's legal moves, waste cards found by drawing through the talon."""
    children = {}
    for m in pos.legal_moves():
        if m.startswith("W") or m in ("draw", "redeal"):
            continue
        child = pos.copy()
        child.play(m)
        children[m] = child
    p = pos.copy()
    seen = set()
    for _ in range(2 * (len(pos.stock) + len(pos.waste)) + 2):  # this pass and one after a redeal reach all
        # draw (and redeal) through every state the talon reaches, as decode does
        if p.waste and p.waste[-1] not in seen:
            seen.add(p.waste[-1])
            for m in p.legal_moves():
                if m.startswith("W"):
                    child = p.copy()
                    child.play(m)
                    children[f"W[{card_name(p.waste[-1])}]>{m[2:]}"] = child
        if p.stock:
            p.play("draw")
        elif p.is_legal("redeal"):
            p.play("redeal")
        else:
            break
    return children


def perft(pos: Position, depth: int, children) -> list[int]:
    """Move sequences of length 1 .. ``depth`` from ``pos``."""
    counts = [0] * depth
    stack = [(pos, 0)]
    while stack:
        p, d = stack.pop()
        kids = children(p)
        counts[d] += len(kids)
        if d + 1 < depth:
            stack.extend((c, d + 1) for c in kids.values())
    return counts


def positions() -> list[tuple[str, int, list[str]]]:
    """(preset, seed, moves played) of each fixed position: deals and positions a few random moves in."""
    out = []
    rng = random.Random(20261202)
    for preset in PRESETS:
        for seed, steps in ((0, 0), (7, 6), (42, 12), (99, 25)):
            pos = Position(Deal.from_seed(seed, preset))
            played: list[str] = []
            for _ in range(steps):
                ms = pos.legal_moves()
                # a move other than a draw where there is one, so the game moves on; never into a dead end
                ms = [m for m in ms if m not in ("draw", "redeal")] or ms
                ms = [m for m in ms if len(reference_children(_after(pos, m))) > 1] or ms
                if not ms:
                    break
                m = rng.choice(sorted(ms))
                pos.play(m)
                played.append(m)
            out.append((preset, seed, played))
    return out


def _after(pos: Position, move: str) -> Position:
    p = pos.copy()
    p.play(move)
    return p


def _start(preset: str, seed: int, played: list[str]) -> Position:
    pos = Position(Deal.from_seed(seed, preset))
    for m in played:
        pos.play(m)
    return pos


def _cases():
    rows = json.loads(FILE.read_text()) if FILE.exists() else []
    return [pytest.param(c, id=f"{c['preset']}-{c['seed']}-{len(c['moves'])}") for c in rows]


@pytest.mark.parametrize("case", _cases())
def test_kernel_move_counts_match_the_file(case):
    pos = _start(case["preset"], case["seed"], case["moves"])
    assert perft(pos, DEPTH, kernel_children) == case["counts"]


@pytest.mark.parametrize("case", _cases())
def test_reference_move_counts_match_the_file(case):
    pos = _start(case["preset"], case["seed"], case["moves"])
    assert perft(pos, DEPTH, reference_children) == case["counts"]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_perft.py --write   (rewrites tests/data/perft.json from the reference)")
    rows = []
    for preset, seed, played in positions():
        counts = perft(_start(preset, seed, played), DEPTH, reference_children)
        rows.append({"preset": preset, "seed": seed, "moves": played, "counts": counts})
        print(preset, seed, len(played), counts, flush=True)
    FILE.write_text(json.dumps(rows, indent=1) + "\n")
