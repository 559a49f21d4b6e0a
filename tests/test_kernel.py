"""Kernel pieces against the reference engine: move generation and packed keys."""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canfield_solver import Deal, Position, card_name, get_rules, preset_names
from canfield_solver.engine.stuck import stuck_cards
from canfield_solver.search import codec as C
from canfield_solver.search import kernel as K
from canfield_solver.search.arrays import LoneSearch

from helpers import examples, needs_jit, random_position


def kernel_moves(pos):
    """The kernel's moves at this position, decoded to comparable strings."""
    prob = LoneSearch(pos)
    out = np.zeros(C.SCRATCH_SIZE, np.int64)
    n = K._gen_all(prob.deal, prob.cols, prob.sc, prob.mask, out)
    got = set()
    for mv in out[:n]:
        kind, src, dst, cnt, _redeal = C.unpack_move(mv)
        if kind in (C.K_WF, C.K_WT):
            card = card_name(prob.talon_list[src])
            got.add(f"W[{card}]>" + ("F" if kind == C.K_WF else f"T{dst + 1}"))
        elif kind == C.K_RF:
            got.add("R>F")
        elif kind == C.K_RT:
            got.add(f"R>T{dst + 1}")
        elif kind == C.K_TF:
            got.add(f"T{src + 1}>F")
        else:
            ln = len(pos.tableau[src])
            got.add(f"T{src + 1}>T{dst + 1}" if cnt == 1 else
                    f"T{src + 1}*>T{dst + 1}" if cnt == ln else f"T{src + 1}:{cnt}>T{dst + 1}")
    assert len(got) == n, "the kernel generated a move twice"
    return got


def reference_moves(pos):
    """Reference legal moves, with waste plays taken over every stock/waste state draws and redeals reach."""
    want = {m for m in pos.legal_moves() if not m.startswith("W") and m not in ("draw", "redeal")}
    seen = {pos.key()}
    frontier = [pos.copy()]
    while frontier:
        p = frontier.pop()
        for m in p.legal_moves():
            if m.startswith("W"):
                want.add(f"W[{card_name(p.waste[-1])}]>{m[2:]}")
            elif m in ("draw", "redeal"):
                q = p.copy()
                q.play(m)
                if q.key() not in seen:
                    seen.add(q.key())
                    frontier.append(q)
    return want


def unpack_rules(pos):
    """codec.unpack_long's arguments that come from the position's rules and base card."""
    r = pos.rules
    return {"ncols": r.columns, "ranks": r.ranks, "base_rank": pos.base_rank, "build": C.BUILD_CODES[r.build]}


@settings(max_examples=examples(400), deadline=None)
@given(st.integers(0, 2**64 - 1), st.sampled_from(preset_names()), st.randoms(use_true_random=False),
       st.integers(0, 200))
def test_move_generation_equals_reference(seed, preset, rng, steps):
    pos = random_position(seed, preset, rng, steps)
    assert kernel_moves(pos) == reference_moves(pos)


def py_key(pos, talon_order):
    r = pos.rules
    return C.pack_long(reserve_count=len(pos.reserve), talon_order=talon_order, stock=pos.stock, waste=pos.waste,
                       tableau=pos.tableau, redeals_used=pos.redeals_used, rules=r)


def kernel_key(pos):
    prob = LoneSearch(pos)
    words = np.zeros(4, np.uint64)
    K.key(prob.cols, prob.sc, prob.mask, 0, prob.params, words, np.zeros(C.SCRATCH_SIZE, np.int64))
    return [int(w) for w in words], prob


@settings(max_examples=examples(150), deadline=None)
@given(st.integers(0, 2**64 - 1), st.sampled_from(preset_names()), st.randoms(use_true_random=False),
       st.integers(0, 200))
