"""The server's refusals: `ServeError`, an HTTP status and a sentence saying why, in the asker's language."""
from __future__ import annotations

from typing import Any

class ServeError(Exception):
    """A request the server refuses: an HTTP status and a sentence saying why.

    The sentence is an English template with named values (`ServeError(404, "there is no table
    '{table}'", table=…)`), said in the asker's language (en/de/nl catalogs) by `render(lang)`."""

    def __init__(self, status: int, message: str, hint: str | None = None, *,
                 headers: dict[str, str] | None = None, extra: dict[str, Any] | None = None, **params: Any):
        self.template, self.hint_template, self.params = message, hint, params
        self.status = status
        self.message = _fill(message, params)
        self.hint = _fill(hint, params) if hint else None
        super().__init__(self.message)
        self.headers = headers or {}
        self.extra = extra or {}  # more for the client, e.g. the table's state with a stale move

    def render(self, lang: str = "en") -> tuple[str, str | None]:
        """(message, hint) in one language; English where a translation is missing or broken."""
        if lang == "en":
            return self.message, self.hint
        from ..i18n import translator
        _ = translator(lang).gettext
        message = _fill(_(self.template), self.params, self.message)
        hint = _fill(_(self.hint_template), self.params, self.hint) if self.hint_template else None
        return message, hint

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        message, hint = self.render(lang)
        out: dict[str, Any] = {"error": message, "status": self.status}
        if hint:
            out["hint"] = hint
        out.update(self.extra)
        return out


def _fill(template: str, params: dict[str, Any], fallback: str | None = None) -> str:
    try:
        return template.format(**params) if params else template
    except (KeyError, IndexError, ValueError):
        return fallback if fallback is not None else template
