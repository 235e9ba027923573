"""The folder where rulebook keeps what it can compute again: $RULEBOOK_CACHE, else the user's cache
directory (platformdirs). Everything kept there is untrusted input when read back:

- the folder must be rulebook's user's own and writable by nobody else (as SSH treats ~/.ssh), or it
  is refused in one line (`UnsafeCache`);
- every file kept there is sealed: its first line is an HMAC-SHA256 of its name and content under a
  key of the user's own, kept outside the cache (`key_file`: the user's config folder, mode 0600);
  a file whose seal does not hold is ignored and rebuilt, never believed;
- files are opened without following links, only when they are regular files (a FIFO or a device
  named there is never read) and only up to a size.

Nothing is unpickled from the cache unless its seal holds (the parser, the compiled templates, and
numba's folder, whose files a sealed manifest lists: `verify_tree`).
"""
from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from contextlib import contextmanager
from pathlib import Path

from .errors import RulebookError

MAGIC = b"rulebook-seal-1 "
KEY_BYTES = 32
MAX_SEALED_BYTES = 64 * 2**20  # a sealed file larger than this is not read (the largest kept: a parser, ~100 KB)


class UnsafeCache(RulebookError):
    """A cache folder or key that others could have written."""


def folder() -> Path | None:
    """The cache folder, made if missing (None when there is no user cache directory to be found).
    UnsafeCache if it is not the user's own or others can write it."""
    chosen = os.environ.get("RULEBOOK_CACHE")
    if chosen:
        where = Path(chosen)
    else:
        try:
            from platformdirs import user_cache_dir
            where = Path(user_cache_dir("rulebook"))
        except Exception:  # noqa: BLE001 - no platformdirs, no home: keep nothing
            return None
    return checked_folder(where)


def checked_folder(where: Path) -> Path | None:
    """`where` made (mode 0700) if missing and checked: a folder of this user that nobody else can
    write. None if it cannot be made (nothing is kept then)."""
    try:
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.stat(where)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode):
        return None
    if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
        raise UnsafeCache("the cache folder {folder} can be written by others; nothing in it can be trusted",
                          hint="make it yours alone (chmod go-w) or choose another with RULEBOOK_CACHE",
                          folder=str(where))
    return where


# the key -------------------------------------------------------------------------------------------

def key_file() -> Path | None:
    """Where the user's cache key is kept: $RULEBOOK_KEY_FILE, else `cache.key` in the user's config
    folder (never inside the cache)."""
    chosen = os.environ.get("RULEBOOK_KEY_FILE")
    if chosen:
        return Path(chosen)
    try:
        from platformdirs import user_config_dir
        return Path(user_config_dir("rulebook")) / "cache.key"
    except Exception:  # noqa: BLE001
        return None


_KEY: dict[str, bytes | None] = {}


def key() -> bytes | None:
    """The user's secret key (made on first use: 32 random bytes, mode 0600). None if it cannot be
    kept: then nothing cached is trusted or written. UnsafeCache if others could read or write it."""
    file = key_file()
    if file is None:
        return None
    name = str(file)
    if name not in _KEY:
        _KEY[name] = _read_key(file)
    return _KEY[name]


def _read_key(file: Path) -> bytes | None:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(file, flags)
    except FileNotFoundError:
        return _make_key(file)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (hasattr(os, "getuid") and (st.st_uid != os.getuid()
                                                                       or st.st_mode & 0o077)):
            raise UnsafeCache("the cache key {file} is not yours alone (it must be a file of mode 0600)",
                              hint="remove it: a new one is made", file=str(file))
        data = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    return data if len(data) == KEY_BYTES else None


def _make_key(file: Path) -> bytes | None:
    try:
        file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:  # another run made it just now
        return _read_key(file)
    except OSError:
        return None
    data = secrets.token_bytes(KEY_BYTES)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    return data


def mac(name: str, data: bytes) -> str | None:
    """The seal of `data` kept under `name` (None without a key)."""
    k = key()
    if k is None:
        return None
    return hmac.new(k, name.encode("utf-8", "surrogatepass") + b"\0" + data, hashlib.sha256).hexdigest()


def _name(path: Path) -> str:
    return path.name


# sealed files ---------------------------------------------------------------------------------------

