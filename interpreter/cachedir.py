"""The folder where rulebook keeps what it can compute again: $RULEBOOK_CACHE, else the user's cache
directory (platformdirs). Everything kept there is checked when read back and rebuilt when damaged."""
from __future__ import annotations

import os
from pathlib import Path


def folder() -> Path | None:
    """The cache folder (None when there is no user cache directory to be found)."""
    chosen = os.environ.get("RULEBOOK_CACHE")
    if chosen:
        return Path(chosen)
    try:
        from platformdirs import user_cache_dir
        return Path(user_cache_dir("rulebook"))
    except Exception:  # noqa: BLE001 - no platformdirs, no home: keep nothing
        return None


def write_atomically(path: Path, data: bytes) -> bool:
    """Write `data` to `path` (inside the cache folder) via a temporary file beside it, so a reader
    never sees half a file. False if it could not be written (no cache, no harm)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
        return True
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
        return False