def test_pack_matches_kernel_and_round_trips(seed, preset, rng, steps):
    pos = random_position(seed, preset, rng, steps)
    kk, prob = kernel_key(pos)
    assert kk == py_key(pos, prob.talon_list)
    r = pos.rules
    un = C.unpack_long(kk, **unpack_rules(pos), reserve_order=pos.reserve, talon_order=prob.talon_list)
    # Unpacking gives the canonical position: same piles, columns sorted.
    assert un["reserve"] == pos.reserve
    assert un["foundations"] == pos.foundations
    assert sorted(map(tuple, un["tableau"])) == sorted(map(tuple, pos.tableau))
    assert un["waste"] + un["stock"] == pos.waste + pos.stock[::-1]
    again = C.pack_long(reserve_count=len(un["reserve"]), talon_order=prob.talon_list, stock=un["stock"],
                   waste=un["waste"], tableau=un["tableau"], redeals_used=un["redeals_used"], rules=r)
    assert again == kk


def test_keys_fold_the_main_draw_cycle_only():
    pos = Position(Deal.from_seed(3))
    k0, _ = kernel_key(pos)
    pos.play("draw")
    k3, _ = kernel_key(pos)
    assert k3 == k0  # 3 cards in the waste: on the main cycle, same position
    pos2 = Position(Deal.from_seed(3))
    pos2.play("draw")
    moves = [m for m in pos2.legal_moves() if m.startswith("W>")]
    if moves:
        pos2.play(moves[0])
        k2, _ = kernel_key(pos2)
        assert k2 != k0


def kernel_stuck(pos):
    prob = LoneSearch(pos)
    prefix = np.zeros((C.MAXCOLS, C.COLCAP), np.uint64)
    m = int(K._stuck_closure(prob.cols, prob.sc, 0, prob.params, prob.bm, prefix, C.ALL_CARDS))
    assert bool(K._is_stuck(prob.cols, prob.sc, 0, prob.params, prob.bm, prefix)) == (m != 0)
    return {c for c in range(52) if m >> c & 1}


def test_stuck_closure_equals_the_plain_rule():
    # Random games that prefer building on columns (which is what buries
    # cards) reach non-empty stuck sets; every position on the way is checked.
    import random
    rng = random.Random(7)
    checked = fired = 0
    for i in range(60):
        preset = ["canfield", "canfield-whole-pile", "storehouse", "solvitaire-canfield-strict"][i % 4]
        pos = Position(Deal.from_seed(rng.randrange(2**64), preset))
        for _ in range(120):
            want = set(stuck_cards(pos))
            assert kernel_stuck(pos) == want, (preset, pos.tableau)
            checked += 1
            fired += bool(want)
            ms = pos.legal_moves()
            if not ms:
                break
            build = [m for m in ms if ">T" in m and not m.startswith("T")]
            pos.play(rng.choice(build) if build and rng.random() < 0.8 else rng.choice(ms))
    assert fired >= 40, (fired, checked)



def levels_along_search(rules_name, seed, chunks, nodes):
    """The problem and the level its search stands at after each of ``chunks`` runs of ``nodes`` nodes
    (a run that only asks for a bigger table does not count), until the search ends."""
    from canfield_solver import get_rules
    from canfield_solver.search.arrays import SearchTables, key_words
    rules = get_rules(rules_name)
    prob = LoneSearch(Position(Deal.from_seed(seed, rules)))
    tables = SearchTables(key_words(rules), 256 << 20, prob.cover_fields())
    for _ in range(chunks):
        status = K.search(*prob.search_args(tables, nodes))
        if status in (C.GROW, C.GROW_LONG):
            tables.grow("short" if status == C.GROW else "long", prob.words)
            continue
        if status != C.RUNNING:
            return
        yield prob, int(prob.stats[C.ST_DEPTH])


