"""Canfield's search. Nothing here is public API; ``solver.solve`` calls it. (The games' own kernels, under
``games/``, compile too, through the package's ``jit`` as this package does; the import contract in
``pyproject.toml`` names both homes.)

Its compiled functions are made with the package's ``jit.njit`` (a disk cache stamped by every source file a
function inlines, never loaded stale).

- ``codec``: every packed format (keys, move codes, cover fields, parameters) defined once, read by the
  compiled code and by plain Python alike.
- ``kernel``: the compiled kernel: move generation, keys, tables, the depth-first search; beside it, the
  pieces it inlines from files of their own: ``base`` (compile options, machine-word intrinsics, one card's
  rules, and the glossary of the parameters they share), ``stuck`` (the stuck-card test) and ``pool`` (the
  waste cards draws reach, the talon as a pool). Their names without an underscore are the interface the other
  modules here call (``kernel.gen``, ``kernel.search``, ...); one with an underscore is used only among them.
- ``arrays``: the arrays of one search (deal, stack, tables) and the decoder of its move codes.
- ``depth_first``: one thread's search; ``parallel``: several threads sharing one table.
- ``layered``: the layered proof (positions closed one layer of progress at a time), a package of its own:
  sort and merge, the close kernel, the layer store, the workers, the won line, the driver.
- ``rows``: positions back from short keys (every position the layered proof expands starts there).
- ``quick`` and ``interpreted``: the first answer, searched by the kernel's text as plain Python while the
  kernel compiles in the background.
- ``kernel_load``: compiling the kernel or loading it from Numba's cache (``compiles`` says whether it is
  compiled, and announces the compile).
- ``schedule``: which searches run for a rule family, in what order and share (rows of data,
  ``schedules.json``), and the one loop that runs them, the exact search last.
- ``portfolio``: the searches of another kind that a schedule runs before the exact one: nested Monte Carlo
  searches, policy adaptation and beam searches for wins (``playout``, ``adapt``, ``beam``), and the abstract
  game over ranks for losses and the search under the key of ranks for wins (``ranks``); their compiles.
- ``outcome``: what a driver hands back; ``solver`` makes the verdict from it.

Measurement API (used only by the counts in ``benchmarks/``, ``loss_census.py`` and its kin, and the one-off
counts in ``benchmarks/archive/``, kept so their results can be run again): ``depth_first.How.keep`` (a
search's final arrays handed back), ``How.passes_cover=False`` (rows that keep their waste positions) and
``playout.greedy`` (level-0 playouts). Nothing in the product calls them.

Importing this package (or ``outcome``) does not import Numba.
"""
