"""A PySolFC plugin that drives the real PySolFC through a job and writes what happened (tests only).

tests/test_pysolfc_real.py copies it into a scratch PySolFC plugin folder beside canfield-solver's plugin
and starts PySolFC under Xvfb with ``CANFIELD_PYSOLFC_JOB`` naming a JSON job:

    {"numbers": [...], "new_games": 0, "midgame": [...], "dialog_numbers": [...], "legal_numbers": [...],
     "max_iters": 100000, "out": "result.json", "shots": "folder or null"}

For each game number of the game PySolFC was started with (``--game``), then ``new_games`` times PySolFC's
own "New game" (a "(Winnable)" variant's random pick): deal it as PySolFC's "Select game
by number" does, record the table, run the game's ``Solver_Class`` as the Solver dialog does, and where it
says solvable, play the line through PySolFC's own demo (level 3, as the dialog's "Play") until the demo
stops, recording whether PySolFC says the game is won. For the numbers in ``midgame``, the demo is stopped
after a few moves first and the solver asked again from there. The ``dialog_numbers`` go through the real
Solver dialog instead ("Start", then "Play"), with screenshots (``shots``). For the ``legal_numbers``,
random moves through PySolFC's own stacks, every move PySolFC allows recorded before each. ``probe`` only
says which solver the game has. Then PySolFC exits. Runs on PySolFC's interpreter: standard library and pysollib only.
"""

import json
import os
import subprocess
import sys
import time
import traceback

JOB = os.environ.get("CANFIELD_PYSOLFC_JOB")


def _shot(job, name):
    if job.get("shots"):
        subprocess.call(["import", "-window", "root", "-crop", job.get("shot_crop", "1240x600+0+0"),
                         os.path.join(job["shots"], name + ".png")])


class _Said:
    """Stands in for PySolFC's message dialogs during the run: records the text, answers with the button."""

    texts = []

    def __init__(self, parent, title=None, text="", **kw):
        _Said.texts.append(str(text).strip())
        self.status = 0
        self.button = 0


class _Dialog:
    """What Solver_Class needs of the Solver dialog when the driver calls it directly."""

    def __init__(self, top):
        self.top = top
        self.texts = {}

    def setText(self, **kw):
        self.texts.update(kw)


