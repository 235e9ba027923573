"""An option's value as the user gives it (`--option name=value`, a save, the web), checked against the option."""
from __future__ import annotations

from typing import Any

from .errors import UsageError, did_you_mean
from .frozen import Option


def parse_option_value(option: Option, raw: Any) -> Any:
    """An option value from the command line (a string) or a save file, checked against the option."""
    if option.type == "bool":
        if isinstance(raw, bool):
            return raw
        if str(raw).lower() in ("true", "yes", "on", "1"):
            return True
        if str(raw).lower() in ("false", "no", "off", "0"):
            return False
        raise UsageError("option '{option}' is true or false, not '{value}'", option=option.id, value=raw)
    if option.type == "number":
        try:
            value = int(raw)
        except (TypeError, ValueError):
            raise UsageError("option '{option}' takes a whole number, not '{value}'", option=option.id, value=raw) from None
        if (option.min is not None and value < option.min) or (option.max is not None and value > option.max):
            raise UsageError("option '{option}' must be between {least} and {most}, not {value}", option=option.id,
                             least=option.min, most=option.max, value=value)
        return value
    choices = option.choices or {}
    if str(raw) not in choices:
        raise UsageError("option '{option}' cannot be '{value}'; choose one of {choices}",
                         did_you_mean(str(raw), choices), option=option.id, value=raw,
                         choices=", ".join(f"'{c}'" for c in choices))
    return str(raw)
