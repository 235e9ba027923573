"""Language choice for the command line and pages: en, de or nl."""
from __future__ import annotations

import io
import locale
import os
from functools import lru_cache
from pathlib import Path

from gettext import NullTranslations

from ..interpreter.model.errors import RulebookError, UsageError, babel_locale, format_number
from ..interpreter.model.languages import LANGUAGES

# Where the language comes from when no --lang is given, first found wins (GNU gettext's order,
# after our own variable). "C" and "POSIX" say nothing about a language and are skipped.
LANGUAGE_VARIABLES = ("RULEBOOK_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

# The language chosen on the command line (`rulebook --lang de …`), set by the CLI before a command runs.
chosen: str | None = None


def pick_language(explicit: str | None = None) -> str:
    """`--lang` if given (the command's, else the global one), else the environment
    (RULEBOOK_LANG, LANGUAGE, LC_ALL, LC_MESSAGES, LANG), else the locale, else English."""
    explicit = explicit or chosen
    if explicit:
        if explicit not in LANGUAGES:
            raise UsageError("--lang must be one of {languages}, not '{lang}'", languages=", ".join(LANGUAGES),
                             lang=explicit)
        return explicit
    for var in LANGUAGE_VARIABLES:
        value = os.environ.get(var, "")
        if value and value.split(":")[0] not in ("C", "POSIX") and not value.startswith("C."):
            code = value.split(":")[0][:2].lower()
            return code if code in LANGUAGES else "en"
    try:
        code = (locale.getlocale()[0] or "en")[:2].lower()
    except ValueError:
        code = "en"
    return code if code in LANGUAGES else "en"


LOCALES_DIR = Path(__file__).resolve().parent / "locales"
DOMAIN = "rulebook"


@lru_cache(maxsize=None)
def translator(lang: str) -> NullTranslations:
    """The page-frame and UI texts of `lang`: an object with `gettext`, `ngettext` and `pgettext`.

    English is the message id, so `en` (and any language without a catalog) translates to itself.
    Catalogs are the `.po` files in `tools/locales/LANG/LC_MESSAGES/`, read at run time with Babel:
    no compile step, and a fuzzy or empty entry falls back to English (tests catch that).
    """
    if lang not in LANGUAGES:
        raise UsageError("no such language '{lang}'; rulebook speaks {languages}", lang=lang,
                         languages=", ".join(LANGUAGES))
    path = LOCALES_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if lang == "en" or not path.exists():
        return NullTranslations()  # (the standard library's: English needs no Babel, a slow import)
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    from babel.support import Translations
    with path.open("rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(buf, domain=DOMAIN)


def error_text(exc: RulebookError, lang: str) -> str:
    """An error's line(s) in `lang`: its English template looked up in the catalog, then filled in."""
    return exc.render(translator(lang).gettext, lang)


def safe_language(explicit: str | None = None) -> str:
    """`pick_language`, falling back to English when the choice itself is wrong (to print that error)."""
    global chosen
    try:
        return pick_language(explicit)
    except RulebookError:
        pass
    remembered, chosen = chosen, None
    try:
        return pick_language()  # a wrong --lang: say so in the environment's language
    except RulebookError:
        return "en"
    finally:
        chosen = remembered


number = format_number  # a number as people write it in the language (4,096.5 / 4.096,5)


def percent(share: float, lang: str) -> str:
    """A share as a percentage with one decimal, in the language's pattern (12.5% / 12,5 % / 12,5%)."""
    from babel.numbers import format_percent
    found = babel_locale(lang)
    pattern = found.percent_formats[None].pattern  # '#,##0%', '#,##0\xa0%'
    return format_percent(share, format=pattern.replace("0%", "0.0%").replace("0\xa0%", "0.0\xa0%"), locale=found)


def options_text(model, lang: str) -> str:
    """The model's option values as a reader says them: 'Bonusschwelle: 63, Bonus oben: 35'."""
    _ = translator(lang).gettext
    parts = []
    for oid, value in model.option_values.items():
        option = model.options[oid]
        if option.choices:
            shown = option.choices[str(value)][lang].split(" (")[0]
        elif isinstance(value, bool):
            shown = _("yes") if value else _("no")
        else:
            shown = number(value, lang)
        parts.append(f"{option.name[lang]}: {shown}")
    return ", ".join(parts)
