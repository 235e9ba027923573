"""Every model as a PettingZoo AEC environment with action masks (docs/research.md).

    env = rulebook.interpreter.pettingzoo.env(model="MODEL", players=2)

Agents are "player_0" … "player_{N-1}", seated in that order. Each observation is a dict:
"observation" (`Encoding.observe`, float32) and "action_mask" (int8, 1 for the legal actions of
the agent to move, all 0 for the others). Actions are the integers of `Encoding` (keeps, stop,
writes, announcements). The dice are rolled inside `step` with exact probabilities, from the
generator `reset(seed=…)` seeds, so the agent to move is always at a decision. The same agent may
move several times in a row (a turn is many decisions). Rewards come at the end: `returns="rank"`
(default for two or more players: (ranked below − ranked above) / (players − 1)) or `"score"`
(the final score as the model ranks it, negated where the lowest total wins; the default for one player).
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..engine.state import GameState
from .encoding import Encoding, final_returns, model_of, mover, returns_kind


def env(model, players: int | None = None, options=None, returns: str = "", render_mode: str | None = None):
    """The AEC environment of a model (a bundled name, a model file or a loaded Model)."""
    return RulebookEnv(model, players, options, returns, render_mode)


def roll_dice(state: GameState, rng: np.random.Generator) -> None:
    """Roll until a player must decide (or the game is over): each roll drawn with its probability."""
    while state.is_chance_node():
        state.apply(state.sample_chance(rng))


class RulebookEnv(AECEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "rulebook_v0", "is_parallelizable": False}

    def __init__(self, model, players: int | None = None, options=None, returns: str = "",
                 render_mode: str | None = None):
        super().__init__()
        self.model = model_of(model, options)
        n = players or self.model.min_players
        if not self.model.min_players <= n <= self.model.max_players:
            raise ValueError(f"{self.model.id} is for {self.model.min_players} to {self.model.max_players} players, not {n}")
        self.returns_kind = returns_kind(returns, n)
        self.encoding = Encoding(self.model, n)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.render_mode = render_mode
        size = self.encoding.observation_size
        space = spaces.Dict({
            "observation": spaces.Box(low=-self.encoding.bound, high=self.encoding.bound, shape=(size,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(self.encoding.num_actions,), dtype=np.int8)})
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.encoding.num_actions) for a in self.possible_agents}
        self.state: GameState | None = None
        self.np_random = np.random.default_rng()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.state = GameState(self.model, list(self.agents))
        roll_dice(self.state, self.np_random)
        self.agent_selection = self.agents[mover(self.state)]

    def observe(self, agent):
        i = self.possible_agents.index(agent)
        mask = np.zeros(self.encoding.num_actions, np.int8)
        if mover(self.state) == i:
            mask = self.encoding.mask(self.state)
        return {"observation": self.encoding.observe(self.state, i), "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        if action is None or not self.encoding.mask(self.state)[int(action)]:
            raise ValueError(f"{action} is not a legal action now: {self.encoding.legal_ids(self.state)}")
        self.state.apply(self.encoding.action(self.state, int(action)))
        roll_dice(self.state, self.np_random)
        if self.state.is_terminal():
            for a, r in zip(self.agents, final_returns(self.state, self.returns_kind)):
                self.rewards[a] = float(r)
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.agents[mover(self.state)]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        text = self.encoding.describe(self.state) if self.state is not None else ""
        if self.render_mode == "human":
            print(text)
        return text

    def close(self):
        pass
