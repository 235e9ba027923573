"""Re-run a game log written by `rulebook play --log` and print the final sheets and ranking.

Every roll and move of the log is applied to its model (with the options it was played with), so
a log that does not fit — a changed model, a damaged line, a move the rules forbid — is refused
with the line where it stops fitting.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ...interpreter.play.game import replay
from ...interpreter.engine.state import GameState
from ..i18n import pick_language
from ..terminal.view import View


def add_arguments(p) -> None:
    p.add_argument("log", type=Path, metavar="LOG", help="a JSON Lines log written by rulebook play --log")
    p.add_argument("--json", action="store_true", help="print the players, final sheets and ranking as JSON")
    p.add_argument("--lang", default=None, help="en, de or nl (default: from the locale)")


def run(args) -> int:
    lang = pick_language(args.lang)
    result = replay(args.log)
    state = result.state
    if args.json:
        json.dump(summary(state), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    view = View(lang)
    view.console.rule(view.t.ngettext("{model}: {moves} move replayed", "{model}: {moves} moves replayed",
                                      result.moves).format(model=result.model.name[lang], moves=result.moves))
    view.console.print(view.sheet(state))
    if not state.is_terminal():
        view.console.print(view._("The log ends before the game is over."))
    for line in view.ranking(state):
        view.console.print(line, markup=False)
    return 0


def summary(state: GameState) -> dict:
    """The players, every final sheet with its bonuses and total, and the ranking."""
    model = state.model
    totals = []
    for p, name in enumerate(state.players):
        t = state.totals(p)
        totals.append({"player": name, "boxes": {b: state.sheets[p][b] for b in model.cells if b in state.sheets[p]},
                       "bonuses": {b.id: t[b.id] for b in model.bonuses}, "total": t["total"]})
    return {"model": model.id, "players": list(state.players), "finished": state.is_terminal(),
            "totals": totals,
            "ranking": [{"rank": rank, "player": name, "total": total} for rank, name, total in state.ranking()]}
