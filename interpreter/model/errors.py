"""One error type for everything a user can get wrong, each carrying where it happened.

Messages are English templates with named placeholders (`"there is no box '{box}'"`, box="x"),
so the tools can print them in the user's language: `error.render(gettext)` looks the template
up in a catalog and fills in the placeholders afterwards. `str(error)` is the English line.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterable

Gettext = Callable[[str], str]


def _same(text: str) -> str:
    return text


@dataclass(frozen=True)
class Message:
    """An English template with named `{placeholders}` and their values, translated when shown.

    A value may itself be a `Message` (it is translated too) or a model text (a dict of language →
    text: shown in the language rendered); anything else is shown as `str()`.
    """

    text: str
    params: dict[str, Any] = field(default_factory=dict)

    def render(self, gettext: Gettext = _same, lang: str = "en") -> str:
        template = gettext(self.text) if self.text else self.text
        if not self.params:
            return template
        values = {k: _value(v, gettext, lang) for k, v in self.params.items()}
        try:
            return template.format(**values)
        except (KeyError, IndexError, ValueError):  # a broken translation: fall back to English
            return self.text.format(**values)

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True)
class Number:
    """A number in a message, written as people write numbers in the language it is shown in
    (57,507,840 / 57.507.840; 680.0 / 680,0)."""

    value: float
    decimals: int = 0

    def render(self, lang: str = "en") -> str:
        try:
            return format_number(self.value, lang, self.decimals)
        except Exception:  # noqa: BLE001 - an unknown language: as in English
            return f"{self.value:,.{self.decimals}f}"

    def __str__(self) -> str:
        return self.render()


@lru_cache(maxsize=None)
def babel_locale(lang: str):
    """Babel's `Locale` of `lang` with its data loaded, once per process (Babel's own error for a language it
    does not know). Loaded with Python's cycle collector paused: unpickling the data makes about 6,600 objects,
    which set off a full collection over every object the process has (about 15 ms of a command's first number)."""
    import gc
    from babel import Locale
    was_on = gc.isenabled()
    gc.disable()
    try:
        found = Locale.parse(lang)
        found.number_symbols  # (the data is read on first use)
    finally:
        if was_on:
            gc.enable()
    return found


def format_number(value: float, lang: str, decimals: int = 0) -> str:
    """A number as people write it in `lang` (4,096.5 / 4.096,5), with a fixed number of decimals (Babel's
    error for a language it does not know)."""
    from babel.numbers import format_decimal
    pattern = "#,##0" + ("." + "0" * decimals if decimals else "")
    return format_decimal(value, format=pattern, locale=babel_locale(lang))


OR = Message("{first} or {last}")  # "a, b or c": the words of a list, the last two joined by the language's "or"


@dataclass(frozen=True)
class Either:
    """Several values in a message, said as the language lists alternatives ('a, b or c' / 'a, b oder c')."""

    items: tuple

    def render(self, gettext: Gettext = _same, lang: str = "en") -> str:
        words = [str(_value(item, gettext, lang)) for item in self.items]
        if len(words) < 2:
            return "".join(words)
        return Message(OR.text, {"first": ", ".join(words[:-1]), "last": words[-1]}).render(gettext, lang)

    def __str__(self) -> str:
        return self.render()


SHOWN_CHARS = 200  # a value longer than this (an 800 KB move, a path) is shown shortened in a message


def shorten(text: str, most: int = SHOWN_CHARS) -> str:
    """`text` as a message shows it: whole up to `most` characters, else its start, '…' and its end."""
    if len(text) <= most:
        return text
    return f"{text[:most * 3 // 4]}…{text[-(most // 4):]}"


def _value(value: Any, gettext: Gettext, lang: str) -> Any:
    if isinstance(value, str):
        return shorten(value)
    if isinstance(value, Either):
        return value.render(gettext, lang)
    if isinstance(value, Message):
        return value.render(gettext, lang)
    if isinstance(value, Number):
        return value.render(lang)
    if isinstance(value, dict) and "en" in value:
        return value.get(lang) or value["en"]
    return value


def as_message(text: str | Message | None, params: dict[str, Any] | None = None) -> Message | None:
    """`text` as a Message (None stays None)."""
    if text is None:
        return None
    if isinstance(text, Message):
        return Message(text.text, {**text.params, **params}) if params else text
    return Message(text, dict(params or {}))


@dataclass(frozen=True)
class Pos:
    """A place in a source file (1-based line and column)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


ERROR_LABEL = Message("error:")  # after `file:line:col: `; translated like every message


class RulebookError(Exception):
    """Base of every error shown to a user: one line, `file:line:col: error: message; hint`.

    `message` is an English template whose `{placeholders}` are filled from `params`, e.g.
    `UsageError("--games must be at least {least}", least=1)`; `hint` is a template or a `Message`.
    """

    def __init__(self, message: str | Message, pos: Pos | None = None, hint: str | Message | None = None,
                 **params: Any):
        self.msg = as_message(message, params)
        self.hint_msg = as_message(hint)
        super().__init__(self.msg.render())
        self.pos = pos

    @property
    def message(self) -> str:
        """The message in English."""
        return self.msg.render()

    @property
    def hint(self) -> str | None:
        """The hint in English (None without one)."""
        return self.hint_msg.render() if self.hint_msg else None

    def render(self, gettext: Gettext = _same, lang: str = "en") -> str:
        """The whole line, its words looked up with `gettext` (English without), model texts in `lang`."""
        where = f"{self.pos}: " if self.pos else "rulebook: "
        hint = f"; {self.hint_msg.render(gettext, lang)}" if self.hint_msg else ""
        return f"{where}{ERROR_LABEL.render(gettext)} {self.msg.render(gettext, lang)}{hint}"

    def __str__(self) -> str:
        return self.render()


class ModelError(RulebookError):
    """A model file is not valid YAML, breaks the schema, or is inconsistent."""


class DslError(ModelError):
    """A scoring expression has a syntax, name or type error."""


class IllegalActionError(RulebookError, ValueError):
    """A move that the rules do not allow in the current state."""


class UsageError(RulebookError):
    """A command line that cannot be carried out (bad option value, bad player spec …)."""

    def __init__(self, message: str | Message, hint: str | Message | None = None, **params: Any):
        super().__init__(message, None, hint, **params)


class SaveFileError(RulebookError):
    """A log or save file that is corrupt or does not fit its model."""


def did_you_mean(word: str, choices: Iterable[str]) -> Message | None:
    """A `did you mean 'x'?` hint for the closest of `choices`, or None."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return Message("did you mean '{word}'?", {"word": close[0]}) if close else None


class ErrorList(RulebookError):
    """Several independent problems found in one pass (the checker reports them all)."""

    def __init__(self, errors: list[RulebookError]):
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors

    def render(self, gettext: Gettext = _same, lang: str = "en") -> str:
        return "\n".join(e.render(gettext, lang) for e in self.errors)
