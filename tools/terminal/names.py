"""Names of things on a model's sheet as people read them (no rich, no engine: cheap to import)."""
from __future__ import annotations


def target_name(model, target: str, lang: str) -> str:
    """A box's name; for a box in a column, the box and the column ('Ones, Down')."""
    t = model.targets.get(target)
    if t is None or t.column is None:
        return model.boxes[t.box if t else target].name[lang]
    column = next(c for c in model.columns if c.id == t.column)
    return f"{model.boxes[t.box].name[lang]}, {column.name[lang]}"


def announce_column(model, target: str, lang: str) -> str | None:
    """The column an announcement names: None where the box alone says where the dice go (a sheet
    without columns, or exactly one column that takes announcements), else the column's name."""
    t = model.targets.get(target)
    if t is None or t.column is None or sum(1 for c in model.columns if c.order == "announced") == 1:
        return None
    return next(c for c in model.columns if c.id == t.column).name[lang]
