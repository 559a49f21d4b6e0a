"""The package version, read from the installed package's metadata (pyproject.toml is its one source) when
first asked for: ``importlib.metadata`` costs a twentieth of a second to import, which a warm ``canfield
solve`` need not pay."""

from __future__ import annotations

import functools


@functools.cache
def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _metadata_version

    try:
        return _metadata_version("canfield-solver")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> str:  # ``from ._version import __version__`` still works
    if name == "__version__":
        return version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