@pytest.mark.exhaustive
@needs_jit
def test_stuck_closure_equals_the_plain_rule_on_a_hard_search():
    """The positions of a hard search hold long runs (seed 141 of canfield: 30-50 tableau cards late),
    where the closure peels one card a column at a time: on every child of positions sampled along the
    search's path, the kernel's stuck set equals SOLVER-NOTES §2 in Python."""
    from canfield_solver import get_rules
    rules = get_rules("canfield")
    start = Position(Deal.from_seed(141, rules))
    prefix = np.zeros((C.MAXCOLS, C.COLCAP), np.uint64)
    out = np.zeros(C.SCRATCH_SIZE, np.int64)
    checked = fired = longest = 0
    for prob, d in levels_along_search("canfield", 141, 40, 50_000):
        n = K.gen(prob.deal, prob.cols, prob.sc, prob.mask, d, out, False, prob.scratch, -1, -1, -1)
        K.copy_level(prob.cols, prob.sc, prob.mask, d)
        for mv in out[:n]:
            K.reset_level(prob.cols, prob.sc, prob.mask, d)
            K.apply(prob.cols, prob.sc, prob.mask, d + 1, mv, prob.params, prob.reserve, prob.talon)
            pos = start.copy()
            pos.tableau = [[int(x) for x in prob.cols[d + 1, c, :prob.sc[d + 1, C.SC_LEN + c]]]
                           for c in range(rules.columns)]
            pos.foundations = [int(x) for x in prob.sc[d + 1, C.SC_F:C.SC_F + 4]]
            m = int(K._stuck_closure(prob.cols, prob.sc, d + 1, prob.params, prob.bm, prefix, C.ALL_CARDS))
            want = set(stuck_cards(pos))
            assert {c for c in range(52) if m >> c & 1} == want, pos.tableau
            # The search's own test answers from the walk's pointers, without the set.
            assert bool(K._is_stuck(prob.cols, prob.sc, d + 1, prob.params, prob.bm, prefix)) == bool(want)
            checked += 1
            fired += bool(want)
            longest = max(longest, max(map(len, pos.tableau)))
    assert checked >= 100 and fired >= 10 and longest >= 15, (checked, fired, longest)


def check_child_stuck_shortcut(prob, d, tally):
    """On every child of level ``d`` (all moves, and the safe-move list), the search's stuck test of a
    child (``_child_is_stuck``: candidates from the move, then the closure) equals the closure itself."""
    prefix = np.zeros((C.MAXCOLS, C.COLCAP), np.uint64)
    out = np.zeros(C.SCRATCH_SIZE, np.int64)
    assert not K._is_stuck(prob.cols, prob.sc, d, prob.params, prob.bm, prefix)
    for safe in (False, True):
        n = K.gen(prob.deal, prob.cols, prob.sc, prob.mask, d, out, safe, prob.scratch, -1, -1, -1)
        K.copy_level(prob.cols, prob.sc, prob.mask, d)
        for mv in out[:n]:
            K.reset_level(prob.cols, prob.sc, prob.mask, d)
            K.apply(prob.cols, prob.sc, prob.mask, d + 1, mv, prob.params, prob.reserve, prob.talon)
            full = bool(K._is_stuck(prob.cols, prob.sc, d + 1, prob.params, prob.bm, prefix))
            fast = bool(K.child_is_stuck(prob.cols, prob.sc, d, mv, prob.params, prob.reserve, prob.talon,
                                          prob.bm, prefix))
            assert fast == full, (int(mv) & 15, full)
            cand = K._stuck_candidates(prob.cols, prob.sc, d, mv, prob.reserve, prob.talon, prob.bm)
            kind = int(mv) & 15
            tally["children"] += 1
            tally["no closure"] += cand == 0
            tally["candidates"] += cand not in (0, C.ALL_CARDS)
            if full:
                tally["stuck after a card went home" if kind in (C.K_RF, C.K_WF, C.K_TF) else
                      "stuck after a card was placed" if kind in (C.K_RT, C.K_WT) else "stuck after a column move"] += 1


