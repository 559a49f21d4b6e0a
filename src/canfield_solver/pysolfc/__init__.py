"""PySolFC's Canfield games get a solver: a plugin for PySolFC 3.6.1 (Tk) and the bridge it talks to.

PySolFC runs on the system's Python, which has neither NumPy nor this package's compiled search; the plugin
(``plugin.py``, copied into PySolFC's plugin folder by ``install``) reads the live table, sends it as JSON to a
long-lived bridge process started with the interpreter this package was installed with (``bridge``), and
turns the answers into PySolFC's own hint tuples. The modules:

- ``bridge``: the JSON-lines server: solve a table, follow the winning line as the live table moves, re-solve
  where it left the line.
- ``install``: write, remove and describe the plugin file (``canfield pysolfc ...``), and read and grow the
  files of game numbers proven winnable that its "(Winnable)" variants deal from.
- ``plugin.py``: the plugin itself, run by PySolFC's interpreter (standard library and ``pysollib`` only):
  the Solver dialog's ``Solver_Class``, the hint key's ``Hint_Class``, the "(Winnable)" variants.
- ``winnable.json``: the shipped winnable game numbers of each game, with their ratings.
"""
