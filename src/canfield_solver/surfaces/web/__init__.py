"""``canfield play``: a local web app to play a deal in the browser, with a live "still winnable?" meter.

- ``session``: one game in progress (the reference engine, undo and redo, what the meter knows);
- ``patience``: a game in progress of the other patiences (docs/games-spec.md), as ``session`` is Canfield's;
- ``meter``: the solver's searches in worker processes, a newer move cancelling an older search;
- ``app``: the Starlette (ASGI) app, its JSON API and the page (``play.html``, ``play.js``, ``play.css``).

Needs the ``web`` extra (Starlette and uvicorn): ``pip install '.[web]'``.
"""

from __future__ import annotations

__all__ = ["create_app"]


def create_app(*args, **kwargs):  # noqa: ANN002, ANN003 - the signature is app.create_app's
    """``app.create_app``, imported on first use (Starlette is an optional extra)."""
    from .app import create_app as make

    return make(*args, **kwargs)
