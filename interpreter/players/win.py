"""The play-to-win computer player: the highest chance to finish ahead of every other player at the table.

Each turn is planned exactly (the keeps of `PlannerBot`), but a write is worth the chance to win after
it rather than its points: the player's own final score from the sheet the write leaves, against each
opponent's final score from the sheet they have now. Both are known to the solver by their mean and
variance under optimal (expected-score) play from there on (`solver/moments.py`); the chance that one
beats the other is read from a normal curve of their difference (a tie counts half), and the chances
against several opponents are multiplied (their games are independent). So the player takes risks
when it trails and plays safe when it leads, in the way Holderied's and Pawlewicz's players of one game
weigh score distributions; unlike them it assumes normal curves and optimal play after this turn.
With no opponent it is the optimal player.
"""
from __future__ import annotations

import numpy as np

from ..model.frozen import Model
from ..engine.state import GameState
from ..solver.moments import remaining_moments
from ..solver.solve import solved, write_table as table_for
from .base import PlannerBot


def normal_cdf(x: np.ndarray) -> np.ndarray:
    """Φ(x) by Abramowitz and Stegun 7.1.26 (error below 1.5e-7), for arrays (±inf give 0 and 1)."""
    z = np.minimum(np.abs(x) / np.sqrt(2.0), 40.0)  # beyond 40 the tail is 0 in float64
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = 1.0 - poly * np.exp(-z * z)
    return 0.5 * (1.0 + np.sign(x) * erf)


def beat_chance(diff: np.ndarray, var: np.ndarray) -> np.ndarray:
    """P(D > 0) + P(D = 0) / 2 for D of mean `diff` and variance `var` (normal; exact when var is 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z = diff / np.sqrt(var)
    sure = np.where(diff > 0, 1.0, np.where(diff < 0, 0.0, 0.5))
    return np.where(var > 1e-12, normal_cdf(np.nan_to_num(z)), sure)


class WinBot(PlannerBot):
    """Maximizes the chance to win against the players at the table (see the module's text)."""

    def __init__(self, model: Model, progress=None):
        super().__init__()
        self.space, self.table = solved(model, progress)
        self.mean, self.var = remaining_moments(self.space, self.table.values)
        self._zero = np.broadcast_to(np.zeros(1), self.table.values.shape)
        self._okey = None

    def _state_index(self, sheet) -> int:
        from ..solver.writetable import encode
        mask, fvals = encode(self.space, sheet)
        return int(mask * self.space.F + sum(f * r for f, r in zip(fvals, self.space.radix)))

    def _points(self, state: GameState, p: int) -> float:
        return float(sum(state.sheets[p].values()) + sum(state.awards[p].values()))

    def opponents(self, state: GameState) -> list[tuple[float, float]]:
        """(mean, variance) of each other player's final score, from the sheet they have now."""
        out = []
        for q in range(len(state.players)):
            if q != state.player:
                i = self._state_index(state.sheets[q])
                out.append((self._points(state, q) + float(self.mean[i]), float(self.var[i])))
        return out

    def write_table(self, state: GameState, roll_number: int | None = None):
        """(open boxes, chance to win after writing each roll into each box); -inf where a box may not take it."""
        boxes, points = table_for(self.space, self._zero, state, roll_number)
        _, mean = table_for(self.space, self.mean, state, roll_number)
        rivals = self.opponents(state)
        if not rivals:
            return table_for(self.space, self.table.values, state, roll_number)
        _, var = table_for(self.space, self.var, state, roll_number)
        allowed = np.isfinite(points)
        with np.errstate(invalid="ignore"):  # -inf - -inf where a box may not take a roll: masked next
            mine = np.where(allowed, self._points(state, state.player) + mean, 0.0)
            my_var = np.where(allowed, var - points, 0.0)
        chance = np.ones_like(mine)
        for their_mean, their_var in rivals:
            chance = chance * beat_chance(mine - their_mean, my_var + their_var)
        return boxes, np.where(allowed, chance, -np.inf)

    def plan_key(self, state: GameState):
        """A plan depends on the player's sheet and points and on every opponent's."""
        from ..solver.writetable import encode
        mask, fvals = encode(self.space, state.sheets[state.player])
        return mask, tuple(fvals), self._points(state, state.player), tuple(self.opponents(state))

    def _plan(self, state: GameState):
        rivals = tuple(tuple(sorted(s.items())) for q, s in enumerate(state.sheets) if q != state.player)
        if rivals != self._okey:  # another position of the others: the same own sheet plans anew
            self._okey, self._quick = rivals, None
        return super()._plan(state)

    def roll_dependent(self, state: GameState) -> bool:
        return self.space.roll_dependent
