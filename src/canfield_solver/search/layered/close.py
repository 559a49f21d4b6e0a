"""The layered proof's close kernel: a chunk of a layer's entries expanded with the search kernel's move
generation, safe moves and stuck-card test (``close_entries``), its m-keeping children in a table of the
layer's own, its higher children written once each for the next layers; the layer's entries found by key
(``index``, ``find``); a key decoded back into a position (``level_of``)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...jit import CACHED, IR_INLINE_CACHED, THREADED, njit
from .. import codec as C
from .. import kernel as K
from .. import rows as R
from .sort import compare

DONE, WON, FOUND, LONG_KEY, BUDGET = 0, 1, 2, 3, 4  # how close_entries ends
TABLE_LOAD = 0.7      # a layer's own table doubles at this load
# counts[] of close_entries: nodes, positions expanded, stuck children cut (among those not known before), best score
C_NODES, C_EXPANDED, C_STUCK, C_BEST = range(4)



class Layer(NamedTuple):
    """A layer's entries, sorted by key, and where each bucket of their keys starts (``index``)."""

    entries: np.ndarray  #: uint64[n, 2], the layer's rows (k0, k1 with its cover field)
    starts: np.ndarray   #: int64[buckets + 1], ``index(entries)``


class CloseBuffers(NamedTuple):
    """The arrays ``close_entries`` fills and grows (the grown ones come back in its result)."""

    table: np.ndarray  #: uint64[rows, 2], the layer's own table of the m-keeping positions expanded
    out: np.ndarray    #: uint64[n, 4], the children of higher layers: k0, k1, cover field, m step
    seen: np.ndarray   #: int64[2 * len(out)], ``out``'s rows by key (open addressing; row + 1, 0 empty)
    logk: np.ndarray   #: uint64[n, 3], the positions to expand: k0, k1, waste position
    logp: np.ndarray   #: int64[n, 2], the log index of the position that reached each (-1: an entry), the move


class PhaseShape(NamedTuple):
    """Sizes of a layered phase's deal."""

    ranks: int       #: ranks in a suit
    full_score: int  #: the score of a won position (every card home)
    width: int       #: the most moves a position can have


class Counters(NamedTuple):
    """What ``close_entries`` counts, and the flag that stops it."""

    counts: np.ndarray  #: int64[4], C_NODES, C_EXPANDED, C_STUCK, C_BEST
    stats: np.ndarray   #: int64[NSTATS], the kernel's statistics of the layer's own table (``ST_TTCOUNT``)
    halt: np.ndarray    #: int64[1], set by another thread to stop between two entries


# The formats' functions are codec's, compiled once in the kernel (inlined where they are called).
_merge_field = K.merge_cover
_covers = K.covers
_cover_bits = K.cover_bits
_cover_field_at = K.cover_field_at
_short_fields = K.short_fields


@njit(**CACHED)
def _mix(k0, k1):
    """A hash of a key's two words (for ``close_entries``'s table of the children it has written).

    Parameters
    ----------
    k0 : uint64
        Word 0 of a key.
    k1 : uint64
        Word 1.
    """
    h = (k0 ^ (k1 * np.uint64(0x9E3779B97F4A7C15))) * np.uint64(0xBF58476D1CE4E5B9)
    return h ^ (h >> np.uint64(31))


@njit(**CACHED)
def _grown_out(out, nout, seen):
    """``out`` doubled, and ``seen`` (its rows' places by key) made again for it.

    Parameters
    ----------
    out : uint64[n, 4]
        The children written so far: k0, k1, cover field, m step.
    nout : int
        The rows of ``out`` in use.
    seen : int64[2 * len(out)]
        ``out``'s rows by key, open addressing (row + 1; 0 empty).
    """
    bigger = np.empty((2 * out.shape[0], 4), np.uint64)
    bigger[:nout] = out[:nout]
    seen = np.zeros(2 * seen.shape[0], np.int64)
    mask = np.uint64(seen.shape[0] - 1)
    for j in range(nout):
        h = _mix(bigger[j, 0], bigger[j, 1]) & mask
        while seen[h] != 0:
            h = (h + np.uint64(1)) & mask
        seen[h] = j + 1
    return bigger, seen



