"""Write, remove and describe canfield-solver's plugin in PySolFC's plugin folder; the winnable numbers.

The plugin file is ``plugin.py`` of this package with a header that names the interpreter this package runs
on (the plugin starts its bridge with it: PySolFC itself runs on the system's Python), this version, and
the shipped winnable game numbers (``winnable.json``). ``read_winnable`` and ``add_winnable`` read and grow
a winnable-numbers file, such as ``canfield_winnable.json`` beside the plugin, which it reads at start-up.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .._version import __version__
from ..errors import CanfieldError
from ..files import write_atomically
from ..formats.pysolfc import PYSOLFC_RULES

__all__ = ["PLUGIN_NAME", "WINNABLE_FILE", "PluginStatus", "add_winnable", "default_plugin_dir", "install_plugin",
           "plugin_status", "read_winnable", "shipped_winnable", "uninstall_plugin"]

PLUGIN_NAME = "canfield_solver_plugin.py"
_MARK = "# canfield-solver's PySolFC plugin"


def default_plugin_dir() -> Path:
    """PySolFC's own plugin folder on this system: ``~/.PySolFC/plugins`` (PySolFC's ``app.dn.plugins``)."""
    return Path.home() / ".PySolFC" / "plugins"


def shipped_winnable() -> dict[str, list[int]]:
    """The PySolFC game numbers this package ships as proven winnable, by game title (``winnable.json``:
    each number solved by this package's solver under the game's PySolFC rules)."""
    with resources.as_file(resources.files(__package__).joinpath("winnable.json")) as path:
        return {title: [int(n) for n in entry["numbers"]] for title, entry in read_winnable(path).items()}


WINNABLE_FILE = "canfield_winnable.json"    # beside the plugin: numbers added with `canfield pysolfc winnable`


def read_winnable(path: "str | Path") -> dict[str, dict[str, list]]:
    """A winnable-numbers file: ``{"games": {title: {"numbers": [...], "ratings": [...]}}}``; {} if absent."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        games = data["games"]
        for title, entry in games.items():
            if title not in PYSOLFC_RULES or len(entry["numbers"]) != len(entry["ratings"]):
                raise ValueError(f"bad entry {title!r}")
        return games
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise CanfieldError(f"{path} is not a winnable-numbers file: {e}") from None


def add_winnable(path: "str | Path", title: str, picks: "list[tuple[int, str]]") -> int:
    """Add ``(number, rating)`` picks for ``title`` to the file at ``path``; how many numbers it then holds."""
    games = read_winnable(path)
    entry = games.setdefault(title, {"numbers": [], "ratings": []})
    have = dict(zip(entry["numbers"], entry["ratings"]))
    have.update({int(n): r for n, r in picks})
    entry["numbers"] = sorted(have)
    entry["ratings"] = [have[n] for n in entry["numbers"]]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps({"games": games}, indent=1) + "\n")
    return len(entry["numbers"])


def _plugin_text(python: str) -> str:
    body = resources.files(__package__).joinpath("plugin.py").read_text(encoding="utf-8")
    return (f"{_MARK}, written by `canfield pysolfc install-plugin` (canfield-solver {__version__}).\n"
            f"# Remove it with `canfield pysolfc uninstall-plugin`; start PySolFC with --noplugins to skip it.\n"
            f"CANFIELD_PYTHON = {python!r}\n"
            f"CANFIELD_VERSION = {__version__!r}\n"
            f"WINNABLE = {json.dumps(shipped_winnable(), separators=(',', ':'))}\n\n" + body)


@dataclass(frozen=True)
class PluginStatus:
    """What ``plugin_status`` found in a plugin folder."""

    path: Path
    installed: bool
    version: str | None = None        # the canfield-solver version that wrote it
    python: str | None = None         # the interpreter its bridge runs on
    python_found: bool = False
    current: bool = False             # written by this version, for this interpreter
    games: tuple[str, ...] = tuple(PYSOLFC_RULES)

    def describe(self) -> str:
        if not self.installed:
            return f"not installed (no {self.path})"
        lines = [f"installed: {self.path}", f"  written by canfield-solver {self.version}",
                 f"  bridge interpreter: {self.python}" + ("" if self.python_found else " (missing!)"),
                 "  games: " + ", ".join(f"{t} ({PYSOLFC_RULES[t]})" for t in self.games)]
        if not self.current:
            lines.append("  out of date: run `canfield pysolfc install-plugin` again")
        return "\n".join(lines)


def plugin_status(plugin_dir: "str | Path | None" = None) -> PluginStatus:
    """Whether the plugin is in ``plugin_dir`` (default ``default_plugin_dir()``), which version wrote it and
    whether the interpreter it names is still there."""
    path = Path(plugin_dir or default_plugin_dir()) / PLUGIN_NAME
    try:
        head = path.read_text(encoding="utf-8")[:2000]
    except FileNotFoundError:
        return PluginStatus(path, False)
    except OSError as e:
        raise CanfieldError(f"cannot read {path}: {e.strerror}") from None
    if not head.startswith(_MARK):
        return PluginStatus(path, False)
    py = re.search(r"^CANFIELD_PYTHON = '(.*)'$", head, re.M)
    ver = re.search(r"^CANFIELD_VERSION = '(.*)'$", head, re.M)
    python = py.group(1) if py else None
    version = ver.group(1) if ver else None
    return PluginStatus(path, True, version, python, bool(python and os.path.exists(python)),
                        current=(version == __version__ and python == sys.executable))


def install_plugin(plugin_dir: "str | Path | None" = None, python: str | None = None) -> Path:
    """Write the plugin into ``plugin_dir`` (default ``default_plugin_dir()``, created if missing); its bridge
    runs on ``python`` (default: this interpreter). Replaces an earlier copy of ours, never another file."""
    d = Path(plugin_dir or default_plugin_dir())
    path = d / PLUGIN_NAME
    if path.exists() and not plugin_status(d).installed:
        raise CanfieldError(f"{path} exists and is not canfield-solver's plugin; not overwritten")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CanfieldError(f"cannot create the plugin folder {d}: {e.strerror}") from None
    write_atomically(path, _plugin_text(python or sys.executable))
    return path


def uninstall_plugin(plugin_dir: "str | Path | None" = None) -> bool:
    """Remove the plugin from ``plugin_dir``; False where it was not there. Another file of that name stays."""
    st = plugin_status(plugin_dir)
    if not st.installed:
        return False
    try:
        st.path.unlink()
    except OSError as e:
        raise CanfieldError(f"cannot remove {st.path}: {e.strerror}") from None
    return True
