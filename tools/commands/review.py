"""Review a game log written by `rulebook play --log`: every decision's best choice and what the choice made cost.

The values come from the solver's table for the log's model and options (the expected final score
with the rest of the game played optimally), so a model the solver cannot read is refused. Then each
player's total loss and their three biggest mistakes.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ...interpreter.model.errors import UsageError
from ...interpreter.solver.abstraction import NotSolvable
from ..i18n import number, pick_language, translator


def add_arguments(p) -> None:
    p.add_argument("log", type=Path, metavar="LOG", help="a JSON Lines log written by rulebook play --log")
    p.add_argument("--json", action="store_true",
                   help="print every decision (made, best, their values, the loss) and each player's total as JSON")
    p.add_argument("--lang", default=None, help="en, de or nl (default: from the locale)")


def run(args) -> int:
    from ...interpreter.play.review import review_log
    lang = pick_language(args.lang)
    try:
        review = review_log(args.log)
    except NotSolvable as exc:
        raise UsageError("the solver cannot read this game's model, so its moves cannot be reviewed: {reason}",
                         reason=exc.msg) from None
    if args.json:
        json.dump(review.to_json(), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    print("\n".join(report(review, lang)))
    return 0


def report(review, lang: str) -> list[str]:
    """The review as lines: a table of every decision, then each player's total and biggest mistakes."""
    from ..terminal.plaintable import render
    from ..documents.reviewwords import (SHOWN, choice_text, cost_text, explanation, mistake_text, player_summary,
                                         value_text)
    t = translator(lang)
    _ = t.gettext
    model = review.model
    names = [s.name for s in review.seats]
    rows = []
    for d in review.decisions:
        rows.append([str(d.round), names[d.player], " ".join(map(str, d.dice)), choice_text(model, d.made, lang),
                     "" if d.best == d.made else choice_text(model, d.best, lang),
                     value_text(d, lang), cost_text(d.loss, d.unit, lang) if d.loss > SHOWN / (100 if d.unit == "chance" else 1)
                     else ""])
    title = t.ngettext("{model}: {n} decision reviewed", "{model}: {n} decisions reviewed",
                       len(review.decisions)).format(model=model.name[lang], n=number(len(review.decisions), lang))
    lines = [render(title, [_("Round"), _("Player"), _("Dice"), _("Choice"), _("Better"), _("Expected score"),
                            _("Cost")], rows, right={0, 5, 6}, encoding=getattr(sys.stdout, "encoding", None))]
    lines.append(explanation(lang, any(review.unit_of(p) == "chance" for p in range(len(names)))))
    if not review.finished:
        lines.append(_("The log ends before the game is over."))
    for p in range(len(names)):
        if not review.of(p):
            continue
        total, heading = player_summary(review, p, lang)
        lines.append(total)
        if heading is not None:
            lines.append(heading)
            lines += ["  " + mistake_text(review, d, lang) for d in review.mistakes(p)]
    return lines
