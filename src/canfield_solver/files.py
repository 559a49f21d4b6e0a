"""Files the user named, written whole or not at all.

Every command that writes a file the user named (a replay page, an export, a store's copy) writes it through
``replacing``: the text goes to a temporary file beside the target, which replaces the target only once it is
complete. An interrupt, a full disk or an error half-way leaves an older file of that name as it was, and no
temporary file behind. (A deal pack, written as its deals come, has its own rule: ``studies.packs.PackFile``.)
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from typing import IO, Any, Iterator

__all__ = ["replacing", "write_atomically"]


@contextmanager
def replacing(path: str | os.PathLike[str], mode: str = "w", encoding: str | None = None,
              newline: str | None = None) -> Iterator[IO[Any]]:
    """An open file (``mode`` ``"w"`` or ``"wb"``) whose content replaces ``path`` when the block ends without an
    exception; on an exception (``KeyboardInterrupt`` included) the temporary file is removed and ``path`` is
    untouched. The temporary file lies in ``path``'s folder, so the replacement is one rename; the new file gets
    the old one's permissions, or a new file's (the umask's)."""
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', not {mode!r}")
    target = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(target))
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        os.chmod(tmp, _permissions(target))
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as fh:
            yield fh
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_atomically(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole, or leave ``path`` as it was."""
    if isinstance(data, bytes):
        with replacing(path, "wb") as fh:
            fh.write(data)
    else:
        with replacing(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(data)


def _permissions(target: str) -> int:
    """The mode a file written to ``target`` should have: the existing file's, else what ``open`` would give."""
    try:
        return os.stat(target).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask
