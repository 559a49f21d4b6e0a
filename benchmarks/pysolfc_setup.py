"""Set up the real PySolFC 3.6.1 that the plugin's integration test and `pysolfc_real.py` run (development only).

    python benchmarks/pysolfc_setup.py PYSOLFC_GIT CARDSETS_GIT            # into ~/.cache/canfield-solver/pysolfc
    python benchmarks/pysolfc_setup.py PYSOLFC_GIT CARDSETS_GIT --dest DIR

PYSOLFC_GIT is a git directory of github.com/shlomif/PySolFC (a clone, or a mirror such as the library's
`fetch` gives) that holds the tag ``pysolfc-3.6.1``; CARDSETS_GIT one of github.com/shlomif/PySolFC-Cardsets.
Neither is on a package registry, so CI cannot run this; the tests say so in their skip reason.

What it makes under DEST, as PySolFC's README says to run it from source:

- ``src``: the 3.6.1 tree (files a mirror lacks, such as its 4K table tiles, left out and listed), with
  ``data/html`` built by ``html-src/gen-html.py`` (PySolFC refuses to start without ``html/license.html``);
- ``venv``: a virtual environment of the system's Python 3 with Tk (``python3-tk``), and ``attrs``,
  ``configobj``, ``pysol_cards`` from PyPI;
- ``home/.PySolFC/cardsets``: the cardsets PySolFC needs to start without a modal warning: "Standard",
  "Neo" (its default) and the smallest of every other type;
- and it needs ``xvfb-run`` (Debian: ``xvfb``) and, for screenshots, ImageMagick's ``import``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

TAG = "pysolfc-3.6.1"
DEFAULT_DEST = Path.home() / ".cache" / "canfield-solver" / "pysolfc"
# The smallest cardset of each type and subtype in PySolFC-Cardsets 3.1, "Standard", and "Neo" (the default).
CARDSETS = ["cardset-standard", "cardset-neo", "cardset-naylor", "cardset-cross-lines", "cardset-mini-ishido",
            "cardset-oonsoo-small", "cardset-vienna-2k-small", "cardset-kmahjongg", "cardset-next-matrix",
            "cardset-hexadeck", "cardset-eight-legions", "cardset-ten-avatars", "cardset-king-of-hearts-4x4",
            "cardset-players-trumps-10x10", "cardset-dojouji-3x3", "cardset-leap-of-the-rabbit-5x5",
            "cardset-saint-michel-city-6x6", "cardset-blaren-7x7", "cardset-mid-winter-eve-8x8",
            "cardset-hofamterspiel-9x9"]


def git(gitdir: Path, *args: str, binary: bool = False) -> "str | bytes":
    out = subprocess.run(["git", f"--git-dir={gitdir}", *args], check=True, capture_output=True).stdout
    return out if binary else out.decode()


def export(gitdir: Path, rev: str, paths: list[str], dest: Path) -> list[str]:
    """Write the files under ``paths`` at ``rev`` into ``dest``; the paths whose blobs the mirror lacks."""
    missing = []
    for line in git(gitdir, "ls-tree", "-r", rev, "--", *paths).splitlines():  # type: ignore[union-attr]
        meta, path = line.split("\t", 1)
        sha = meta.split()[2]
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            target.write_bytes(git(gitdir, "cat-file", "blob", sha, binary=True))  # type: ignore[arg-type]
        except subprocess.CalledProcessError:
            missing.append(path)
    return missing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pysolfc_git", type=Path)
    ap.add_argument("cardsets_git", type=Path)
    ap.add_argument("--dest", type=Path, default=DEFAULT_DEST)
    a = ap.parse_args(argv)
    for tool in ("git", "xvfb-run", "python3"):
        if not shutil.which(tool):
            print(f"error: {tool} is not on PATH (Debian: apt-get install git xvfb python3-tk python3-venv)",
                  file=sys.stderr)
            return 2
    src, venv, cardsets = a.dest / "src", a.dest / "venv", a.dest / "home" / ".PySolFC" / "cardsets"
    if src.exists():
        shutil.rmtree(src)
    print(f"PySolFC {TAG} -> {src}")
    missing = export(a.pysolfc_git, TAG, ["."], src)
    for m in missing:
        print(f"  not in the mirror, left out: {m}")
    if not (cardsets / "cardset-standard").exists():
        print(f"cardsets -> {cardsets}")
        export(a.cardsets_git, "HEAD", CARDSETS, cardsets)
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable if os.environ.get("PYSOLFC_SETUP_SAME_PYTHON") else "python3", "-m", "venv",
                        str(venv)], check=True)
    py = str(venv / "bin" / "python")
    subprocess.run([py, "-c", "import tkinter"], check=True)
    subprocess.run([py, "-m", "pip", "install", "-q", "attrs", "configobj", "pysol_cards"], check=True)
    print("html")
    env = dict(os.environ, PYTHONPATH=str(src))
    subprocess.run([py, "gen-html.py"], cwd=src / "html-src", env=env, check=True, capture_output=True)
    shutil.rmtree(src / "data" / "html", ignore_errors=True)
    shutil.copytree(src / "html-src" / "images", src / "html-src" / "html" / "images", dirs_exist_ok=True)
    shutil.move(str(src / "html-src" / "html"), str(src / "data" / "html"))
    print(f"ready: CANFIELD_PYSOLFC={a.dest} (the default the tests look in is {DEFAULT_DEST})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
