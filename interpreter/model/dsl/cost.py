"""What evaluating an expression costs, counted while it is compiled and before anything runs.

A step is one operation, function call or name. A definition counts its own steps at every use (its
compiled closure runs again each time), so a chain of definitions that each use the one before
twice doubles at every link; `if … else` counts its dearer branch; a part that reads only the dice
becomes a table over every roll, which costs its steps once per roll to build and one step to read.
The budget (`expression_cost`, `table_work` in limits.py) refuses a model past it, at the smallest
part that passes it.
"""
from __future__ import annotations

from ..errors import Message, Number
from ..limits import limits
from .ast import Expr

PER_BOX = {"total", "open_count", "column_values", "columns_filled", "entries"}  # loop over boxes, columns or uses


def cost(node: Expr) -> int:
    """The steps of one evaluation of a compiled node (1 for a constant or a table lookup)."""
    return getattr(node, "cost", 1)


def count(node: Expr, widest: int) -> Message | None:
    """Note the steps of one evaluation of `node` (its arguments counted already); the refusal if
    they pass `expression_cost`. `widest`: the most boxes of a section (a section function's loop)."""
    if not node.deps:
        node.cost = 1  # type: ignore[attr-defined]  # folded to a constant
        return None
    definition = getattr(node, "definition", None)
    if definition is not None:
        node.cost = cost(definition)  # type: ignore[attr-defined]
        return None
    if node.op == "ifelse":  # one branch runs: the dearer one counts
        steps = 1 + cost(node.args[0]) + max(cost(node.args[1]), cost(node.args[2]))
    else:
        steps = 1 + sum(cost(a) for a in node.args) + (widest if node.op == "call" and node.value in PER_BOX else 0)
    node.cost = steps  # type: ignore[attr-defined]
    budget = limits().expression_cost
    if steps <= budget:
        return None
    return Message("evaluating this expression takes {steps} steps (a definition counts at each use); the limit is {limit}",
                   {"steps": Number(steps), "limit": Number(budget)})


class Tables:
    """The steps of building a model's per-roll tables, added up; past `table_work`, one refusal and
    no further table (the model is refused anyway)."""

    def __init__(self, rolls: int):
        self.rolls, self.work, self.refused = rolls, 0, False

    def add(self, node: Expr) -> Message | None:
        """Count the table of `node` before it is built: None to build it, else the refusal."""
        self.work += self.rolls * cost(node)
        budget = limits().table_work
        if self.work <= budget:
            return None
        self.refused = True
        return Message("the tables of this model's expressions over every roll take {work} steps to build up to here "
                       "({rolls} rolls of {steps} steps for this one); the limit is {limit}",
                       {"work": Number(self.work), "rolls": Number(self.rolls), "steps": Number(cost(node)),
                        "limit": Number(budget)})
