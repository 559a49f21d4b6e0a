"""What each search of a schedule decides alone, and the schedule that decides the most (issue 81, item 2).

    python benchmarks/schedule_census.py measure --seeds 800000:800100 --out census.jsonl   # 2 s, every preset
    python benchmarks/schedule_census.py measure --seeds ... --max-seconds 10 --unknowns-of census.jsonl --limit 10
    python benchmarks/schedule_census.py choose census.jsonl [census-10s.jsonl] [--write]

``measure`` runs, on each deal of each preset whose family has a schedule (``rainbow``, ``chameleon`` and
``superior-canfield`` by default), every search of the family alone with the whole limit: each phase as a
schedule of that phase (share 1, no cap) and the exact search, and the exact search alone
(``method="depth-first"``), and the schedule as it stands. A line a (deal, search): whether it decided,
how (won, lost), the seconds it took and, where it ended by itself short of the limit (a nested search's
rounds, an abstract game won), when. ``--unknowns-of`` takes the deals the standing schedule left unknown
in an earlier file (``--limit`` of them a preset).

``choose`` replays those measurements as a schedule would run them: a row gets its share of what is left
(at most its cap); it decides a deal where alone it decided within that time; it spends the time it took
(a search that ended by itself spends less); the exact search gets what is left, and goes on from the
probe. Searches are deterministic for a given number of their own nodes, so a phase that decided in t
seconds alone decides in any share of at least t (the clock's noise aside). It counts, for every
candidate schedule of a grid of shares, the deals decided at each limit measured, prints the ceiling (the
deals any search decides alone), the standing schedule's count (simulated and measured, a check of the
simulation) and the best candidates, and with ``--write`` writes the best at the first file's limit into
``src/canfield_solver/search/schedules.json``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "src" / "canfield_solver" / "search" / "schedules.json"
PRESETS = ("rainbow", "chameleon", "superior-canfield")
SEARCHES = ("nested", "adapt", "beam", "prove", "find")


def _measure_one(args: tuple[str, int, float]) -> list[dict]:
    from canfield_solver import Deal, get_rules, solve
    from canfield_solver.search import schedule

    preset, seed, limit = args
    rules = get_rules(preset)
    deal = Deal.from_seed(seed, rules)
    fam = schedule.family(rules)
    rows = schedule.rows_for(rules)
    out = []

    def line(search: str, r, seconds: float, ended_at: float | None = None, ended: str | None = None) -> dict:
        return {"preset": preset, "seed": seed, "limit": limit, "search": search, "verdict": r.verdict.value,
                "seconds": round(seconds, 4), "ended_at": ended_at, "ended": ended}

    t = time.perf_counter()
    r = solve(deal, max_seconds=limit)
    out.append(line("schedule", r, time.perf_counter() - t))
    t = time.perf_counter()
    r = solve(deal, max_seconds=limit, method="depth-first")
    out.append(line("exact", r, time.perf_counter() - t))
    for phase in SEARCHES:
        if phase not in {x.phase for x in rows}:
            continue
        extra = {"rounds": 10**6} if phase == "nested" else {}
        alone = (schedule.Row(phase, share=1.0, **extra), schedule.Row("exact"))
        schedule.SCHEDULES[fam] = alone
        try:
            t = time.perf_counter()
            r = solve(deal, max_seconds=limit)
            wall = time.perf_counter() - t
        finally:
            schedule.SCHEDULES.pop(fam, None)
        ran = {p["phase"]: p for p in r.stats.get("phases", [])}
        p = ran.get(phase)
        decided_here = r.stats.get("decided_by") == phase
        seconds = p["seconds"] if p else wall
        ended = p["ended"] if p else None
        ended_at = seconds if ended in ("won", "lost", "exhausted", "rounds") else None
        verdict = r if decided_here else None
        out.append({**line(phase, r, seconds, ended_at, ended),
                    "verdict": verdict.verdict.value if verdict else "unknown"})
    return out


def _warm() -> None:
    from canfield_solver import solve
    from canfield_solver.search import portfolio

    solve(2)
    portfolio.warm_up()


def measure(a: argparse.Namespace) -> int:
    lo, hi = (int(x) for x in a.seeds.split(":"))
    todo = [(p, s, a.max_seconds) for p in a.presets.split(",") for s in range(lo, hi)]
    if a.unknowns_of:
        earlier = [json.loads(x) for x in Path(a.unknowns_of).read_text().splitlines()]
        todo = []
        for p in a.presets.split(","):
            seeds = [x["seed"] for x in earlier if x["preset"] == p and x["search"] == "schedule"
                     and x["verdict"] == "unknown"][:a.limit]
            todo += [(p, s, a.max_seconds) for s in seeds]
    done = set()
    if Path(a.out).exists():  # resume
        done = {(x["preset"], x["seed"], x["limit"]) for x in map(json.loads, Path(a.out).read_text().splitlines())}
    todo = [t for t in todo if t not in done]
    print(f"{len(todo)} deals to measure ({len(done)} done)", file=sys.stderr)
    with mp.get_context("spawn").Pool(a.jobs, initializer=_warm) as pool, open(a.out, "a") as fh:
        for i, lines in enumerate(pool.imap_unordered(_measure_one, todo), 1):
            fh.write("".join(json.dumps(x) + "\n" for x in lines))
            fh.flush()
            if i % 10 == 0:
                print(f"  {i}/{len(todo)}", file=sys.stderr)
    return 0


def simulate(rows: tuple, alone: dict[str, dict], limit: float) -> bool:
    """Whether ``rows`` decide a deal, from its searches measured alone at ``limit`` (``alone[search]``)."""
    left = limit
    probe_seconds = 0.0
    abstract = None  # how the game over ranks ended, once it ran: "won", "unfinished" or None
    for row in rows:
        if row.phase == "probe":
            probe_seconds = min(0.04, left)
            exact = alone["exact"]
            if exact["verdict"] != "unknown" and exact["seconds"] <= probe_seconds:
                return True
            left -= probe_seconds
            continue
        if row.phase == "exact":
            exact = alone["exact"]
            return exact["verdict"] != "unknown" and exact["seconds"] <= left + probe_seconds
        if row.share <= 0 or row.phase not in alone:
            continue
        if row.when == "abstract-won" and abstract != "won":
            continue
        if row.when == "abstract-unfinished" and abstract != "unfinished":
            continue
        if row.min_left and left < row.min_left:
            continue
        give = left * row.share if row.cap is None else min(left * row.share, row.cap)
        if give < 0.01:
            continue
        m = alone[row.phase]
        if m["verdict"] != "unknown" and m["seconds"] <= give:
            return True
        spent = give if m["ended_at"] is None else min(give, m["ended_at"])
        if row.phase == "prove":
            abstract = "won" if (m["ended"] == "won" and m["ended_at"] is not None and m["ended_at"] <= give) \
                else "unfinished"
        left -= spent
    return False


def _by_deal(path: str) -> dict[tuple[str, int], dict[str, dict]]:
    deals: dict[tuple[str, int], dict[str, dict]] = {}
    for x in map(json.loads, Path(path).read_text().splitlines()):
        deals.setdefault((x["preset"], x["seed"]), {})[x["search"]] = x
    return deals


def _candidates(rows: tuple) -> list[tuple]:
    """The standing schedule with each phase's share on a grid (caps kept; 0 leaves a phase out)."""
    from canfield_solver.search import schedule

    grid = {"nested": (0.0, 0.05, 0.1), "adapt": (0.0, 0.1, 0.2, 0.35, 0.5), "beam": (0.0, 0.2, 0.35, 0.5, 0.75),
            "prove": (0.0, 0.25, 0.5, 0.75),
            "find": (0.0, 0.25, 0.5)}
    phases = sorted({r.phase for r in rows if r.phase in grid}, key=SEARCHES.index)
    out = []
    for shares in itertools.product(*(grid[p] for p in phases)):
        cand = rows
        for p, s in zip(phases, shares):
            cand = schedule.changed(cand, p, share=s)
        out.append(cand)
    return out


