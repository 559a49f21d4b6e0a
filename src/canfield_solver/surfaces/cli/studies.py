"""The commands about many deals: ``winrate``, ``export``, ``pick``, ``verify``."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import sys
import time
from typing import TYPE_CHECKING

import click

from ... import startup
from ...engine.rules import Rules
from ...errors import install_hint
from ...games import GameKey
from ...processes import interrupts_held
from ...studies.packs import PackFile, pack_entry, verify_pack
from ...studies.pick import DIFFICULTIES, Picker
from ...studies.seeds import SeedSet, parse_seeds
from ...studies.settings import StudySettings
from ...studies.stores import Store, open_result_store, open_to_write
from ...studies.stores.parquet import export_parquet
from ...studies.stores.sqlite import StoredResult
from ...studies.study import WinRate, estimate_win_rate, stored_rules, stored_win_rate
from ...studies.target import PILOT_DEALS, PILOT_FOLLOWUPS
from ...studies.two_phase import run_followup, stored_two_phase
from .common import (
    SECONDS,
    UserError,
    Whole,
    cli,
    deal_source,
    memory_option,
    not_blank,
    prepare_kernel,
    resolve_rules,
    run_state,
    was_terminated,
    workers_compile_notice,
)
from .other_games import game_option, refuse_canfield_only

if TYPE_CHECKING:  # click's progress bar type (a private module: read by type checkers only)
    from click._termui_impl import ProgressBar


def eta_seconds(done: int, total: int, searched: int, elapsed: float) -> float | None:
    """Seconds left of a study at the rate of the deals it searched (deals taken from the store take no time
    and are not part of the rate: a resumed study of 3,000 deals with 1,121 stored is not nearly done at
    its first searched deal); None before the first."""
    if searched <= 0 or elapsed <= 0:
        return None
    return max(0, total - done) * elapsed / searched


class _StudyProgress:
    """click's progress bar on stderr for a study: deals done, won / lost / unknown so far, deals a second,
    the ETA (from the deals searched, ``eta_seconds``).

    Drawn only on a terminal; nothing at all is printed when stderr is a file or a pipe.
    """

    def __init__(self, label: str, enabled: bool = True):
        self.label = label
        self.enabled = enabled and sys.stderr.isatty()
        self.bar: "ProgressBar[int] | None" = None
        self.counts: dict = {}
        self.rate = 0.0
        self.eta: float | None = None

    def __call__(self, done: int, total: int, counts: dict, elapsed: float) -> None:
        if not self.enabled or total <= 0:
            return
        if self.bar is None:  # its first frame is drawn now, before any deal is counted
            self.bar = click.progressbar(length=total, label=self.label, file=sys.stderr, show_pos=True,
                                         show_eta=False, item_show_func=self._counts)
            self.bar.__enter__()
        self.counts = counts
        searched = counts.get("searched", done)  # deals taken from the store are not part of the rate
        self.rate = searched / elapsed if elapsed > 0 and searched else 0.0
        self.eta = eta_seconds(done, total, searched, elapsed)
        self.bar.update(max(0, done - self.bar.pos))  # never backwards
        if done >= total:
            self.close()

    def _counts(self, _item: object) -> str:
        c = self.counts
        rate = f" · {self.rate:,.1f} deals/s" if self.rate else ""
        if self.eta is not None:
            m, sec = divmod(int(self.eta), 60)
            rate += f" · {m // 60}:{m % 60:02d}:{sec:02d} left"
        reused = f" · {c['reused']:,} from the store" if c.get("reused") else ""
        return (f"won {c.get('solved', 0)} lost {c.get('unsolvable', 0)} unknown {c.get('unknown', 0)}"
                f"{reused}{rate}")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


@cli.command()
@deal_source("none")
@click.option("--seeds", "seeds_text", default="0:1000", show_default=True, metavar="START:STOP", callback=not_blank,
              help="Seeds to study: START:STOP (STOP excluded), a seed, or a comma list.")
@click.option("--pysolfc", "pysolfc", default=None, metavar="START:STOP", callback=not_blank,
              help="Study PySolFC game numbers instead of seeds (rules default to pysolfc-canfield).")
@click.option("--jobs", "-j", type=Whole(min=1), default=None,
              help="Local worker processes (default: the core count); a follow-up (--followup, --target) "
                   "searches one deal at a time with this many threads, and each row keeps its threads.")
@click.option("--max-seconds", type=SECONDS, default=30.0, show_default=True,
              help="Time limit per deal, its own search from its start (stored as its seconds); a deal that hits "
                   "it counts as unknown.")
@click.option("--max-nodes", type=Whole(min=1), default=None,
              help="Node limit per deal (reproducible, unlike time); a deal that hits it counts as unknown.")
@memory_option("Transposition table cap per worker in MiB.")
@click.option("--db", "db", type=click.Path(dir_okay=False), default=None, callback=not_blank,
              help="SQLite result store: finished deals are saved as they come and skipped when run again.")
@click.option("--parquet-dir", "parquet_dir", type=click.Path(), default=None, callback=not_blank,
              help="Write results as a partitioned Parquet dataset instead of --db (cluster-scale runs; "
                   "deals already in it are skipped, never searched again; one study writes it at a time).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT", callback=not_blank,
              help="Run on this Dask distributed cluster instead of local processes (needs the 'dask' extra).")
@click.option("--chunk", type=Whole(1, 100_000), default=None,
              help="Deals per task sent to a worker (default 1: each deal stored as it finishes; more "
                   "hold finished deals back until their task ends).")
@click.option("--followup", type=Whole(min=0), default=0, show_default=True, metavar="N",
              help="Two-phase study: after the first pass, search a seeded random sample of N of the deals it "
                   "left unknown again at the --followup-* limits, and report the two-phase estimate.")
@click.option("--followup-seconds", type=SECONDS, default=300.0, show_default=True,
              help="Time limit per deal of the follow-up pass (all local cores on one deal at a time).")
@click.option("--followup-nodes", type=Whole(min=1), default=None,
              help="Node limit per deal of the follow-up pass.")
@click.option("--followup-memory", "followup_memory_mb", type=Whole(min=1), default=None,
              help="Table cap in MiB for the follow-up pass (default: --max-memory).")
@click.option("--followup-seed", type=Whole(min=0), default=0, show_default=True,
              help="Seed of the follow-up sample's draw (the same seed draws the same sample).")
@click.option("--target", type=click.FloatRange(min=0, min_open=True), default=None, metavar="POINTS",
              help="Run until the 95% interval is at most this many points each side: a pilot, then the deals "
                   "and follow-ups that reach it at the least core-time, planned again as they are measured "
                   "(seeds from 0; needs --db or --parquet-dir; --seeds and --followup are then the plan's).")
@click.option("--plan", "plan_only", is_flag=True,
              help="With --target: print the plan from what the store holds (after a pilot) and run nothing.")
@click.option("--pilot", type=Whole(min=10), default=1000, show_default=True,
              help="With --target: the first pass's pilot, in deals, before the first plan.")
@click.option("--summary", is_flag=True,
              help="Search nothing: recompute the win rate from --db or --parquet for these rules and seeds.")
@click.option("--parquet", "parquet_in", type=click.Path(exists=True), default=None,
              callback=not_blank, help="With --summary: a Parquet export or a --parquet-dir dataset "
                                       "instead of --db.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@game_option
def winrate(rules_name: str | None, rules_file: str | None, seeds_text: str, pysolfc: str | None, jobs: int | None,
            max_seconds: float | None, max_nodes: int | None, max_memory_mb: int, db: str | None, parquet_dir: str | None,
            scheduler: str | None, chunk: int | None, followup: int, followup_seconds: float | None,
            followup_nodes: int | None, followup_memory_mb: int | None, followup_seed: int, summary: bool,
            parquet_in: str | None, as_json: bool, quiet: bool, game: str, target: float | None = None,
            plan_only: bool = False, pilot: int = 1000) -> int:
    """Win rate over many seeds, with 95% Wilson intervals; unknowns are counted both ways.

    With --followup N, a two-phase study: a random sample of N of the deals the first pass left unknown
    is searched again at the --followup-* limits, and the two-phase (stratified) estimate is reported
    with its 95% interval (the sample's own unknowns counted both ways).
    """
    startup.settle()  # long work ahead: the collector runs as usual (startup.py)
    numbering = "spec"
    if pysolfc is not None:
        if click.get_current_context().get_parameter_source("seeds_text") is not click.core.ParameterSource.DEFAULT:
            raise UserError("give --seeds or --pysolfc, not both")
        seeds_text, numbering = pysolfc, "pysolfc"
    seeds = parse_seeds(seeds_text)
    r: "Rules | GameKey"
    kept: "Rules | GameKey"
    if game != "canfield":
        refuse_canfield_only(game, pysolfc=pysolfc, rules=rules_name, rules_file=rules_file)
        r = kept = GameKey(game)
    else:
        r = resolve_rules(rules_name, rules_file, fallback="pysolfc-canfield" if pysolfc else None)
        kept = stored_rules(r, numbering)
    if summary or parquet_in:
        if parquet_dir:
            raise UserError("--summary reads a dataset with --parquet DIR, not --parquet-dir")
        everything = (pysolfc is None and click.get_current_context().get_parameter_source("seeds_text")
                      is click.core.ParameterSource.DEFAULT)
        if everything:  # no --seeds: every deal the store holds of these rules, not the first 1,000
            seeds = SeedSet([(0, 2**64)])
        return _summary(kept, seeds, db, parquet_in, as_json, followup_seed, everything)
    if db and parquet_dir:
        raise UserError("give --db FILE or --parquet-dir DIR, not both")
    if plan_only and target is None:
        raise UserError("--plan goes with --target POINTS")
    settings = StudySettings(max_seconds=max_seconds, max_nodes=max_nodes, max_memory_mb=max_memory_mb, jobs=jobs,
                             scheduler=scheduler, chunk=chunk, numbering=numbering, followup=followup,
                             followup_seconds=followup_seconds, followup_nodes=followup_nodes,
                             followup_memory_mb=followup_memory_mb, followup_seed=followup_seed)
    saving = _Saving(db, parquet_dir)
    if target is not None:
        if isinstance(r, GameKey) or numbering != "spec":
            raise UserError("--target studies Canfield rules over SPEC seeds from 0")
        if not (db or parquet_dir):
            raise UserError("--target needs --db FILE or --parquet-dir DIR: it plans from what is stored")
        if max_seconds is None or followup_seconds is None:
            raise UserError("--target plans the cost of its passes: give finite --max-seconds and --followup-seconds")
        return _to_target(r, target, settings, saving, plan_only=plan_only, pilot=pilot, as_json=as_json, quiet=quiet)
    return _study(r, kept, seeds, settings, saving, as_json=as_json, quiet=quiet)


@dataclasses.dataclass(frozen=True)
class _Saving:
    """Where ``winrate`` keeps its rows: a SQLite store (``--db``), a Parquet dataset (``--parquet-dir``), or
    nowhere."""

    db: str | None
    parquet_dir: str | None

    @property
    def where(self) -> str | None:
        return self.db or self.parquet_dir

    def open(self) -> Store | None:
        return open_to_write(self.db, self.parquet_dir) if self.where else None


def _study(r: "Rules | GameKey", kept: "Rules | GameKey", seeds: SeedSet, settings: StudySettings, saving: _Saving, *,
           as_json: bool, quiet: bool) -> int:
    """``winrate``'s study: the first pass over ``seeds`` (resumed from the store), the follow-up if asked,
    the result printed; Ctrl-C or SIGTERM says what is saved and how to resume."""
    s = settings
    if s.scheduler is not None:  # before any store file is made
        import importlib.util

        if importlib.util.find_spec("distributed") is None:
            raise UserError("--scheduler needs Dask: " + install_hint("dask"))
    saved_in = saving.where
    store = saving.open()
    bar = _StudyProgress(kept.name, enabled=not quiet)
    if s.scheduler is None and not quiet:
        workers_compile_notice()
    stored_before = 0
    try:
        if store is not None:
            stored_before = store.count_done(kept, s.max_seconds, seeds.ranges(), max_nodes=s.max_nodes)
            if stored_before and not quiet:
                click.echo(f"{saved_in}: {stored_before:,} of {_n(len(seeds), 'deal')} already done; resuming", err=True)
        wr = estimate_win_rate(r, seeds, s, store=store, progress=bar)
        if s.followup:
            bar.close()
            bar = _StudyProgress(f"{kept.name} follow-up", enabled=not quiet)
            tp = run_followup(r, seeds, wr, s, store=store, progress=bar)
            wr = dataclasses.replace(wr, two_phase=tp)
    except KeyboardInterrupt as e:
        bar.close()
        saved = ""
        if store is not None:  # counted from the store itself, after its last write (Parquet: its flush)
            store.close()
            now = _count_done(saving, kept, s, seeds)
            saved = (f"; {_n(now - stored_before, 'deal')} finished in this run are saved in {saved_in} "
                     f"({now} of {len(seeds)} in all): run the same command again to resume")
        terminated = was_terminated(e)
        click.echo(f"\ncanfield: {'terminated' if terminated else 'interrupted'}{saved}", err=True)
        return 143 if terminated else 130
    finally:
        bar.close()
        if store is not None:
            store.close()
    _say_study(wr, s.max_seconds, s.max_nodes, as_json)
    return 0


def _say_study(wr: WinRate, max_seconds: float | None, max_nodes: int | None, as_json: bool) -> None:
    """``winrate``'s answer: the study's JSON object, or its table and what the passes searched."""
    if as_json:
        click.echo(json.dumps(wr.to_dict()))
        return
    click.echo(str(wr))
    limits = ("no time limit" if max_seconds is None else f"{max_seconds:g} s") + (f" and {max_nodes:,} nodes" if max_nodes else "")
    click.echo(f"{_n(wr.searched, 'deal')} searched, {wr.reused:,} taken from the store, {wr.wall_seconds:.1f} s wall, "
               f"limit per deal {limits}")
    if wr.two_phase is not None:
        tp = wr.two_phase
        click.echo(f"follow-up: {_n(tp.searched, 'deal')} searched, {tp.reused:,} taken from the store, "
                   f"{tp.wall_seconds:.1f} s wall")


def _plan_before_the_first_deal(r: Rules, target: float, where: str, max_seconds: float, followup_seconds: float,
                                jobs: int | None, as_json: bool) -> int:
    """``--target --plan`` with nothing stored in ``where``: the plan from the project's own study of these
    rules (studies.priors), or what the pilot costs; writes nothing."""
    from ...studies.priors import pilot_cost, prior_plan

    cores = jobs or os.cpu_count() or 1
    command = shlex.join(a for a in run_state().argv if a != "--plan")  # the same command without --plan
    got = prior_plan(r, target)
    if got is None:
        core, wall = pilot_cost(max_seconds, followup_seconds, cores)
        if as_json:
            click.echo(json.dumps({"plan": None, "pilot_core_seconds": core, "pilot_wall_seconds": wall}))
        else:
            click.echo(f"no rows of {r.name} stored in {where!r} yet, and no study of these rules in the project "
                       f"to plan from. The first run's pilot ({PILOT_DEALS:,} deals at {max_seconds:g} s, then "
                       f"{PILOT_FOLLOWUPS} follow-ups at {followup_seconds:g} s) costs at most {core:,.0f} core-s "
                       f"({wall / 3600:.1f} h on {cores} core{'' if cores == 1 else 's'}), then plans from what it measured:\n"
                       f"  canfield {command}")
        return 0
    p, pr = got
    hours = p.core_seconds / 3600
    if as_json:
        click.echo(json.dumps({"plan": p.__dict__, "more_core_seconds": p.more_core_seconds, "prior": pr.__dict__}))
        return 0
    click.echo(f"no rows of {r.name} stored in {where!r} yet: planned from {pr.describe()}, not from your store:")
    click.echo(str(p).replace("first pass won", "its first pass won"))
    click.echo(f"that is about {hours:,.1f} core-hours: {hours / cores:,.1f} h on {cores} cores here, "
               f"{hours / 64:,.1f} h on a Dask cluster of 64 cores (--scheduler); the first run measures again "
               f"on {PILOT_DEALS:,} deals and plans from its own figures:\n  canfield {command}")
    return 0


def _to_target(r: Rules, target: float, settings: StudySettings, saving: _Saving, *, plan_only: bool, pilot: int,
               as_json: bool, quiet: bool) -> int:
    """``winrate --target``: ``studies.target.run_to_target``, or with --plan the plan alone."""
    from ...studies.target import planned, run_to_target

    db, parquet_dir, jobs, sample_seed = saving.db, saving.parquet_dir, settings.jobs, settings.followup_seed
    assert settings.max_seconds is not None and settings.followup_seconds is not None  # said by winrate
    max_seconds, followup_seconds = settings.max_seconds, settings.followup_seconds
    if plan_only:
        p = planned(r, target, db=db, parquet=parquet_dir, sample_seed=sample_seed, followup_threads=jobs)
        if p is None:
            return _plan_before_the_first_deal(r, target, db or parquet_dir or "", max_seconds, followup_seconds,
                                               jobs, as_json)
        click.echo(json.dumps({"plan": p.__dict__, "more_core_seconds": p.more_core_seconds}) if as_json else str(p))
        return 0
    store = saving.open()
    assert store is not None  # said by winrate
    bar = _StudyProgress(r.name, enabled=not quiet)
    fbar = _StudyProgress(f"{r.name} follow-up", enabled=not quiet)

    def say(line: str) -> None:
        bar.close()
        fbar.close()
        if not quiet:
            click.echo(line, err=True)

    if not quiet and planned(r, target, db=db, parquet=parquet_dir, followup_threads=jobs) is None:
        from ...studies.priors import pilot_cost  # nothing stored yet: say what the pilot spends before it does

        cores = jobs or os.cpu_count() or 1
        core, wall = pilot_cost(max_seconds, followup_seconds, cores, pilot)
        click.echo(f"the pilot: {pilot:,} deals at {max_seconds:g} s, then up to {PILOT_FOLLOWUPS} follow-ups at "
                   f"{followup_seconds:g} s: at most {core:,.0f} core-s ({wall / 3600:.1f} h on {cores} "
                   f"core{'' if cores == 1 else 's'}); "
                   f"then the plan from what it measured (Ctrl-C keeps every finished deal)", err=True)
    try:
        wr, p = run_to_target(r, target, settings, store=store, pilot=pilot, say=say, progress=bar,
                              followup_progress=fbar)
    except KeyboardInterrupt as e:
        bar.close()
        fbar.close()
        store.close()
        held = planned(r, target, db=db, parquet=parquet_dir, followup_threads=jobs)
        counts = "" if held is None else f" ({held.done_deals:,} deals and {held.done_followups:,} follow-ups in all)"
        click.echo(f"\ncanfield: {'terminated' if was_terminated(e) else 'interrupted'}; finished deals are "
                   f"saved in {db or parquet_dir}{counts}: run the same command again to resume", err=True)
        return 143 if was_terminated(e) else 130
    finally:
        bar.close()
        fbar.close()
        store.close()
    if as_json:
        click.echo(json.dumps({**wr.to_dict(), "plan": p.__dict__}))
    else:
        click.echo(str(wr))
        tp = wr.two_phase
        reached = "" if tp is None else f"±{100 * (tp.interval[1] - tp.interval[0]) / 2:.2f} points, "
        click.echo(f"target ±{target:g} points reached ({reached}recounted from the store); method: stratified "
                   f"two-phase estimate (Cochran §12.3), follow-up unknowns counted both ways; the last {p}")
    return 0


def _count_done(saving: _Saving, kept: "Rules | GameKey", settings: StudySettings, seeds: SeedSet) -> int:
    """The first pass's deals done in the store ``saving`` names (read anew: after a close)."""
    from ...studies.stores import open_stored

    st = open_stored(saving.db if saving.parquet_dir is None else None, saving.parquet_dir)
    if st is None:
        return 0
    try:
        return st.count_done(kept, settings.max_seconds, seeds.ranges(), max_nodes=settings.max_nodes)
    finally:
        st.close()


def _summary(rules: "Rules | GameKey", seeds: SeedSet, db: str | None, parquet_in: str | None, as_json: bool,
             followup_seed: int = 0, everything: bool = False) -> int:
    """``winrate --summary``: the intervals recounted from a store or a Parquet export, nothing searched;
    ``everything``: over every seed stored (no --seeds given)."""
    if (db is None) == (parquet_in is None):
        raise UserError("--summary needs exactly one of --db FILE or --parquet FILE")
    wr = stored_win_rate(rules, seeds, db=db, parquet=parquet_in)
    tp = stored_two_phase(rules, seeds, db=db, parquet=parquet_in, sample_seed=followup_seed)
    if tp is not None:
        wr = dataclasses.replace(wr, two_phase=tp)
    if as_json:
        from ...studies.stores.inventory import store_contents

        out = wr.to_dict()
        held = next((h for h in store_contents(db=db, parquet=parquet_in) if h.rules == rules.name), None)
        # The limits the rows were searched at (every seed of these rules in the store: "2 s" -> deals), and
        # max_seconds where they all share one.
        limits: dict[str, int] = {} if held is None else held.limits
        out["limits"] = limits
        seconds = {float(k.split(" s")[0]) for k in limits if " s" in k}
        if out.get("max_seconds") is None and len(seconds) == 1 and all(" s" in k for k in limits):
            out["max_seconds"] = seconds.pop()
        click.echo(json.dumps(out))
    else:
        click.echo(str(wr))
        if everything:
            click.echo(f"over every deal stored of {rules.name} ({wr.deals:,}); --seeds A:B for a part")
        else:
            missing = len(seeds) - wr.deals
            if missing:
                click.echo(f"{missing:,} of the {len(seeds):,} seeds asked for have no stored result")
    return 0


@cli.command()
@click.option("--db", "db", type=click.Path(dir_okay=False, exists=True), required=True, callback=not_blank,
              help="The result store.")
@click.option("--csv", "csv_out", type=click.Path(dir_okay=False), default=None, callback=not_blank,
              help="CSV file to write.")
@click.option("--parquet", "parquet_out", type=click.Path(dir_okay=False), default=None, callback=not_blank,
              help="Parquet file to write (streamed; needs the 'parquet' extra).")
def export(db: str, csv_out: str | None, parquet_out: str | None) -> int:
    """Write every stored result to CSV or Parquet (one row per rules and seed)."""
    startup.settle()  # long work ahead: the collector runs as usual (startup.py)
    if (csv_out is None) == (parquet_out is None):
        raise UserError("give exactly one of --csv FILE or --parquet FILE")
    with open_result_store(db, create=False) as st:
        out = csv_out or parquet_out
        n = st.export_csv(csv_out) if csv_out else export_parquet(st.iter_rows(), str(parquet_out))
    click.echo(f"wrote {n} rows to {out}", err=True)
    return 0


@cli.command()
@click.option("--db", "db", type=click.Path(dir_okay=False), default=None, callback=not_blank,
              help="A SQLite result store (--db of winrate, pick, analyze).")
@click.option("--parquet", "parquet_in", type=click.Path(), default=None, callback=not_blank,
              help="A --parquet-dir dataset folder, or a Parquet file from export --parquet.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object a rules set, a line each.")
def stored(db: str | None, parquet_in: str | None, as_json: bool) -> int:
    """What a result store holds: for each rules set its deals and verdicts, seed spans, the limits they
    were searched at and the solver versions (nothing is searched or written)."""
    from ...studies.stores.inventory import store_contents

    if (db is None) == (parquet_in is None):
        raise UserError("give exactly one of --db FILE or --parquet PATH")
    held = store_contents(db=db, parquet=parquet_in)
    for h in held:
        click.echo(json.dumps(h.to_dict()) if as_json else str(h))
    if not as_json:
        where = db or parquet_in
        click.echo(f"{len(held)} rules set{'s' if len(held) != 1 else ''} in {where}"
                   + ("; winrate --summary --rules NAME recounts one" if held else ""), err=True)
    return 0


def _n(count: int, noun: str) -> str:
    """``count`` and ``noun``, the noun plural unless there is one (``1 deal``, ``2 deals``)."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


class _PickProgress:
    """One line on stderr, redrawn in place, on a terminal only: numbers looked at, deals picked of the count,
    numbers a second."""

    def __init__(self, count: int, difficulty: str, first: int):
        self.count, self.difficulty, self.first = count, difficulty, first
        self.enabled = sys.stderr.isatty()
        self.t0 = time.perf_counter()
        self.drawn = False

    def show(self, looked: int, found: int) -> None:
        if not self.enabled:
            return
        secs = time.perf_counter() - self.t0
        rate = f" · {looked / secs:,.1f} numbers/s" if secs > 0 and looked else ""
        click.echo(f"\r\x1b[Kpicked {found} of {self.count} {self.difficulty} · looked at {looked:,} numbers "
                   f"from {self.first}{rate}", err=True, nl=False)
        self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            click.echo("\r\x1b[K", err=True, nl=False)
            self.drawn = False


def _pick_interrupted(e: KeyboardInterrupt, pack: "PackFile | None", picked: int, out: str | None,
                      looked: int) -> int:
    """What a Ctrl-C (or SIGTERM) during ``pick`` says, after the pack keeps the ``picked`` deals so far (an
    older pack kept where none was picked); the exit status."""
    wrote = ""
    if pack is not None:
        where = pack.stop()  # the picks so far, each checked and written as it came; an older pack kept
        if where is None:
            wrote = f"; no deal picked, {out} " + ("left as it was" if os.path.exists(out or "") else "not written")
        elif where == out:
            wrote = f"; wrote the {picked} deals picked so far to {out}"
        else:
            wrote = f"; the {picked} deals picked so far are in {where} ({out} is as it was)"
    seen = (f"after {looked:,} number{'' if looked == 1 else 's'}" if looked
            else "before the first number was analysed")
    click.echo(f"canfield: {'terminated' if was_terminated(e) else 'interrupted'} {seen}{wrote}", err=True)
    return 143 if was_terminated(e) else 130


def _say_picked(picked: "list[StoredResult]", out: str | None, as_json: bool, numbering: str) -> None:
    """The end of a ``pick``: where the pack went, and the picks as JSON where asked."""
    if out:
        click.echo(f"wrote {len(picked)} deals to {out}", err=True)
    if as_json:
        key = "pysolfc_game" if numbering == "pysolfc" else "seed"
        click.echo(json.dumps([{key: p.seed, "rating": p.rating, "nodes": p.nodes,
                                "solution_length": p.solution_length} for p in picked]))


@cli.command()
@deal_source("none")
@click.option("--difficulty", type=click.Choice(DIFFICULTIES), default="any",
              show_default=True, help="Rating of the deals to print (see 'canfield analyze').")
@click.option("--count", type=Whole(1, 1_000_000), default=10, show_default=True, help="How many seeds.")
@click.option("--start", type=Whole(0, 2**64 - 1), default=None,
              help="First seed to consider (default 0).")
@click.option("--pysolfc", "pysolfc", type=Whole(1, 10**20 - 1), default=None, metavar="START",
              help="Pick PySolFC game numbers from START instead of seeds (rules default to pysolfc-canfield).")
@click.option("--max-candidates", type=Whole(min=1), default=None,
              help="Give up after analysing this many seeds (default: 200 x --count).")
@click.option("--jobs", "-j", type=Whole(min=1), default=None, help="Local worker processes.")
@click.option("--max-seconds", type=SECONDS, default=10.0, show_default=True,
              help="Time limit per deal.")
@click.option("--db", "db", type=click.Path(dir_okay=False), default=None, callback=not_blank,
              help="Result store: analysed deals are saved and reused.")
@click.option("--out", "out", type=click.Path(dir_okay=False, writable=True), default=None, callback=not_blank,
              help="Also write a deal pack: each deal with its layout, winning line, rating and metrics.")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl", show_default=True,
              help="Pack format for --out: JSON lines (loadable into a game) or a short CSV table.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of {seed, rating, ...}.")
def pick(rules_name: str | None, rules_file: str | None, difficulty: str, count: int, start: int | None,
         pysolfc: int | None, max_candidates: int | None, jobs: int | None, max_seconds: float | None, db: str | None,
         out: str | None, fmt: str, as_json: bool) -> int:
    """Print winnable seeds of a given difficulty rating, one per line (and write them as a pack with --out)."""
    startup.settle()  # long work ahead: the collector runs as usual (startup.py)
    if start is not None and pysolfc is not None:
        raise UserError("give --start or --pysolfc, not both")
    numbering = "pysolfc" if pysolfc is not None else "spec"
    first = pysolfc if pysolfc is not None else (start or 0)
    r = resolve_rules(rules_name, rules_file, fallback="pysolfc-canfield" if pysolfc is not None else None)
    settings = StudySettings(max_seconds=max_seconds, jobs=jobs, numbering=numbering)
    picker = Picker(r, settings, difficulty=difficulty, count=count, first=first, max_candidates=max_candidates)
    picked: list[StoredResult] = []
    picker.store = open_result_store(db) if db else None
    bar = _PickProgress(count, difficulty, first)
    pack = None
    try:
        with interrupts_held():  # the pack's .part file and ``pack`` come together: a Ctrl-C between them left it
            pack = PackFile(out, fmt) if out else None
        if out:
            prepare_kernel()  # the pack's winning lines are found again in this process
        else:
            workers_compile_notice()

        def emit(row: StoredResult) -> None:
            with interrupts_held():  # a Ctrl-C waits until the pick is in the pack, printed and counted
                if pack is not None:
                    pack.add(pack_entry(row, r, numbering))
                if not as_json:
                    bar.clear()
                    click.echo(f"{row.seed}\t{row.rating}")  # each pick as it is known, in number order
                picked.append(row)
            bar.show(picker.looked, len(picked))

        picker.run(emit, progress=bar.show)
        if pack is not None:
            pack.finish()  # the old file, if any, is replaced only by a pack
    except KeyboardInterrupt as e:
        bar.clear()
        return _pick_interrupted(e, pack, len(picked), out, picker.looked)
    finally:
        bar.clear()
        if pack is not None:
            pack.close()
        if picker.store is not None:
            picker.store.close()
    _say_picked(picked, out, as_json, numbering)
    if len(picked) < count:
        click.echo(f"canfield: found {len(picked)} of {count} {difficulty} deals in {picker.looked} numbers "
                   f"from {first}; raise --max-candidates", err=True)
        return 1
    return 0


@cli.command()
@click.argument("pack", type=click.Path(dir_okay=False, allow_dash=True), callback=not_blank)
def verify(pack: str) -> int:
    """Re-check a deal pack (from `pick --out`): every deal is its number's deal and its winning line wins.

    Prints each line that fails and why; exits 0 when all hold, 1 otherwise.
    """
    startup.settle()  # long work ahead: the collector runs as usual (startup.py)
    try:
        fh = sys.stdin if pack == "-" else open(pack, encoding="utf-8")  # noqa: SIM115
    except OSError as e:
        raise UserError(f"cannot read pack {pack!r}: {e.strerror}") from None
    good = bad = 0
    try:
        for line, number, why in verify_pack(fh):
            if why is None:
                good += 1
            else:
                bad += 1
                click.echo(f"line {line}" + ("" if number is None else f" (deal {number})") + f": {why}")
    except UnicodeDecodeError:
        raise UserError(f"pack {pack!r} is not UTF-8 text") from None
    finally:
        if fh is not sys.stdin:
            fh.close()
    click.echo(f"{good} deals hold, {bad} do not")
    return 0 if bad == 0 and good > 0 else 1
