"""The layered proof: positions expanded in order of progress m, one layer at a time, each layer's positions
dropped once it is closed (solver notes §9).

m = 2 × (cards home) + (cards on the tableau); no move lowers it, and a move raises it by at most 2. A
layer's *entries* (positions reached by a move from a lower layer) wait in sorted runs of 16-byte rows
(a short key with its cover field, solver notes §6); when the layer's turn comes its runs are merged
into one sorted array, and every entry is expanded with the kernel's own move generation, safe moves
and stuck-card test (the positions its m-keeping moves reach go into a small table of the layer's own,
and are expanded too), while every child of a higher m is written to a buffer that is sorted and merged
into the runs of layer m + 1 or m + 2. Nothing of a closed layer is consulted again, so the memory is
the runs of the next two layers, one layer's entries and its small table: not the whole history, as in
the depth-first search. A deal is lost when the last layer is closed without a win.

Wins: the phase stops at the first won child, and its line is found again from each layer's entries,
which are kept on disk (in a temporary directory, removed at the end) for that purpose: the won layer
is closed again keeping a log of who reached whom, which leads back to one of its entries; that entry
was a child of a position of layer m - 1 or m - 2, found by closing that layer again with the entry as
its target; and so on down to the deal. The line is then the kernel's moves along that chain, their
columns renamed from key order to the position's own (``wonline._engine_codes``), checked by the reference
engine in ``solver`` like every line. Finding it again counts against the caller's time limit: when the
limit comes first the verdict is ``unknown`` (``wonline.LineLate``).

Only short keys: under rules that build regardless of suit no key is short, and ``search`` refuses them
(``UnsupportedRules``); a later position whose key does not fit one ends the phase as if its memory were
full (``unknown``), never with a verdict.

The package, one job a module, each importing only those above it in this list:

- ``sort``: the 16-byte rows' order, a chunk's children sorted into runs, runs merged (``kway``) in key
  ranges (``cuts``);
- ``close``: the close kernel (``close_entries``) and a layer's entries found by key (``index``, ``find``);
- ``store``: the runs waiting for each layer and the layers' entries, on disk (``Layers``);
- ``slot``: one worker's arrays (``Slot``);
- ``phase``: one layered search's arrays and counters, calling the kernels above (``Phase``);
- ``workers``: a layer's chunks closed by one or several workers (``Closing``);
- ``wonline``: a won line found again from the kept layers, within what is left of the time limit;
- ``driver``: ``search``, ``after`` and ``warm_up``, exported here.
"""

from .driver import ENTRY_POINTS, UnsupportedRules, after, search, warm_up

__all__ = ["ENTRY_POINTS", "UnsupportedRules", "after", "search", "warm_up"]
