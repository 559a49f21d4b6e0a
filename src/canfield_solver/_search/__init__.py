"""Numba search internals. Nothing here is public API; solver.py is the only caller."""