@needs_jit
def test_stuck_test_of_a_child_equals_the_closure_along_hard_searches():
    """The search runs the stuck-card closure on a child only when the move could have made a stuck
    set (docs/solver-notes.md §1): on every child of positions sampled along six searches, five rule
    sets, it answers as the closure does, and children made stuck by a card sent home and by a card
    placed both occur (so leaving out a move's guests or its placed card fails here)."""
    from collections import Counter
    tally = Counter()
    for rules_name, seed, chunks, nodes in [("canfield", 141, 25, 40_000), ("canfield", 6, 25, 40_000),
                                            ("canfield-whole-pile", 12, 15, 40_000),
                                            ("solvitaire-canfield-strict", 9, 10, 20_000),
                                            ("storehouse-aces", 11, 10, 20_000), ("rainbow", 3, 10, 20_000)]:
        for prob, d in levels_along_search(rules_name, seed, chunks, nodes):
            check_child_stuck_shortcut(prob, d, tally)
    assert tally["children"] >= 500 and tally["no closure"] >= 40 and tally["candidates"] >= 300, tally
    assert tally["stuck after a card went home"] >= 5 and tally["stuck after a card was placed"] >= 5, tally


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(0, 2**64 - 1), st.sampled_from(preset_names()), st.randoms(use_true_random=False),
       st.integers(0, 150))
def test_stuck_test_of_a_child_equals_the_closure_after_random_play(seed, preset, rng, steps):
    """The same on every child of random positions of every preset (gaps, refills, runs, other builds)."""
    from collections import Counter
    pos = random_position(seed, preset, rng, steps)
    prob = LoneSearch(pos)
    prefix = np.zeros((C.MAXCOLS, C.COLCAP), np.uint64)
    if not K._is_stuck(prob.cols, prob.sc, 0, prob.params, prob.bm, prefix):
        check_child_stuck_shortcut(prob, 0, Counter())


@settings(max_examples=examples(150), deadline=None)
@given(st.integers(0, 2**64 - 1), st.sampled_from(preset_names()), st.randoms(use_true_random=False),
       st.integers(0, 200))
def test_incremental_column_codes_equal_fresh_ones(seed, preset, rng, steps):
    """After every move the kernel can make, the per-column key codes and the tableau mask it updated
    equal those built anew."""
    pos = random_position(seed, preset, rng, steps)
    prob = LoneSearch(pos)
    out = np.zeros(C.SCRATCH_SIZE, np.int64)
    n = K._gen_all(prob.deal, prob.cols, prob.sc, prob.mask, out)
    for mv in out[:n]:
        K.copy_level(prob.cols, prob.sc, prob.mask, 0)
        K.apply(prob.cols, prob.sc, prob.mask, 1, mv, prob.params, prob.reserve, prob.talon)
        got = prob.sc[1, C.SC_CB:C.SC_CB + C.MAXCOLS].copy()
        tab = int(prob.sc[1, C.SC_TAB])
        K.init_codes(prob.cols, prob.sc, 1, prob.params)
        assert list(got) == list(prob.sc[1, C.SC_CB:C.SC_CB + C.MAXCOLS]), (preset, int(mv))
        want = sum(1 << int(prob.cols[1, c, i]) for c in range(C.MAXCOLS) for i in range(prob.sc[1, C.SC_LEN + c]))
        assert tab == int(prob.sc[1, C.SC_TAB]) == want, (preset, int(mv))


