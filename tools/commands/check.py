"""Validate models: YAML syntax, schema, expressions, names, types, loops and translations."""
from __future__ import annotations

import sys

from ...interpreter.model.errors import ErrorList, RulebookError
from ...interpreter.model.loader import load_model
from ..cli import printable
from .options import add_option_argument, parse_options


def add_arguments(p) -> None:
    p.add_argument("models", nargs="+", metavar="MODEL", help="a model file or a bundled model's name")
    add_option_argument(p)


def run(args) -> int:
    from ..i18n import error_text, pick_language, translator
    lang = pick_language()
    _ = translator(lang).gettext
    options = parse_options(args.option)
    failed = False
    for name in args.models:
        try:
            model = load_model(name, options)  # (the schema check is skipped only for a text that passed it)
        except ErrorList as exc:
            failed = True
            for err in exc.errors:
                print(printable(error_text(err, lang)), file=sys.stderr)
        except RulebookError as exc:
            failed = True
            print(printable(error_text(exc, lang)), file=sys.stderr)
        else:
            print(_("{path}: ok ({id}: {boxes} boxes, {options} options, {least}-{most} players)").format(
                path=model.path, id=model.id, boxes=len(model.boxes), options=len(model.options),
                least=model.min_players, most=model.max_players))
    return 2 if failed else 0
