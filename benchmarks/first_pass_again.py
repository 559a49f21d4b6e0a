"""A win-rate row's first pass searched again by this build, its follow-ups kept where they still apply.

    python benchmarks/first_pass_again.py --rules rainbow,chameleon              # seeds 0..N-1 as stored, 2 s
    python benchmarks/first_pass_again.py --rules benchmarks/rules/canfield-draw1-passes2.json --dry-run

The win-rate dataset (``benchmarks/results/winrates``, docs/win-rates.md) keeps one row per deal and
pass and never searches a stored deal again (studies.stores.parquet), so a row measured by an older build
keeps that build's unknowns after the solver learns to decide them. For each rules set named, this script:

1. moves the row's first-pass partition out of the dataset into ``--backup`` (a partition already there
   is left, so a run stopped anywhere resumes: the study skips the deals written since);
2. runs the first pass again over the same seeds with this build: ``canfield winrate --parquet-dir``
   at ``--max-seconds`` with ``--jobs`` workers, the row's command in docs/win-rates.md;
3. compares old and new deal by deal: a deal decided both times with two verdicts is a bug (old verdicts
   are sacred): the script stops with exit 1, and the follow-ups are left untouched;
4. keeps the follow-up rows (``<name>+followup``) of deals the new pass leaves unknown, and moves the others
   (deals the new pass decides, which a two-phase estimate no longer samples) to the backup, after checking
   that each decided follow-up agrees with the new first pass.

The two-phase estimate then recounts from the follow-ups still in the sampling order's complete prefix
(studies.two_phase); run ``canfield winrate ... --followup N`` to search more. Run
``benchmarks/make_priors.py`` afterwards, as after any change to the dataset.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATASET = HERE / "results" / "winrates"


def _rules(text: str):
    from canfield_solver.engine.rules import Rules, get_rules

    return Rules.from_json_file(text) if text.endswith(".json") else get_rules(text)


def _read(part_dir: Path) -> list[dict]:
    import pyarrow.parquet as pq

    rows: list[dict] = []
    for f in sorted(part_dir.glob("part-*.parquet")):
        rows += pq.read_table(f).to_pylist()
    return rows


def _verdicts(rows: list[dict]) -> dict[int, str]:
    return {int(r["seed"]): str(r["verdict"]) for r in rows}


def _counts(v: dict[int, str]) -> str:
    from canfield_solver.solver import verdict_counts

    c = verdict_counts()
    for x in v.values():
        c[x] += 1
    return f"{c['solved']} won / {c['unsolvable']} lost / {c['unknown']} unknown of {len(v)}"


def _write(part_dir: Path, rows: list[dict], schema) -> None:
    """The partition's parts replaced by one part holding ``rows`` (written to a temporary name first)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    old = sorted(part_dir.glob("part-*.parquet"))
    if rows:
        rows = sorted(rows, key=lambda r: int(r["seed"]))
        name = f"part-{rows[0]['seed']}-{rows[-1]['seed']}-first-pass-again-1.parquet"
        tmp = part_dir / (name + ".tmp")
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), tmp)
        os.replace(tmp, part_dir / name)
        old = [f for f in old if f.name != name]
    for f in old:
        f.unlink()
    if not rows:
        part_dir.rmdir()


def again(name: str, args: argparse.Namespace) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from canfield_solver.studies.stores.sqlite import rules_id
    from canfield_solver.studies.two_phase import followup_rules

    rules = _rules(name)
    dataset, backup = Path(args.dataset), Path(args.backup)
    first_dir = dataset / f"rules_id={rules_id(rules)}"
    follow_dir = dataset / f"rules_id={rules_id(followup_rules(rules))}"
    kept = backup / first_dir.name
    if kept.exists():
        print(f"{rules.name}: resuming (the old first pass is in {kept})")
    elif first_dir.exists():
        if args.dry_run:
            kept = first_dir
        else:
            backup.mkdir(parents=True, exist_ok=True)
            shutil.move(str(first_dir), str(kept))
    else:
        print(f"{rules.name}: no first pass in {dataset}", file=sys.stderr)
        return 1
    old = _verdicts(_read(kept))
    seeds = args.seeds or f"0:{max(old) + 1}"
    print(f"{rules.name}: old first pass {_counts(old)}", flush=True)
    if args.dry_run:
        return 0
    rule_opt = ["--rules-file", name] if name.endswith(".json") else ["--rules", name]
    cmd = [sys.executable, "-m", "canfield_solver", "winrate", *rule_opt, "--seeds", seeds,
           "--max-seconds", str(args.max_seconds), "--jobs", str(args.jobs), "--parquet-dir", str(dataset)]
    print("$ " + " ".join(cmd[2:]), flush=True)
    rc = subprocess.run(cmd).returncode
    if rc:
        return rc
    new = _verdicts(_read(first_dir))
    print(f"{rules.name}: new first pass {_counts(new)}")
    both = [s for s in new if s in old and "unknown" not in (old[s], new[s])]
    differ = sorted(s for s in both if old[s] != new[s])
    newly = sorted(s for s in new if old.get(s) == "unknown" and new[s] != "unknown")
    lost = sorted(s for s in new if new[s] == "unknown" and old.get(s, "unknown") != "unknown")
    print(f"  decided both times {len(both)}, newly decided {len(newly)} "
          f"({sum(new[s] == 'solved' for s in newly)} won), decided before and unknown now {len(lost)}")
    if differ:
        print(f"  VERDICTS DIFFER on seeds {differ[:20]}: follow-ups left as they are", file=sys.stderr)
        return 1
    if follow_dir.exists():
        rows = _read(follow_dir)
        clash = sorted(int(r["seed"]) for r in rows if r["verdict"] != "unknown"
                       and new.get(int(r["seed"]), "unknown") not in ("unknown", r["verdict"]))
        if clash:
            print(f"  a follow-up's verdict differs from the new first pass on seeds {clash}", file=sys.stderr)
            return 1
        stay = [r for r in rows if new.get(int(r["seed"])) == "unknown"]
        gone = [r for r in rows if new.get(int(r["seed"])) != "unknown"]
        if gone:
            out = backup / follow_dir.name
            out.mkdir(parents=True, exist_ok=True)
            schema = pa.unify_schemas([pq.read_schema(f) for f in sorted(follow_dir.glob("part-*.parquet"))])
            pq.write_table(pa.Table.from_pylist(gone, schema=schema), out / "dropped.parquet")
            _write(follow_dir, stay, schema)
        print(f"  follow-ups: {len(stay)} kept (deals still unknown), {len(gone)} moved to {backup} "
              f"(deals the new pass decides)")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", required=True, help="comma-separated presets or rules files (.json)")
    ap.add_argument("--seeds", help="START:STOP (default: the seeds the old first pass holds)")
    ap.add_argument("--max-seconds", type=float, default=2.0, help="the first pass's limit (the table's: 2)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--dataset", default=str(DATASET))
    ap.add_argument("--backup", default=str(HERE / "results" / ".first-pass-before"),
                    help="where the old partitions go (kept out of git by .gitignore; git history holds them too)")
    ap.add_argument("--dry-run", action="store_true", help="print the old counts, move nothing, search nothing")
    args = ap.parse_args(argv)
    rc = 0
    for name in args.rules.split(","):
        rc = again(name.strip(), args) or rc
        if rc:
            break
    return rc


if __name__ == "__main__":
    sys.exit(main())
