"""Canfield's search. Nothing here is public API; ``solver.solve`` calls it. (The games' own kernels, under
``games/``, import Numba too; the import contract in ``pyproject.toml`` names both homes.)

- ``codec``: every packed format (keys, move codes, cover fields, parameters) defined once, read by the
  compiled code and by plain Python alike.
- ``jit``: ``njit`` with a disk cache stamped by every source file a function inlines, and ``helper`` for
  functions compiled only to be inlined; falls back to Numba's own compile when its internals differ.
- ``kernel``: the compiled kernel: move generation, keys, tables, the depth-first search.
- ``problem``: the arrays of one search (deal, stack, tables) and the decoder of its move codes.
- ``depth_first``: one thread's search; ``parallel``: several threads sharing one table.
- ``layered``: the layered proof (positions closed one layer of progress at a time), a package of its own:
  sort and merge, the close kernel, the layer store, the workers, the won line, the driver.
- ``rows``: positions back from short keys (every position the layered proof expands starts there).
- ``quick`` and ``interpreted``: the first answer, searched by the kernel's text as plain Python while the
  kernel compiles in the background.
- ``compile`` and ``cache``: compiling the kernel, or finding it in Numba's cache.
- ``outcome``: what a driver hands back; ``solver`` makes the verdict from it.

Importing this package (or ``outcome``, ``cache``) does not import Numba.
"""
