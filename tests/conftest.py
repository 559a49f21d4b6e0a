"""Load the search kernel once, before any test: a first compile then never shows up inside a test's output."""

import pytest


@pytest.fixture(scope="session", autouse=True)
def _kernel_loaded():
    from canfield_solver.solver import load_kernel

    load_kernel()
