"""Hypothesis: random legal play keeps the game's invariants."""

from hypothesis import given, settings
from hypothesis import strategies as st

from canfield_solver import Deal, Position, preset_names

from helpers import examples, progress_reachable, random_position


def all_cards(p):
    cards = list(p.reserve) + list(p.stock) + list(p.waste) + [c for col in p.tableau for c in col]
    n = p.rules.ranks
    cards += [s * 13 + (p.base_rank + i) % n for s in range(4) for i in range(p.foundations[s])]
    return cards


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(0, 2**64 - 1), st.sampled_from(preset_names()), st.randoms(use_true_random=False))
def test_random_play_invariants(seed, preset, rng):
    p = Position(Deal.from_seed(seed, preset))
    deck = sorted(p.rules.deck)
    prev = list(p.foundations)
    for _ in range(150):
        moves = p.legal_moves()
        if not moves:
            break
        p.play(rng.choice(moves))
        assert sorted(all_cards(p)) == deck                       # every card exactly once
        assert all(a >= b for a, b in zip(p.foundations, prev))  # foundations never shrink
        prev = list(p.foundations)
        if p.reserve and p.rules.gap_autofill:
            assert all(p.tableau)                                 # no gap while the reserve has cards
        # the position survives a JSON round trip
        d = p.to_deal()
        assert Position(Deal.from_json(d.to_json())).key() == p.key()


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(0, 2**64 - 1), st.sampled_from(preset_names()), st.randoms(use_true_random=False),
       st.integers(0, 250))
def test_is_stalled_matches_brute_force(seed, preset, rng, steps):
    p = random_position(seed, preset, rng, steps)
    if p.is_won():
        assert not p.is_stalled()
    else:
        assert p.is_stalled() == (not progress_reachable(p))
