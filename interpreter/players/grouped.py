"""Keeping dice that differ: the rest of a turn planned exactly over the engine's own keeps and rolls.

The turn planner's tables (`engine.turn`) are of one kind of die; with groups of dice a keep is
a choice of dice by group and face (`_Tables.keeps`, as codes) and rolling the others throws the
groups' dice left (`_Tables.group_chance`). V(dice, held, j) is the expected value of the turn's
write with j rolls left: the keeps each keep step allows (its rule and the dice set aside), and
writing now where a step may stop. Writing the dice is worth this roll's best points and bonus
(the points of a `counts: false` section count 0), as the greedy bot values a write.
"""
from __future__ import annotations

import numpy as np

from ..engine.actions import Action, Keep, Stop
from ..engine.state import GameState, tables


class GroupedTurn:
    """One decision's plan of the rest of the turn (memoised over dice, held dice and rolls left)."""

    def __init__(self, state: GameState, rules, step, counting: dict[str, int]):
        """`rules`: the model's `TurnRules` (which keep step is met with j rolls left); `step`: the write
        step the dice go to; `counting`: target → 1 if its points count (0: a `counts: false` section)."""
        self.state, self.model = state, state.model
        self.t = tables(state.model)
        self.rules = rules
        self.sheet = dict(state.sheets[state.player])  # a copy: the plan may outlive this position
        self.step = step
        self.counters = state.counters_of(state.player)  # (a new dict each time)
        self.counting = counting
        self.writable = state.scorer.writable(self.sheet, state.announced)
        self._now: dict = {}
        self._memo: dict = {}

    def now(self, dice: tuple[int, ...], j: int) -> float:
        """Writing the dice now with j rolls left: the best points (and bonus) a box gives them."""
        rn = self.rules.last - j
        key = (dice, rn)
        v = self._now.get(key)
        if v is None:
            options = self.state.scorer.options_for(dice, self.sheet, rn, self.step, self.writable, self.counters)
            v = max((c.points * self.counting[c.box] + c.bonus for c, _ in options.values()), default=0.0)
            self._now[key] = v = float(v)
        return v

    def _entry(self, step, dice, held):
        ruled = step.allowed is not None or step.locked
        return self.t.ruled_keeps(step, dice, held) if ruled else self.t.keeps(dice)

    def value(self, dice: tuple[int, ...], held: tuple[int, ...], j: int) -> float:
        key = (dice, held, j)
        v = self._memo.get(key)
        if v is not None:
            return v
        step = self.rules.step_for(j) if j > 0 else None
        if step is None:
            v = self.now(dice, j)
        else:
            v = self.now(dice, j) if step.can_stop else -np.inf
            for k in self._entry(step, dice, held)[2]:
                if step.can_stop and len(k) == len(dice):
                    continue  # keeping every die is stopping
                v = max(v, self.keep_value(dice, k, held, j))
        self._memo[key] = v
        return v

    def keep_value(self, dice: tuple[int, ...], kept: tuple[int, ...], held: tuple[int, ...], j: int) -> float:
        """Keeping the dice `kept` (codes) with j rolls left: the expected value after rolling the others."""
        if len(kept) == len(dice):
            return self.now(dice, j)
        step = self.rules.step_for(j)
        new_held = kept if step is not None and step.locked else held
        outcomes, merge = self.t.group_chance(kept)[0], self.t.merge[kept]
        return sum(p * self.value(merge[roll.faces], new_held, j - 1) for roll, p in outcomes)

    def keep_values(self) -> dict[tuple[int, ...], float]:
        """Every legal keep of the state (codes; every die: stopping) with its value."""
        state, j = self.state, self.state.rolls_left()
        out = {}
        for action in state.legal_actions():
            if type(action) is Stop:
                out[self.t.codes(state.dice)] = self.now(state.dice, j)
            else:
                kept = self.t.codes_of_keep(action)
                out[kept] = self.keep_value(state.dice, kept, state.held, j)
        return out

    def choose(self) -> Action:
        """The keep worth most; on a tie stopping, then the keep of more dice."""
        state = self.state
        n = len(state.dice)
        best = max(self.keep_values().items(), key=lambda kv: (kv[1], len(kv[0]) == n, len(kv[0])))[0]
        if len(best) == n and any(type(a) is Stop for a in state.legal_actions()):
            return Stop()
        return self.t.keep_action(best)


def keep_label(state: GameState, kept: tuple[int, ...]) -> Keep:
    """The Keep of these kept dice (codes with dice that differ, else faces)."""
    return tables(state.model).keep_action(kept)
