"""The budget check before a solve: refuse a model whose states cannot even be counted within the limits."""
from __future__ import annotations

import math

from .abstraction import Feature, NotSolvable, quantity_units
from ..model.errors import Message, Number
from ..model.frozen import Model
from ..model.limits import hint_for, limits


def check_size(model: Model, boxes: int, sizes: list[int], rerolls: int, feats: list[Feature] = (),
               codes: int | None = None) -> None:
    """Refuse, before anything is built, a model whose states cannot even be counted within the budget.

    The upper estimate (every subset of boxes times every value of the tracked sheet quantities)
    and its work (every roll into every box, every keep for every face) are checked against the
    budget. A model over it whose states can still be counted cheaply (at most 16 boxes read by the
    quantities, 2^those boxes × the largest quantity's values at most 2^26) passes: its exact count is checked against the
    limits before the solve (`induction.refuse_beyond`), so `--max-states` can allow it."""
    budget = limits()
    states = (codes if codes is not None else 1 << min(boxes, 4096)) * math.prod(sizes)
    read = {f.name for f in feats if f.kind != "total"}
    read |= {u for f in feats if f.kind == "total" for u in quantity_units(model, f.name)}
    countable = len(read) <= 16 and (1 << len(read)) * max(sizes, default=1) <= 1 << 26 and states.bit_length() <= 62
    if states > budget.solver_states and not countable:
        raise NotSolvable("the solver would need up to {states} states ({boxes} boxes, {values} values of the tracked "
                          "sheet quantities); the limit is {limit} states", model.flow.pos, hint_for("solver_states"),
                          states=_short(states), boxes=boxes, values=_short(math.prod(sizes)),
                          limit=Number(budget.solver_states))
    rolls = math.comb(model.n_dice + model.faces - 1, model.n_dice)
    keeps = math.comb(model.n_dice + model.faces, model.n_dice)
    per_state = rolls * boxes + keeps * model.faces * max(rerolls, 1)
    if states * per_state > budget.solver_work and not countable:
        raise NotSolvable("the solver would do {work} steps of work ({states} states, {per_state} each); the limit is "
                          "{limit}", model.flow.pos, hint_for("solver_work"), work=_short(states * per_state),
                          states=_short(states), per_state=Number(per_state), limit=Number(budget.solver_work))


def _short(n: int) -> Number | Message:
    """A count for a message: 1,234,567 (as the reader's language writes it) or, past 15 digits, about 10^N."""
    return Number(n) if n < 10**15 else Message("about 10^{n}", {"n": len(str(n)) - 1})
