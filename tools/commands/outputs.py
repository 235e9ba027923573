"""Where commands write: checked before the work, never over an input, never over a file without --force.

`output_file` is for one file (`diagram -o`, `simulate --plot`, `new`); `output_folder` for a site
(`pages -o`). Both run before any long work, so a bad path costs nothing.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from ...interpreter.model.errors import UsageError


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


# writing: no link followed, nothing overwritten that was not checked ------------------------------

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _refuse(flag: str, path: Path, exc: OSError):
    import errno
    if exc.errno == errno.EEXIST:
        return UsageError("{flag} {path} exists already (nothing was overwritten)", "add --force to replace it",
                          flag=flag, path=path)
    if exc.errno in (errno.ELOOP, errno.EMLINK):
        return UsageError("{flag} {path} is a symbolic link; write to the file itself", flag=flag, path=path)
    return UsageError("cannot write {path}: {reason}", path=path, reason=exc.strerror or exc)


def open_output(path: Path, flag: str, force: bool = False, append: bool = False) -> int:
    """A file descriptor to write `path`: never through a symbolic link (also a dangling one, or one
    planted after the check), a new file unless `force` (then truncated) or `append` (an existing
    regular file of ours, written at its end). UsageError in one line otherwise."""
    mode = os.O_WRONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0)
    mode |= os.O_APPEND if append else os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL)
    try:
        fd = os.open(path, mode, 0o644)
    except OSError as exc:
        raise _refuse(flag, path, exc) from None
    import stat
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UsageError("{flag} {path} is not a regular file (a device, a pipe or a socket)", flag=flag, path=path)
    os.set_blocking(fd, True)
    return fd


def write_output(path: Path, data: bytes | str, flag: str, force: bool = False) -> None:
    """Write `data` to `path` as `open_output` allows (text as UTF-8)."""
    fd = open_output(path, flag, force)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
    except OSError as exc:
        raise UsageError("cannot write {path}: {reason}", path=path, reason=exc.strerror or exc) from None
