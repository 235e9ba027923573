"""A site's shape: which games, languages and format it has, and what its files are called
(`Site`), checked once (`check_site`) before anything is drawn."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ...interpreter.errors import UsageError
from ...interpreter.model import LANGUAGES, Model

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
