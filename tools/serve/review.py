"""The review at the end of a game: every decision against the solver's table, said in the asker's
language, with each turn's cost placed where its write went on the sheet (as `rulebook review` says it)."""
from __future__ import annotations

from bisect import bisect_left
from typing import Any

from ...interpreter.engine.actions import Write, parse_action
from ...interpreter.play.game import Seat
from ..documents.reviewwords import SHOWN, choice_text, cost_text, explanation, mistake_text, player_summary, value_text


def review_json(model, seats: list[Seat], moves: list[str], lang: str) -> dict[str, Any]:
    """The review of a game played from the start with these moves: per player a summary and the
    biggest mistakes; per decision its words; per player and box written the cost of that turn."""
    from ...interpreter.play.review import review_moves
    actions = [parse_action(m) for m in moves]
    review = review_moves(model, seats, actions)
    writes = [(n, a.box) for n, a in enumerate(actions, start=1) if isinstance(a, Write)]  # each ends a turn
    decisions, turns = [], {}
    for d in review.decisions:
        entry = {"seq": d.line, "player": d.player, "round": d.round, "kind": d.kind, "dice": list(d.dice),
                 "made": choice_text(model, d.made, lang), "best": choice_text(model, d.best, lang),
                 "better": d.best != d.made, "loss": round(d.loss, 6), "cost": cost_text(d.loss, d.unit, lang),
                 "value": value_text(d, lang), "unit": d.unit}
        if d.loss > SHOWN / (100 if d.unit == "chance" else 1):
            entry["sentence"] = mistake_text(review, d, lang)
        decisions.append(entry)
        i = bisect_left(writes, (d.line, ""))
        if i < len(writes):  # the write that ends the decision's turn: the turn's cost is shown there
            turn = turns.setdefault(str(d.player), {}).setdefault(writes[i][1], {"loss": 0.0, "seqs": [], "unit": d.unit})
            turn["loss"] += d.loss
            turn["seqs"].append(d.line)
    for mine in turns.values():
        for turn in mine.values():
            turn["loss"] = round(turn["loss"], 6)
            turn["cost"] = cost_text(turn["loss"], turn["unit"], lang)
            turn["shown"] = turn["loss"] > SHOWN / (100 if turn["unit"] == "chance" else 1)
    players = []
    for p, seat in enumerate(seats):
        total, heading = player_summary(review, p, lang) if review.of(p) else (None, None)
        players.append({"name": seat.name, "kind": seat.kind, "summary": total, "heading": heading,
                        "total_loss": round(review.total_loss(p), 6),
                        "mistakes": [mistake_text(review, d, lang) for d in review.mistakes(p)]})
    chance = any(review.unit_of(p) == "chance" for p in range(len(seats)))
    return {"players": players, "decisions": decisions, "turns": turns, "explanation": explanation(lang, chance)}