def test_restoring_a_level_after_each_move_equals_a_fresh_copy():
    """_expand copies a level's cards once and restores only its scalars and bottom cards between
    moves (_reset_level); after each of a position's moves, in any order, the level equals a fresh
    copy with that move applied, including moves that empty a column the reserve then refills."""
    import random
    rng = random.Random(7)
    refills = 0
    for seed in range(60):
        preset = preset_names()[seed % len(preset_names())]
        pos = random_position(seed, preset, rng, rng.randrange(0, 120))
        prob = LoneSearch(pos)
        fresh = LoneSearch(pos)
        out = np.zeros(C.SCRATCH_SIZE, np.int64)
        n = K._gen_all(prob.deal, prob.cols, prob.sc, prob.mask, out)
        prob.cols[1] = 99  # another position's cards
        K.copy_level(prob.cols, prob.sc, prob.mask, 0)
        for mv in rng.sample(list(out[:n]), n):
            K.reset_level(prob.cols, prob.sc, prob.mask, 0)
            K.apply(prob.cols, prob.sc, prob.mask, 1, mv, prob.params, prob.reserve, prob.talon)
            fresh.cols[1] = 99
            K.copy_level(fresh.cols, fresh.sc, fresh.mask, 0)
            K.apply(fresh.cols, fresh.sc, fresh.mask, 1, mv, fresh.params, fresh.reserve, fresh.talon)
            assert list(prob.sc[1]) == list(fresh.sc[1]) and prob.mask[1] == fresh.mask[1]
            for c in range(C.MAXCOLS):
                ln = prob.sc[1, C.SC_LEN + c]
                assert list(prob.cols[1, c, :ln]) == list(fresh.cols[1, c, :ln]), (seed, preset, int(mv))
                if ln > 0 and prob.sc[0, C.SC_LEN + c] > 0 and prob.cols[1, c, 0] != prob.cols[0, c, 0]:
                    refills += 1  # the move emptied column c and the reserve refilled it
    assert refills >= 5, refills


def long_key_of_short(hi, lo, params, pos):
    """Undo kernel.compact with codec.unpack_short: the long key a short key stands for. With foundation
    heights in place of the talon mask (P_FKEY), the talon is the cards of ``pos``'s talon order in no
    column, not in the reserve and not home."""
    r = pos.rules
    f = C.unpack_short(hi, lo, params, ranks=r.ranks)
    stream, nbits = C.column_stream(f["tableau"], C.BUILD_CODES[r.build])
    stream <<= C.COL_STREAM_BITS - nbits
    w0 = (f["wpos"] << C.WPOS_SHIFT) | (f["reserve"] << C.RES_SHIFT) | (f["redeals"] << C.RDL_SHIFT) | 1 << C.MARK_BIT
    words = [w0, stream >> 128, (stream >> 64) & ((1 << 64) - 1), stream & ((1 << 64) - 1)]
    if not params[C.P_FKEY]:
        words[0] |= f["first"]
        return words
    heights = C.unpack_heights(f["first"])
    home = {s * 13 + (pos.base_rank + i) % r.ranks for s in range(4) for i in range(heights[s])}
    placed = {c for col in f["tableau"] for c in col} | set(pos.reserve[:f["reserve"]]) | home
    for i, c in enumerate(list(pos.waste) + list(reversed(pos.stock))):  # the talon order (LoneSearch)
        if c not in placed:
            words[0] |= 1 << i
    return words


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(0, 2**64 - 1), st.sampled_from(preset_names()), st.randoms(use_true_random=False),
       st.integers(0, 250))
def test_short_keys_stand_for_exactly_one_long_key(seed, preset, rng, steps):
    """A key that fits 127 bits is rewritten so that the long key can be read back from it, else left alone."""
    pos = random_position(seed, preset, rng, steps)
    prob = LoneSearch(pos)
    words = np.zeros(4, np.uint64)
    nbits = K.key(prob.cols, prob.sc, prob.mask, 0, prob.params, words, np.zeros(C.SCRATCH_SIZE, np.int64))
    long_key = [int(w) for w in words]
    fits = long_key[3] == 0 and nbits + sum(int(prob.params[i]) for i in (
        C.P_TALON_BITS, C.P_WPOS_BITS, C.P_RES_BITS, C.P_RDL_BITS)) <= 127
    py_short = C.pack_short(long_key, nbits, prob.params, pos.foundations)
    assert K.compact(words, nbits, prob.params, prob.sc, 0) == fits
    assert (py_short is not None) == fits
    if fits:
        assert (int(words[0]), int(words[1])) == py_short  # the compiled and the plain-Python pack agree
        assert int(words[2]) == int(words[3]) == 0
        assert long_key_of_short(int(words[0]), int(words[1]), prob.params, pos) == long_key
    else:
        assert [int(w) for w in words] == long_key


