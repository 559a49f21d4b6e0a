"""Values that show themselves: a deal, a position and a result say in one short line what a person needs (a
seeded deal as the call that makes it again), and draw themselves in a notebook as the replay page does."""

from __future__ import annotations

import html
import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from canfield_solver import Deal, Position, get_rules, replay, solve
from canfield_solver.engine.rules import preset_names
from canfield_solver.surfaces.replay_page import position_frame


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**64 - 1), st.sampled_from(sorted(preset_names())))
def test_a_seeded_deal_of_a_preset_is_the_call_that_makes_it_again(seed, preset):
    d = Deal.from_seed(seed, preset)
    assert repr(d) == f"Deal.from_seed({seed}, {preset!r})"
    assert eval(repr(d)) == d  # noqa: S307 (the promise itself)


def test_any_other_deal_names_its_rules_and_counts_its_cards():
    d = Deal.from_seed(2)
    unseeded = Deal.from_dict({k: v for k, v in d.to_dict().items() if k != "seed"}, "canfield")
    assert repr(unseeded) == "<Deal 'canfield': reserve 13, 4 columns of 4, stock 34, waste 0, 1 home>"
    custom = Deal.from_seed(3, get_rules("rainbow").replace(name="my-rainbow"))
    assert repr(custom).startswith("<Deal 'my-rainbow': seed 3, reserve 13,")  # not a call: no preset makes it


def test_a_position_names_its_deal_its_moves_its_cards_home_and_its_state():
    r = solve(2)
    p = Position(Deal.from_seed(2))
    assert repr(p) == "<Position of Deal.from_seed(2, 'canfield'): 0 moves made, 1 home, in play>"
    for m in r.moves[:3]:
        p.play(m)
    q = p.copy()
    assert repr(q) == repr(p) == f"<Position of Deal.from_seed(2, 'canfield'): 3 moves made, {p.score} home, in play>"
    p.undo()
    assert p.moves_made == 2 and q.moves_made == 3
    won = replay(2, list(r.moves)).position
    assert repr(won).endswith(f"{len(r.moves)} moves made, 52 home, won>")


def test_a_result_says_its_verdict_line_nodes_and_seconds_in_one_short_line():
    r = solve(2)
    text = repr(r)
    assert re.fullmatch(r"SolveResult\('solved', \d+ moves, [\d,]+ nodes, \d+\.\d\d s, seed=2, rules='canfield'\)", text)
    assert f"{len(r.moves)} moves" in text and f"{r.nodes:,} nodes" in text and len(text) < 100
    lost = solve(205, max_nodes=1000)
    assert repr(lost).endswith("seed=205, rules='canfield', limit='nodes')")


def _page_data(iframe: str) -> dict:
    doc = html.unescape(re.search(r'srcdoc="(.*?)"', iframe, re.S).group(1))
    return json.loads(re.search(r"const DATA = (\{.*\});\n", doc).group(1).replace("<\\/", "</"))


def test_in_a_notebook_a_deal_and_a_position_draw_their_layout():
    d = Deal.from_seed(2)
    data = _page_data(d._repr_html_())
    assert data["frames"] == [{**position_frame(Position(d)), "mark": None}] and data["moves"] == []
    p = Position(d)
    for m in solve(2).moves[:5]:
        p.play(m)
    assert _page_data(p._repr_html_())["frames"] == [{**position_frame(p), "mark": None}]


def test_in_a_notebook_a_result_is_its_replay_page():
    r = solve(2)
    data = _page_data(r._repr_html_())
    assert data["moves"] == list(r.moves) and len(data["frames"]) == len(r.moves) + 1
    custom = solve(Deal.from_seed(3, get_rules("rainbow").replace(name="my-rainbow")), max_nodes=1000)
    assert custom._repr_html_() is None  # its seed alone does not give the deal: the plain repr shows