def read_untrusted(path: Path, limit: int = MAX_SEALED_BYTES) -> bytes | None:
    """The bytes of a regular file at `path` (no link followed, no FIFO or device opened), at most
    `limit` of them; None if it is missing, not a regular file, larger, or unreadable."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return None if size > limit else b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def seal(name: str, data: bytes) -> bytes | None:
    """`data` with its seal in front (None without a key)."""
    m = mac(name, data)
    return None if m is None else MAGIC + m.encode("ascii") + b"\n" + data


def unseal(name: str, blob: bytes | None) -> bytes | None:
    """The content of a sealed file's bytes, None unless its seal holds for `name`."""
    if blob is None or not blob.startswith(MAGIC):
        return None
    head, sep, data = blob[len(MAGIC):].partition(b"\n")
    expected = mac(name, data)
    if not sep or expected is None or not hmac.compare_digest(head, expected.encode("ascii")):
        return None
    return data


def read_sealed(path: Path, limit: int = MAX_SEALED_BYTES) -> bytes | None:
    """The content of the sealed file at `path`; None if missing, forged, damaged or too large."""
    return unseal(_name(path), read_untrusted(path, limit + len(MAGIC) + 65))


def write_sealed(path: Path, data: bytes) -> bool:
    """Keep `data` at `path`, sealed (False without a key or if it cannot be written)."""
    blob = seal(_name(path), data)
    return blob is not None and write_atomically(path, blob)


def mark(path: Path) -> bool:
    """A sealed note that `path`'s name holds (a check passed): its content is its own seal."""
    return write_sealed(path, b"")


def marked(path: Path) -> bool:
    """Whether the sealed note at `path` exists and is ours."""
    return read_sealed(path, 0) == b""


def write_atomically(path: Path, data: bytes) -> bool:
    """Write `data` to `path` (inside the cache folder) via a temporary file beside it, so a reader
    never sees half a file. False if it could not be written (no cache, no harm)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
        return True
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
        return False


# a folder another program fills (numba's) ----------------------------------------------------------

MANIFEST = "rulebook-manifest"


def _tree(where: Path) -> dict[str, str]:
    """Every file under `where` (but the manifest) with the SHA-256 of its bytes."""
    out = {}
    for p in sorted(where.rglob("*")):
        if p.name == MANIFEST or p.name.startswith(".probe-"):
            continue
        if p.is_symlink() or not (p.is_file() or p.is_dir()):
            out[str(p.relative_to(where))] = "?"  # never matches a sealed digest
        elif p.is_file():
            data = read_untrusted(p, 1 << 30)
            out[str(p.relative_to(where))] = "?" if data is None else hashlib.sha256(data).hexdigest()
    return out


def verify_tree(where: Path) -> bool:
    """Whether every file under `where` is one the sealed manifest lists with its digest (an empty
    folder holds). Otherwise the folder is emptied, so what fills it is made again; True then."""
    import json
    manifest = read_sealed(where / MANIFEST)
    files = _tree(where)
    try:
        listed = json.loads(manifest) if manifest is not None else {}
    except ValueError:
        listed = {}
    if all(listed.get(name) == digest for name, digest in files.items()):
        return True
    import shutil
    for p in where.iterdir():
        try:
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink()
        except OSError:
            return False
    return True


def seal_tree(where: Path) -> bool:
    """Record every file under `where` in its sealed manifest."""
    import json
    return write_sealed(where / MANIFEST, json.dumps(_tree(where), sort_keys=True).encode())


_HELD: dict[str, int] = {}  # locks this process holds (a second flock of the same file would wait for itself)


@contextmanager
def locked(where: Path):
    """An exclusive lock on the folder `where` that several processes fill (numba's): `flock` on
    `<where>.lock` beside it, held while one process checks or fills the folder, so none empties what
    another is writing. The lock file holds nothing and is never read; a lock that cannot be taken
    (no flock, a file that is no regular file) is skipped. Re-entrant within a process."""
    name = str(where)
    if _HELD.get(name):
        _HELD[name] += 1
        try:
            yield
        finally:
            _HELD[name] -= 1
        return
    fd = None
    try:
        import fcntl
        fd = os.open(where.with_name(where.name + ".lock"),
                     os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0), 0o600)
        if stat.S_ISREG(os.fstat(fd).st_mode):
            fcntl.flock(fd, fcntl.LOCK_EX)
    except (ImportError, OSError):
        pass
    _HELD[name] = 1
    try:
        yield
    finally:
        del _HELD[name]
        if fd is not None:
            os.close(fd)