def _moved(cand: tuple, standing: dict[str, float]) -> float:
    """How far a candidate's shares are from the standing schedule's."""
    return sum(abs(r.share - standing[r.phase + r.when]) for r in cand)


def choose(a: argparse.Namespace) -> int:
    from canfield_solver import get_rules
    from canfield_solver.search import schedule

    files = [(_by_deal(f), None) for f in a.files]
    families: dict[str, list[str]] = {}
    for deals, _ in files:
        for (preset, _seed) in deals:
            families.setdefault(schedule.family(get_rules(preset)), [])
            if preset not in families[schedule.family(get_rules(preset))]:
                families[schedule.family(get_rules(preset))].append(preset)
    best_rows = {}
    for fam, presets in families.items():
        rows = schedule.rows_for(get_rules(presets[0]))
        print(f"\n== family {fam} ({', '.join(presets)})")
        scores = []
        for cand in _candidates(rows):
            counts = []
            for deals, _ in files:
                for preset in presets:
                    ds = [d for (p, _s), d in deals.items() if p == preset and "exact" in d]
                    limit = ds[0]["exact"]["limit"] if ds else 0
                    counts.append(sum(simulate(cand, d, limit) for d in ds))
            scores.append((counts, cand))
        for deals, _ in files:
            for preset in presets:
                ds = [d for (p, _s), d in deals.items() if p == preset and "exact" in d]
                if not ds:
                    continue
                limit = ds[0]["exact"]["limit"]
                ceiling = sum(any(m["verdict"] != "unknown" for m in d.values()) for d in ds)
                measured = sum(d["schedule"]["verdict"] != "unknown" for d in ds)
                standing = sum(simulate(rows, d, limit) for d in ds)
                exact = sum(d["exact"]["verdict"] != "unknown" for d in ds)
                print(f"  {preset} at {limit:g} s, {len(ds)} deals: ceiling {ceiling}, exact alone {exact}, "
                      f"schedule as it stands {measured} measured / {standing} simulated")
        first = len(presets)  # the first file's counts (its limit) decide, the rest break ties, then the
        standing = {r.phase + r.when: r.share for r in rows}  # smallest change to the standing schedule

        scores.sort(key=lambda sc: (-sum(sc[0][:first]), -sum(sc[0]), _moved(sc[1], standing)))
        for counts, cand in scores[:5]:
            shares = ", ".join(f"{r.phase} {r.share:g}" for r in cand if r.phase in SEARCHES)
            print(f"  decided {counts}: {shares}")
        best_rows[fam] = scores[0][1]
    if a.write:
        data = json.loads(DATA.read_text())
        for fam, rows in best_rows.items():
            data["families"][fam] = [r.to_dict() for r in rows if r.phase not in SEARCHES or r.share > 0]
        data["measured"] = f"benchmarks/schedule_census.py choose {' '.join(a.files)} ({time.strftime('%Y-%m-%d')})"
        DATA.write_text(_dumps(data))
        print(f"wrote {DATA}")
    return 0


def _dumps(data: dict) -> str:
    """``schedules.json`` as it is kept: a row a line."""
    fams = ",\n".join(f'    "{name}": [\n' + ",\n".join("      " + json.dumps(r) for r in rows) + "\n    ]"
                      for name, rows in data["families"].items())
    head = "".join(f"  {json.dumps(k)}: {json.dumps(v)},\n" for k, v in data.items() if k != "families")
    return "{\n" + head + '  "families": {\n' + fams + "\n  }\n}\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--seeds", default="800000:800100")
    m.add_argument("--presets", default=",".join(PRESETS))
    m.add_argument("--max-seconds", type=float, default=2.0)
    m.add_argument("--jobs", type=int, default=2)
    m.add_argument("--unknowns-of", default=None)
    m.add_argument("--limit", type=int, default=10)
    m.add_argument("--out", required=True)
    c = sub.add_parser("choose")
    c.add_argument("files", nargs="+")
    c.add_argument("--write", action="store_true")
    a = ap.parse_args(argv)
    return measure(a) if a.cmd == "measure" else choose(a)


if __name__ == "__main__":
    sys.exit(main())
