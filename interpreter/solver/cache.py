"""Where solved tables are kept and under which key; the one warning line the solver writes."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..model.frozen import Model

VERSION = 2  # part of the cache key: bump when the meaning of a table's entries changes


def cache_dir() -> Path:
    """Where solved tables are kept: $RULEBOOK_CACHE, else the user's cache directory (`cachedir`:
    refused when others can write it)."""
    import os
    from ..model.cachedir import folder
    where = folder()
    if where is not None:
        return where
    if os.environ.get("RULEBOOK_CACHE"):
        return Path(os.environ["RULEBOOK_CACHE"])
    from platformdirs import user_cache_dir
    return Path(user_cache_dir("rulebook"))


def cache_key(model: Model) -> str:
    opts = json.dumps(model.option_values, sort_keys=True)
    return hashlib.sha256(f"{VERSION}|{model.hash}|{opts}".encode()).hexdigest()[:20]


def cache_path(model: Model) -> Path:
    """The table's `.npy` file (its header is the `.json` beside it)."""
    return cache_dir() / f"{model.id}-{cache_key(model)}.npy"


def table_options(model: Model) -> dict:
    return json.loads(json.dumps(model.option_values, sort_keys=True))


def warn_stderr(line: str) -> None:
    import sys
    print(f"warning: {line}", file=sys.stderr)