@njit(**IR_INLINE_CACHED)
def _in_table(table, r0, r1, h, keep, field, ws, cover, cwp, draw, cb):
    """Whether the layer's own table holds key (r0, r1) with a cover field that covers waste position ``cwp``
    (or, without covering, holds the key): what ``kernel.insert_key`` would answer 0 for, without inserting.

    Parameters
    ----------
    table : uint64[rows, 2]
        The layer's own table (short rows, the cover field in word 1; 0 in word 0: empty).
    r0 : uint64
        Word 0 of the key.
    r1 : uint64
        Word 1, its cover field cleared.
    h : uint64
        The row where its probe starts (``kernel.slot``).
    keep : uint64
        The mask word 1 is compared under (the cover field cleared).
    field : uint64
        The cover field's bits in word 1.
    ws : uint64
        Where the cover field starts in word 1.
    cover : bool
        Whether rows have cover fields.
    cwp : int
        The child's waste position.
    draw : int
        Cards a deal turns.
    cb : int
        Bits of each residue's least position in a cover field.
    """
    rows = np.uint64(table.shape[0])
    i = h
    while table[i, 0] != np.uint64(0):
        if table[i, 0] == r0 and (table[i, 1] & keep) == r1:
            return not cover or _covers((table[i, 1] & field) >> ws, cwp, draw, cb)
        i += np.uint64(1)
        if i == rows:
            i = np.uint64(0)
    return False


INDEX_BITS = 18  # a layer's entries are found through their key's top bits (below the constant bit 63), at most


@njit(**THREADED)
def index(entries):
    """Where each bucket of the top bits of word 0 (below bit 63) starts in ``entries``: about one bucket
    for every four entries, at most 2**INDEX_BITS; the bucket count is the array's length less one.

    Parameters
    ----------
    entries : uint64[n, 2]
        A layer's rows, sorted by key (``sort.compare``): k0, k1 with its cover field.
    """
    bits = 4
    while bits < INDEX_BITS and (1 << (bits + 2)) < entries.shape[0]:
        bits += 1
    nb = 1 << bits
    starts = np.zeros(nb + 1, np.int64)
    for i in range(entries.shape[0]):
        starts[((entries[i, 0] >> np.uint64(63 - bits)) & np.uint64(nb - 1)) + np.uint64(1)] += 1
    for b in range(nb):
        starts[b + 1] += starts[b]
    return starts


@njit(**CACHED)
def find(entries, starts, k0, k1, keep):
    """The index of the entry with key (k0, k1) (cover fields aside), or -1: a binary search within its
    bucket of ``starts``.

    Parameters
    ----------
    entries : uint64[n, 2]
        A layer's rows, sorted by key (``sort.compare``): k0, k1 with its cover field.
    starts : int64[buckets + 1]
        Where each bucket of the entries' top key bits starts (``index``).
    k0 : uint64
        Word 0 of the key sought.
    k1 : uint64
        Word 1, its cover field cleared.
    keep : uint64
        The mask word 1 of an entry is compared under (its cover field cleared).
    """
    nb = starts.shape[0] - 1
    bits = 0
    while (1 << bits) < nb:
        bits += 1
    b = (k0 >> np.uint64(63 - bits)) & np.uint64(nb - 1)
    lo = starts[b]
    hi = starts[b + np.uint64(1)]
    while lo < hi:
        mid = (lo + hi) // 2
        c = compare(entries[mid, 0], entries[mid, 1] & keep, k0, k1)
        if c == 0:
            return mid
        if c < 0:
            lo = mid + 1
        else:
            hi = mid
    return -1


