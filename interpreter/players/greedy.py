"""The greedy bot: this turn's points and bonus, the future sheet left out."""
from __future__ import annotations

from ..engine.state import GameState
from ..solver.abstraction import NotSolvable
from ..solver.solve import greedy_space, greedy_table
from ..solver.writetable import encode
from .base import PlannerBot, immediate_table


class GreedyBot(PlannerBot):
    """Maximizes this turn's points and bonus; the future sheet does not count."""

    def write_table(self, state: GameState, roll_number: int | None = None):
        if self._space(state) is None:
            return immediate_table(state, roll_number)
        return greedy_table(state, roll_number)

    def plan_key(self, state: GameState):
        """The solver's encoding of the sheet where the model has one (plans shared), else the sheet."""
        space = self._space(state)
        if space is None:
            return super().plan_key(state)
        mask, fvals = encode(space, state.sheets[state.player])
        return mask, tuple(fvals)

    def _space(self, state: GameState):
        """The model's solver Space (None if the solver cannot read the model), once per model."""
        spaces = self.__dict__.setdefault("_spaces", {})
        model = state.model
        if id(model) not in spaces:
            try:
                spaces[id(model)] = (model, greedy_space(model))
            except NotSolvable:
                spaces[id(model)] = (model, None)
        return spaces[id(model)][1]
