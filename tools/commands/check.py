"""Validate models: YAML syntax, schema, expressions, names, types, loops and translations."""
from __future__ import annotations

import sys

from ...interpreter.errors import ErrorList, RulebookError
from ...interpreter.loader import load_model
from .options import add_option_argument, parse_options


def add_arguments(p) -> None:
    p.add_argument("models", nargs="+", metavar="MODEL", help="a model file or a bundled model's name")
    add_option_argument(p)


def run(args) -> int:
    options = parse_options(args.option)
    failed = False
    for name in args.models:
        try:
            model = load_model(name, options)
        except ErrorList as exc:
            failed = True
            for err in exc.errors:
                print(err, file=sys.stderr)
        except RulebookError as exc:
            failed = True
            print(exc, file=sys.stderr)
        else:
            boxes = len(model.boxes)
            print(f"{model.path}: ok ({model.id}: {boxes} boxes, {len(model.options)} options, "
                  f"{model.min_players}-{model.max_players} players)")
    return 2 if failed else 0
