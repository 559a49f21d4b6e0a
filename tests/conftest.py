"""Load the search kernel and the phases once, before any test: a first compile then never shows up inside a test's output.

Hypothesis profiles (``--hypothesis-profile NAME`` or HYPOTHESIS_PROFILE): ``quick``, the default, for the
README's test command and CI's tiers alike; ``thorough`` (5x the examples), by hand before a change to the
search (``HYPOTHESIS_PROFILE=thorough python -m pytest -m exhaustive``: five times the exhaustive tier's
time, which CI's budget does not hold); ``tiny`` (a tenth), for the
run with NUMBA_DISABLE_JIT=1, where every search is plain Python. Each property states its count in the
quick profile through ``helpers.examples``.
"""

import os

import pytest
from hypothesis import settings

settings.register_profile("quick", max_examples=100)
settings.register_profile("thorough", max_examples=500)
settings.register_profile("tiny", max_examples=10)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "quick"))

@pytest.fixture(scope="session", autouse=True)
def _kernel_loaded():
    """The kernel and the phases before it (where any suit builds) compiled or loaded before any test: a test
    of a search then never meets one still compiling in the background (a fresh install's first command starts
    those compiles, and a search runs without a phase whose compile is not done)."""
    from canfield_solver.solver import compile_search, load_kernel

    load_kernel()
    for what in ("nested", "ranks", "adapt"):
        compile_search(what)
