"""The result store: one SQLite file, one row per (rules, seed).

Rows are written by the parent process only, each in its own transaction, so
a study killed at any moment (Ctrl-C, ``kill -9``, a dead worker) leaves a
file holding exactly the deals it finished; running the study again skips
them. A row is keyed by the rules' parameters (``rules_id``, a hash of the
``Rules`` fields), not only by the name, so two custom rule files that share
a name never mix. A row also says the limits it was searched at (``max_seconds``, ``max_nodes``) and
the search threads it had (``threads``, since schema 3); ``ADDED_COLUMNS`` are those an older store gains.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Union

from ... import _version
from ...engine.rules import Rules
from ...errors import CanfieldError
from ...files import replacing
from ...games import GameKey
from ...solver import Verdict, verdict_counts

__all__ = ["ResultStore", "StoreError", "StoredResult", "rules_id"]

SCHEMA = "canfield-solver-results"
SCHEMA_VERSION = 3  # 2: the max_nodes column; 3: the threads column (older stores gain them when opened
# for writing)
_SQLITE_MAGIC = b"SQLite format 3\x00"

COLUMNS = (
    "rules", "seed", "verdict", "nodes", "seconds", "best_score", "solution_length", "redeals",
    "max_seconds", "max_nodes", "threads", "limit_hit", "rating", "metrics", "solver_version", "rules_id", "finished_at",
)

ADDED_COLUMNS = ("max_nodes", "threads")  # added since version 1, in the order an upgrade adds them

RulesKey = Union[Rules, GameKey]  # what a study's rows are kept under: Canfield's rules, or a game's name


class StoreError(CanfieldError):
    """A file that is not a result store, or one that cannot be opened."""


_HALF = 2**63


def _db_seed(seed: int) -> int:
    """SQLite integers are signed 64-bit: seeds from 2^63 up are stored as seed - 2^64 (below 2^63, as is)."""
    return seed - 2**64 if seed >= _HALF else seed


def _py_seed(value: int) -> int:
    return value + 2**64 if value < 0 else value


def _db_ranges(lo: int, hi: int) -> list[tuple[int, int]]:
    """A half-open seed range as closed ranges of stored values, for ``seed BETWEEN ? AND ?`` (split where
    2^63 wraps round; closed, because 2^63 itself does not fit an SQLite integer)."""
    out = []
    if lo < min(hi, _HALF):
        out.append((lo, min(hi, _HALF) - 1))
    if hi > max(lo, _HALF):
        out.append((_db_seed(max(lo, _HALF)), _db_seed(hi - 1)))
    return out


def owner_id() -> str:
    """A claim owner: host, process id and a random part (a process may run several studies)."""
    import socket
    import uuid

    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _owner_dead(owner: str) -> bool:
    """True when ``owner`` is a process of this host that no longer runs: its claims need not run out first
    (a study re-run after kill -9 takes them over at once). Owners on other hosts are judged by time alone."""
    import socket

    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def rules_id(rules: RulesKey) -> str:
    """A short stable id of the rules' parameters (the name included)."""
    text = json.dumps(rules.to_dict(), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class StoredResult:
    """One row of the store."""

    rules: str
    seed: int
    verdict: str
    nodes: int
    seconds: float
    best_score: int
    solution_length: int
    redeals: int
    max_seconds: float | None
    limit_hit: str | None
    rating: str | None = None
    metrics: dict[str, object] | None = None
    solver_version: str = field(default_factory=_version.version)
    max_nodes: int | None = None
    threads: int | None = None  # the search threads the deal had (None: a row stored before they were kept)

    def __post_init__(self) -> None:
        if self.limit_hit is not None and type(self.limit_hit) is not str:  # a budget.Limit: stored as its text
            object.__setattr__(self, "limit_hit", str(self.limit_hit))

    @property
    def decided(self) -> bool:
        return self.verdict in (Verdict.SOLVED, Verdict.UNSOLVABLE)

    def to_dict(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


class _Busy(Exception):
    """The store's file is locked by another process right now (retried, then a ``StoreError``)."""


class ResultStore:
    """A SQLite result store. ``ResultStore(path)`` creates the file if it does not exist.

    Use it as a context manager, or call ``close()``.
    """

    def __init__(self, path: str | os.PathLike[str], *, create: bool = True):
        self.path = os.fspath(path)
        timeout = float(os.environ.get("CANFIELD_STORE_TIMEOUT", "30"))
        give_up = time.monotonic() + timeout
        delay = 0.01
        while True:
            try:
                self._open(create, timeout)
                return
            except _Busy as e:
                # Another process holds the file: most often a second study creating the same new
                # store at the same instant (switching a new file to WAL takes a lock SQLite's busy
                # timeout does not wait for). Try again until the store timeout runs out.
                if time.monotonic() + delay > give_up:
                    raise StoreError(str(e)) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.5)

    def _open(self, create: bool, timeout: float) -> None:
        exists = os.path.exists(self.path) and os.path.getsize(self.path) > 0
        if not exists and not create:
            raise StoreError(f"no result store at {self.path!r}")
        if exists:
            self._check_header()
        try:
            self._db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
        except sqlite3.Error as e:
            raise StoreError(f"cannot open result store {self.path!r}: {e}") from None
        try:
            if exists and self._has_tables():
                self._check_schema()  # before any write, so a foreign file is never touched
                self._upgrade()
            else:
                exists = False  # an SQLite file with no tables: another study is creating it this instant
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
            except sqlite3.OperationalError as e:  # a store this process may not write is read as it is
                if not (exists and "readonly" in str(e)):
                    raise
            self._db.execute("PRAGMA synchronous=NORMAL")
            if not exists:
                self._create()
                self._nodes_col = self._threads_col = True
        except sqlite3.DatabaseError as e:
            self._db.close()
            if "locked" in str(e) or "busy" in str(e):
                raise _Busy(f"result store {self.path!r} is locked by another process: {e}") from None
            if not exists:
                raise StoreError(f"cannot create result store {self.path!r}: {e}") from None
            raise StoreError(f"{self.path!r} is not a canfield-solver result store ({e})") from None
        except StoreError:
            self._db.close()
            raise

    # Opening ---------------------------------------------------------------
    def _check_header(self) -> None:
        try:
            with open(self.path, "rb") as fh:
                head = fh.read(16)
        except OSError as e:
            raise StoreError(f"cannot read result store {self.path!r}: {e.strerror}") from None
        if head != _SQLITE_MAGIC:
            raise StoreError(f"{self.path!r} is not a canfield-solver result store (not an SQLite file); "
                             "give a new file name or an existing store")

    def _has_tables(self) -> bool:
        return self._db.execute("SELECT 1 FROM sqlite_master WHERE type='table'").fetchone() is not None

    def _check_schema(self) -> None:
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "meta" not in tables or "results" not in tables:
            raise StoreError(f"{self.path!r} is an SQLite file but not a canfield-solver result store")
        meta = dict(self._db.execute("SELECT key, value FROM meta"))
        if meta.get("schema") != SCHEMA:
            raise StoreError(f"{self.path!r} is an SQLite file but not a canfield-solver result store")
        if int(meta.get("schema_version", 0)) > SCHEMA_VERSION:
            raise StoreError(f"{self.path!r} was written by a newer canfield-solver "
                             f"(store schema {meta['schema_version']}); upgrade to read it")

    def _upgrade(self) -> None:
        """Give an older store the columns it lacks (max_nodes, threads, in that order); a store that cannot
        be written (read-only) is read as it is: rows without max_nodes count only their time limit, rows
        without threads say none."""
        cols = {r[1] for r in self._db.execute("PRAGMA table_info(results)")}
        self._nodes_col, self._threads_col = "max_nodes" in cols, "threads" in cols
        if self._nodes_col and self._threads_col:
            return
        try:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                for col in ADDED_COLUMNS:
                    if col not in {r[1] for r in self._db.execute("PRAGMA table_info(results)")}:
                        self._db.execute(f"ALTER TABLE results ADD COLUMN {col} INTEGER")
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            self._nodes_col = self._threads_col = True
        except sqlite3.OperationalError as e:
            if "locked" in str(e) or "busy" in str(e):
                raise
            # read-only: readable as it is, not writable

    def _create(self) -> None:
        self._db.executescript(f"""
            BEGIN;
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            INSERT OR REPLACE INTO meta VALUES ('schema', '{SCHEMA}');
            INSERT OR REPLACE INTO meta VALUES ('schema_version', '{SCHEMA_VERSION}');
            CREATE TABLE IF NOT EXISTS rules (
                rules_id TEXT PRIMARY KEY, name TEXT NOT NULL, params TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS results (
                rules_id TEXT NOT NULL REFERENCES rules(rules_id),
                rules TEXT NOT NULL,
                seed INTEGER NOT NULL,
                verdict TEXT NOT NULL CHECK (verdict IN ('solved', 'unsolvable', 'unknown')),
                nodes INTEGER NOT NULL,
                seconds REAL NOT NULL,
                best_score INTEGER NOT NULL,
                solution_length INTEGER NOT NULL,
                redeals INTEGER NOT NULL,
                max_seconds REAL,
                limit_hit TEXT,
                rating TEXT,
                metrics TEXT,
                solver_version TEXT NOT NULL,
                finished_at REAL NOT NULL,
                max_nodes INTEGER,
                threads INTEGER,
                PRIMARY KEY (rules_id, seed));
            COMMIT;
        """)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Writing ---------------------------------------------------------------
    def add_rules(self, rules: RulesKey) -> str:
        rid = rules_id(rules)
        self._db.execute("INSERT OR IGNORE INTO rules VALUES (?, ?, ?)",
                         (rid, rules.name, json.dumps(rules.to_dict(), sort_keys=True)))
        return rid

    def put(self, rules: RulesKey, row: StoredResult) -> None:
        """Insert or replace one result (one transaction: a kill never leaves half a row)."""
        self.put_many(rules, [row])

    def put_many(self, rules: RulesKey, rows: Iterable[StoredResult]) -> None:
        rid = self.add_rules(rules)
        now = time.time()
        values = [
            (rid, r.rules, _db_seed(r.seed), r.verdict, r.nodes, r.seconds, r.best_score, r.solution_length, r.redeals,
             r.max_seconds, r.limit_hit, r.rating, None if r.metrics is None else json.dumps(r.metrics),
             r.solver_version, now, r.max_nodes, r.threads)
            for r in rows
        ]
        with self._db:  # one transaction
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT OR REPLACE INTO results (rules_id, rules, seed, verdict, nodes, seconds, best_score, "
                "solution_length, redeals, max_seconds, limit_hit, rating, metrics, solver_version, finished_at, "
                "max_nodes, threads) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )
            if self._has_claims():  # a stored deal needs no claim any more
                self._db.executemany("DELETE FROM claims WHERE rules_id = ? AND seed = ?",
                                     [(rid, v[2]) for v in values])

    def _has_claims(self) -> bool:
        return self._db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='claims'").fetchone() \
            is not None

    # Claims: several studies on one store divide the work -------------------------------------
    #
    # Before a study searches a chunk of deals it claims them: one row per
    # (rules, seed) naming the owner and when the claim runs out. A deal that
    # is done, or claimed by another owner whose claim has not run out, is
    # not taken; a claim whose owner died runs out and is taken over. Rows of
    # results are keyed by (rules, seed), so even a deal searched twice (a
    # claim that ran out under a slow but living owner) is stored once.

    def _claims_table(self) -> None:
        self._db.execute("CREATE TABLE IF NOT EXISTS claims (rules_id TEXT NOT NULL, seed INTEGER NOT NULL, "
                         "owner TEXT NOT NULL, until REAL NOT NULL, PRIMARY KEY (rules_id, seed))")

    def claim(self, rules: RulesKey, seeds: list[int], owner: str, lease: float, max_seconds: float | None,
              rated: bool = False, since: float = float("inf"), max_nodes: int | None = None) -> list[int]:
        """Claim the seeds no one else holds and no one has done; returns those now ``owner``'s.
        A row stored at or after ``since`` counts as done whatever its verdict (as in ``status``)."""
        if not seeds:
            return []
        rid = rules_id(rules)
        self._claims_table()
        now = time.time()
        vals = [_db_seed(x) for x in seeds]
        marks = ",".join("?" * len(vals))
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")  # one claimer at a time: no seed is given to two owners
            done = {v for (v,) in self._db.execute(
                f"SELECT seed FROM results WHERE rules_id = ? AND seed IN ({marks}) AND {self._done_sql(rated, True)}",
                (rid, *vals, *self._limits(max_seconds, max_nodes), since))}
            held = self._live_claims(f"seed IN ({marks})", (rid, *vals), owner, now)
            got = [v for v in vals if v not in done and v not in held]
            self._db.executemany("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?)",
                                 [(rid, v, owner, now + lease) for v in got])
        return [_py_seed(v) for v in got]

    def renew(self, rules: RulesKey, owner: str, lease: float) -> None:
        """Push back the end of every claim ``owner`` holds (it is alive and working)."""
        self._claims_table()
        with self._db:
            self._db.execute("UPDATE claims SET until = ? WHERE rules_id = ? AND owner = ?",
                             (time.time() + lease, rules_id(rules), owner))

    def release(self, rules: RulesKey, owner: str) -> None:
        self._claims_table()
        with self._db:
            self._db.execute("DELETE FROM claims WHERE rules_id = ? AND owner = ?", (rules_id(rules), owner))

    def status(self, rules: RulesKey, seeds: list[int], owner: str, max_seconds: float | None,
               rated: bool = False, since: float = float("inf"),
               max_nodes: int | None = None) -> tuple[set[int], set[int]]:
        """(done, held by a live claim of another owner) among ``seeds`` (a short list). A row stored at
        or after ``since`` (a time.time()) counts as done whatever its verdict: another study searched it."""
        rid = rules_id(rules)
        self._claims_table()
        now = time.time()
        done: set[int] = set()
        held: set[int] = set()
        for i in range(0, len(seeds), 500):
            vals = [_db_seed(x) for x in seeds[i:i + 500]]
            marks = ",".join("?" * len(vals))
            done |= {_py_seed(v) for (v,) in self._db.execute(
                f"SELECT seed FROM results WHERE rules_id = ? AND seed IN ({marks}) AND {self._done_sql(rated, True)}",
                (rid, *vals, *self._limits(max_seconds, max_nodes), since))}
            held |= {_py_seed(v) for v in self._live_claims(f"seed IN ({marks})", (rid, *vals), owner, now)}
        return done, held

    def held_by_others(self, rules: RulesKey, owner: str, lo: int, hi: int) -> set[int]:
        """Seeds in ``lo <= seed < hi`` under a live claim of another owner."""
        self._claims_table()
        now = time.time()
        return {_py_seed(v) for a, b in _db_ranges(lo, hi)
                for v in self._live_claims("seed BETWEEN ? AND ?", (rules_id(rules), a, b), owner, now)}

    def _live_claims(self, where: str, params: tuple[Any, ...], owner: str, now: float) -> set[int]:
        """Stored seed values claimed by another owner whose claim has not run out and who is not known dead."""
        dead: dict[str, bool] = {}
        out = set()
        for v, who in self._db.execute(
                f"SELECT seed, owner FROM claims WHERE rules_id = ? AND {where} AND owner != ? AND until > ?",
                (*params, owner, now)):
            if who not in dead:
                dead[who] = _owner_dead(who)
            if not dead[who]:
                out.add(v)
        return out

    # Reading ---------------------------------------------------------------
    def get(self, rules: RulesKey, seed: int) -> StoredResult | None:
        row = self._db.execute(
            "SELECT * FROM results WHERE rules_id = ? AND seed = ?", (rules_id(rules), _db_seed(seed))
        ).fetchone()
        return None if row is None else self._row(row)

    def results(self, rules: RulesKey | None = None, seeds: Iterable[int] | None = None) -> list[StoredResult]:
        """Stored results (of ``rules`` if given, restricted to ``seeds`` if given), by seed."""
        if rules is None:
            cur = self._db.execute("SELECT * FROM results ORDER BY rules, seed")
        else:
            cur = self._db.execute("SELECT * FROM results WHERE rules_id = ? ORDER BY seed", (rules_id(rules),))
        out = [self._row(r) for r in cur]
        out.sort(key=lambda r: (r.rules, r.seed))
        if seeds is not None:
            want = set(seeds)
            out = [r for r in out if r.seed in want]
        return out

    def done_seeds(self, rules: RulesKey, max_seconds: float | None, max_nodes: int | None = None) -> set[int]:
        """Seeds that need no new search: decided, or unknown under at least this time (or node) limit."""
        return self.done_in(rules, max_seconds, 0, 2**64, max_nodes=max_nodes)

    _DONE = ("(verdict != 'unknown' OR (limit_hit = 'seconds' AND max_seconds IS NOT NULL "
             "AND ? IS NOT NULL AND max_seconds >= ?) OR (limit_hit = 'nodes' AND {nodes} IS NOT NULL "
             "AND ? IS NOT NULL AND {nodes} >= ?))")

    def _done_sql(self, rated: bool, since: bool = False) -> str:
        """The SQL test for a row that needs no new search (parameters: ``_limits(...)``, then ``since`` if
        asked): decided, or unknown under at least the time limit (or node limit) asked for now; with
        ``rated`` the row must carry a rating; with ``since`` a row stored at or after that time counts
        whatever its verdict (another study just searched it)."""
        clause = self._DONE.format(nodes="max_nodes" if self._nodes_col else "NULL")
        clause += " AND rating IS NOT NULL" if rated else ""
        return f"(({clause}) OR finished_at >= ?)" if since else clause

    @staticmethod
    def _limits(max_seconds: float | None, max_nodes: int | None) -> tuple[float | None, float | None, int | None, int | None]:
        return (max_seconds, max_seconds, max_nodes, max_nodes)

    def done_in(self, rules: RulesKey, max_seconds: float | None, lo: int, hi: int, rated: bool = False,
                max_nodes: int | None = None) -> set[int]:
        """``done_seeds`` restricted to ``lo <= seed < hi``, read with one indexed query (memory: that range only).
        ``rated``: only rows that carry a difficulty rating count as done."""
        return {_py_seed(s) for a, b in _db_ranges(lo, hi) for (s,) in self._db.execute(
            f"SELECT seed FROM results WHERE rules_id = ? AND seed BETWEEN ? AND ? AND {self._done_sql(rated)}",
            (rules_id(rules), a, b, *self._limits(max_seconds, max_nodes)))}

    def count_done(self, rules: RulesKey, max_seconds: float | None, ranges: Iterable[tuple[int, int]],
                   max_nodes: int | None = None) -> int:
        """How many seeds of ``ranges`` need no new search, counted by SQL (nothing is loaded)."""
        rid, n = rules_id(rules), 0
        for lo, hi in (r for pair in ranges for r in _db_ranges(*pair)):
            (k,) = self._db.execute(
                f"SELECT COUNT(*) FROM results WHERE rules_id = ? AND seed BETWEEN ? AND ? AND {self._done_sql(False)}",
                (rid, lo, hi, *self._limits(max_seconds, max_nodes))).fetchone()
            n += k
        return n

    def count_verdicts(self, rules: RulesKey, ranges: Iterable[tuple[int, int]]) -> dict[str, int]:
        """Stored verdicts of ``rules`` over ``ranges`` (half-open seed ranges), counted by SQL."""
        rid = rules_id(rules)
        out = verdict_counts()
        for lo, hi in (r for pair in ranges for r in _db_ranges(*pair)):
            for verdict, k in self._db.execute(
                    "SELECT verdict, COUNT(*) FROM results WHERE rules_id = ? AND seed BETWEEN ? AND ? "
                    "GROUP BY verdict", (rid, lo, hi)):
                out[verdict] = out.get(verdict, 0) + k
        return out

    def unknown_in(self, rules: RulesKey, ranges: Iterable[tuple[int, int]]) -> list[int]:
        """The seeds of ``ranges`` whose stored verdict under ``rules`` is unknown, in increasing order."""
        rid = rules_id(rules)
        out = [_py_seed(s) for lo, hi in (r for pair in ranges for r in _db_ranges(*pair)) for (s,) in self._db.execute(
            "SELECT seed FROM results WHERE rules_id = ? AND seed BETWEEN ? AND ? AND verdict = 'unknown'",
            (rid, lo, hi))]
        return sorted(out)

    def results_in(self, rules: RulesKey, ranges: Iterable[tuple[int, int]]) -> list[StoredResult]:
        """Stored results of ``rules`` whose seeds lie in ``ranges``, by seed."""
        rid = rules_id(rules)
        out: list[StoredResult] = []
        for lo, hi in (r for pair in ranges for r in _db_ranges(*pair)):
            out.extend(self._row(r) for r in self._db.execute(
                "SELECT * FROM results WHERE rules_id = ? AND seed BETWEEN ? AND ? ORDER BY seed", (rid, lo, hi)))
        out.sort(key=lambda r: r.seed)
        return out

    def rules_in_store(self) -> list[tuple[str, str, dict[str, object]]]:
        return [(rid, name, json.loads(params))
                for rid, name, params in self._db.execute("SELECT rules_id, name, params FROM rules ORDER BY name")]

    def _row(self, row: tuple[Any, ...]) -> StoredResult:
        (_rid, rules, seed, verdict, nodes, seconds, best, length, redeals, max_seconds, limit_hit, rating,
         metrics, version, _t, *rest) = row  # rest: max_nodes, threads (absent from a read-only older store)
        return StoredResult(rules, _py_seed(seed), verdict, nodes, seconds, best, length, redeals, max_seconds, limit_hit,
                            rating, None if metrics is None else json.loads(metrics), version,
                            rest[0] if rest else None, rest[1] if len(rest) > 1 else None)

    def iter_rows(self) -> Iterator[dict[str, object]]:
        cur = self._db.execute(
            "SELECT rules, seed, verdict, nodes, seconds, best_score, solution_length, redeals, max_seconds, "
            f"{'max_nodes' if self._nodes_col else 'NULL'}, {'threads' if self._threads_col else 'NULL'}, "
            "limit_hit, rating, metrics, solver_version, rules_id, finished_at FROM results ORDER BY rules, seed")
        for row in cur:
            d = dict(zip(COLUMNS, row))
            d["seed"] = _py_seed(d["seed"])
            yield d

    def export_csv(self, out: str) -> int:
        """Write every row to a CSV file (metrics as a JSON column); returns the row count."""
        n = 0
        try:
            with replacing(out, "w", newline="", encoding="utf-8") as fh:
                w = csv.writer(fh)
                w.writerow(COLUMNS)
                for d in self.iter_rows():
                    w.writerow([d[c] for c in COLUMNS])
                    n += 1
        except OSError as e:
            raise StoreError(f"cannot write {out!r}: {e.strerror}") from None
        return n
