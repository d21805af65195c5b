"""Output directories the commands own: ``--export-vt DIR``, ``site -o DIR``, ``docs -o DIR``.

The rules (issue 40): a command writes only into a directory that is new, empty, or marked as
written by the same command (a marker file: :data:`MARKERS`); anything else is refused before
any work. A directory it replaces is built beside the old one and renamed into place, so a
rebuild never leaves files of the last one behind and never writes through a symlink it did
not create (a rename replaces a link; it does not follow it).
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

MARKERS = {"site": ".lbbench-site", "docs": ".lbbench-docs", "export": "lbbench-export.json"}


def check_owned(path, kind: str, option: str) -> Path:
    """``path`` when the command ``kind`` may write it: absent, an empty directory or one holding its marker.

    Raises ValueError (one line naming the directory) otherwise.
    """
    p = Path(path)
    if p.is_symlink() and not p.exists():
        raise ValueError(f"{option} {p}: a symlink to nothing; give a directory")
    if not p.exists():
        return p
    if not p.is_dir():
        raise ValueError(f"{option} {p}: exists and is not a directory")
    if (p / MARKERS[kind]).is_file() and not (p / MARKERS[kind]).is_symlink():
        return p
    if any(p.iterdir()):
        raise ValueError(f"{option} {p}: holds files lbbench did not write (no {MARKERS[kind]}): "
                         "give a new or empty directory")
    return p


def fresh_beside(target: Path) -> Path:
    """A new empty directory next to ``target`` (same file system, so it can be renamed onto it)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    new = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name[:60]}.new-"))
    umask = os.umask(0o22)
    os.umask(umask)
    new.chmod(0o777 & ~umask)  # as mkdir would make it (mkdtemp makes it private)
    return new


def swap_in(new: Path, target: Path) -> Path:
    """Rename the directory ``new`` to ``target``, replacing whatever ``target`` is (a symlink is unlinked,
    never followed; an old directory is removed after the rename)."""
    old = None
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name[:60]}.old-"))
        os.rename(target, old / "x")
    os.rename(new, target)
    if old is not None:
        shutil.rmtree(old)
    return target


def remove(target: Path) -> None:
    """Remove ``target``: a symlink or file is unlinked (never followed), a directory removed with its files."""
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        shutil.rmtree(target)


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a new file renamed over it (a symlink at ``path`` is replaced)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:60]}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def mark(directory: Path, kind: str) -> None:
    if kind != "export":
        write_file(directory / MARKERS[kind], b"written by lbbench; the command replaces this directory whole\n")
