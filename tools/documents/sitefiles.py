"""A site's shape: which games, languages and format it has, and what its files are called
(`Site`), checked once (`check_site`) before anything is drawn."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ...interpreter.model.errors import UsageError
from ...interpreter.model.frozen import LANGUAGES, Model

FORMATS = ("html", "md")


@dataclass(frozen=True)
class Site:
    """Which games, languages and format a site has, and what its files are called."""

    models: tuple[Model, ...]
    langs: tuple[str, ...]
    fmt: str = "html"

    def index_file(self, lang: str) -> str:
        return f"index.{self.fmt}" if lang == self.langs[0] else f"index.{lang}.{self.fmt}"

    def game_file(self, model: Model, lang: str) -> str:
        return f"{model.id}.{lang}.{self.fmt}"

    def sheet_file(self, model: Model, lang: str) -> str:
        """The printable blank score sheet (HTML sites only)."""
        return f"{model.id}.{lang}.sheet.html"

    @staticmethod
    def diagram_file(model: Model, lang: str) -> str:
        return f"{model.id}.{lang}.svg"

    @staticmethod
    def model_file(model: Model) -> str:
        return f"{model.id}.yaml"


def check_site(models: Iterable[Model], langs: Iterable[str], fmt: str) -> Site:
    """A Site, or a UsageError for an unknown language or format or two games with one id."""
    models, langs = tuple(models), tuple(dict.fromkeys(langs))
    if not models:
        raise UsageError("no models to write pages for")
    for lang in langs:
        if lang not in LANGUAGES:
            raise UsageError("--lang: rulebook speaks {languages}, not '{lang}'", languages=', '.join(LANGUAGES), lang=lang)
    if not langs:
        raise UsageError("--lang needs at least one language")
    if fmt not in FORMATS:
        raise UsageError("--format must be one of {formats}, not '{fmt}'", formats=', '.join(FORMATS), fmt=fmt)
    seen: dict[str, str] = {}
    for m in models:
        if m.id in seen:
            raise UsageError("two models have the id '{id}' ({first} and {path})",
                             "give the copy its own id (rulebook new … --id NAME)", id=m.id, first=seen[m.id], path=m.path)
        seen[m.id] = m.path
    return Site(models, langs, fmt)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def write_tree(outdir: Path, files: dict[str, str | bytes]) -> list[Path]:
    """Write each file of a site under `outdir` (made if missing): every folder on the way is opened
    without following links (a link planted there is refused, never written through), and every file
    is replaced by a new one, never written through a link."""
    import errno
    written = []
    try:
        outdir.mkdir(exist_ok=True)
        root = os.open(outdir, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise UsageError("cannot write the pages to {outdir}: {reason}", outdir=outdir, reason=exc.strerror or exc) from None
    try:
        for name, data in files.items():
            parts = Path(name).parts
            if not parts or any(p in ("", ".", "..") or os.sep in p for p in parts) or Path(name).is_absolute():
                raise UsageError("cannot write the pages to {outdir}: {reason}", outdir=outdir, reason=name)
            fd = os.dup(root)
            try:
                for part in parts[:-1]:
                    try:
                        os.mkdir(part, 0o755, dir_fd=fd)
                    except FileExistsError:
                        pass
                    try:
                        sub = os.open(part, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW, dir_fd=fd)
                    except OSError as exc:
                        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                            raise UsageError("-o {out}: {path} is a symbolic link or not a folder; nothing is written "
                                             "through it", out=outdir, path=outdir / Path(*parts[:parts.index(part) + 1]))
                        raise
                    os.close(fd)
                    fd = sub
                leaf, tmp = parts[-1], f".{parts[-1]}.{os.getpid()}.tmp"
                out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644, dir_fd=fd)
                with os.fdopen(out, "wb") as f:
                    f.write(data.encode("utf-8") if isinstance(data, str) else data)
                os.replace(tmp, leaf, src_dir_fd=fd, dst_dir_fd=fd)  # a link there is replaced, not followed
            finally:
                os.close(fd)
            written.append(outdir / name)
    except OSError as exc:
        raise UsageError("cannot write the pages to {outdir}: {reason}", outdir=outdir, reason=exc.strerror or exc) from None
    finally:
        os.close(root)
    return written
