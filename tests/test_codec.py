"""search/codec.py: each packed format packs and unpacks to itself, the compiled functions (the kernel's) agree
with the plain-Python ones on the same values, and the offsets of each work array never overlap.

The keys' round trips over random positions of every preset are in test_kernel.py (the kernel's own key
against ``pack_long``/``unpack_long`` and ``pack_short``/``unpack_short``)."""

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canfield_solver import Deal, Position, preset_names
from canfield_solver.jit import njit
from canfield_solver.search import codec as C
from canfield_solver.search import kernel as K
from canfield_solver.search.arrays import LoneSearch

from helpers import examples, random_position

field = st.integers(0, C.MV_FIELD_MASK)


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(0, 5), field, field, field, st.integers(0, 1), st.booleans())
def test_move_code_round_trips_compiled_and_plain(kind, src, dst, count, redeal, seen):
    mv = C.move_code(kind, src, dst, count, redeal)
    assert int(K.move_code(kind, src, dst, count, redeal)) == mv  # the kernel's compiled encoder
    flagged = mv | (C.SEEN if seen else 0)
    assert C.unpack_move(flagged) == (kind, src, dst, count, redeal)
    assert flagged & C.MOVE_BITS == mv
    for py, jit in ((C.move_kind, K.move_kind), (C.move_src, K.move_src), (C.move_dst, K.move_dst),
                    (C.move_count, K.move_count), (C.move_redeal, K.move_redeal)):
        assert int(jit(np.int64(mv))) == py(mv)
    other = (src + 1) % (C.MV_FIELD_MASK + 1)
    assert C.unpack_move(C.move_with_src(mv, other)) == (kind, other, dst, count, redeal)
    assert C.unpack_move(C.move_with_dst(mv, other)) == (kind, src, other, count, redeal)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(0, 13), min_size=4, max_size=4))
def test_foundation_heights_round_trip(h):
    v = C.pack_heights(*h)
    assert v < 1 << (4 * C.HEIGHT_BITS)
    assert C.unpack_heights(v) == h
    assert int(K.pack_heights(*[np.int64(x) for x in h])) == v


_covers = njit(C.covers)
_merge = njit(C.merge_cover)
_reps = njit(C.waste_positions)


def _model(positions, draw):
    """What a row's cover field holds after the kernel's inserts of ``positions`` (kernel.cover_insert_at):
    a position already covered (the cycle's 0 by any reached position, another by an earlier one of its
    pass) is not taken in; else 0 sets the cycle bit and another becomes its residue's least position."""
    cycle, least = False, {}
    for p in positions:
        if p == 0:
            if not (cycle or least):
                cycle = True
        elif not (p % draw in least and least[p % draw] <= p):
            least[p % draw] = p
    return cycle, least


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(2, 4), st.lists(st.integers(0, 24), max_size=8), st.lists(st.integers(0, 24), max_size=8),
       st.integers(0, 24))
def test_cover_field_takes_in_merges_and_names_its_positions(draw, ps, qs, probe):
    """cover_bits, covers, merge_cover and waste_positions (plain and compiled) against the model of what a
    cover field holds: the cycle bit, and for each residue of the draw the least position taken in."""
    b = (24 // draw + 1).bit_length()
    # waste positions as a key holds them: those on the draw cycle (multiples of the draw) are folded to 0
    ps, qs = ([p if p % draw else 0 for p in x] for x in (ps, qs))
    probe = probe if probe % draw else 0

    def inserted(positions):
        f = np.uint64(0)
        for p in positions:
            if not C.covers(f, p, draw, b):
                g = C.cover_bits(f, p, draw, b)
                assert int(K.cover_bits(f, np.int64(p), np.int64(draw), np.int64(b))) == int(g)
                f = g
        return f

    f, g = inserted(ps), inserted(qs)
    fg = C.merge_cover(f, g, draw, b)
    assert int(_merge(f, g, np.int64(draw), np.int64(b))) == int(fg)
    cf, lf = _model(ps, draw)
    cg, lg = _model(qs, draw)
    merged = (cf or cg, {r: min(x for x in (lf.get(r), lg.get(r)) if x is not None) for r in set(lf) | set(lg)})
    for fld, (cycle, least) in ((f, (cf, lf)), (g, (cg, lg)), (fg, merged)):
        reps = np.zeros(draw + 1, np.int64)
        n = C.waste_positions(fld, True, draw, b, reps)
        assert [int(x) for x in reps[:n]] == [least[r] for r in sorted(least)] + ([0] if cycle else [])
        assert n == int(_reps(fld, True, np.int64(draw), np.int64(b), np.zeros(draw + 1, np.int64)))
        want = (cycle or bool(least)) if probe == 0 else (probe % draw in least and least[probe % draw] <= probe)
        assert bool(C.covers(fld, probe, draw, b)) == want
        assert bool(_covers(fld, np.int64(probe), np.int64(draw), np.int64(b))) == want
    reps = np.zeros(1, np.int64)
    assert C.waste_positions(np.uint64(7), False, draw, b, reps) == 1 and reps[0] == 7  # no covering: the position


def test_cover_field_positions_agree_with_the_short_key_layout():
    for preset in preset_names():
        prob = LoneSearch(Position(Deal.from_seed(3, preset)))
        p = [int(x) for x in prob.params]
        w, shift, mask = C.cover_field_at(True, p[C.P_COVER] == 1, p[C.P_TALON_BITS], p[C.P_WPOS_BITS])
        jw, jshift, jmask = K.cover_field_at(True, p[C.P_COVER] == 1, np.int64(p[C.P_TALON_BITS]),
                                              np.int64(p[C.P_WPOS_BITS]))
        assert (w, int(shift), int(mask)) == (int(jw), int(jshift), int(jmask))
        ts, tw, ws, ww, rs, rw, ds, dw = C.short_fields(p)
        if mask:  # the field is exactly the waste position's place in a short key
            assert w == 1 and int(shift) == ws and int(mask) == ((1 << ww) - 1) << ws
        assert (ts, ws, rs, ds) == (0, tw, tw + ww, tw + ww + rw) and dw == p[C.P_RDL_BITS]


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(0, 2**64 - 1), st.sampled_from(preset_names()), st.randoms(use_true_random=False),
       st.integers(0, 200))
