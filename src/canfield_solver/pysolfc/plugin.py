"""canfield-solver's plugin for PySolFC 3.6 (Tk): a solver for Canfield, Superior Canfield, Rainbow, Storehouse
and Chameleon in PySolFC's Solver dialog and its demo.

``canfield pysolfc install-plugin`` copies this file into PySolFC's plugin folder (``~/.PySolFC/plugins``)
with two lines above it naming the interpreter that has canfield-solver and its version. PySolFC runs every
plugin at start-up, after its games are registered, on its own Python (standard library and ``pysollib``
only: nothing of canfield-solver is imported here). The plugin then:

- gives the five games a ``Solver_Class`` (and takes it from their subclasses, which play other rules), lists
  them in the Solver dialog, and turns the dialog's menu entry on where no fc-solve had turned it on;
- on "Start", sends the live table to a bridge process (``python -m canfield_solver.pysolfc.bridge``, started
  once and kept) and keeps the window alive while it searches; the dialog's "Max iterations" is the limit,
  ``NODES_PER_ITERATION`` search nodes each;
- on "Play", answers PySolFC's demo move by move from the live table: the reserve's hidden top turned up,
  then the bridge's next move, so PySolFC's own deals and drops are followed (or the table solved again);
- answers the hint key (``make_hint_class``): the solver's next move, or which move lost the game (the
  tables after each move are kept by ``record_history``), or PySolFC's own hint past the limit;
- registers a "(Winnable)" variant of each game (``register_winnable``) that deals the numbers written at
  install (``WINNABLE``) and those of ``canfield_winnable.json`` beside this file.

Anything that does not match (another PySolFC version, a missing interpreter, a bridge that fails) is said in
one line on PySolFC's stderr and leaves PySolFC as it was.
"""

import json
import os
import select
import subprocess
import sys
import time

CANFIELD_PYTHON = globals().get("CANFIELD_PYTHON") or sys.executable
CANFIELD_VERSION = globals().get("CANFIELD_VERSION") or "?"
PYSOLFC_SERIES = (3, 6)          # the PySolFC versions whose solver and demo API this plugin was written for
NODES_PER_ITERATION = 100        # the dialog's "Max iterations" x this = the search's node limit
GAMES = {                        # PySolFC's class name -> its title in the bridge's table
    "Canfield": "Canfield",
    "SuperiorCanfield": "Superior Canfield",
    "Rainbow": "Rainbow",
    "Storehouse": "Storehouse",
    "Chameleon": "Chameleon",
}


def say(msg):
    sys.stderr.write("canfield-solver plugin: %s\n" % msg)
    sys.stderr.flush()