def test_cover_rows_keep_the_least_waste_position_of_each_residue():
    """kernel.cover_insert_at on a table of one key: which waste positions are expanded, seen or covered."""
    params = np.zeros(C.NPARAMS, np.int64)
    params[C.P_DRAW], params[C.P_COVER], params[C.P_TALON_BITS], params[C.P_WPOS_BITS] = 3, 1, 20, 9
    params[C.P_COVER_BITS] = 4  # a 20-card talon: 1 + position // 3 up to 7
    ts = np.zeros((64, 2), np.uint64)
    stats = np.zeros(C.NSTATS, np.int64)
    row = np.array([1 << 63 | 12345, 777, 0, 0, 0, 0, 0], np.uint64)  # word 1's cover field (bits 20..28) clear

    w, shift, field = K._cover_at(True, params)
    assert (w, int(shift), int(field)) == (1, 20, 0x1FF << 20)
    shift, field = np.uint64(shift), np.uint64(field)  # as the kernel has them (a Python int would be int64)

    def ins(wp):
        return int(K.cover_insert_at(ts, row, np.uint64(5), wp, params, stats, w, shift, field, True, False))

    assert ins(7) == 2 and stats[C.ST_TTCOUNT] == 1              # new position, in a new row
    assert ins(7) == 0 and stats[C.ST_COVERED] == 0               # the same waste position: seen
    assert ins(10) == 0 and stats[C.ST_COVERED] == 1              # 7 draws on to 10: covered
    assert ins(0) == 0 and stats[C.ST_COVERED] == 2               # ... and to the end of the pass
    assert ins(8) == 1 and stats[C.ST_MERGED] == 1                # other residue: 7 never reaches 8
    assert ins(4) == 1 and stats[C.ST_MERGED] == 2                # earlier in 7's residue: it covers 7
    assert ins(7) == 0 and ins(5) == 1 and ins(11) == 0           # 4 covers 7; 5 is new, then covers 11
    assert ins(2) == 1 and ins(1) == 1                            # earlier still, in each residue
    assert ins(4) == 0 and ins(8) == 0 and ins(0) == 0            # now all covered by 1 and 2
    assert stats[C.ST_TTCOUNT] == 1                               # all in one row
    # A fresh key first reached at the end of the pass covers no later position.
    row[0] += np.uint64(1)
    assert ins(0) == 2 and ins(4) == 1 and ins(0) == 0 and stats[C.ST_TTCOUNT] == 2


def test_passes_cover_takes_redeals_and_waste_position_out_and_keeps_the_least():
    """Covering of limited passes: kernel.take_wpos takes (redeals used, waste position) out of a short and a
    long key as one number, so positions alike but for them share a key; cover_insert_at keeps the least."""
    rules = get_rules("canfield").replace(name="draw1-three-passes", draw=1, redeals=2)
    pos = Position(Deal.from_seed(5, rules))
    prob = LoneSearch(pos, passes_cover=True)
    params = prob.params
    assert params[C.P_COVER] == C.COVER_PASSES and LoneSearch(pos).params[C.P_COVER] == 0
    scratch = np.zeros(C.SCRATCH_SIZE, np.int64)

    def taken(rdl, wb, short):
        prob.sc[0, C.SC_RDL], prob.sc[0, C.SC_WB] = rdl, wb
        words = np.zeros(4, np.uint64)
        nbits = K.key(prob.cols, prob.sc, prob.mask, 0, params, words, scratch)
        if short:
            assert K.compact(words, nbits, params, prob.sc, 0) == 1
        return int(K.take_wpos(words, short, params)), [int(x) for x in words]

    for short in (True, False):
        late, key = taken(2, 5, short)  # five talon cards in the waste, two redeals used
        early, key0 = taken(0, 0, short)
        assert (late, early) == (2 * C.PASSES_STRIDE + 5, 0) and key == key0
    ts = np.zeros((64, 2), np.uint64)
    stats = np.zeros(C.NSTATS, np.int64)
    row = np.array([1 << 63 | 12345, 777, 0, 0, 0, 0, 0], np.uint64)
    w, shift, field = K._cover_at(True, params)
    shift, field = np.uint64(shift), np.uint64(field)

    def ins(rdl, wp):
        return int(K.cover_insert_at(ts, row, np.uint64(5), rdl * C.PASSES_STRIDE + wp, params, stats, w, shift,
                                     field, True, False))

    assert ins(1, 3) == 2 and stats[C.ST_TTCOUNT] == 1            # new, in a new row
    assert ins(1, 3) == 0 and stats[C.ST_COVERED] == 0            # the same: seen
    assert ins(1, 10) == 0 and stats[C.ST_COVERED] == 1           # later in the pass: covered
    assert ins(2, 0) == 0 and stats[C.ST_COVERED] == 2            # the next pass: covered
    assert ins(0, 20) == 1 and stats[C.ST_MERGED] == 1            # an earlier pass: expanded, and kept
    assert ins(1, 0) == 0 and ins(0, 25) == 0 and stats[C.ST_COVERED] == 4
    assert ins(0, 5) == 1 and ins(0, 20) == 0 and stats[C.ST_TTCOUNT] == 1


