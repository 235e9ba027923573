"""Language choice for the command line and pages: en, de or nl."""
from __future__ import annotations

import locale
import os

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
