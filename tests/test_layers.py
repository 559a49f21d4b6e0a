"""What left the CLI, tested at the layer it moved to: move logs and deal files (formats), picking deals
and writing packs (studies), and the one place a verdict is made (solver)."""

import json

import pytest

from canfield_solver import Deal, Position, replay, solve
from canfield_solver.errors import CanfieldError, DealError, MoveError
from canfield_solver.formats import numbered_deal, parse_moves, read_deal, read_moves, to_solvitaire
from canfield_solver.play.transcript import format_steps, steps
from canfield_solver.solver import Verdict
from canfield_solver.studies.packs import PackFile, pack_entry, verify_pack
from canfield_solver.studies.pick import Picker
from canfield_solver.studies.study import run_study

# --- formats: move logs ----------------------------------------------------------------------------

def test_moves_files_in_all_three_shapes_read_the_same_moves(tmp_path):
    line = list(solve(2).moves[:30])
    shapes = {
        "lines.txt": "# my game\n" + "\n".join(line) + "\n\n",
        "list.json": json.dumps(line),
        "steps.txt": format_steps(steps(Deal.from_seed(2), line)),
    }
    for name, text in shapes.items():
        f = tmp_path / name
        f.write_text(text, encoding="utf-8")
        assert read_moves(str(f)) == line, name
    assert parse_moves(" W>F  # a comment\n\ndraw\n") == ["W>F", "draw"]


@pytest.mark.parametrize("content, message", [
    (b"[1, 2]", "every move must be a string"),
    (b"[\"draw\",", "is not a valid JSON list"),
    (b"\xff\xfe draw", "is not UTF-8 text"),
    (b"[" * 100_000, "nests too deeply"),
    (b"draw\n" * 300_000, "too large to be a game"),
])
def test_a_bad_moves_file_is_one_move_error_naming_it(tmp_path, content, message):
    f = tmp_path / "m.txt"
    f.write_bytes(content)
    with pytest.raises(MoveError, match=message) as e:
        read_moves(str(f))
    assert "m.txt" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(MoveError, match="cannot read moves file"):
        read_moves(str(tmp_path / "missing.txt"))


def test_numbered_steps_with_an_unknown_move_name_the_line():
    with pytest.raises(MoveError, match="line 2"):
        parse_moves("1. draw\n2. fly away\n")


# --- formats: deal files and numbers ---------------------------------------------------------------

def test_read_deal_takes_either_json_and_our_reader_names_the_other(tmp_path):
    ours, theirs = tmp_path / "ours.json", tmp_path / "theirs.json"
    ours.write_text(Deal.from_seed(7).to_json())
    theirs.write_text(json.dumps(to_solvitaire(Deal.from_seed(7))))
    assert read_deal(str(ours)) == read_deal(str(theirs)) == Deal.from_seed(7)
    with pytest.raises(DealError, match="read_deal"):
        Deal.from_file(str(theirs))
    with pytest.raises(DealError, match="not valid JSON"):
        (tmp_path / "bad.json").write_text("{")
        read_deal(str(tmp_path / "bad.json"))


def test_numbered_deal_knows_two_numberings():
    assert numbered_deal("spec", 5, "canfield") == Deal.from_seed(5)
    with pytest.raises(CanfieldError, match="numbering must be one of spec, pysolfc"):
        numbered_deal("freecell", 5, "canfield")


# --- solver: a verdict made in one place -----------------------------------------------------------

def test_one_and_two_threads_make_the_same_verdict_and_replayed_lines():
    for seed in (2, 20):
        one, two = solve(seed), solve(seed, workers=2)
        assert one.verdict == two.verdict
        for r in (one, two):
            end = replay(Deal.from_seed(seed), r.best_line).position
            assert end.score == r.best_score  # the best line reaches the best score, for a win and a loss
            assert r.stats["compile_seconds"] >= 0 and r.positions > 0
    assert solve(2).verdict is Verdict.SOLVED and solve(20).verdict is Verdict.UNSOLVABLE