@njit(**THREADED)
def close_entries(layer, lo, hi, bufs, deal, shape, recover, target, found, budget, counters):
    """Expand entries ``lo:hi`` of a layer and every position their m-keeping moves reach.

    Each entry stands for the waste positions its cover field names (a residue's least position; the
    cycle's only where no residue is there, as a position part-way through a pass has its moves, solver
    notes §6). Children of the same m that no entry covers go into ``table`` (kernel.insert_key, with
    covering) and are expanded when new; children of a higher m are written to ``out`` (k0, k1, cover
    field, m step), one row a key (``seen``, an open-addressed table twice ``out``'s size, finds a key's row
    again, and a repeat's cover field is merged into it); stuck children are cut (kernel.child_is_stuck,
    asked only of a child that would be new here: one already written passed it, and stuckness is the
    position's own);
    safe moves as in the search.

    Positions to expand wait in a log (``logk``: k0, k1, waste position; ``logp``: the index of the one
    that reached it, -1 for an entry, and the move). Without ``recover`` the log is emptied after each
    entry; with it, it is kept for the whole call, so ``found`` (the log index of the position whose move
    ``found[1]`` won, or reached ``target``: k0, k1, waste position, in a lower layer's closure) leads back
    to an entry. The arrays grow here as needed; the ones in use are returned. Stops with BUDGET between two
    entries once ``counts[C_NODES]`` reaches ``budget``.

    Parameters
    ----------
    layer : Layer
        The layer's entries and their index (``Layer``).
    lo : int
        The first entry to close.
    hi : int
        The entry after the last.
    bufs : CloseBuffers
        The arrays filled and grown here (``CloseBuffers``).
    deal : DealArrays
        The deal's arrays, with the phase's own parameters (covering, key widths).
    shape : PhaseShape
        Ranks, the won score and the most moves a position has (``PhaseShape``).
    recover : bool
        Keep the whole call's log, so that ``found`` leads back to an entry.
    target : uint64[4]
        With ``recover``: k0, k1, waste position of a lower layer's position to find, and 1 in word 3 to look
        for a win instead.
    found : int64[2]
        Receives the log index of the position whose move reached the win or the target, and that move.
    budget : int
        Stop between two entries once ``counts[C_NODES]`` reaches it.
    counters : Counters
        The counts, the layer table's statistics and the halt flag (``Counters``).
    """
    entries, starts = layer
    table, out, seen, logk, logp = bufs
    params, reserve, talon, lut, bm = deal
    ranks, full_score, width = shape
    counts, stats, halt = counters
    cols = np.zeros((2, C.MAXCOLS, C.COLCAP), np.int8)
    sc = np.zeros((2, C.NSC), np.int64)
    mask = np.zeros(2, np.uint64)
    moves = np.zeros(width, np.int64)
    scratch = np.zeros(C.SCRATCH_SIZE, np.int64)
    prefix = np.zeros((C.MAXCOLS, C.COLCAP), np.uint64)
    row = np.zeros(C.CK_WIDTH, np.uint64)
    words = np.zeros(4, np.uint64)
    ctl = np.zeros(C.NCTL, np.int64)
    tt = np.zeros((1, 4), np.uint64)
    tb = params[C.P_TALON_BITS]
    wb = params[C.P_WPOS_BITS]
    cover = params[C.P_COVER] == 1
    draw = params[C.P_DRAW]
    cb = params[C.P_COVER_BITS]
    ncols = params[C.P_NCOLS]
    ws = np.uint64(_short_fields(params)[2])  # where a short key's waste position (or cover field) starts
    wmask = (np.uint64(1) << np.uint64(wb)) - np.uint64(1)
    field = _cover_field_at(True, cover, tb, wb)[2]
    keep = ~field
    reps = np.zeros(8, np.int64)
    nout = 0
    seen[:] = 0
    have = False  # level 0 holds the key (last0, last1), decoded
    last0 = np.uint64(0)
    last1 = np.uint64(0)
    pm = 0
    nlog = 0
    grow_at = np.int64(table.shape[0] * TABLE_LOAD)
    for e in range(lo, hi):
        if counts[C_NODES] >= budget or halt[0] != 0:
            return BUDGET, nout, nlog, table, out, seen, logk, logp
        if not recover:
            nlog = 0
        read = nlog
        f = (entries[e, 1] >> ws) & wmask
        nrep = K.waste_positions(f, cover, draw, cb, reps)
        for q in range(nrep):
            if cover and q > 0 and reps[q] == 0:
                continue  # the cycle's position: a residue's reaches it and has its moves
            if nlog == logk.shape[0]:
                logk, logp = _grown_log(logk, logp)
            logk[nlog, 0] = entries[e, 0]
            logk[nlog, 1] = entries[e, 1] & keep
            logk[nlog, 2] = np.uint64(reps[q])
            logp[nlog, 0] = -1
            logp[nlog, 1] = 0
            nlog += 1
        while read < nlog:
            if not (have and logk[read, 0] == last0 and logk[read, 1] == last1):
                # decoded once for all the waste positions of a key that follow one another in the log
                # (an entry's); level 0 is left as decoded, only its waste boundary moves
                pm = R.level_from_row(logk[read, 0], logk[read, 1], params, reserve, talon, lut, cols, sc, mask,
                                      ranks)
                last0 = logk[read, 0]
                last1 = logk[read, 1]
                have = True
            R.set_waste(sc, mask, np.int64(logk[read, 2]))
            counts[C_EXPANDED] += 1
            n = K.gen(deal, cols, sc, mask, 0, moves, True, scratch, -1, -1, -1)
            K.copy_cards(cols, sc, 0)
            for k in range(n):
                K.reset_level(cols, sc, mask, 0)
                K.apply(cols, sc, mask, 1, moves[k], params, reserve, talon)
                counts[C_NODES] += 1
                score = K.score(sc, 1)
                if score > counts[C_BEST]:
                    counts[C_BEST] = score
                if score == full_score:
                    if not recover or target[3] == np.uint64(1):
                        found[0] = read
                        found[1] = moves[k]
                        return WON, nout, nlog, table, out, seen, logk, logp
                    continue
                # The stuck-card test (a function of the child alone) waits until the child is known to be
                # new: a child already in the layer, its table or ``out`` passed it when it was written.
                for x in range(C.CK_WIDTH):
                    row[x] = np.uint64(0)
                nb = K.key(cols, sc, mask, 1, params, row, scratch)
                if not K.compact(row, nb, params, sc, 1):
                    if K.child_is_stuck(cols, sc, 0, moves[k], params, reserve, talon, bm, prefix):
                        counts[C_STUCK] += 1
                        continue
                    return LONG_KEY, nout, nlog, table, out, seen, logk, logp
                cwp = K.take_wpos(row, True, params)
                if not cover:
                    cwp = np.int64((row[1] >> ws) & wmask)
                r0 = row[0]
                r1 = row[1]
                if recover and target[3] == np.uint64(0) and r0 == target[0] and r1 == target[1] \
                        and cwp == np.int64(target[2]):
                    found[0] = read
                    found[1] = moves[k]
                    return FOUND, nout, nlog, table, out, seen, logk, logp
                cm = 2 * score
                for c in range(ncols):
                    cm += sc[1, C.SC_LEN + c]
                if cm == pm:  # the same layer: expanded here unless an entry or a row of the layer covers it
                    i = find(entries, starts, r0, r1, keep)
                    if i >= 0 and (not cover or _covers((entries[i, 1] & field) >> ws, cwp, draw, cb)):
                        continue
                    hr = K.key_hash(row)  # one hash for the probe and the insert (its slot again if the table grows)
                    if _in_table(table, r0, r1, K.slot(hr, table.shape[0]), keep, field, ws, cover, cwp, draw, cb):
                        continue
                    if K.child_is_stuck(cols, sc, 0, moves[k], params, reserve, talon, bm, prefix):
                        counts[C_STUCK] += 1
                        continue
                    if stats[C.ST_TTCOUNT] >= grow_at:
                        bigger = np.zeros((2 * table.shape[0], 2), np.uint64)
                        K.tt_rehash(table, bigger, words, field, 1)
                        table = bigger
                        grow_at = np.int64(table.shape[0] * TABLE_LOAD)
                    h = K.slot(hr, table.shape[0])
                    if K.insert_key(table, tt, row, h, True, cwp if cover else -1, params, stats, ctl) != 0:
                        if nlog == logk.shape[0]:
                            logk, logp = _grown_log(logk, logp)
                        logk[nlog, 0] = r0
                        logk[nlog, 1] = r1
                        logk[nlog, 2] = np.uint64(cwp)
                        logp[nlog, 0] = read
                        logp[nlog, 1] = moves[k]
                        nlog += 1
                elif not recover:
                    f = _cover_bits(np.uint64(0), cwp, draw, cb) if cover else np.uint64(0)
                    smask = np.uint64(seen.shape[0] - 1)
                    h = _mix(r0, r1) & smask
                    j = seen[h] - 1
                    while j >= 0 and not (out[j, 0] == r0 and out[j, 1] == r1):
                        h = (h + np.uint64(1)) & smask
                        j = seen[h] - 1
                    if j >= 0:  # written already by this call: one row, the cover fields merged
                        if cover:
                            merged = _merge_field(out[j, 2], f, draw, cb)
                            if merged != out[j, 2]:
                                if K.child_is_stuck(cols, sc, 0, moves[k], params, reserve, talon, bm, prefix):
                                    counts[C_STUCK] += 1
                                    continue
                                out[j, 2] = merged
                        continue
                    if K.child_is_stuck(cols, sc, 0, moves[k], params, reserve, talon, bm, prefix):
                        counts[C_STUCK] += 1
                        continue
                    if nout == out.shape[0]:
                        out, seen = _grown_out(out, nout, seen)
                        smask = np.uint64(seen.shape[0] - 1)
                        h = _mix(r0, r1) & smask
                        while seen[h] != 0:
                            h = (h + np.uint64(1)) & smask
                    seen[h] = nout + 1
                    out[nout, 0] = r0
                    out[nout, 1] = r1
                    out[nout, 2] = f
                    out[nout, 3] = np.uint64(cm - pm)
                    nout += 1
            read += 1
    return DONE, nout, nlog, table, out, seen, logk, logp


