"""Every model as an OpenSpiel game: `python_rulebook` (docs/research.md).

Importing this module registers the game with pyspiel; then

    pyspiel.load_game("python_rulebook", {"model": "MODEL", "players": 2})

gives a game whose states follow the engine (`GameState`) move for move. Parameters: `model` (a
bundled model's name or a model file), `players` (default: the model's fewest), `options` (the
model's options as "name=value,name=value", or "name:value;name:value" inside a game string), `returns` ("rank" or "score"; default: "rank" for two
or more players, "score" for one).

Returns follow the model's ranking. "rank": each player gets (players ranked below them − players
ranked above them) / (players − 1), so +1 for a clear win and −1 for a clear loss of a two-player
game, 0 for a tie (zero-sum, in [−1, 1]; the engine's `ranking()`: `winner.ahead_if`, the final
score and its tie-breaks). "score": the engine's `returns()`, each player's final score as the model
ranks it (the grand total, or the model's own `winner: score`); negated for a model whose lowest
total wins, so more is always better. Actions and observations: `encoding.Encoding`.
"""
from __future__ import annotations

import numpy as np
import pyspiel

from ..model.loader import bundled_models
from ..engine.state import CHANCE, TERMINAL, GameState
from .encoding import Encoding, final_returns, max_length, model_of, returns_kind, score_bound

NAME = "python_rulebook"
DEFAULTS = {"model": next(iter(bundled_models())), "players": 0, "options": "", "returns": ""}  # the first bundled model
MOST_PLAYERS = 8  # the game type's bound; a model may allow fewer

GAME_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="rulebook dice game",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MOST_PLAYERS,
    min_num_players=1,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS)


class Rules:
    """What every state of one game shares: the model, the encoding, the players and the returns.
    Copied by reference (`copy.deepcopy` and pickling keep one per game)."""

    def __init__(self, key: tuple[str, str, int, str]):
        model_ref, options, players, returns = key
        model = model_of(model_ref, options)
        players = players or model.min_players
        if not model.min_players <= players <= min(model.max_players, MOST_PLAYERS):
            raise ValueError(f"{model.id} is for {model.min_players} to {model.max_players} players, not {players}")
        returns = returns_kind(returns, players)
        self.key, self.model, self.players, self.returns = key, model, players, returns
        self.encoding = Encoding(model, players)

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return rules, (self.key,)


_RULES: dict[tuple, Rules] = {}


def rules(key: tuple[str, str, int, str]) -> Rules:
    """The shared part of a game, made once per parameters in this process."""
    if key not in _RULES:
        _RULES[key] = Rules(key)
    return _RULES[key]


class Position:
    """The engine's state inside an OpenSpiel state: copied with `GameState.clone`, pickled as the
    engine's JSON (`GameState.to_json`), never as the engine's objects."""

    __slots__ = ("rules", "engine")

    def __init__(self, rules: Rules, engine: GameState):
        self.rules, self.engine = rules, engine

    def __deepcopy__(self, memo):
        return Position(self.rules, self.engine.clone())

    def __reduce__(self):
        return _position, (self.rules, self.engine.to_json())


def _position(shared: Rules, data: dict) -> Position:
    return Position(shared, GameState.from_json(shared.model, data))


class RulebookGame(pyspiel.Game):
    """A model as an OpenSpiel game (one per model, players, options and returns)."""

    def __init__(self, params=None):
        params = {**DEFAULTS, **(params or {})}
        shared = rules((str(params["model"]), str(params["options"]), int(params["players"]), str(params["returns"])))
        self.rules = shared
        players, model = shared.players, shared.model
        if shared.returns == "rank":
            low, high = (-1.0, 1.0) if players > 1 else (0.0, 0.0)
        else:
            bound = score_bound(model)
            low, high = -bound, bound
        game_type = GAME_TYPE
        if shared.returns == "rank":
            fields = {k: getattr(GAME_TYPE, k) for k in (
                "short_name", "long_name", "dynamics", "chance_mode", "information", "reward_model",
                "max_num_players", "min_num_players", "provides_information_state_string",
                "provides_information_state_tensor", "provides_observation_string", "provides_observation_tensor")}
            game_type = pyspiel.GameType(**fields, utility=pyspiel.GameType.Utility.ZERO_SUM,
                                         parameter_specification=DEFAULTS)
        info = pyspiel.GameInfo(
            num_distinct_actions=shared.encoding.num_actions,
            max_chance_outcomes=len(shared.encoding.rolls),
            num_players=players,
            min_utility=low, max_utility=high, utility_sum=0.0 if shared.returns == "rank" else None,
            max_game_length=max_length(model, players))
        super().__init__(game_type, info, params)

    def new_initial_state(self):
        return RulebookState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return Observer(self.rules.encoding, iig_obs_type, params)


class RulebookState(pyspiel.State):
    """An OpenSpiel state around an engine `GameState` (`self.engine`)."""

    def __init__(self, game: RulebookGame):
        super().__init__(game)
        shared = game.rules
        self.position = Position(shared, GameState(shared.model, [f"p{i}" for i in range(shared.players)]))

    @property
    def engine(self) -> GameState:
        return self.position.engine

    def current_player(self):
        p = self.position.engine.current_player()
        if p == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        if p == CHANCE:
            return pyspiel.PlayerId.CHANCE
        return p

    def _legal_actions(self, player):
        return self.position.rules.encoding.legal_ids(self.position.engine)

    def chance_outcomes(self):
        return self.position.rules.encoding.chance_ids(self.position.engine)

    def _apply_action(self, action):
        engine = self.position.engine
        engine.apply(self.position.rules.encoding.action(engine, action))

    def _action_to_string(self, player, action):
        e = self.position.rules.encoding
        if player == pyspiel.PlayerId.CHANCE:
            return "roll " + (" ".join(map(str, e.rolls[action])) or "-")
        if e.roll_on is not None and action == e.roll_on:
            return "roll on"
        if action < e.stop:
            return "keep " + (" ".join(map(str, e.keeps[action])) or "none")
        if action == e.stop:
            return "stop"
        if action < e.write_base + len(e.targets):
            return "write " + e.targets[action - e.write_base]
        j = action - e.announce_base
        return "announce " + ("none" if j == 0 else e.targets[j - 1])

    def is_terminal(self):
        return self.position.engine.is_terminal()

    def returns(self):
        shared, engine = self.position.rules, self.position.engine
        if not engine.is_terminal():
            return [0.0] * shared.players
        return final_returns(engine, shared.returns)

    def __str__(self):
        return self.position.rules.encoding.describe(self.position.engine)


class Observer:
    """OpenSpiel's observer: the observation tensor and string (`Encoding.observe`); the information
    state is the same tensor (a perfect-information game's position is public and Markov), and its
    string the history of moves (perfect recall)."""

    def __init__(self, encoding: Encoding, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.encoding = encoding
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.tensor = np.zeros(encoding.observation_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        self.encoding.observe(state.engine, player, self.tensor)

    def string_from(self, state, player):
        if self.perfect_recall:
            return state.history_str()
        return self.encoding.describe(state.engine)


pyspiel.register_game(GAME_TYPE, RulebookGame)
