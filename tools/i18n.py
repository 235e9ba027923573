"""Language choice for the command line and pages: en, de or nl."""
from __future__ import annotations

import io
import locale
import os
from functools import lru_cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

from ..interpreter.errors import UsageError
from ..interpreter.model import LANGUAGES


def pick_language(explicit: str | None) -> str:
    """`--lang` if given, else the user's locale if it is one we speak, else English."""
    if explicit:
        if explicit not in LANGUAGES:
            raise UsageError(f"--lang must be one of {', '.join(LANGUAGES)}, not '{explicit}'")
        return explicit
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var, "")
        if value:
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
        raise UsageError(f"no such language '{lang}'; rulebook speaks {', '.join(LANGUAGES)}")
    path = LOCALES_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if lang == "en" or not path.exists():
        return NullTranslations()
    with path.open("rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(buf, domain=DOMAIN)


def number(value: float, lang: str, decimals: int = 0) -> str:
    """A number as people write it in `lang` (4,096.5 / 4.096,5), with a fixed number of decimals."""
    from babel.numbers import format_decimal
    pattern = "#,##0" + ("." + "0" * decimals if decimals else "")
    return format_decimal(value, format=pattern, locale=lang)


def percent(share: float, lang: str) -> str:
    """A share as a percentage with one decimal (12.5% / 12,5 %)."""
    from babel.numbers import format_percent
    return format_percent(share, format="#,##0.0%", locale=lang)
