"""Solved tables on disk: a raw `.npy` array (memory-mappable) beside a `.json` header.

A table is used only when every check passes: the header's format version, model hash and options
are this model's, the array has the shape and dtype the model's state space needs, it holds exactly
as many finite numbers as the solve reached states and no infinity, and its bytes hash to the
digest the header recorded. Otherwise `check` raises `BadTable` with one line saying why; the caller
solves again (or refuses). Files are written to temporary names and renamed, header last.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FORMAT = 2
DTYPE = np.dtype("<f8")
_BLOCK = 1 << 23  # values per step when hashing or counting (64 MB)


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
    tmp = header_path(path).with_name(path.stem + ".tmp.json")
    tmp.write_text(json.dumps(header.__dict__), encoding="utf-8")
    os.replace(tmp, header_path(path))


def read_header(path: Path) -> Header:
    hp = header_path(path)
    try:
        data = json.loads(hp.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadTable(f"{hp.name} is missing") from None
    except (OSError, ValueError) as e:
        raise BadTable(f"{hp.name} is not a table header ({e.__class__.__name__})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BadTable(f"{hp.name} has format {data.get('format') if isinstance(data, dict) else '?'}, "
                       f"this version reads {FORMAT}")
    try:
        return Header(**data)
    except TypeError:
        raise BadTable(f"{hp.name} lacks some fields of a table header") from None


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
