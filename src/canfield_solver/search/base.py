"""What every compiled search of Canfield shares (Numba): the compile options, the machine-word intrinsics
(population count, trailing zeros, prefetch, the atomics the workers of one deal use), codec's packing
functions compiled, and the rules of one card (``_fits_on``, ``fits_f``, ``_home``, ``is_safe``).

Split out of ``kernel.py`` (issue 72: that file read at its size); ``kernel`` imports every name here and
is still where the other search modules take them from. A compiled function that inlines these is stamped
with this file too (``jit.sources_stamp`` follows the imports), so a change here is never loaded stale.

Glossary
--------
The parameters the compiled functions of the search (``kernel.py``, ``base.py``, ``stuck.py``,
``pool.py``) read under one name and one meaning, said once here: a function's ``Parameters`` section
lists them as ``name, name : glossary`` (tests/test_kernel_docs.py reads this section, and fails on a
name it does not hold).

deal : DealArrays
    The deal's arrays: params, reserve, talon, lut, bm (codec.DealArrays).
stack : StackArrays
    The search's stack: cols, sc, mask, moves, nmoves, midx (codec.StackArrays).
cols : int8[levels, MAXCOLS, COLCAP]
    Each level's columns, cards bottom first (``StackArrays.cols``).
sc : int64[levels, NSC]
    Each level's scalars (``SC_*``).
mask : uint64[levels]
    Each level's talon mask (bit i: talon card i is still in the talon).
d : int
    The level that holds the position.
params : int64[NPARAMS]
    The rule parameters and key widths (``P_*``).
lut : int64[52, LUT_WIDTH]
    The card lookup table (``LUT_*``).
bm : uint64[BM_SIZE]
    The card bit masks (``BM_*``).
reserve : int64[n]
    The reserve's cards, bottom first; ``sc[d, SC_RES]`` of them are left.
talon : int64[n + 1]
    The talon's cards by index: the waste bottom first, then the stock top first.
card : int
    A card code (suit * 13 + its rank's index).
mv : int64
    A move code (``MV_*``: codec.move_code).
stats : int64[NSTATS]
    The search's statistics (``ST_*``), updated here.
ctl : int64[NCTL]
    The control words shared by the workers of one deal (``CTL_*``); ``ctl[CTL_PAR]`` is 0 for a search alone.
prefix : uint64[MAXCOLS, COLCAP]
    The stuck test's work space (row 0: one pointer a column).
short : bool
    True for the short table (two-word keys), False for the long one.
par : bool
    Whether other workers read and write the same table at once (atomic accesses).
typingctx : numba typing context
    Given by Numba; a compiled caller leaves it out.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llvm_ir
from numba import config as numba_config
from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic

from ..jit import INLINE, IR_INLINE_NO_NRT_CACHED, helper, njit
from . import codec as C
from .codec import (
    LUT_GUESTS,
    LUT_REL,
    P_RANKS,
    P_SAFE,
    SC_F,
)

# The compile options every function here takes are jit.py's named sets: ``INLINE`` for the pieces the
# search inlines (``helper``s, compiled only as far as the IR the entry points link in: no wrappers, cache
# entry or machine code of their own), ``NO_NRT`` and ``ENTRY`` for the functions called from Python
# (1.4-1.5x more nodes a second once inlined; docs/solver-notes.md section 1).



# Every packed format (parameters, card tables, level scalars, statistics, control words, move codes, keys,
# cover fields, scratch and child-key offsets) is codec.py's: the small functions that read and write
# them are compiled from codec's own text, so the kernel and the plain-Python side read one definition.
# Inlined by Numba itself (at the IR level, into each caller before typing): such small functions are then
# never compiled on their own, which a separate compile of each (LLVM's alwaysinline) costs at the first run.
_jit = njit(**IR_INLINE_NO_NRT_CACHED)
move_code = _jit(C.move_code)
move_kind = _jit(C.move_kind)
move_src = _jit(C.move_src)
move_dst = _jit(C.move_dst)
move_count = _jit(C.move_count)
move_redeal = _jit(C.move_redeal)
suit_code = _jit(C.suit_code)
short_fields = _jit(C.short_fields)
short_low = _jit(C.short_low)
pack_heights = _jit(C.pack_heights)
cover_field_at = _jit(C.cover_field_at)
cover_bits = _jit(C.cover_bits)
cover_least = _jit(C.cover_least)
# used by the layered phase and the row decoder, which read the same formats
covers = _jit(C.covers)
merge_cover = _jit(C.merge_cover)
waste_positions = _jit(C.waste_positions)
suit_from_code = _jit(C.suit_from_code)



if numba_config.DISABLE_JIT:  # the kernel as plain Python (tests): the same counts, slowly
    import threading

    _ATOMIC = threading.Lock()

    def _prefetch_row(arr, i):
        """Start loading row ``i`` of a 2-D array into the cache; nothing as plain Python.

        Parameters
        ----------
        arr : uint64[rows, width]
            A table.
        i : uint64
            The row to load.
        """
        pass

    def _cas(arr, i, j, expected, new):
        """Compare-and-swap ``arr[i, j]``: store ``new`` if it holds ``expected``; the old value.

        Parameters
        ----------
        arr : uint64[rows, width]
            A table.
        i : uint64
            The row.
        j : int
            The word within the row.
        expected : uint64
            The value the word must hold for the store to happen.
        new : uint64
            The value stored.
        """
        with _ATOMIC:
            old = arr[i, j]
            if old == expected:
                arr[i, j] = new
            return old

    def _load_acquire(arr, i, j):
        """``arr[i, j]``, read so that what its writer wrote before it is seen too.

        Parameters
        ----------
        arr : uint64[rows, width]
            A table.
        i : uint64
            The row.
        j : int
            The word within the row.
        """
        return arr[i, j]

    def _store_release(arr, i, j, v):
        """``arr[i, j] = v``, after every store before it.

        Parameters
        ----------
        arr : uint64[rows, width]
            A table.
        i : uint64
            The row.
        j : int
            The word within the row.
        v : uint64
            The value stored.
        """
        arr[i, j] = v

    def _fetch_add(arr, i, v):
        """Add ``v`` to ``arr[i]`` atomically; the old value.

        Parameters
        ----------
        arr : int64[n]
            The shared control words.
        i : int
            The word.
        v : int64
            What is added.
        """
        with _ATOMIC:
            old = arr[i]
            arr[i] = old + v
            return old

    def popcount(x):
        """Set bits of a uint64.

        Parameters
        ----------
        x : uint64
            The word whose set bits are counted.
        """
        return np.uint64(bin(int(x)).count("1"))

    def _ctz(x):
        """Index of the lowest set bit of a non-zero uint64.

        Parameters
        ----------
        x : uint64
            A non-zero word.
        """
        x = int(x)
        return np.uint64((x & -x).bit_length() - 1)
else:
    @intrinsic
    def popcount(typingctx, x):
        """Set bits of a uint64 (one POPCNT instruction).

        Parameters
        ----------
        typingctx : glossary
            As the glossary in ``search/base.py`` says.
        x : uint64
            The word whose set bits are counted.
        """
        def codegen(context, builder, signature, args):
            fn = builder.module.declare_intrinsic("llvm.ctpop", [llvm_ir.IntType(64)])
            return builder.call(fn, args)
        return types.uint64(types.uint64), codegen

    def _item_ptr(context, builder, arrty, ary_val, inds, ind_types):
        """LLVM pointer to the item of an array at ``inds`` (values of the types ``ind_types``), unchecked.

        Parameters
        ----------
        context : numba target context
            The code generator's context.
        builder : llvmlite IRBuilder
            The builder the code goes to.
        arrty : numba Array type
            The array's type.
        ary_val : LLVM value
            The array.
        inds : list of LLVM values
            The indices, one a dimension.
        ind_types : list of numba types
            Their types.
        """
        ary = context.make_array(arrty)(context, builder, ary_val)
        inds = [context.cast(builder, v, t, types.intp) for v, t in zip(inds, ind_types)]
        return cgutils.get_item_pointer2(context, builder, data=ary.data,
                                         shape=cgutils.unpack_tuple(builder, ary.shape),
                                         strides=cgutils.unpack_tuple(builder, ary.strides),
                                         layout=arrty.layout, inds=inds, wraparound=False)

    def _item_ptr2(context, builder, signature, args):
        """Pointer to ``arr[i, j]`` for an intrinsic whose first three arguments are ``arr, i, j``.

        Parameters
        ----------
        context : numba target context
            The code generator's context.
        builder : llvmlite IRBuilder
            The builder the code goes to.
        signature : numba Signature
            The intrinsic's signature.
        args : list of LLVM values
            The intrinsic's arguments: arr, i, j, ...
        """
        return _item_ptr(context, builder, signature.args[0], args[0], args[1:3], signature.args[1:3])

    @intrinsic
    def _prefetch_row(typingctx, arr, i):
        """Start loading row ``i`` of a 2-D array into the cache (PREFETCHT0); no result, no wait.

        Parameters
        ----------
        typingctx : glossary
            As the glossary in ``search/base.py`` says.
        arr : uint64[rows, width]
            A table.
        i : uint64
            The row to load.
        """
        def codegen(context, builder, signature, args):
            zero = context.get_constant(types.intp, 0)
            ptr = _item_ptr(context, builder, signature.args[0], args[0], [args[1], zero],
                            [signature.args[1], types.intp])
            i32 = llvm_ir.IntType(32)
            fnty = llvm_ir.FunctionType(llvm_ir.VoidType(), [ptr.type, i32, i32, i32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
            builder.call(fn, [ptr, i32(0), i32(3), i32(1)])
            return context.get_dummy_value()
        return types.none(arr, i), codegen

    @intrinsic
    def _cas(typingctx, arr, i, j, expected, new):
        """Compare-and-swap ``arr[i, j]`` (uint64): store ``new`` if it holds ``expected``; the old value.

        Parameters
        ----------
        typingctx : glossary
            As the glossary in ``search/base.py`` says.
        arr : uint64[rows, width]
            A table.
        i : uint64
            The row.
        j : int
            The word within the row.
        expected : uint64
            The value the word must hold for the store to happen.
        new : uint64
            The value stored.
        """
        def codegen(context, builder, signature, args):
            ptr = _item_ptr2(context, builder, signature, args)
            exp = context.cast(builder, args[3], signature.args[3], types.uint64)
            val = context.cast(builder, args[4], signature.args[4], types.uint64)
            res = builder.cmpxchg(ptr, exp, val, "seq_cst", "seq_cst")
            return builder.extract_value(res, 0)
        return types.uint64(arr, i, j, expected, new), codegen

    @intrinsic
    def _load_acquire(typingctx, arr, i, j):
        """``arr[i, j]`` (uint64), read so that what its writer wrote before it is seen too.

        Parameters
        ----------
        typingctx : glossary
            As the glossary in ``search/base.py`` says.
        arr : uint64[rows, width]
            A table.
        i : uint64
            The row.
        j : int
            The word within the row.
        """
        def codegen(context, builder, signature, args):
            ptr = _item_ptr2(context, builder, signature, args)
            return builder.load_atomic(ptr, "acquire", 8)
        return types.uint64(arr, i, j), codegen

    @intrinsic
    def _store_release(typingctx, arr, i, j, v):
        """``arr[i, j] = v`` (uint64), after every store before it.

        Parameters
        ----------
        typingctx : glossary
            As the glossary in ``search/base.py`` says.
        arr : uint64[rows, width]
            A table.
        i : uint64
            The row.
        j : int
            The word within the row.
        v : uint64
            The value stored.
        """
        def codegen(context, builder, signature, args):
            ptr = _item_ptr2(context, builder, signature, args)
            val = context.cast(builder, args[3], signature.args[3], types.uint64)
            builder.store_atomic(val, ptr, "release", 8)
            return context.get_dummy_value()
        return types.none(arr, i, j, v), codegen

    @intrinsic
    def _fetch_add(typingctx, arr, i, v):
        """Add ``v`` to ``arr[i]`` (int64) atomically; the old value.

        Parameters
        ----------
        typingctx : glossary
            As the glossary in ``search/base.py`` says.
        arr : int64[n]
            The shared control words.
        i : int
            The word.
        v : int64
            What is added.
        """
        def codegen(context, builder, signature, args):
            ptr = _item_ptr(context, builder, signature.args[0], args[0], [args[1]], [signature.args[1]])
            val = context.cast(builder, args[2], signature.args[2], types.int64)
            return builder.atomic_rmw("add", ptr, val, "seq_cst")
        return types.int64(arr, i, v), codegen

    @intrinsic
    def _ctz(typingctx, x):
        """Index of the lowest set bit of a non-zero uint64 (one TZCNT instruction).

        Parameters
        ----------
        typingctx : glossary
            As the glossary in ``search/base.py`` says.
        x : uint64
            A non-zero word.
        """
        def codegen(context, builder, signature, args):
            fn = builder.module.declare_intrinsic("llvm.cttz", [llvm_ir.IntType(64), llvm_ir.IntType(1)])
            return builder.call(fn, [args[0], llvm_ir.Constant(llvm_ir.IntType(1), 1)])
        return types.uint64(types.uint64), codegen


@helper(**INLINE)
def below(wb):
    """Mask of talon indices below ``wb``.

    Parameters
    ----------
    wb : int
        A waste boundary: the talon index above the waste's top card.
    """
    return (np.uint64(1) << np.uint64(wb)) - np.uint64(1)


@helper(**INLINE)
def _fits_on(card, host, lut):
    """Whether ``card`` may be built on ``host`` in a column (a table lookup).

    Parameters
    ----------
    card : glossary
        As the glossary in ``search/base.py`` says.
    host : int
        The card it would go on.
    lut : glossary
        As the glossary in ``search/base.py`` says.
    """
    return lut[card, host] == 1


@helper(**INLINE)
def fits_f(card, sc, d, params, lut):
    """Whether ``card`` may go on its foundation now (the next rank of its suit's pile).

    Parameters
    ----------
    card, sc, d, params, lut : glossary
        As the glossary in ``search/base.py`` says.
    """
    f = sc[d, SC_F + card // 13]
    return f < params[P_RANKS] and lut[card, LUT_REL] == f


@helper(**INLINE)
def _home(card, sc, d, lut):
    """Whether ``card`` is on its foundation.

    Parameters
    ----------
    card, sc, d, lut : glossary
        As the glossary in ``search/base.py`` says.
    """
    return lut[card, LUT_REL] < sc[d, SC_F + card // 13]


@helper(**INLINE)
def is_safe(card, sc, d, params, lut):
    """A foundation move of ``card`` that can never hurt (SOLVER-NOTES §1).

    Parameters
    ----------
    card, sc, d, params, lut : glossary
        As the glossary in ``search/base.py`` says.
    """
    mode = params[P_SAFE]
    if mode == 0:
        return False
    if mode >= 4:
        # Any suit builds (solver notes, "A card home once every card it could host can go home"): a card of
        # rank r hosts only rank r - 1 cards; once every foundation holds r - 1 cards, each of those not home
        # goes home as soon as it can move at all, and nothing can lie on it (rank r - 2 is home).
        r = lut[card, LUT_REL]
        lo = min(min(sc[d, SC_F], sc[d, SC_F + 1]), min(sc[d, SC_F + 2], sc[d, SC_F + 3]))
        if r >= 2 or (r == 1 and mode == 4):
            return lo >= r - 1
    if mode >= 3:
        for k in range(4):
            g = lut[card, LUT_GUESTS + k]
            if g >= 0 and not _home(g, sc, d, lut):
                return False
        return True
    r = lut[card, LUT_REL] + 1
    s = card // 13
    if s == 0 or s == 3:  # black: opposite are D, H; same colour partner
        opp = min(sc[d, SC_F + 1], sc[d, SC_F + 2])
        same = sc[d, SC_F + (3 if s == 0 else 0)]
    else:
        opp = min(sc[d, SC_F + 0], sc[d, SC_F + 3])
        same = sc[d, SC_F + (2 if s == 1 else 1)]
    if mode == 1:  # full wrap: the base card can host the last rank
        if r == 1:
            return False
        if r == 2:
            return opp >= 1
        if r == 3:
            return opp >= 2 or (opp >= 1 and same >= 1)
        return opp >= r - 1 or (opp >= r - 2 and same >= r - 3)
    # mode 2: relative wrap or no wrap from the ace
    if r <= 2:
        return True
    return opp >= r - 1 or (opp >= r - 2 and same >= r - 3)


