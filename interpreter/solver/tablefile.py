"""Solved tables on disk: a raw `.npy` array (memory-mappable) beside a `.json` header.

A table is used only when every check passes: the header's format version, model hash and options
are this model's, the array has the shape and dtype the model's state space needs, it holds exactly
as many finite numbers as the solve reached states and no infinity, and its bytes hash to the
digest the header recorded. The header is sealed (`cachedir`: an HMAC under the user's own key), so
a header made by anybody else is never believed, and it is read only as a regular file of bounded
size (never a FIFO, a device or a link). Otherwise `check` raises `BadTable` with one line saying
why; the caller solves again (or refuses). Files are written to temporary names and renamed, header last.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..model import cachedir

FORMAT = 2
DTYPE = np.dtype("<f8")
_BLOCK = 1 << 23  # values per step when hashing or counting (64 MB)
MAX_HEADER_BYTES = 1 << 20  # a header is a few hundred bytes; a larger file is not read
# each field of a header and the types it may have (anything else: not a header of ours)
_FIELDS = {"model": (str,), "model_hash": (str,), "options": (dict,), "shape": (list,), "dtype": (str,),
           "states": (int,), "finite": (int,), "digest": (str,), "seconds": (int, float), "features": (list,),
           "format": (int,)}


class BadTable(Exception):
    """A cached table that must not be trusted; the message says why, in one line."""


@dataclass
class Header:
    """What the `.json` beside a table records."""

    model: str
    model_hash: str
    options: dict
    shape: list[int]
    dtype: str
    states: int
    finite: int
    digest: str
    seconds: float
    features: list[dict]
    format: int = FORMAT


def digest(values: np.ndarray) -> str:
    """A hash of the array's bytes, read in blocks (the array may be memory-mapped)."""
    h = hashlib.blake2b(digest_size=16)
    flat = values.reshape(-1)
    for lo in range(0, len(flat), _BLOCK):
        h.update(np.ascontiguousarray(flat[lo:lo + _BLOCK]).tobytes())
    return h.hexdigest()


def count_finite(values: np.ndarray) -> tuple[int, bool]:
    """(number of finite entries, whether any entry is infinite)."""
    flat = values.reshape(-1)
    finite, infinite = 0, False
    for lo in range(0, len(flat), _BLOCK):
        part = flat[lo:lo + _BLOCK]
        finite += int(np.isfinite(part).sum())
        infinite = infinite or bool(np.isinf(part).any())
    return finite, infinite


def header_path(path: Path) -> Path:
    return path.with_suffix(".json")


def write(path: Path, values: np.ndarray, header: Header) -> None:
    """Store values (unless `path` already holds them, as a finished memory map does) and the header."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not (isinstance(values, np.memmap) and Path(values.filename).resolve() == path.resolve()):
        tmp = path.with_name(path.name + ".tmp.npy")
        np.save(tmp, np.asarray(values, dtype=DTYPE))
        os.replace(tmp, path)
    write_header(path, header.__dict__)


def write_header(path: Path, fields: dict) -> None:
    """The sealed header of the table at `path` (OSError if it cannot be written)."""
    if not cachedir.write_sealed(header_path(path), json.dumps(fields).encode("utf-8")):
        raise OSError(f"{header_path(path)} cannot be written")


def read_header(path: Path) -> Header:
    hp = header_path(path)
    try:
        st = os.lstat(hp)
    except FileNotFoundError:
        raise BadTable(f"{hp.name} is missing") from None
    except OSError as e:
        raise BadTable(f"{hp.name} cannot be read ({e.strerror or type(e).__name__})") from None
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_HEADER_BYTES:
        raise BadTable(f"{hp.name} is not a table header (not a regular file of at most {MAX_HEADER_BYTES:,} bytes)")
    blob = cachedir.read_untrusted(hp, MAX_HEADER_BYTES)
    raw = cachedir.unseal(hp.name, blob)
    if raw is None:
        raise BadTable(f"{hp.name} is not sealed with this user's key (made elsewhere or changed)")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise BadTable(f"{hp.name} is not a table header ({e.__class__.__name__})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BadTable(f"{hp.name} has format {data.get('format') if isinstance(data, dict) else '?'}, "
                       f"this version reads {FORMAT}")
    if set(data) != set(_FIELDS) or not all(isinstance(data[k], t) and not isinstance(data[k], bool)
                                            for k, t in _FIELDS.items()):
        raise BadTable(f"{hp.name} lacks some fields of a table header, or has others")
    if not all(type(n) is int and 0 <= n < 2**40 for n in data["shape"]) or not all(
            isinstance(f, dict) for f in data["features"]) or not 0 <= data["states"] < 2**40:
        raise BadTable(f"{hp.name} lacks some fields of a table header, or has others")
    return Header(**data)


def check(path: Path, model_hash: str, options: dict, shape: tuple[int, ...]) -> tuple[np.ndarray, Header]:
    """The memory-mapped values and header of a cached table, or BadTable saying why not."""
    head = read_header(path)
    if head.model_hash != model_hash or head.options != options:
        raise BadTable(f"{path.name} was solved for another model or other options "
                       f"({head.model} {head.model_hash})")
    if tuple(head.shape) != tuple(shape) or head.dtype != DTYPE.str:
        raise BadTable(f"{path.name}: the header says {head.dtype} {tuple(head.shape)}, "
                       f"the model needs {DTYPE.str} {tuple(shape)}")
    try:
        st = os.lstat(path)
    except OSError as e:
        raise BadTable(f"{path.name} cannot be read ({e.strerror or type(e).__name__})") from None
    if not stat.S_ISREG(st.st_mode):
        raise BadTable(f"{path.name} is not a regular file")
    try:
        values = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, EOFError) as e:
        raise BadTable(f"{path.name} cannot be read as an array ({str(e).splitlines()[0] if str(e) else type(e).__name__})") from None
    if values.shape != tuple(shape) or values.dtype != DTYPE:
        raise BadTable(f"{path.name} holds {values.dtype.str} {values.shape}, the model needs {DTYPE.str} {tuple(shape)}")
    finite, infinite = count_finite(values)
    if infinite or finite != head.states or not np.isfinite(values.reshape(-1)[0]):
        raise BadTable(f"{path.name} holds {finite:,} finite values{' and infinities' if infinite else ''}, "
                       f"the solve reached {head.states:,} states")
    if digest(values) != head.digest:
        raise BadTable(f"{path.name} does not match the digest in its header (the values were changed)")
    return values, head
