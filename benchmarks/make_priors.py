"""Write ``src/canfield_solver/studies/priors.json`` from the committed win-rate dataset (studies.priors).

    python benchmarks/make_priors.py          # every preset and every rules file of benchmarks/rules

For each rule set with first-pass rows in ``benchmarks/results/winrates``: the counts of the first pass
over seeds 0.. (as far as every seed is stored) and of its follow-ups, their mean core-seconds and the
two-phase estimate, measured as ``winrate --target --plan`` measures a store (studies.target.measure).
Run it after a study grows the dataset, once its follow-ups have caught up with its first pass, and commit
both: a first pass grown past its follow-ups recounts only the follow-ups that come first in sampling order
(studies.two_phase), so its prior would rest on a few of them (the strict profile's, grown to 112,559 deals
in the background, counts 6 of its 656 until the new deals' unknowns are followed up).
"""

from __future__ import annotations

import json
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from canfield_solver import preset_names
from canfield_solver.engine.rules import Rules, get_rules
from canfield_solver.studies.stores.parquet import ParquetResults
from canfield_solver.studies.stores.sqlite import rules_id
from canfield_solver.studies.target import measure, stored_extent

HERE = Path(__file__).resolve().parent
DATASET = HERE / "results" / "winrates"
OUT = HERE.parent / "src" / "canfield_solver" / "studies" / "priors.json"
FIRST_SECONDS, FOLLOWUP_SECONDS = 2.0, 300.0  # the limits every row of the table is run with (winrate_table.py)


def main() -> int:
    rules = [get_rules(n) for n in preset_names()] + [Rules.from_json_file(str(p))
                                                       for p in sorted((HERE / "rules").glob("*.json"))]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=HERE).stdout.strip() or "unknown"
    table = {}
    with closing(ParquetResults(str(DATASET), create=False)) as st:
        for r in rules:
            deals = stored_extent(st, r)
            if deals == 0:
                continue
            m = measure(st, r, deals, followup_threads=2)
            tp = m.two_phase
            table[rules_id(r)] = {
                "rules": r.name, "deals": m.deals, "won": m.won, "lost": m.lost, "unknown": m.unknown,
                "followups": m.followups, "sample_won": m.sample_won, "sample_lost": m.sample_lost,
                "sample_unknown": m.sample_unknown, "c1": round(m.c1, 4), "c2": round(m.c2, 2),
                "p": None if tp is None or tp.estimate is None else round(tp.estimate, 5),
                "first_seconds": FIRST_SECONDS, "followup_seconds": FOLLOWUP_SECONDS, "measured_at": commit}
            print(f"{r.name}: {m.deals:,} deals, {m.followups} follow-ups", flush=True)
    OUT.write_text(json.dumps({"source": "benchmarks/results/winrates (benchmarks/make_priors.py)",
                               "rules": table}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({len(table)} rule sets)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
