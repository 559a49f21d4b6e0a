"""What every ``canfield`` command shares: the group that turns every error into one line and an exit code,
the deal-source, rules and limit options, the first-run notices of the kernel compile (each on a line of
its own: the run's progress lines are erased first), notes an option leaves for after the command, and the
whole command to run next after ``unknown`` (``go_further``). What one run of a command keeps is one
``RunState`` in click's context (``run_state()``), made afresh for each run: nothing of one command stays
in the module for the next (a process may run several: the tests, a notebook, the PySolFC bridge)."""

from __future__ import annotations

import functools
import importlib
import os
import re
import signal
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass, field
from types import FrameType, MappingProxyType
from typing import Any, Callable, Protocol, Sequence, TypeVar

import click

from ... import compiles, startup
from ...engine.deal import Deal, check_seed
from ...engine.rules import PRESETS, Rules, get_rules
from ...errors import CanfieldError
from ...formats import pysolfc_deal, read_deal
from ...solver import (
    DEFAULT_MEMORY_MB,
    Compiling,
    Verdict,
    further_limits,
    kernel_ready,
    load_kernel,
)

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 70  # a bug (sysexits EX_SOFTWARE): reported in one line, never as a traceback
EXIT_CODES = MappingProxyType({Verdict.SOLVED: 0, Verdict.UNSOLVABLE: 1, Verdict.UNKNOWN: 3})


class UserError(click.ClickException):
    exit_code = EXIT_BAD_INPUT


class Whole(click.IntRange):
    """``click.IntRange`` that calls its values whole numbers ("'abc' is not a valid whole number")."""

    name = "whole number"


class _Seconds(click.FloatRange):
    """A positive time limit in seconds; ``inf`` means none and becomes None, the API's "no limit", here at the
    parsing (``finite``: refused instead); ``nan`` is refused."""

    name = "seconds"

    def __init__(self, finite: bool = False):
        super().__init__(min=0, min_open=True)
        self.finite = finite

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value is None:
            return None
        v = super().convert(value, param, ctx)
        if v != v:
            self.fail("must be a number of seconds, not nan", param, ctx)
        if v == float("inf"):
            if self.finite:
                self.fail("must be a finite number of seconds", param, ctx)
            return None
        return v


