"""Where commands write: checked before the work, never over an input, never over a file without --force.

`output_file` is for one file (`diagram -o`, `simulate --plot`, `new`); `output_folder` for a site
(`pages -o`). Both run before any long work, so a bad path costs nothing.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from ...interpreter.errors import UsageError


def _same(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def output_file(path: Path, flag: str, inputs: Iterable[Path] = (), force: bool = False) -> Path:
    """`path` if a command may write it: not an input, not a folder, its folder there, and new unless --force.

    A symbolic link is refused too (also a dangling one): the write would land where the link points.
    """
    for source in inputs:
        if _same(path, Path(source)):
            raise UsageError("{flag} {path} is an input of this command; it is never overwritten", flag=flag, path=path)
    if path.is_symlink():
        raise UsageError("{flag} {path} is a symbolic link; write to the file itself", flag=flag, path=path)
    if path.is_dir():
        raise UsageError("{flag} {path} is a folder; name a file", flag=flag, path=path)
    if path.exists() and not path.is_file():
        raise UsageError("{flag} {path} is not a regular file (a device, a pipe or a socket)", flag=flag, path=path)
    if path.exists() and not force:
        raise UsageError("{flag} {path} exists already (nothing was overwritten)", "add --force to replace it",
                         flag=flag, path=path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError("{flag} {path}: the folder {folder} does not exist", flag=flag, path=path, folder=folder)
    if not os.access(folder, os.W_OK):
        raise UsageError("{flag} {path}: the folder {folder} is not writable", flag=flag, path=path, folder=folder)
    return path


def output_folder(path: Path, ours: Iterable[str], inputs: Iterable[Path] = (), force: bool = False) -> Path:
    """`path` if a site may be written there: missing, empty, or holding only what a site writes
    (`ours`: its top-level names); a file, `/`, the home folder or a folder of other files is refused
    unless --force (and an input is never overwritten, even then)."""
    resolved = path.resolve()
    if path.exists() and not path.is_dir():
        raise UsageError("-o: {out} is a file, not a folder", out=path)
    if resolved in (Path("/"), Path.home().resolve()) and not force:
        raise UsageError("-o {out} is not a folder for a site; name a new folder", "add --force to write there anyway",
                         out=path)
    if path.is_dir():
        foreign = sorted(e.name for e in path.iterdir() if e.name not in set(ours))
        if foreign and not force:
            raise UsageError("-o {out} holds other files ({names}); a site goes into a new or empty folder",
                             "add --force to write there anyway", out=path, names=", ".join(foreign[:3]))
    elif not (resolved.parent.is_dir() or path.parent.is_dir()):
        raise UsageError("-o {out}: the folder {folder} does not exist", out=path, folder=path.parent)
    for source in inputs:
        for name in ours:
            if _same(path / name, Path(source)):
                raise UsageError("-o {out} would overwrite the input {path}", out=path, path=source)
    return path