def test_tables_hash_rows_without_the_cover_field_the_kernel_uses():
    """solver.LoneSearch.cover_fields (used when a table grows) names the same bits as kernel._cover_at."""
    for preset, passes_cover in [(p, False) for p in preset_names()] + [("storehouse", True)]:
        prob = LoneSearch(Position(Deal.from_seed(5, preset)), passes_cover=passes_cover)
        short, long = prob.cover_fields()
        for is_short, want in ((True, short), (False, long)):
            w, shift, field = K._cover_at(is_short, prob.params)
            assert int(field) == want, preset
            if want:
                assert w == (1 if is_short else 0)


def _forced_waste_tops(rules, seeds, chunks=150, nodes=3_000):
    """At positions along searches of ``rules``: how many times the safe-move list is one waste card home,
    each checked to be the waste's top (no draw) and a move of the full list."""
    out = np.zeros(C.SCRATCH_SIZE, np.int64)
    every = np.zeros(C.SCRATCH_SIZE, np.int64)
    forced = 0
    for seed in seeds:
        for prob, d in levels_along_search(rules, seed, chunks, nodes):
            n = K.gen(prob.deal, prob.cols, prob.sc, prob.mask, d, out, True, prob.scratch, -1, -1, -1)
            if n != 1 or int(out[0]) & 15 != C.K_WF:
                continue
            m = K.gen(prob.deal, prob.cols, prob.sc, prob.mask, d, every, False, prob.scratch, -1, -1, -1)
            assert out[0] in every[:m]
            if m == 1:  # the one legal move, not a choice made for the search
                continue
            waste = int(prob.mask[d]) & ((1 << int(prob.sc[d, C.SC_WB])) - 1)
            assert waste and int(out[0]) == int(K.move_code(C.K_WF, waste.bit_length() - 1, 0, 1, 0))
            forced += 1
    return forced


@needs_jit
def test_the_waste_top_goes_home_alone_only_where_no_later_draw_changes():
    """Issue 70, item 5 (docs/solver-notes.md, "The waste's top home"): with one card a draw (and limited
    passes, so no pool), a safe waste top that fits is the position's only move, and it is the top's own move
    of the full list; with three a draw and redeals to come, a waste card never is."""
    from canfield_solver import get_rules

    passes2 = get_rules("canfield").replace(name="canfield-draw1-passes2", draw=1, redeals=1)
    assert _forced_waste_tops(passes2, (0, 1, 2)) >= 3
    assert _forced_waste_tops("rainbow", (0, 1, 2)) >= 5  # draw 1, no redeal
    assert _forced_waste_tops("canfield", (0, 1, 2)) == 0