def _run(app, job):
    import pysollib.game as game_mod
    from pysollib.pysolrandom import construct_random

    game_mod.MfxMessageDialog = _Said
    app.opt.animations = 0                        # the demo at full speed: no card animations, no hint pause
    app.opt.timeouts["demo"] = job.get("demo_sleep", 0.0)
    results = []
    out = {"title": None, "results": results, "error": None}
    top = app.top

    def wait(cond, seconds):
        t0 = time.time()
        while not cond() and time.time() - t0 < seconds:
            top.update()
            time.sleep(0.02)
        return cond()

    def table(game):
        # PySolFC runs a plugin without naming it in sys.modules: reach the plugin's globals through its class.
        return game.Solver_Class.computeHints.__globals__["read_table"](game)

    def demo(game, stop_after=None):
        start = game.moves.index
        del _Said.texts[:]
        if stop_after is not None:
            # The demo plays on from idle callbacks within one Tk update: stop it as a key press does.
            play_one = type(game).playOneDemoMove

            def one(demo_state):
                r = play_one(game, demo_state)
                if game.moves.index - start >= stop_after:
                    demo_state.keypress = 1
                return r
            game.playOneDemoMove = one
        game.startDemo(mixed=0, level=3)
        wait(lambda: game.demo is None, 600)
        game.__dict__.pop("playOneDemoMove", None)
        return {"won": bool(game.isGameWon()), "demo_moves": game.moves.index - start,
                "said": list(_Said.texts)}

    def solve(game):
        solver = game.Solver_Class(game, _Dialog(top))
        solver.config(max_iters=job.get("max_iters", 100000))
        t0 = time.time()
        solver.computeHints()
        game.solver = solver
        return {"state": solver.solver_state, "moves": len(solver.hints) - 1, "line": solver.hints[:-1],
                "seconds": round(time.time() - t0, 2), "nodes": (solver.result or {}).get("nodes")}

    def legal(game):
        """Every move PySolFC's own stacks allow here, in the solver's notation (SPEC section 4)."""
        s = game.s
        names = {id(s.waste): "W"}
        if s.reserves:
            names[id(s.reserves[0])] = "R"
        for i, r in enumerate(s.rows):
            names[id(r)] = "T%d" % (i + 1)
        out = set()
        for src in [s.waste] + list(s.reserves[:1]) + list(s.rows):
            for n in range(1, len(src.cards) + 1):
                cards = src.cards[-n:]
                if not src.canMoveCards(cards):
                    continue
                for dst in list(s.rows) + list(s.foundations):
                    if dst is src or not dst.acceptsCards(src, cards):
                        continue
                    to = "F" if dst in s.foundations else names[id(dst)]
                    whole = src in s.rows and n == len(src.cards) and n > 1
                    if n > 1 and not whole:
                        out.add("%s:%d>%s" % (names[id(src)], n, to))     # a part of a column: none of ours
                    else:
                        out.add("%s%s>%s" % (names[id(src)], "*" if whole else "", to))
        if s.talon.canDealCards():
            out.add("draw" if s.talon.cards else "redeal")
        return sorted(out)

    def random_play(game, rng, steps):
        """Random legal moves through PySolFC's own stacks, the legal moves recorded before each."""
        seen = []
        for _ in range(steps):
            r = s_reserve(game)
            if r is not None and r.cards and not r.cards[-1].face_up:
                r.flipMove()
                game.finishMove()
            if game.isGameWon():
                break
            moves = legal(game)
            seen.append({"table": table(game), "legal": moves})
            if not moves:
                break
            plays = [m for m in moves if m not in ("draw", "redeal")]
            m = rng.choice(plays if plays and rng.random() < 0.8 else moves)
            if m in ("draw", "redeal"):
                game.s.talon.dealCards()
            else:
                h = game.Solver_Class.computeHints.__globals__["hint_for"](game, m)
                _, _, n, src, dst, _, _ = h
                src.moveMove(n, dst)
            game.finishMove()
            top.update()
        return seen

    def s_reserve(game):
        return game.s.reserves[0] if game.s.reserves else None

    try:
        game = app.game
        out["title"] = type(game).__name__
        if job.get("probe"):
            k = getattr(type(game), "Solver_Class", None)
            out["solver_class"] = None if k is None else k.__name__
            out["games_for_solver"] = [app.getGameTitleName(i) for i in app.getGamesForSolver()]
            if k is not None and job.get("numbers"):
                game.endGame()
                game.newGame(random=construct_random(str(job["numbers"][0])))
                top.update()
                out["results"].append({"number": job["numbers"][0], "solve": solve(game)})
            raise SystemExit
        # "new_games": PySolFC's own "New game" (its createRandom picks the number), as a player starts one.
        todo = list(job.get("numbers", ())) + [None] * job.get("new_games", 0)
        for n in todo:
            game.endGame()
            game.newGame(random=None if n is None else construct_random(str(n)))
            top.update()
            if n is None:
                n = int(game.random.initial_seed)
            row = {"number": n, "game_number": game.getGameNumber(format=0), "table": table(game)}
            if n in job.get("dialog_numbers", ()):
                shot = "%s-%s" % (out["title"], n)
                top.wm_geometry("+0+0")
                top.update()
                _shot(job, shot + "-1-table")
                import pysollib.actions
                solverdialog = sys.modules[pysollib.actions.create_solver_dialog.__module__]
                app.menubar.mSolver()
                wait(lambda sd=solverdialog: sd.solver_dialog is not None, 10)
                top.update()
                d = solverdialog.solver_dialog
                top.update()
                d.top.wm_geometry("+%d+0" % (top.winfo_width() + 10))    # beside the game, not over it
                wait(lambda: False, 0.3)
                _shot(job, shot + "-2-dialog")
                d.startSolving()
                top.update()
                row["dialog_text"] = d.result_label["text"]
                top.update()
                wait(lambda: False, 0.5)
                row["dialog_text_after"] = d.result_label["text"]
                _shot(job, shot + "-3-dialog-result")
                row["solve"] = {"state": game.solver.solver_state, "moves": len(game.solver.hints) - 1}
                if game.solver.solver_state == "solved":
                    d.startPlay()
                    wait(lambda: game.demo is not None, 5)
                    wait(lambda: game.demo is None or game.moves.index > 40, 600)
                    _shot(job, shot + "-4-demo")
                    wait(lambda: game.demo is None, 600)
                    row["demo"] = {"won": bool(game.isGameWon()), "demo_moves": game.moves.index,
                                   "said": list(_Said.texts)}
                    _shot(job, shot + "-5-won")
                d.destroy()
                solverdialog.solver_dialog = None
                results.append(row)
                continue
            row["solve"] = solve(game)
            if n in job.get("midgame", ()) and row["solve"]["state"] == "solved":
                part = demo(game, stop_after=job.get("midgame_moves", 25))
                row["midgame"] = {"after_demo_moves": part["demo_moves"], "table": table(game)}
                row["midgame"]["solve"] = solve(game)
            if game.solver.solver_state == "solved":
                row["demo"] = demo(game)
            results.append(row)
        for case in job.get("hint_cases", ()):
            # Moves played as a player plays them, then the hint key: its arrow and the status bar's words.
            game.endGame()
            game.newGame(random=construct_random(str(case["number"])))
            top.update()
            hint_for = game.Solver_Class.computeHints.__globals__["hint_for"]
            for m in case["moves"]:
                r = s_reserve(game)
                if r is not None and r.cards and not r.cards[-1].face_up:
                    r.flipMove()
                    game.finishMove()
                if m in ("draw", "redeal"):
                    game.s.talon.dealCards()
                else:
                    _, _, n, src, dst, _, _ = hint_for(game, m)
                    src.moveMove(n, dst)
                game.finishMove()
                top.update()
            r = s_reserve(game)
            if r is not None and r.cards and not r.cards[-1].face_up:     # as PySolFC's auto face-up does
                r.flipMove()
                game.finishMove()
            app.statusbar.configLabel("info", text="")
            if job.get("shots") and case.get("shot"):
                # The arrow is drawn for the hint's pause only: the screenshot is taken during it.
                top.wm_geometry("+0+0")
                top.update()
                subprocess.Popen(["bash", "-c", "sleep 0.8; import -window root -crop %s %s" % (
                    job.get("shot_crop", "1240x600+0+0"), os.path.join(job["shots"], case["shot"] + ".png"))])
                game.showHint(0, sleep=2.0)
                top.update()
                time.sleep(0.5)
            h = game.showHint(0, sleep=0)
            top.update()
            names = {id(game.s.waste): "W", id(game.s.talon): "talon"}
            if game.s.reserves:
                names[id(game.s.reserves[0])] = "R"
            names.update({id(r): "T%d" % (i + 1) for i, r in enumerate(game.s.rows)})
            names.update({id(f): "F" for f in game.s.foundations})
            arrow = None if not h else "%s%s>%s" % (names[id(h[3])], "*" if h[2] > 1 else "", names[id(h[4])])
            out.setdefault("hints", []).append({"number": case["number"], "moves": case["moves"],
                                                "arrow": arrow, "moves_index": game.moves.index,
                                                "status": app.statusbar.info_label.cget("text")})
        import random
        rng = random.Random(job.get("legal_seed", 1))
        for n in job.get("legal_numbers", ()):
            game.endGame()
            game.newGame(random=construct_random(str(n)))
            top.update()
            out.setdefault("legal", []).append({"number": n, "steps": random_play(game, rng, job.get("legal_steps", 200))})
    except SystemExit:
        pass
    except Exception:
        out["error"] = traceback.format_exc()
    with open(job["out"], "w") as fh:
        json.dump(out, fh)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _hook():
    from pysollib.app import Application

    with open(JOB) as fh:
        job = json.load(fh)
    run_game = Application.runGame
    started = []

    def runGame(self, *a, **kw):
        if not started:
            started.append(1)
            self.top.after(job.get("start_ms", 1500), lambda: _run(self, job))
        return run_game(self, *a, **kw)

    Application.runGame = runGame


if JOB:
    _hook()