def test_short_key_low_fields_compiled_equal_plain(seed, preset, rng, steps):
    pos = random_position(seed, preset, rng, steps)
    prob = LoneSearch(pos)
    p = prob.params
    vals = (np.uint64(int(rng.getrandbits(int(p[C.P_TALON_BITS])))), np.uint64(len(pos.waste) % (1 << int(p[C.P_WPOS_BITS]))),
            np.uint64(len(pos.reserve)), np.uint64(pos.redeals_used if p[C.P_RDL_BITS] else 0))
    assert int(K.short_low(*vals, p)) == int(C.short_low(*vals, [int(x) for x in p]))


def _groups():
    """The index constants of each work array, by prefix, with the array's size."""
    names = {n: getattr(C, n) for n in dir(C) if re.fullmatch(r"[A-Z][A-Z0-9_]+", n)}
    return {
        "P_": (C.NPARAMS, {n: v for n, v in names.items() if n.startswith("P_")}),
        "SC_": (C.NSC, {n: v for n, v in names.items() if n.startswith("SC_")}),
        "ST_": (C.NSTATS, {n: v for n, v in names.items() if n.startswith("ST_")}),
        "CTL_": (C.NCTL, {n: v for n, v in names.items() if n.startswith("CTL_")}),
        "CK_": (C.CK_WIDTH, {n: v for n, v in names.items() if n.startswith("CK_") and not n.endswith("_ROW")
                             and n != "CK_WIDTH"}),
    }


@pytest.mark.parametrize("prefix", ["P_", "SC_", "ST_", "CTL_", "CK_"])
def test_offsets_are_distinct_and_inside_their_array(prefix):
    size, group = _groups()[prefix]
    assert group and len(set(group.values())) == len(group), group
    assert all(0 <= v < size for v in group.values()), group


def test_scratch_and_table_regions_do_not_overlap():
    regions = [(C.SCR_QIDX, C.SCR_QRD), (C.SCR_QRD, C.SCR_PRES), (C.SCR_PRES, C.SCR_ORDER),
               (C.SCR_ORDER, C.SCR_ORDER + C.MAXCOLS), (C.SCR_CODES, C.SCR_CODES + C.MAXCOLS)]
    for (a, b), (c, d) in zip(regions, regions[1:]):
        assert a < b <= c < d <= C.SCRATCH_SIZE
    assert C.BM_LOWER + 52 <= C.BM_HOSTS and C.BM_HOSTS + 52 <= C.BM_GUESTS and C.BM_GUESTS + 52 <= C.BM_HOME
    assert C.BM_HOME + 4 * C.BM_HOME_STRIDE == C.BM_SIZE
    assert C.LUT_REL == 52 and C.LUT_GUESTS + 4 == C.LUT_HOSTS and C.LUT_HOSTS + 4 <= C.LUT_WIDTH
    assert C.SC_LEN + C.MAXCOLS == C.SC_CB and C.SC_CB + C.MAXCOLS == C.SC_TAB
    assert C.MV_RDL_SHIFT + 1 <= 40 and C.SEEN > C.MOVE_BITS


def test_no_literal_move_or_key_masks_outside_the_codec():
    """The kernel, the layered phase, the row decoder and the decoders of moves read formats through the
    codec: no literal move-field shift (``>> 4``, ``>> 12``, ``>> 20``, ``& 255``) or key mask is left."""
    src = Path(C.__file__).parent
    pattern = re.compile(r"(>>\s*(4|6|12|20|28)\b)|(&\s*(15|63|255)\b)|((?<!1 )<<\s*(4|6|12|20|28)\b)")  # not MiB's 1 << 20
    names = ["kernel.py", "rows.py", "arrays.py", "depth_first.py", "parallel.py"]
    names += [f"layered/{f.name}" for f in sorted((src / "layered").glob("*.py"))]
    assert len(names) >= 12
    for name in names:
        for i, line in enumerate((src / name).read_text().splitlines(), 1):
            code = line.split("#")[0]
            assert not pattern.search(code), f"{name}:{i}: {line.strip()}"


def test_no_literal_move_masks_in_the_games_kernels():
    """The games' kernels and the aces-and-kings solver read their move codes through games/codes.py: no
    literal shift or mask of a move's fields (``>> 4``, ``>> 8``, ``& 15``, ``* 256``) is left."""
    games = Path(C.__file__).parent.parent / "games"
    pattern = re.compile(r"(>>\s*(4|8)\b)|(<<\s*(4|8)\b)|(&\s*15\b)|(\*\s*256\b)")
    names = ["pairs_kernel.py", "aces_and_kings/kernel.py", "aces_and_kings/solve.py", "nine_packets/solve.py",
             "ten_columns/solve.py"]
    for name in names:
        for i, line in enumerate((games / name).read_text().splitlines(), 1):
            code = line.split("#")[0]
            assert not pattern.search(code), f"{name}:{i}: {line.strip()}"