@njit(**CACHED)
def _grown_log(logk, logp):
    """The close kernel's log doubled.

    Parameters
    ----------
    logk : uint64[n, 3]
        The log's keys and waste positions.
    logp : int64[n, 2]
        The log's parents and moves.
    """
    k = np.empty((2 * logk.shape[0], 3), np.uint64)
    p = np.empty((2 * logp.shape[0], 2), np.int64)
    k[: logk.shape[0]] = logk
    p[: logp.shape[0]] = logp
    return k, p


@njit(**CACHED)
def level_of(k0, k1, wp, params, reserve, talon, lut, ranks, cols, sc, mask):
    """Level 0 of ``cols``/``sc``/``mask`` made the position (k0, k1, waste position).

    Parameters
    ----------
    k0 : uint64
        Word 0 of the short key.
    k1 : uint64
        Word 1 of the short key, its cover field cleared.
    wp : int
        The waste position.
    params : int64[NPARAMS]
        The rule parameters and key widths (``P_*``).
    reserve : int64[n]
        The reserve's cards, bottom first; ``sc[d, SC_RES]`` of them are left.
    talon : int64[n + 1]
        The talon's cards by index: the waste bottom first, then the stock top first.
    lut : int64[52, LUT_WIDTH]
        The card lookup table (``LUT_*``).
    ranks : int
        Ranks in a suit.
    cols : int8[2, MAXCOLS, COLCAP]
        Receives the position's columns at level 0.
    sc : int64[2, NSC]
        Receives its scalars at level 0.
    mask : uint64[2]
        Receives its talon mask at level 0.
    """
    R.level_from_row(k0, k1, params, reserve, talon, lut, cols, sc, mask, ranks)
    R.set_waste(sc, mask, wp)
