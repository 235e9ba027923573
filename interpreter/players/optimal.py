"""The optimal bot: maximizes the expected final score, reading the solver's table."""
from __future__ import annotations

from ..model.frozen import Model
from .base import PlannerBot
from ..engine.state import GameState
from ..solver.solve import solved, write_table as table_for


class OptimalBot(PlannerBot):
    """Maximizes the expected final score, reading the solver's table."""

    def __init__(self, model: Model, progress=None):
        super().__init__()
        self.space, self.table = solved(model, progress)

    def write_table(self, state: GameState, roll_number: int | None = None):
        return table_for(self.space, self.table.values, state, roll_number)

    def choose(self, state: GameState):
        """From the policy tables where they are stored (solver/policy.py: microseconds), else the turn's plan."""
        decider = self.__dict__.get("_decider", False)
        if decider is False:
            from ..solver.policy import decider_for
            decider = self._decider = decider_for(self.space.model)
        made = decider.choose(state) if decider is not None else None
        return made if made is not None else super().choose(state)

    def _make_plan(self, state: GameState):
        """The turn's plan from the compiled planner (turnplan.py) where it can, else the numpy way."""
        planner = self.__dict__.get("_planner")
        if planner is None:
            from ..solver.turnplan import Planner
            planner = self._planner = Planner(self.space, self.table.values)
        made = planner.bot_plan(state.sheets[state.player]) if planner.usable else None
        return made if made is not None else super()._make_plan(state)

    def plan_key(self, state: GameState):
        """The turn-start state as the solver sees it: plans are shared by sheets that encode alike."""
        from ..solver.writetable import encode
        mask, fvals = encode(self.space, state.sheets[state.player])
        return mask, tuple(fvals)

    def roll_dependent(self, state: GameState) -> bool:
        return self.space.roll_dependent
