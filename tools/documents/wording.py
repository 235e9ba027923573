"""Filling the small Jinja2 texts of `describe` in a checked language: one environment for all
step texts and diagram phrases (`template`), and the check that a language is one rulebook speaks."""
from __future__ import annotations

from functools import lru_cache

import jinja2

from ...interpreter.model.errors import UsageError
from ...interpreter.model.frozen import LANGUAGES

ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False)
ENV.filters["capfirst"] = lambda s: s[:1].upper() + s[1:]


@lru_cache(maxsize=None)
def template(source: str) -> jinja2.Template:
    return ENV.from_string(source)


def check_lang(lang: str) -> None:
    if lang not in LANGUAGES:
        raise UsageError("--lang must be one of {languages}, not '{lang}'", languages=', '.join(LANGUAGES), lang=lang)
