"""Every model as a single-player Gymnasium environment (docs/research.md).

    env = rulebook.interpreter.gym.env(model="MODEL")

One player plays alone. Observations are `Encoding.observe` (float32); the legal actions are in
`info["action_mask"]` (int8, one per action) after `reset` and every `step`. The dice are rolled inside
`step`, with exact probabilities, from the generator `reset(seed=…)` seeds. The reward is 0 until
the game ends, then the final score as the model ranks it (negated where the lowest total wins).
An action outside the mask is not played: the state stays, the reward is `illegal_reward`
(default −1) and `info["illegal_action"]` is True.
"""
from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from ..engine.state import GameState
from .encoding import Encoding, model_of, score_returns
from .pettingzoo import roll_dice


def env(model, options=None, illegal_reward: float = -1.0, render_mode: str | None = None):
    """The environment of a model (a bundled name, a model file or a loaded Model) for one player."""
    return RulebookSolitaire(model, options, illegal_reward, render_mode)


class RulebookSolitaire(gymnasium.Env):
    metadata = {"render_modes": ["ansi"]}

    def __init__(self, model, options=None, illegal_reward: float = -1.0, render_mode: str | None = None):
        self.model = model_of(model, options)
        if self.model.min_players > 1:
            raise ValueError(f"{self.model.id} is not a game for one player")
        self.encoding = Encoding(self.model, 1)
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.observation_space = spaces.Box(low=-self.encoding.bound, high=self.encoding.bound, shape=(self.encoding.observation_size,),
                                            dtype=np.float32)
        self.action_space = spaces.Discrete(self.encoding.num_actions)
        self.state: GameState | None = None

    def _info(self, **extra) -> dict:
        return {"action_mask": self.encoding.mask(self.state), **extra}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.state = GameState(self.model, ["player_0"])
        roll_dice(self.state, self.np_random)
        return self.encoding.observe(self.state, 0), self._info()

    def step(self, action):
        state = self.state
        a = int(action)
        if state.is_terminal() or not 0 <= a < self.encoding.num_actions or not self.encoding.mask(state)[a]:
            return (self.encoding.observe(state, 0), self.illegal_reward, state.is_terminal(), False,
                    self._info(illegal_action=True))
        state.apply(self.encoding.action(state, a))
        roll_dice(state, self.np_random)
        done = state.is_terminal()
        reward = float(score_returns(state)[0]) if done else 0.0
        return self.encoding.observe(state, 0), reward, done, False, self._info()

    def render(self):
        return self.encoding.describe(self.state) if self.state is not None else ""
