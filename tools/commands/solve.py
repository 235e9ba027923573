"""Compute optimal solitaire play (maximum expected final score) by backward induction."""
from __future__ import annotations

import json
import time

from ...interpreter.loader import load_model
from ...interpreter.solver import cache_path, load_or_solve, Space
from .options import add_option_argument, parse_options
from ..i18n import number, pick_language, translator
from ..progress import progress_bar


def add_arguments(p) -> None:
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--json", action="store_true", help='print {"expected_score": …, "states": …, "seconds": …}')
    p.add_argument("--no-cache", action="store_true", help="compute afresh and do not store the table")
    p.add_argument("--lang", default=None)
    add_option_argument(p)


def run(args) -> int:
    model = load_model(args.model, parse_options(args.option))
    Space(model)  # refuses unsolvable models before any work
    start = time.perf_counter()
    with progress_bar("solving") as update:
        table = load_or_solve(model, update, use_cache=not args.no_cache)
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps({"expected_score": round(table.expected_score, 6), "states": table.states,
                          "seconds": round(seconds, 3), "solve_seconds": round(table.seconds, 3)}))
        return 0
    lang = pick_language(args.lang)
    _ = translator(lang).gettext
    opts = ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in model.option_values.items())
    no_options = _("no options")
    print(f"{model.name[lang]} ({opts or no_options})")
    print(_("expected score with optimal play: {score}").format(score=number(table.expected_score, lang, 4)))
    line = _("states: {states}; solved in {seconds} s").format(states=number(table.states, lang), seconds=number(table.seconds, lang, 1))
    if abs(seconds - table.seconds) >= 0.5:
        line += " " + _("(read from the cache in {seconds} s)").format(seconds=number(seconds, lang, 2))
    print(line)
    if not args.no_cache:
        print(_("table: {path}").format(path=cache_path(model)))
    return 0
