"""The bridge between PySolFC's plugin and the solver: one JSON object a line in, one a line out.

    python -m canfield_solver.pysolfc.bridge        # what the plugin starts, once per PySolFC session

Requests (``op``), each answered with ``{"ok": true, ...}`` or ``{"ok": false, "error": "one line"}``:

- ``hello``: this package's version and the games it solves (PySolFC titles to rules presets).
- ``solve``: ``table`` (``formats.pysolfc.table_deal``), ``max_nodes``, ``max_seconds``: the verdict, the
  winning moves (SPEC §4) and the effort. A won line is remembered with the position after each move.
- ``next``: ``table``: the move to play from this live table. Where the table is a position on the
  remembered line, the line's next move (so PySolFC's own automatic moves, such as its demo's deal when the
  waste is empty or an automatic drop to the foundations, are followed when they keep to the line); where it
  is off the line, the table is solved again (``max_nodes``, ``max_seconds``) and the new line followed.
  ``move`` is null once the table is won or where no line is known (``verdict`` says which).
- ``hint``: as ``next``, and where the table is lost, ``history`` (the table at the deal, then after each
  move, ending with this one) searched for the move that lost it: ``lost_since`` is the index of the first
  lost table (0: lost from the deal; k: the k-th move lost it).

The bridge holds no state but the last line; it exits when its input closes.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any, TextIO

from .._version import __version__
from ..engine.deal import Deal
from ..engine.position import Position
from ..errors import CanfieldError
from ..formats.pysolfc import PYSOLFC_RULES, table_deal
from ..solver import solve

__all__ = ["Bridge", "serve"]

# Without limits from the plugin, a search stops after this much (the Solver dialog always sends its own).
DEFAULT_MAX_NODES = 10_000_000
DEFAULT_MAX_SECONDS = 30.0
Answer = dict[str, Any]  # one JSON answer to the plugin: its values are any JSON value


def _key(pos: Position, deal: Deal) -> tuple:
    """The position, columns in place (the plugin maps column numbers to PySolFC's rows), and its rules."""
    return (pos.key(), deal.rules.name)


@dataclass
class Bridge:
    """Answers the plugin's requests; remembers the last winning line and the positions along it."""

    line: list[str] = field(default_factory=list)
    keys: dict[tuple, int] = field(default_factory=dict)  # position before move i -> i

    def handle(self, req: object) -> Answer:
        if not isinstance(req, dict) or not isinstance(req.get("op"), str):
            return {"ok": False, "error": "a request is a JSON object with an 'op'"}
        op = req["op"]
        try:
            if op == "hello":
                return {"ok": True, "version": __version__, "games": PYSOLFC_RULES}
            if op == "solve":
                return self._solve(table_deal(req.get("table")), req)
            if op == "next":
                return self._next(table_deal(req.get("table")), req)
            if op == "hint":
                return self._hint(req)
        except CanfieldError as e:
            return {"ok": False, "error": str(e)}
        return {"ok": False, "error": f"unknown op {op!r}; the bridge knows hello, solve and next"}

    def _limits(self, req: dict) -> tuple[int | None, float | None]:
        n, s = req.get("max_nodes", DEFAULT_MAX_NODES), req.get("max_seconds", DEFAULT_MAX_SECONDS)
        if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 1):
            raise CanfieldError(f"max_nodes {n!r} is not a whole number from 1")
        if s is not None and (not isinstance(s, (int, float)) or isinstance(s, bool) or s <= 0):
            raise CanfieldError(f"max_seconds {s!r} is not a positive number of seconds")
        return n, s

    def _solve(self, deal: Deal, req: dict) -> Answer:
        n, s = self._limits(req)
        res = solve(deal, max_nodes=n, max_seconds=s)
        self.line, self.keys = [], {}
        if res.solved:
            self._remember(deal, list(res.moves))
        return {"ok": True, "verdict": res.verdict.value, "moves": list(res.moves), "nodes": res.nodes,
                "positions": res.positions, "seconds": round(res.seconds, 3), "rules": deal.rules.name}

    def _remember(self, deal: Deal, moves: list[str]) -> None:
        pos = Position(deal)
        self.line, self.keys = moves, {}
        for i, m in enumerate(moves):
            self.keys.setdefault(_key(pos, deal), i)
            pos.play(m)

    def _next(self, deal: Deal, req: dict) -> Answer:
        pos = Position(deal)
        if pos.is_won():
            return {"ok": True, "move": None, "verdict": "won"}
        i = self.keys.get(_key(pos, deal))
        if i is not None:
            return {"ok": True, "move": self.line[i], "verdict": "solved", "resolved": False,
                    "left": len(self.line) - i}
        out = self._solve(deal, req)
        move = out["moves"][0] if out["moves"] else None
        return {"ok": True, "move": move, "verdict": out["verdict"], "resolved": True,
                "left": len(out["moves"]), "nodes": out["nodes"], "seconds": out["seconds"]}


    def _hint(self, req: dict) -> Answer:
        """The hint key's answer: the next move where the table is winnable; where it is lost, the first of
        the earlier tables (``history``, one per move from the deal on) that was lost too, found by bisection:
        a lost table's every successor is lost, so the won-then-lost boundary is one move, the move that lost
        the game. A search that stops at the limit leaves the boundary open (``lost_since_exact`` false)."""
        ans = self._next(table_deal(req.get("table")), req)
        if ans.get("verdict") != "unsolvable":
            return ans
        history = req.get("history") or []
        if not isinstance(history, list):
            raise CanfieldError("history is a list of the tables after each move")
        # history ends with this table, known lost: the tables before lo are won, the ones from hi on lost.
        lo, hi, exact = 0, max(len(history) - 1, 0), True
        n, s = self._limits(req)
        while lo < hi:
            mid = (lo + hi) // 2
            v = solve(table_deal(history[mid]), max_nodes=n, max_seconds=s).verdict.value
            if v == "solved":
                lo = mid + 1
            elif v == "unsolvable":
                hi = mid
            else:
                exact = False
                break
        ans["lost_since"] = hi if exact else None
        ans["lost_since_exact"] = exact
        ans["lost_from_the_deal"] = exact and hi == 0
        return ans


def serve(inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    """Answer one request a line until the input closes or a request says ``{"op": "quit"}``."""
    bridge = Bridge()
    for line in inp:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except json.JSONDecodeError as e:
            ans: Answer = {"ok": False, "error": f"not JSON: {e.msg}"}
        else:
            if isinstance(req, dict) and req.get("op") == "quit":
                return 0
            ans = bridge.handle(req)
        out.write(json.dumps(ans) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(serve())
