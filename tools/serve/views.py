"""What the pages show of a game: the model as the table's script draws it, and a game's card."""
from __future__ import annotations

from typing import Any

from ...interpreter.model.frozen import Model
from ..documents.sheetlayout import sheet_layout
from ..i18n import translator
from ..terminal.view import target_name


def model_info(model: Model, lang: str) -> dict[str, Any]:
    """What the browser needs to draw a table of this model, in one language."""
    return {
        "id": model.id,
        "name": model.name[lang],
        "n_dice": model.n_dice,
        "faces": model.faces,
        # dice that differ: each group's name, count, faces and colour, in the order a roll lists them
        "groups": [{"id": g.id, "name": g.name[lang] if g.name else g.id, "count": g.count, "faces": g.faces,
                    "colour": g.colour} for g in model.dice_groups] if model.grouped else [],
        "winner": model.winner,
        # the sheet layout every reader draws: rows × columns × entries, and the sections that do not count
        "sections": [{"id": s.id, "name": s.name[lang], "total": s.total[lang] if s.total else None,
                      "counts": laid.counts,
                      "boxes": [{"id": row.box, "name": model.boxes[row.box].name[lang],
                                 "rule": model.boxes[row.box].rule[lang], "uses": row.entries,
                                 "targets": [t for t in row.targets if t]} for row in laid.rows]}
                     for s, laid in zip(model.sections, sheet_layout(model).sections)],
        # a sheet of rows x columns: every box once per column (targets box@column, in column order)
        "columns": [{"id": c.id, "name": c.name[lang], "multiplier": c.multiplier, "order": c.order}
                    for c in model.columns],
        "targets": {t.id: {"name": target_name(model, t.id, lang), "box": t.box, "column": t.column, "cells": list(t.cells)}
                    for t in model.targets.values()},
        "ranking": None if model.ranking is None else model.ranking.name[lang],
        "counters": [{"id": c.id, "name": c.name[lang], "per": c.per} for c in model.counters],
        "bonuses": [{"id": b.id, "name": b.name[lang], "section": b.section, "progress": b.progress is not None,
                     "rule": b.rule[lang]} for b in model.bonuses],
        "steps": {s.id: s.name[lang] for s in model.flow.walk()},
    }


def game_card(model: Model, lang: str) -> dict[str, Any]:
    t = translator(lang)
    if model.min_players == model.max_players:
        players = t.ngettext("%(num)d player", "%(num)d players", model.min_players) % {"num": model.min_players}
    else:
        players = t.ngettext("%(min)d to %(num)d player", "%(min)d to %(num)d players",
                             model.max_players) % {"min": model.min_players, "num": model.max_players}
    return {"id": model.id, "name": model.name[lang], "tagline": model.tagline[lang] if model.tagline else "",
            "players": players, "rules": f"/rules/{model.id}/{lang}", "diagram": f"/rules/{model.id}.{lang}.svg"}
