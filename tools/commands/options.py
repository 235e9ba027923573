"""The --option NAME=VALUE flag shared by every command that loads a model."""
from __future__ import annotations

import argparse

from ...interpreter.model.errors import UsageError


def add_option_argument(p: argparse.ArgumentParser) -> None:
    """Add the repeatable --option flag."""
    p.add_argument("--option", "-O", action="append", default=[], metavar="NAME=VALUE",
                   help="choose a rule variant (repeatable)")


def parse_options(pairs: list[str]) -> dict[str, str]:
    """{'name': 'value'} from ['name=value', …]; a pair without '=' is a usage error."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError("--option needs NAME=VALUE, not '{pair}'", pair=pair)
        out[name.strip()] = value.strip()
    return out