SECONDS = _Seconds()  # a limit: inf is None, no limit
FINITE_SECONDS = _Seconds(finite=True)  # a time that must end (the play server's meter)


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, systemd, a container runtime), raised where Ctrl-C would be: every clean-up that
    Ctrl-C runs (a study's worker processes ended, its finished deals kept) runs for it too."""


class Redrawn(Protocol):
    """A progress line redrawn in place on stderr: a notice erases it first (``clear``)."""

    def clear(self) -> None: ...


@dataclass
class RunState:
    """What one run of a command keeps (click's context holds it: ``run_state()``).

    argv
        The words after ``canfield`` (``go_further`` builds the next command from them).
    notes
        Lines an option leaves for after the command (``say_notes``; dropped when it ends in an error).
    live
        Progress lines being redrawn in place on stderr (objects with ``clear()``): a notice erases them first.
    terminated
        SIGTERM came (a search may have turned it into its "interrupted" limit).
    started
        When the command began (``startup.command_started``, on ``time.monotonic``'s clock): what its
        ``--max-seconds`` counts from.
    """

    argv: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    notes: list[str] = field(default_factory=list)
    live: list[Redrawn] = field(default_factory=list)
    terminated: bool = False


def run_state() -> RunState:
    """The running command's ``RunState``; a fresh one where no command runs (a library caller)."""
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx is not None else None
    return obj if isinstance(obj, RunState) else RunState()


def was_terminated(e: BaseException) -> bool:
    """Whether the interrupt ``e`` that ends a command came from SIGTERM: ``Terminated`` itself, or the plain
    ``KeyboardInterrupt`` a study raises when a search it ran in this process ended "interrupted"."""
    return isinstance(e, Terminated) or run_state().terminated


class _Group(click.Group):
    """Turns every usage error and ``CanfieldError`` into one line and exit code 2; imports a command's module
    when the command is asked for."""

    # The modules of this package that define commands, and their commands: a module is imported when one of
    # its commands runs (``--help`` lists them all), so that ``canfield solve`` does not import the studies'
    # or the play server's machinery (tests/test_cli.py checks this table against the modules).
    LAZY = {"one_deal": ("deal", "check", "hint", "solve", "analyze", "show", "rules"),
            "studies": ("winrate", "export", "stored", "pick", "verify"),
            "play": ("play",),
            "pysolfc": ("pysolfc",),
            "warmup": ("warmup",)}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *(name for names in self.LAZY.values() for name in names)})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            for module, names in self.LAZY.items():
                if cmd_name in names:
                    importlib.import_module(f"{__package__}.{module}")
        return super().get_command(ctx, cmd_name)

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        state = RunState(argv=list(sys.argv[1:] if args is None else args),  # this run's, and no other's
                         started=startup.command_started())

        def on_sigterm(signum: int, frame: FrameType | None) -> None:
            state.terminated = True
            raise Terminated()

        on_main = threading.current_thread() is threading.main_thread()
        before = signal.signal(signal.SIGTERM, on_sigterm) if on_main else None
        notices = CompileNotices(state)
        compiles.listeners.append(notices)
        try:
            self._main(args, prog_name, complete_var, state, **extra)
        finally:
            compiles.listeners.remove(notices)
            notices.close()
            if on_main and before is not None:
                signal.signal(signal.SIGTERM, before)

    def _main(self, args: Sequence[str] | None, prog_name: str | None, complete_var: str | None, state: RunState,
              **extra: Any) -> Any:
        try:
            rv = super().main(args, prog_name or "canfield", complete_var, standalone_mode=False, obj=state, **extra)
        except click.exceptions.Abort as e:
            if isinstance(e.__cause__, Terminated):
                click.echo("canfield: terminated", err=True)
                sys.exit(143)
            click.echo("canfield: interrupted", err=True)
            sys.exit(130)
        except click.exceptions.NoSuchOption as e:
            if re.fullmatch(r"-\d[\d_]*", e.option_name or ""):  # ``deal -1``: a number, not an option
                click.echo(f"canfield: error: {e.option_name} is not a seed: seeds are whole numbers "
                           f"0 <= seed < 2**64", err=True)
            else:
                click.echo(f"canfield: error: {e.format_message()}", err=True)
            sys.exit(e.exit_code)
        except click.ClickException as e:
            click.echo(f"canfield: error: {e.format_message()}", err=True)
            sys.exit(e.exit_code)
        except CanfieldError as e:
            click.echo(f"canfield: error: {e}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except sqlite3.Error as e:  # the result store failed half-way: locked, disk full, removed
            click.echo(f"canfield: error: result store: {e}; the deals finished before this are kept", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except OSError as e:  # a file the user named turned out unusable half-way (full disk, removed, ...)
            where = f" {e.filename!r}" if e.filename else ""
            click.echo(f"canfield: error: cannot use{where}: {e.strerror or e}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except Exception as e:  # never a traceback; this is a bug to report
            click.echo(f"canfield: internal error ({type(e).__name__}: {e}); please report it", err=True)
            sys.exit(EXIT_INTERNAL)
        code = rv if isinstance(rv, int) else 0
        if code != EXIT_BAD_INPUT:  # bad input gets its one line alone; a command that ran says its notes last
            say_notes(state)
        sys.exit(code)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="canfield-solver", prog_name="canfield")
def cli() -> None:
    """Decide Canfield solitaire deals, show winning moves, prove lost ones lost."""


# --- Options ------------------------------------------------------------------------------------

_F = TypeVar("_F", bound=Callable[..., object])  # a command function, which click's decorators give back
_V = TypeVar("_V")


def not_blank(ctx: click.Context, param: click.Parameter, value: _V) -> _V:
    """Refuse an empty or blank text value (``--rules ""`` would otherwise mean the default)."""
    if isinstance(value, str) and not value.strip():
        raise click.BadParameter("must not be empty")
    return value


def _rules_options(f: _F, deal_file: bool) -> _F:
    """--rules and --rules-file; ``deal_file``: the command reads a deal file, whose rules are the default."""
    f = click.option(
        "--rules-file", "rules_file", type=click.Path(dir_okay=False), default=None, callback=not_blank,
        help="A JSON file of Rules parameters (overrides --rules).",
    )(f)
    default = "default canfield, or the deal file's" if deal_file else "default canfield"
    return click.option(
        "--rules", "-r", "rules_name", default=None, metavar="PRESET", callback=not_blank,
        help=f"Rules preset: {', '.join(PRESETS)} ({default}).",
    )(f)


def _pysolfc_option(f: _F) -> _F:
    return click.option(
        "--pysolfc", "pysolfc", default=None, metavar="N", callback=not_blank,
        help="PySolFC game number N (needs the 'pysolfc' extra); rules default to pysolfc-canfield.",
    )(f)


def _seed_option(help: str, name: str = "seed") -> Callable[[_F], _F]:
    return click.option("--seed", "-s", name, type=Whole(0, 2**64 - 1), default=None, help=help)


def _folded(f: _F) -> _F:
    """The positional DEAL of ``deal_source("any")`` folded into --seed or --deal."""

    @functools.wraps(f)
    def folded(*args: Any, deal_arg: str | None = None, **kw: Any) -> Any:
        if deal_arg is not None:
            if any(kw.get(k) is not None for k in ("seed", "deal_file", "pysolfc")):
                raise UserError(f"the deal is given twice: {deal_arg!r} and --seed/--deal/--pysolfc; give one")
            if not deal_arg.strip():
                raise UserError("Invalid value for '[SEED|FILE]': must not be empty")
            if deal_arg.strip().isdigit() and not os.path.exists(deal_arg):
                kw["seed"] = check_seed(int(deal_arg))
            else:
                kw["deal_file"] = deal_arg
        return f(*args, **kw)

    return folded  # type: ignore[return-value]


DEAL_SOURCES = ("any", "seed", "moves", "none")


def deal_source(takes: str) -> Callable[[_F], _F]:
    """The options that say where a command's deal comes from, and its rules (one decorator for all):

    - ``"any"`` (solve, analyze, show, play): [SEED|FILE] | --seed N | --deal FILE | --pysolfc N. The
      positional DEAL is a seed number or, when a file of that name exists or it is no number, a deal file
      (as ``deal``, ``check`` and ``hint`` read theirs); it stands for --seed or --deal.
    - ``"seed"`` (deal): [SEED] | --seed N (as ``seed_opt``) | --pysolfc N.
    - ``"moves"`` (check, hint): [DEAL] MOVES (as ``args``) | --seed N and MOVES | --pysolfc N.
    - ``"none"`` (winrate, pick): no deal, only the rules (their default: canfield).
    """
    if takes not in DEAL_SOURCES:
        raise ValueError(f"deal_source takes one of {DEAL_SOURCES}, not {takes!r}")

    def wrap(f: _F) -> _F:
        g: Any = f
        if takes == "none":
            return _rules_options(g, deal_file=False)
        if takes == "any":
            g = _folded(g)
        g = _rules_options(g, deal_file=True)
        g = _pysolfc_option(g)
        if takes == "any":
            g = click.option("--deal", "deal_file", type=click.Path(dir_okay=False), default=None,
                             callback=not_blank, help="Deal or position JSON file (ours, or the published solver's).")(g)
            g = _seed_option("Deal number (SPEC §2); the same as giving it as the argument.")(g)
            return click.argument("deal_arg", required=False, metavar="[SEED|FILE]")(g)
        if takes == "seed":
            g = _seed_option("Deal number (SPEC §2); the same as giving it as the argument.", "seed_opt")(g)
            return click.argument("seed", type=Whole(0, 2**64 - 1), required=False)(g)
        g = _seed_option("Deal number (SPEC §2): then MOVES is the only argument.")(g)
        return click.argument("args", nargs=-1, metavar="[DEAL] MOVES")(g)

    return wrap


def search_limit_options(f: _F) -> _F:
    """--max-seconds, --max-nodes, --max-memory: the limits of one search (solve, hint)."""
    f = memory_option("Transposition table cap in MiB (growth included); a full table stops with 'unknown'.")(f)
    f = click.option("--max-nodes", type=Whole(min=1), default=None,
                     help="Stop with 'unknown' after this many nodes of search (every phase's counted).")(f)
    return click.option("--max-seconds", type=SECONDS, default=60.0, show_default=True,
                        help="Stop with 'unknown' this long after the command started (start-up and a first "
                             "compile included); the time printed is that clock.")(f)


def memory_option(help: str) -> Callable[[_F], _F]:
    """--max-memory: the table cap of a search, in MiB."""
    return click.option("--max-memory", "max_memory_mb", type=Whole(min=1), default=None,
                        callback=_memory_checked,
                        help=help + " Default: half of the memory this machine has free (at least 720 while it "
                                    "has that much), shared by the searches that run at once.")


def _memory_checked(_ctx: click.Context, _param: click.Parameter, value: int | None) -> int | None:
    """An explicit cap larger than the memory free is reduced to it; the line that says so waits in
    run's notes until the command has run (``say_notes``), so bad input still gets its one line alone."""
    if value is None:
        return None
    from ... import memory

    mb, note = memory.checked(value)
    if note:
        run_state().notes.append(f"canfield: {note}")
    return mb


def say_notes(state: RunState) -> None:
    """Print the options' waiting lines on stderr (once)."""
    while state.notes:
        click.echo(state.notes.pop(0), err=True)


# --- Deals --------------------------------------------------------------------------------------


def resolve_rules(rules_name: str | None, rules_file: str | None, fallback: str | None = None) -> Rules:
    if rules_file:
        return Rules.from_json_file(rules_file)
    return get_rules(rules_name or fallback or "canfield")


def load_deal(seed: int | None, deal_file: str | None, rules_name: str | None, rules_file: str | None,
              pysolfc: str | None = None) -> Deal:
    if sum(x is not None for x in (seed, deal_file, pysolfc)) != 1:
        raise UserError("give exactly one of --seed N, --deal FILE or --pysolfc N")
    if seed is not None:
        return Deal.from_seed(seed, resolve_rules(rules_name, rules_file))
    if pysolfc is not None:
        return pysolfc_deal(pysolfc, resolve_rules(rules_name, rules_file, fallback="pysolfc-canfield"))
    assert deal_file is not None
    if rules_name or rules_file:
        return read_deal(deal_file, resolve_rules(rules_name, rules_file))
    return read_deal(deal_file)


def deal_argument(text: str, rules_name: str | None, rules_file: str | None) -> Deal:
    """DEAL as a deal JSON file (ours or the published solver's) or, when no such file exists, a seed number."""
    if text.strip().isdigit() and not os.path.exists(text):
        return Deal.from_seed(int(text), resolve_rules(rules_name, rules_file))  # engine.deal.check_seed: range
    return load_deal(None, text, rules_name, rules_file)


def deal_and_moves(args: tuple[str, ...], pysolfc: str | None, rules_name: str | None,
                   rules_file: str | None, seed: int | None = None) -> tuple[Deal, str]:
    """``[DEAL] MOVES``: DEAL is left out exactly when --pysolfc N or --seed N gives the deal."""
    if seed is not None and pysolfc is not None:
        raise UserError("give --seed N or --pysolfc N, not both")
    given = "--pysolfc N" if pysolfc is not None else "--seed N" if seed is not None else None
    want = 1 if given else 2
    if len(args) != want:
        usage = f"{given} MOVES" if given else "DEAL MOVES"
        raise UserError(f"expected {usage} ({want} argument{'s' if want > 1 else ''}), got {len(args)}")
    for name, value in zip(("DEAL", "MOVES")[2 - want:], args):
        if not value.strip():
            raise UserError(f"Invalid value for '{name}': must not be empty")
    if given:
        return load_deal(seed, None, rules_name, rules_file, pysolfc), args[0]
    return deal_argument(args[0], rules_name, rules_file), args[1]


def where(d: Deal, fallback: str = "deal") -> str:
    if d.pysolfc_game is not None:
        return f"PySolFC game {d.pysolfc_game}"
    return f"seed {d.seed}" if d.seed is not None else fallback


# --- The kernel's first compile, said on stderr (stdout stays clean) -----------------------------


def _about(seconds: float, source: str) -> str:
    if source == "this machine":
        return f"~{seconds:.0f} s, as its last compile here took"
    return f"~{seconds:.0f} s on the development machine"


class CompileNotices:
    """``compiles.Notice``s as lines on stderr (stdout stays clean); on a terminal, while a compile runs in
    this process, a line that counts its seconds."""

    def __init__(self, state: RunState) -> None:
        self._state = state
        self._done: threading.Event | None = None
        self._thread: threading.Thread | None = None

    def __call__(self, n: compiles.Notice) -> None:
        for line in self._state.live:  # a progress line being drawn: the notice goes on a line of its own
            line.clear()
        if n.phase == "start":
            click.echo(f"compiling {n.name}, the first run of this install only ({_about(n.seconds, n.source)})...",
                       err=True)
            self._tick(n.seconds)
        elif n.phase == "background":
            click.echo(f"compiling {n.name} in the background, the first run of this install only "
                       f"({_about(n.seconds, n.source)}); searching meanwhile without it", err=True)
        elif n.phase == "wait":
            click.echo(f"waiting for another process to finish compiling {n.name} ({_about(n.seconds, n.source)})...",
                       err=True)
        elif n.phase == "end":
            self._untick()
            click.echo(f"compiled {n.name} in {n.seconds:.1f} s; later runs load it from the cache", err=True)

    def _tick(self, expect: float) -> None:
        if not sys.stderr.isatty():
            return
        done = self._done = threading.Event()
        t0 = time.monotonic()

        def run() -> None:
            while not done.wait(1.0):
                sys.stderr.write(f"\r  {time.monotonic() - t0:4.0f} s of ~{expect:.0f} s")
                sys.stderr.flush()
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()

        self._thread = threading.Thread(target=run, name="compile-ticker", daemon=True)
        self._thread.start()

    def _untick(self) -> None:
        if self._done is not None and self._thread is not None:
            self._done.set()
            self._thread.join()
        self._done = self._thread = None

    def close(self) -> None:
        self._untick()


def prepare_kernel() -> None:
    """Load the search kernel before a command's searches (a compile, the first time, is said on stderr by
    the ``CompileNotices`` every command installs)."""
    load_kernel()


def workers_compile_notice() -> None:
    """For commands whose searches run in worker processes: say so when they must compile first (the first
    worker compiles, under the machine's compile lock; the others wait for it and load)."""
    if not kernel_ready():
        secs, source = compiles.estimate("kernel")
        click.echo(f"compiling the search kernel in a worker process, the first run of this install only "
                   f"({_about(secs, source)})...", err=True)


# --- The command's clock -----------------------------------------------------------------------

EXIT_MARGIN = 0.1  # seconds a command keeps, of its --max-seconds, to say its answer after its searches


def time_left(max_seconds: float | None) -> float | None:
    """What is left now of a command's ``--max-seconds``, counted from its start (for the ``canfield`` command,
    its process's start, the imports included: ``startup.command_started``), less ``EXIT_MARGIN``: the
    ``max_seconds`` to give the API, so that the command ends within its limit. None: no limit."""
    if max_seconds is None:
        return None
    return max(0.0, max_seconds - command_seconds() - EXIT_MARGIN)


def command_seconds() -> float:
    """The running command's time so far (``RunState.started``): the clock ``--max-seconds`` bounds."""
    return time.monotonic() - run_state().started


def clock(search_seconds: float | None = None) -> str:
    """The command's time so far, the clock ``--max-seconds`` bounds, and how much of it was search."""
    took = f"{command_seconds():.2f} s"
    return took if search_seconds is None else f"{took} ({search_seconds:.3f} s of search)"


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def compiling_words(waiting: list[Compiling]) -> tuple[str, str] | None:
    """For a result that ran without some searches because their first compile was not done
    (``SolveResult.compiling_now``): a clause for the verdict line and the advice; None when none."""
    if not waiting:
        return None
    going = [w for w in waiting if w.compiling_for is not None]
    done = [w.name for w in waiting if w.compiling_for is None]
    clauses = []
    to_go = 0.0
    if going:
        so_far = max(float(w.compiling_for or 0.0) for w in going)
        to_go = max(w.expected_seconds - float(w.compiling_for or 0.0) for w in going)
        clauses.append(f"searched without {_names([w.name for w in going])}: still compiling in another process "
                       f"({so_far:.0f} s so far" + (f", about {to_go:.0f} s to go)" if to_go >= 1 else ")"))
    if done:
        clauses.append(f"{'and' if going else 'searched'} without {_names(done)}, compiled since")
    when = "in about {:.0f} s, once compiled".format(max(1.0, to_go)) if going else "now"
    return "; ".join(clauses), f"run it again {when}: the whole search may decide it"


# --- Unknown verdicts, for a person -------------------------------------------------------------


def why_stopped(limit: str | None) -> str:
    """Why a search ended ``unknown``, for a person: Ctrl-C, or the limit that stopped it."""
    if limit is None:
        return "stopped before a verdict"
    return "interrupted (Ctrl-C)" if limit == "interrupted" else f"stopped by the {limit} limit"


_FLAGS = (("max_nodes", "--max-nodes"), ("max_memory_mb", "--max-memory"), ("max_seconds", "--max-seconds"),
          ("workers", "--jobs"))


_SHORT = MappingProxyType({"--jobs": "-j"})


def next_command(argv: list[str], options: dict[str, str]) -> str:
    """The command line ``argv`` (the words after ``canfield``) with each of ``options`` (flag -> value) set
    to its value, every other word kept as the user gave it: a line to paste."""
    import shlex

    out: list[str] = []
    it = iter(argv)
    for word in it:
        flag = word.split("=", 1)[0]
        if flag in options or any(_SHORT.get(f) == flag for f in options):
            if "=" not in word:
                next(it, None)  # its value
            continue
        out.append(word)
    for flag, value in options.items():
        out += [flag, value]
    return shlex.join(["canfield", *out])


def go_further(limit: str | None, max_seconds: float | None, max_nodes: int | None, max_memory_mb: int | None,
               workers: int | None, argv: list[str] | None = None) -> str | None:
    """``solver.further_limits`` as the whole command to run next (``argv``, by default the command being
    run, ``run_state().argv``, with the limits raised); after Ctrl-C the same command; None when there is nothing to
    raise."""
    if limit == "interrupted":  # Ctrl-C: the same command searches again (nothing of this search is kept)
        return "to search again, run: " + next_command(run_state().argv if argv is None else argv, {})
    more = further_limits(limit, max_seconds, max_nodes, max_memory_mb or DEFAULT_MEMORY_MB, workers)
    if not more:
        return None
    options = {flag: (f"{more[key]:g}" if key == "max_seconds" else str(more[key]))
               for key, flag in _FLAGS if key in more}
    return "to go further, run: " + next_command(run_state().argv if argv is None else argv, options)


def mostly_undecided(rules: Rules) -> str | None:
    """A line for an ``unknown`` under rules whose deals mostly stay undecided in the project's own study
    (studies.priors: a quarter or more unknown at its first-pass limit), so the advice to raise the limits
    comes with what to expect; None for other rules."""
    from ...studies.priors import prior

    pr = prior(rules)
    if pr is None or pr.deals == 0 or pr.unknown < pr.deals / 4:
        return None
    many = "most" if pr.unknown >= pr.deals / 2 else "many"
    return (f"note: under {rules.name} {many} deals stay undecided: {pr.unknown / pr.deals:.0%} of {pr.deals:,} "
            f"were unknown at {pr.first_seconds:g} s in the project's own study (docs/win-rates.md), and many "
            f"take far longer limits than that")