def test_a_stopped_search_is_unknown_with_its_limit_and_a_best_line_that_replays():
    r = solve(35, max_nodes=50_000)
    assert r.verdict is Verdict.UNKNOWN and r.limit == "nodes" and not r.moves
    assert replay(Deal.from_seed(35), r.best_line).position.score == r.best_score


# --- studies: picking deals, writing packs -------------------------------------------------------

def test_picker_yields_won_deals_of_the_rating_and_counts_what_it_looked_at():
    picker = Picker("canfield", difficulty="any", count=1, first=2, jobs=1, max_seconds=5)
    rows = list(picker)
    assert [(r.seed, r.verdict) for r in rows] == [(2, "solved")] and rows[0].rating
    assert picker.looked >= 1
    lost = Picker("canfield", count=1, first=20, max_candidates=1, jobs=1, max_seconds=5)  # deal 20 is lost
    assert list(lost) == [] and lost.looked == 1 and lost.found == 0


def test_a_pack_replaces_the_old_file_only_when_finished(tmp_path):
    out = tmp_path / "pack.jsonl"
    out.write_text("old\n")
    row = run_study("canfield", [2], jobs=1, max_seconds=5, with_metrics=True).results[0]
    with pytest.raises(RuntimeError):
        with PackFile(str(out)) as pack:
            pack.add(pack_entry(row, "canfield"))
            raise RuntimeError("interrupted half-way")
    assert out.read_text() == "old\n"  # an unfinished pack leaves the old file alone...
    kept = tmp_path / "pack.jsonl.part"
    assert [why for _, _, why in verify_pack(kept.read_text().splitlines())] == [None]  # ...and keeps its pick
    kept.unlink()
    with PackFile(str(out)) as pack:
        pack.add(pack_entry(row, "canfield"))
    lines = out.read_text().splitlines()
    assert len(lines) == 1 and [why for _, _, why in verify_pack(lines)] == [None]
    assert not (tmp_path / "pack.jsonl.part").exists()
    csv_out = tmp_path / "pack.csv"
    with PackFile(str(csv_out), "csv") as pack:
        pack.add(pack_entry(row, "canfield"))
    assert csv_out.read_text().splitlines()[0].startswith("numbering,number,rules,verdict")


def test_a_stopped_pack_loses_neither_the_old_file_nor_a_pick(tmp_path):
    out = tmp_path / "pack.jsonl"
    out.write_text("old\n")
    pack = PackFile(str(out))
    assert pack.stop() is None  # interrupted before the first pick: nothing written, the old pack as it was
    assert out.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["pack.jsonl"]
    entry = {"numbering": "spec", "number": 7, "rules": "canfield", "verdict": "solved", "moves": ["draw"]}
    pack = PackFile(str(out))
    pack.add(entry)
    assert pack.stop() == f"{out}.part"  # a pick made and an older pack: both kept, side by side
    assert out.read_text() == "old\n" and json.loads((tmp_path / "pack.jsonl.part").read_text()) == entry
    fresh = tmp_path / "new.csv"
    pack = PackFile(str(fresh), "csv")
    pack.add(entry)
    pack.close()  # no older file: the picks so far become the pack, the csv table written
    assert fresh.read_text().splitlines()[1].startswith("spec,7,canfield")
    assert not (tmp_path / "new.csv.part").exists()


def test_a_file_replaced_whole_or_not_at_all(tmp_path):
    from canfield_solver.files import replacing, write_atomically

    out = tmp_path / "page.html"
    out.write_text("old")
    out.chmod(0o640)
    with pytest.raises(KeyboardInterrupt):
        with replacing(out) as fh:
            fh.write("half a page")
            raise KeyboardInterrupt
    assert out.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["page.html"]
    write_atomically(out, "new")
    assert out.read_text() == "new" and out.stat().st_mode & 0o777 == 0o640  # the old file's permissions kept
    write_atomically(tmp_path / "data.bin", b"\x00\x01")
    assert (tmp_path / "data.bin").read_bytes() == b"\x00\x01"


def test_a_position_keeps_its_rules_through_decide():
    from canfield_solver.solver import decide

    pos = Position(Deal.from_seed(2, "canfield-whole-pile"))
    assert decide(pos).rules == "canfield-whole-pile"
