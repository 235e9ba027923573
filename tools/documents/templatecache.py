"""Jinja2's compiled templates kept between runs, sealed (see `rulebook.interpreter.model.cachedir`)."""
from __future__ import annotations

from functools import lru_cache

import jinja2


class SealedBytecodeCache(jinja2.BytecodeCache):
    """Jinja2's compiled templates (marshalled code: run when loaded) kept in the cache folder, each
    file sealed with the user's key (`cachedir`): a file made or changed by anybody else is never
    loaded, and the template is compiled again."""

    def __init__(self, folder):
        self.folder = folder

    def _path(self, bucket):
        return self.folder / f"{bucket.key}.jinja"

    def load_bytecode(self, bucket) -> None:
        from ...interpreter.model.cachedir import read_sealed
        data = read_sealed(self._path(bucket), 8 * 2**20)
        if data is not None:
            bucket.bytecode_from_string(data)

    def dump_bytecode(self, bucket) -> None:
        from ...interpreter.model.cachedir import write_sealed
        write_sealed(self._path(bucket), bucket.bytecode_to_string())


@lru_cache(maxsize=None)
def bytecode_cache(setting: str) -> jinja2.BytecodeCache | None:
    """Compiled templates kept between runs (the cache folder; Jinja2 checks each against its
    template's source and recompiles a changed one). One folder per environment `setting`: the
    compiled code holds the environment's escaping (`finalize`, `autoescape`), which Jinja2's check
    does not see, so code compiled under one setting (HTML, or an older rulebook's Markdown) must
    never run under another."""
    import hashlib
    from ...interpreter.model.cachedir import folder
    where = folder()
    if where is None:
        return None
    return SealedBytecodeCache(where / "templates" / hashlib.sha256(setting.encode()).hexdigest()[:16])