class Bridge:
    """The bridge process, started at the first request and kept for the session."""

    proc = None
    busy = False

    @classmethod
    def request(cls, req, pump=None):
        """Send ``req``; while the answer is not there, call ``pump()`` every 50 ms (PySolFC's window stays
        alive). ``pump`` returning False cancels: the bridge is stopped (a new one starts at the next request).
        A request made while one is pending (the window is alive, so a key may ask) is refused."""
        if cls.busy:
            return {"ok": False, "error": "busy with another search"}
        cls.busy = True
        try:
            return cls._request(req, pump)
        finally:
            cls.busy = False

    @classmethod
    def _request(cls, req, pump):
        if cls.proc is None or cls.proc.poll() is not None:
            cls.proc = subprocess.Popen(
                [CANFIELD_PYTHON, "-m", "canfield_solver.pysolfc.bridge"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None, universal_newlines=True, bufsize=1)
        p = cls.proc
        try:
            p.stdin.write(json.dumps(req) + "\n")
            p.stdin.flush()
            while True:
                ready, _, _ = select.select([p.stdout], [], [], 0.05)
                if ready:
                    line = p.stdout.readline()
                    if not line:
                        raise OSError("the bridge exited (code %s)" % p.wait())
                    return json.loads(line)
                if pump is not None and pump() is False:
                    cls.close(kill=True)
                    return {"ok": False, "error": "cancelled", "cancelled": True}
        except (OSError, ValueError) as e:
            cls.proc = None
            return {"ok": False, "error": "the bridge failed: %s" % e}

    @classmethod
    def close(cls, kill=False):
        if cls.proc is not None and cls.proc.poll() is None:
            try:
                if kill:
                    raise OSError
                cls.proc.stdin.close()
                cls.proc.wait(timeout=2)
            except Exception:
                cls.proc.kill()
                cls.proc.wait()
        cls.proc = None


def title_of(game):
    """The title of the game ``game`` plays, for one of ours (its "(Winnable)" variant included)."""
    for k in type(game).__mro__:
        if k.__name__ in GAMES and k.__module__.endswith("games.canfield"):
            return GAMES[k.__name__]
    raise KeyError(type(game).__name__)


def read_table(game):
    """The live table as the bridge reads it (``canfield_solver.formats.pysolfc.table_deal``)."""
    s = game.s

    def cards(stack):
        return [[c.suit, c.rank] for c in stack.cards]

    return {
        "title": title_of(game),
        "base_rank": s.foundations[0].cap.base_rank,
        "round": s.talon.round,
        "talon": cards(s.talon),
        "waste": cards(s.waste),
        "reserve": cards(s.reserves[0]) if s.reserves else [],
        "rows": [cards(r) for r in s.rows],
        "foundations": [cards(f) for f in s.foundations],
    }


def hidden_reserve_top(game):
    """The reserve, where its top card is face down (Canfield shows only the top, and PySolFC's demo does
    not turn the next one up by itself); else None."""
    r = game.s.reserves[0] if game.s.reserves else None
    return r if r is not None and r.cards and not r.cards[-1].face_up else None


def hint_for(game, move):
    """PySolFC's hint tuple (score, pos, ncards, from, to, colour, forced) for a move in our notation, or
    None where PySolFC would not accept it."""
    s = game.s
    if move in ("draw", "redeal"):
        return (999999, 0, 0, s.talon, s.talon, None, None)      # ncards 0: the demo deals (or redeals)
    try:
        src_name, dst_name = move.split(">")
        whole = src_name.endswith("*")
        src_name = src_name.rstrip("*")
        src = {"W": s.waste, "R": s.reserves[0] if s.reserves else None}.get(src_name)
        if src is None:
            src = s.rows[int(src_name[1:]) - 1]
        ncards = len(src.cards) if whole else 1
        moved = src.cards[-ncards:]
        if dst_name == "F":
            dst = next((f for f in s.foundations if f.acceptsCards(src, moved)), None)
        else:
            dst = s.rows[int(dst_name[1:]) - 1]
    except (ValueError, IndexError):
        say("cannot read the solver's move %r" % move)
        return None
    if dst is None or not moved or not src.canMoveCards(moved) or not dst.acceptsCards(src, moved):
        say("PySolFC does not accept the solver's move %r here" % move)
        return None
    return (999999, 0, ncards, src, dst, None, None)


class CanfieldSolver:
    """PySolFC's ``Solver_Class`` for the Canfield games: what its Solver dialog and demo call."""

    def __init__(self, game, dialog, **game_type):
        self.game = game
        self.dialog = dialog
        self.options = {"max_iters": 100000, "preset": None, "progress": False, "iters_step": 100}
        self.hints = []
        self.hints_index = 0
        self.solver_state = "not_started"
        self.result = None
        self._t0 = None
        self._closing = False

    def config(self, **kw):
        self.options.update(kw)

    def _max_nodes(self):
        try:
            return max(1, int(self.options.get("max_iters") or 100000)) * NODES_PER_ITERATION
        except (TypeError, ValueError):
            return 100000 * NODES_PER_ITERATION

    def _pump(self):
        """Keep PySolFC's window alive during a search; False (cancel) once the dialog was asked to close."""
        top = getattr(self.dialog, "top", None)
        try:
            if self._closing or (top is not None and not top.winfo_exists()):
                return False
            if self._t0 is not None and hasattr(self.dialog, "setText"):
                self.dialog.setText(iter="searching, %.1f s" % (time.time() - self._t0))
            (top or self.game.top).update()
        except Exception:
            return False if top is not None else None
        return None

    def computeHints(self):
        self.hints, self.hints_index, self._t0, self._closing = [], 0, time.time(), False
        start = getattr(self.dialog, "start_button", None)
        if start is not None:
            start.config(state="disabled")
        done = getattr(self.dialog, "mDone", None)
        if done is not None:
            # "Close" during the search cancels it; the dialog closes once the dialog's own code is done.
            def m_done(button):
                if button == 3:
                    self._closing = True
                return "break"
            self.dialog.mDone = m_done
        try:
            ans = Bridge.request({"op": "solve", "table": read_table(self.game), "max_nodes": self._max_nodes(),
                                  "max_seconds": None}, pump=self._pump)
        finally:
            self._t0 = None
            if start is not None:
                start.config(state="normal")
            if done is not None:
                del self.dialog.mDone
                if self._closing:
                    self.game.top.after(0, lambda: done(3))
        self.result = ans
        if not ans.get("ok"):
            say(ans.get("error", "no answer"))
            self.solver_state = "intractable"
            self.hints = [None]
            return
        verdict = ans["verdict"]
        self.hints = list(ans["moves"]) + [None]
        self.solver_state = {"solved": "solved", "unsolvable": "unsolved"}.get(verdict, "intractable")
        if hasattr(self.dialog, "setText"):
            self.dialog.setText(iter="%s nodes in %.1f s (%s)" % (format(ans["nodes"], ","), ans["seconds"],
                                                                   ans["rules"]),
                                depth="%d moves" % len(ans["moves"]) if ans["moves"] else "-",
                                states=format(ans.get("positions", 0), ","))
        label = getattr(self.dialog, "result_label", None)
        if verdict == "unsolvable" and label is not None:
            # The dialog writes "I could not solve this game." when this returns; say what was shown.
            text = ("Not solvable: every line loses (an exhaustive search, %s nodes)." % format(ans["nodes"], ",")
                    if ans["nodes"] else "Not solvable: every line loses (proved before any search).")
            self.game.top.after(0, lambda: label.config(text=text))

    def getHints(self, taken_hint=None):
        if taken_hint and taken_hint[6]:
            return [taken_hint[6]]
        r = hidden_reserve_top(self.game)
        if r is not None:
            return [(999999, 0, 1, r, r, None, None)]   # a flip hint: the demo turns the reserve's top up
        ans = Bridge.request({"op": "next", "table": read_table(self.game), "max_nodes": self._max_nodes(),
                              "max_seconds": None}, pump=self._pump)
        if not ans.get("ok"):
            say(ans.get("error", "no answer"))
            return None
        move = ans.get("move")
        if not move:
            return None
        h = hint_for(self.game, move)
        return [h] if h else None


HINT_MAX_NODES = 5000000          # the hint key's search (about a second or two), then PySolFC's own hint


def status(game, text):
    try:
        game.app.statusbar.updateText(info=text)      # widens the label to the text (configLabel does not)
    except Exception:
        say(text)


def history(game):
    """The tables at the deal and after each move up to the current one (recorded by the hooks below)."""
    h = game.__dict__.get("_canfield_history", {})
    i = game.moves.index
    out = [h[k] for k in range(i + 1) if k in h]
    return out if len(out) == i + 1 else []


def make_hint_class(pysolfc_hint):
    class SolverHint(object):
        """The hint key (levels 0 and 1) asks the solver: its next move where the game is still winnable; where
        it is lost, says so and which move lost it; PySolFC's own hint where the solver has no answer within
        ``HINT_MAX_NODES``. PySolFC's "stuck?" check after each move (level -1) and its demos (level 2 and
        up) keep PySolFC's own hints."""

        def __init__(self, game, level):
            self.game = game
            self.level = level

        def own(self, taken_hint):
            return pysolfc_hint(self.game, self.level).getHints(taken_hint)

        def getHints(self, taken_hint=None):
            game = self.game
            # Level -1 is PySolFC's "stuck?" check after every move, 2 and up its demos: PySolFC's own hints.
            if self.level not in (0, 1) or getattr(type(game), "Solver_Class", None) is not CanfieldSolver:
                return self.own(taken_hint)
            ans = Bridge.request({"op": "hint", "table": read_table(game), "history": history(game),
                                  "max_nodes": HINT_MAX_NODES, "max_seconds": None}, pump=game.top.update)
            if not ans.get("ok"):
                say(ans.get("error", "no answer"))
                return self.own(taken_hint)
            verdict, move = ans.get("verdict"), ans.get("move")
            if verdict == "solved" and move:
                left = ans.get("left")
                if hidden_reserve_top(game) is not None:
                    status(game, "Solver: turn up the reserve's top card (winnable)")
                    return []
                if move in ("draw", "redeal"):
                    status(game, "Solver: %s (winnable, %s moves to go)" % (
                        "deal from the stock" if move == "draw" else "turn the waste over", left))
                    return []
                h = hint_for(game, move)
                if h is not None:
                    status(game, "Solver: winnable, %s moves to go" % left)
                    return [h]
                return self.own(taken_hint)
            if verdict == "unsolvable":
                k = ans.get("lost_since")
                if ans.get("lost_from_the_deal"):
                    status(game, "Solver: lost from the deal")
                elif k:
                    status(game, "Solver: lost; move %d lost it" % k)
                else:
                    status(game, "Solver: lost")
                return []
            if verdict == "won":
                return []
            status(game, "Solver: no answer within its limit; PySolFC's own hint")
            return self.own(taken_hint)

    return SolverHint


def record_history(Game):
    """Keep the table at the deal and after every move of our games (``history``): the hint key's question
    "which move lost it" is asked of them. Undone moves are dropped when the next move is made."""
    new_game, finish_move = Game.newGame, Game.finishMove

    def keep(game):
        if getattr(type(game), "Solver_Class", None) is CanfieldSolver:
            try:
                h = game.__dict__.setdefault("_canfield_history", {})
                i = game.moves.index
                for k in [k for k in h if k > i]:
                    del h[k]
                h[i] = read_table(game)
            except Exception:
                pass

    def newGame(self, *a, **kw):
        self.__dict__.pop("_canfield_history", None)
        r = new_game(self, *a, **kw)
        keep(self)
        return r

    def finishMove(self, *a, **kw):
        r = finish_move(self, *a, **kw)
        keep(self)
        return r

    Game.newGame, Game.finishMove = newGame, finishMove


WINNABLE = dict(globals().get("WINNABLE") or {})   # title -> game numbers proven winnable (written at install)
WINNABLE_FILE = "canfield_winnable.json"           # beside the plugin: more numbers (`canfield pysolfc winnable`)


def more_winnable():
    """Add the numbers of ``WINNABLE_FILE`` beside this plugin, where there is one."""
    path = os.path.join(os.path.dirname(os.path.abspath(globals().get("__file__") or ".")), WINNABLE_FILE)
    if not os.path.exists(path):
        return
    try:
        with open(path) as fh:
            extra = json.load(fh)["games"]
        for title, entry in extra.items():
            if title in GAMES.values():
                WINNABLE[title] = sorted(set(WINNABLE.get(title, [])) | set(int(n) for n in entry["numbers"]))
    except (OSError, ValueError, TypeError, AttributeError, KeyError) as e:
        say("%s not read: %s" % (path, e))

WINNABLE_ID_OFFSET = 93000                      # "(Winnable)" variant's game id: the game's id + this


def register_winnable(GAME_DB, ours):
    """For each game with a list of numbers proven winnable, a "(Winnable)" variant: "New game" deals one of
    them (chosen with PySolFC's own game random); a number chosen by hand deals as ever."""
    from pysollib.gamedb import GameInfo, registerGame
    from pysollib.pysolrandom import construct_random

    for k in ours:
        numbers = WINNABLE.get(GAMES[k.__name__])
        gi = next((g for g in GAME_DB.getAllGames() if g.gameclass is k), None)
        if not numbers or gi is None or GAME_DB.get(gi.id + WINNABLE_ID_OFFSET) is not None:
            continue

        def createRandom(self, random, _base=k, _numbers=numbers):
            if random is None:
                random = construct_random(str(self.app.gamerandom.choice(_numbers)))
            _base.createRandom(self, random)

        variant = type(k.__name__ + "Winnable", (k,), {"createRandom": createRandom, "Solver_Class": CanfieldSolver,
                                                      "__module__": k.__module__})
        registerGame(GameInfo(gi.id + WINNABLE_ID_OFFSET, variant, gi.en_name + " (Winnable)",
                              gi.si.game_type | gi.si.game_flags, gi.decks, gi.redeals, gi.skill_level,
                              rules_filename=gi.rules_filename))


def install():
    try:
        import pysollib.settings as settings
        from pysollib.gamedb import GAME_DB
        from pysollib.games import canfield
    except ImportError as e:
        say("not loaded: this PySolFC lacks %s" % e)
        return False
    version = tuple(getattr(settings, "VERSION_TUPLE", ())[:2])
    if version != PYSOLFC_SERIES:
        say("not loaded: made for PySolFC %s, this is %s" % (
            ".".join(map(str, PYSOLFC_SERIES)), getattr(settings, "VERSION", "?")))
        return False
    if not os.path.exists(CANFIELD_PYTHON):
        say("not loaded: the interpreter with canfield-solver, %s, is gone; "
            "run 'canfield pysolfc install-plugin' again" % CANFIELD_PYTHON)
        return False
    ours = [getattr(canfield, name, None) for name in GAMES]
    if None in ours:
        say("not loaded: this PySolFC's games/canfield.py lacks one of %s" % ", ".join(GAMES))
        return False
    todo = list(canfield.Canfield.__subclasses__())
    while todo:                  # the family's other games (Rainfall, Double Canfield, ...) play other rules
        k = todo.pop()
        k.Solver_Class = None
        todo.extend(k.__subclasses__())
    own_hints = [k.Hint_Class for k in ours]     # before any is replaced: Rainbow inherits Canfield's
    for k, own in zip(ours, own_hints):
        k.Solver_Class = CanfieldSolver
        k.Hint_Class = make_hint_class(own)
    try:
        more_winnable()
        register_winnable(GAME_DB, ours)
    except Exception as e:
        say("no \"(Winnable)\" games: %s" % e)
    from pysollib.game import Game
    record_history(Game)
    listed = getattr(GAME_DB, "_GameManager__games_for_solver", None)
    if listed is not None:
        for gi in GAME_DB.getAllGames():
            if issubclass(gi.gameclass, tuple(ours)) and gi.gameclass.Solver_Class is CanfieldSolver \
                    and gi.id not in listed:
                listed.append(gi.id)
    try:
        import pysollib.ui.tktile.menubar as menubar
        menubar.USE_FREECELL_SOLVER = True           # the Solver... entry, greyed out without fc-solve
    except ImportError:
        pass
    import atexit
    atexit.register(Bridge.close)
    return True


INSTALLED = install()
