"""Computer players. Each is `choose(state) -> Action`; humans live in the user interfaces.

- `random`: a uniformly random legal action.
- `greedy`: maximizes the points (plus bonus) written this turn, planning its keeps exactly.
- `optimal`: maximizes the expected final score, from the solver's table (see solver.py).
"""
from __future__ import annotations

import random
from collections import OrderedDict
from typing import Protocol

import numpy as np

from .actions import Action, Keep, Stop, Write
from .state import GameState
from .turn import turn_tables


class Player(Protocol):
    def choose(self, state: GameState) -> Action: ...


class RandomBot:
    """Picks any legal action with equal chance."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def choose(self, state: GameState) -> Action:
        return self.rng.choice(state.legal_actions())


class PlannerBot:
    """Plans each turn exactly: keeps maximize the expected value of the final write.

    `box_value(state, points_plus_bonus, box)` says what writing a box is worth; the greedy bot
    counts only this turn's points, the optimal bot adds the value of the sheet that results.
    """

    PLAN_CACHE_BYTES = 64 * 2**20  # the memory bound of the plans kept (least recently used go first)

    def __init__(self):
        self._plan_key = self._quick = None
        self._layers = None
        self._cache: OrderedDict = OrderedDict()  # plan key -> (boxes, tables by roll number, layers, bytes)
        self._cache_bytes = 0

    # subclasses give the value of writing each box for every possible final roll
    def write_table(self, state: GameState, roll_number: int | None = None) -> tuple[list[str], np.ndarray]:
        """(open boxes, values (B, R)) after the given roll of the turn (default: the last);
        -inf where a box may not take a roll."""
        raise NotImplementedError

    def roll_dependent(self, state: GameState) -> bool:
        """Whether points depend on which roll of the turn it is (then each roll gets its table)."""
        return _reads_roll_number(state.model)

    def plan_key(self, state: GameState):
        """What a turn's plan depends on: the player's sheet (subclasses may say less)."""
        return tuple(sorted(state.sheets[state.player].items()))

    def _plan(self, state: GameState):
        quick = tuple(state.sheets[state.player].items())  # the same sheet as last time: the same plan
        if quick == self._quick and self._layers is not None:
            return self._layers
        self._quick = quick
        key = self.plan_key(state)
        if key != self._plan_key:
            entry = self._cache.get(key)
            if entry is None:
                entry = self._make_plan(state)
                self._cache[key] = entry
                self._cache_bytes += entry[3]
                while self._cache_bytes > self.PLAN_CACHE_BYTES and len(self._cache) > 1:
                    self._cache_bytes -= self._cache.popitem(last=False)[1][3]
            else:
                self._cache.move_to_end(key)
            self._boxes, self._tables, self._layers, _ = entry
            self._plan_key = key
        return self._layers

    def _make_plan(self, state: GameState):
        """The turn's plan: (open boxes, write tables by roll number, TurnTables layers, bytes)."""
        model = state.model
        shape = self.__dict__.setdefault("_shape", {})
        if id(model) not in shape:  # (rerolls, may a keep stop?), once per model
            shape[id(model)] = (model, max_rerolls(model), any(s.kind == "keep" and s.can_stop for s in model.flow.walk()))
        rerolls, can_stop = shape[id(model)][1:]
        last = rerolls + 1
        numbers = range(1, last + 1) if self.roll_dependent(state) else [last]
        made = {rn: self.write_table(state, rn) for rn in numbers}
        tables = {rn: t for rn, (_, t) in made.items()}
        best = {rn: t.max(axis=0)[:, None] for rn, t in tables.items()}
        stop = None
        if len(best) > 1 and can_stop:
            def stop(j):  # writing at once with j rerolls left
                return best[last - j]
        tt = turn_tables(model.n_dice, model.faces)
        layers = tt.layers(best[last], rerolls, stop)
        size = sum(t.nbytes for t in tables.values()) + sum(a.nbytes for layer in layers for a in layer if a is not None)
        return made[last][0], tables, layers, size

    @property
    def _table(self) -> np.ndarray:
        return self._tables[self._roll_now]

    def _now(self, state: GameState) -> None:
        self._roll_now = state.roll_number if state.roll_number in self._tables else max(self._tables)

    def keep_values(self, state: GameState) -> dict[tuple[int, ...], float]:
        """The expected value of each keep of the current dice (only at a keep step)."""
        layers = self._plan(state)
        tt = turn_tables(state.model.n_dice, state.model.faces)
        left = min(state.rolls_left(), len(layers) - 1)
        Kv = layers[left][0][:, 0]
        from .dice import sub_multisets
        return {k: float(Kv[tt.keep_index[k]]) for k in sub_multisets(state.dice)}

    def write_values(self, state: GameState) -> dict[str, float]:
        """The value of each legal box for the current dice (only at a write step)."""
        self._plan(state)
        self._now(state)
        tt = turn_tables(state.model.n_dice, state.model.faces)
        r = tt.roll_index[state.dice]
        return {b: float(self._table[i, r]) for i, b in enumerate(self._boxes) if np.isfinite(self._table[i, r])}

    def choose(self, state: GameState) -> Action:
        step = state.step()
        layers = self._plan(state)
        self._now(state)
        tt = turn_tables(state.model.n_dice, state.model.faces)
        r = tt.roll_index[state.dice]
        if step.kind == "write":  # the best box; on a tie the first on the sheet
            return Write(self._boxes[int(np.argmax(self._table[:, r]))])
        Kv = layers[min(state.rolls_left(), len(layers) - 1)][0][:, 0]
        candidates = tt.sub_index[r][::-1]  # largest keeps first, so a tie keeps more dice
        candidates = candidates[candidates < len(tt.keeps)]
        best = tt.keeps[int(candidates[int(np.argmax(Kv[candidates]))])]
        if len(best) == len(state.dice) and step.can_stop:
            return Stop()
        return Keep(best)


def max_rerolls(model) -> int:
    """How many times a turn may roll after its first roll (rolls in a turn, less one)."""
    turn = next(s for s in model.flow.walk() if s.kind == "each_player")

    def rolls(step) -> int:
        inner = sum(rolls(c) for c in step.steps)
        return (1 if step.kind == "roll" else 0) + (step.times * inner if step.kind == "repeat" else inner)
    return max(0, rolls(turn) - 1)


def _reads_roll_number(model) -> bool:
    from .abstraction import scoring_expressions
    return any("turn" in c.deps for _, c in scoring_expressions(model))


def immediate_table(state: GameState, roll_number: int | None = None) -> tuple[list[str], np.ndarray]:
    """For every open box and every final roll: points + write bonus, or -inf if not allowed."""
    model = state.model
    tt = turn_tables(model.n_dice, model.faces)
    sheet = state.sheets[state.player]
    scorer = state.scorer
    step = next(s for s in model.flow.walk() if s.kind == "write")
    open_boxes = [t for t in model.targets if scorer.is_open(t, sheet)]
    table = np.full((len(open_boxes), len(tt.rolls)), -np.inf)
    for r, dice in enumerate(tt.rolls):
        for c in scorer.choices(dice, sheet, roll_number or max_rerolls(model) + 1, step):
            table[open_boxes.index(c.box), r] = c.points + c.bonus
    return open_boxes, table
