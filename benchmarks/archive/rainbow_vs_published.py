"""Rainbow under the published solver's own rule set, ours against its binary on the same deals (issue 70).

    python benchmarks/archive/rainbow_vs_published.py --solvitaire BINARY --seeds 1000:1030 --max-seconds 10

The rule set is the one the issue names: our ``solvitaire-canfield-strict`` (whole piles, ranks wrap from
the base, no column move while a gap is open) with any-suit building, draw 1 and no redeal; for the binary
the same as its custom rules JSON. Each deal runs ours (``solve``, one thread, ``--max-seconds``) and then
the binary (``--timeout`` in ms), one deal at a time, so both meet the same load. Prints a line a deal and
then: the deals each decides, those only one decides, and any verdict that differs (exit 1 then).

BINARY is a build of thecharlieblake/Solvitaire (CMake and Boost program_options; never committed here).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

THEIR_RULES = {
    "tableau piles": {"count": 4, "build policy": "any-suit", "move built group": "whole-pile",
                      "spaces policy": "auto-reserve-then-waste"},
    "foundations": {"initial cards": "one", "base card": "random"},
    "stock": {"size": 34, "deal count": 1, "redeal": False},
    "reserve": {"size": 13, "stacked": True},
}
DECIDED = ("solved", "unsolvable")


def _seeds(text: str) -> list[int]:
    a, _, b = text.partition(":")
    return list(range(int(a), int(b))) if b else [int(a)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--solvitaire", required=True, metavar="BINARY")
    ap.add_argument("--seeds", default="1000:1030")
    ap.add_argument("--max-seconds", type=float, default=10.0)
    a = ap.parse_args(argv)
    from canfield_solver import Deal, solve
    from canfield_solver.engine.rules import get_rules
    from canfield_solver.formats import to_solvitaire

    rules = get_rules("solvitaire-canfield-strict").replace(name="solvitaire-rainbow", build="any", draw=1,
                                                             redeals=0)
    solve(Deal.from_seed(0, rules), max_nodes=1000)  # compile (or load) before the first timed deal
    ours: dict[int, str] = {}
    theirs: dict[int, str] = {}
    print(f"{'seed':>7} {'ours':>11} {'s':>6} {'theirs':>11} {'s':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        rules_file = os.path.join(tmp, "rules.json")
        with open(rules_file, "w") as fh:
            json.dump(THEIR_RULES, fh)
        for seed in _seeds(a.seeds):
            deal = Deal.from_seed(seed, rules)
            r = solve(deal, max_seconds=a.max_seconds)
            ours[seed] = r.verdict.value
            path = os.path.join(tmp, f"{seed}.json")
            with open(path, "w") as fh:
                json.dump(to_solvitaire(deal), fh)
            t = time.perf_counter()
            p = subprocess.run([a.solvitaire, "--custom-rules", rules_file, "--timeout",
                                str(int(a.max_seconds * 1000)), path], capture_output=True, text=True)
            t = time.perf_counter() - t
            v = re.search(r"Solution Type: (\S+)", p.stdout)
            theirs[seed] = v.group(1).lower() if v else "error"
            print(f"{seed:>7} {ours[seed]:>11} {r.seconds:>6.2f} {theirs[seed]:>11} {t:>6.2f}", flush=True)
    both = [s for s in ours if ours[s] in DECIDED and theirs[s] in DECIDED]
    differ = [s for s in both if ours[s] != theirs[s]]
    only_theirs = [s for s in ours if theirs[s] in DECIDED and ours[s] not in DECIDED]
    only_ours = [s for s in ours if ours[s] in DECIDED and theirs[s] not in DECIDED]
    count = {name: sum(v in DECIDED for v in d.values()) for name, d in (("ours", ours), ("theirs", theirs))}
    print(f"decided: ours {count['ours']} of {len(ours)}, theirs {count['theirs']}; both {len(both)}, "
          f"only ours {only_ours or 'none'}, only theirs {only_theirs or 'none'}; verdicts differ on "
          f"{differ or 'none'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
