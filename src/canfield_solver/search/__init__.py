"""The search: the only code that crosses into Numba. Nothing here is public API; ``solver.solve`` calls it.

- ``layout``: the packed position key, bit layout defined once (no Numba).
- ``kernel``: the Numba kernel: move generation, keys, tables, the depth-first search.
- ``problem``: the arrays of one search (deal, stack, tables) and the decoder of its move codes.
- ``depth_first``: one thread's search; ``parallel``: several threads sharing one table.
- ``outcome``: what a driver hands back; ``solver`` makes the verdict from it.
- ``compile`` and ``cache``: compiling the kernel, or finding it in Numba's cache.

Importing this package (or ``layout``, ``outcome``, ``cache``) does not import Numba.
"""
