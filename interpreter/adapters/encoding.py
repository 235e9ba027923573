"""Actions as integers and states as tensors, for every model: the one encoding the OpenSpiel,
PettingZoo and Gymnasium adapters share (docs/research.md).

Actions (a fixed number, `Encoding.num_actions`):
- `0 … K-1`: keep the dice `keeps[i]`, a multiset (sorted tuple) of faces; every multiset of
  0 … n_dice faces, ordered by size, then lexicographically (`keeps[0]` is keeping none). A keep is a
  multiset, not a set of positions: the engine's dice are sorted, and two equal dice are the same keep.
- `K`: stop rolling.
- `K+1 … K+T`: write into target `targets[j]` (the model's write targets, sheet order).
- then, only for a model with announcements: announce none, and announce `targets[j]`.
- last, only for a model with a bank step: roll on (`roll_on`; at a bank step `K` banks).
Chance outcomes are numbered by `rolls`: a roll showing the faces `rolls[i]` is outcome `i`, with
its exact probability; `max_chance_outcomes = len(rolls)`. With one kind of dice, `rolls` is the keep
numbering (a multiset of the dice thrown: `rolls[i] == keeps[i]`). With dice that differ (groups),
every group is rolled at once, and `rolls` lists every roll as the engine writes it, group after group
(each group's faces sorted), in the order of the product of the groups' multisets.

Observation (float32, `Encoding.observation_size`, the same for every player of the model):
the observing player (one-hot, P), the player to move (one-hot, P; at a roll the player whose
turn it is, zeros when the game is over), the step due (one-hot: roll, keep, write, announce,
over), the roll number this turn, the rolls left this turn, the dice (count of each face, F; with
dice that differ, the count of each face per group, the sum of the groups' faces), the dice kept for the roll due (F), the dice set aside for good (F), the announced target (one-hot, T),
then per player in seat order: each cell filled (0/1, C), each cell's points (C) and each
counter's value (N). Every player sees everything: the games are of perfect information.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations_with_replacement

import numpy as np

from ..engine.actions import Action, Announce, Keep, Roll, RollOn, Stop, Write
from ..model.frozen import Model
from ..model.dice import group_index, group_rolls, group_slices, multisets
from ..model.scoring import Scorer
from ..engine.state import CHANCE, TERMINAL, GameState, tables

STEP_KINDS = ("roll", "keep", "write", "announce", "bank", "over")
UNBOUNDED_PASSES = 1000  # passes counted for a repeat with no `times` (max_length)


def max_length(model: Model, players: int) -> int:
    """The most moves (chance and decisions) a game can take: every leaf of the phase tree with its
    repeats and turns counted out (a `while:` repeat at its most passes; a game may end sooner).
    A repeat with no bound (a game of no fixed length, which ends with probability 1) counts as
    `UNBOUNDED_PASSES` passes: OpenSpiel needs a number, and longer games are vanishingly rare."""
    def count(step) -> int:
        if step.kind == "repeat":
            return (step.times or UNBOUNDED_PASSES) * sum(count(s) for s in step.steps)
        if step.kind == "each_player":
            return players * sum(count(s) for s in step.steps)
        return 1
    return min(count(model.flow), 2 ** 31 - 1)  # OpenSpiel keeps it in a C int


def parse_options(text) -> dict[str, str]:
    """'a=1,b=x' or 'a:1;b:x' (the form an OpenSpiel game string can carry), or a mapping →
    {'a': '1', 'b': 'x'}; empty: the model's defaults."""
    if isinstance(text, dict):
        return {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in text.items()}
    out = {}
    for pair in filter(None, (p.strip() for p in str(text or "").replace(";", ",").split(","))):
        name, sep, value = pair.partition("=") if "=" in pair else pair.partition(":")
        if not sep:
            raise ValueError(f"options need NAME=VALUE[,NAME=VALUE…] or NAME:VALUE[;NAME:VALUE…], not {text!r}")
        out[name.strip()] = value.strip()
    return out


def model_of(model, options=None) -> Model:
    """A loaded model: a Model as it is, or a bundled name or model file with options."""
    if isinstance(model, Model):
        if options:
            raise ValueError("options go with a model's name or file, not with a loaded model")
        return model
    from ..model.loader import load_model
    return load_model(str(model), parse_options(options))


def score_bound(model: Model) -> float:
    """A bound on the size of a final score that no game reaches (OpenSpiel wants utility bounds;
    the engine has no exact one): every cell at the most points any roll scores on an empty sheet,
    with every multiplier, twice over, plus room for bonuses."""
    scorer = Scorer.for_model(model)
    rolls = multisets(model.n_dice, model.faces)
    most = 0
    for target in model.targets.values():
        try:
            best = max(abs(scorer.points(target.box, d, {})) for d in rolls)
        except Exception:  # a score that reads the sheet in a way an empty one cannot answer
            best = model.n_dice * model.faces * 10
        mult = max((abs(c.multiplier) for c in model.columns), default=1) or 1
        most += best * len(target.cells) * mult
    if model.ranking is not None and "counter" in model.ranking.score.deps and any(c.most is None for c in model.counters):
        return 1e9  # a score kept by a counter with no most (a push-your-luck game's banked points): no game reaches it
    return float(4 * most + 1000)


def mover(state: GameState) -> int:
    """The player to move: the one who decides now (`current_player`, which may be another than the
    active player at a step several take), or at a roll the active player; -1 when the game is over."""
    cp = state.current_player()
    if cp == TERMINAL:
        return -1
    return state.player if cp == CHANCE else cp


def rank_returns(engine: GameState) -> list[float]:
    """Per player (players ranked below − players ranked above) / (players − 1), from the engine's
    ranking (`winner.ahead_if`, the final score and the tie-breaks); [0.0] for one player."""
    rank = {name: r for r, name, _ in engine.ranking()}
    ranks = [rank[name] for name in engine.players]
    n = len(ranks)
    if n == 1:
        return [0.0]
    return [(sum(r > me for r in ranks) - sum(r < me for r in ranks)) / (n - 1) for me in ranks]


def score_returns(engine: GameState) -> list[float]:
    """The engine's returns (each final score as the model ranks it), negated where the lowest
    total wins: more is always better."""
    sign = -1.0 if engine.model.winner == "lowest_total" else 1.0
    return [sign * r for r in engine.returns()]


def returns_kind(kind: str, players: int) -> str:
    """'rank' or 'score'; empty: rank for two or more players, score for one."""
    kind = kind or ("rank" if players > 1 else "score")
    if kind not in ("rank", "score"):
        raise ValueError(f"returns is 'rank' or 'score', not {kind!r}")
    return kind


def final_returns(engine: GameState, kind: str) -> list[float]:
    return rank_returns(engine) if kind == "rank" else score_returns(engine)


@dataclass(frozen=True)
class Encoding:
    """The action numbering and the observation layout of one model for a number of players."""

    model: Model
    players: int

    def __post_init__(self):
        m = self.model
        keeps = tuple(k for size in range(m.n_dice + 1) for k in combinations_with_replacement(range(1, m.faces + 1), size))
        targets = tuple(m.targets)
        announces = tables(m).announces
        put = object.__setattr__
        put(self, "keeps", keeps)
        put(self, "keep_index", {k: i for i, k in enumerate(keeps)})
        rolls = group_rolls(m.groups) if m.grouped else keeps
        put(self, "rolls", rolls)
        put(self, "roll_index", group_index(m.groups) if m.grouped else self.keep_index)
        put(self, "dice_size", sum(f for _, f in m.groups) if m.grouped else m.faces)
        put(self, "targets", targets)
        put(self, "target_index", {t: j for j, t in enumerate(targets)})
        put(self, "stop", len(keeps))
        put(self, "write_base", len(keeps) + 1)
        put(self, "announce_base", len(keeps) + 1 + len(targets) if announces else None)
        put(self, "num_actions", len(keeps) + 1 + len(targets) + (len(targets) + 1 if announces else 0))
        banks = any(s.kind == "bank" for s in m.flow.walk())  # a bank step: Stop banks, one more id rolls on
        put(self, "roll_on", self.num_actions if banks else None)
        put(self, "num_actions", self.num_actions + (1 if banks else 0))
        put(self, "cells", tuple(m.cells))
        put(self, "counters", tuple(c.id for c in m.counters if c.per != "game"))
        put(self, "game_counters", tuple(c.id for c in m.counters if c.per == "game"))
        P, F, T, C = self.players, m.faces, len(targets), len(self.cells)
        head = 2 * P + len(STEP_KINDS) + 2 + self.dice_size + 2 * F + T + len(self.game_counters)
        put(self, "observation_size", head + P * (2 * C + len(self.counters)))
        # the largest size of an observation's entry (points, counters, roll numbers): for spaces' bounds
        most = [abs(v) for c in m.counters for v in (c.least, c.most, c.start) if isinstance(v, (int, float))]
        put(self, "bound", max([score_bound(m), float(max_length(m, P))] + most))

    # actions ------------------------------------------------------------------------------------
    def action_id(self, action: Action) -> int:
        """The integer of an engine action (a chance outcome: its roll's multiset number)."""
        kind = type(action)
        if kind is Keep:
            return self.keep_index[tuple(action.dice)]
        if kind is Roll:
            return self.roll_index[tuple(action.faces)]
        if kind is Stop:
            return self.stop
        if kind is Write:
            return self.write_base + self.target_index[action.box]
        if kind is RollOn and self.roll_on is not None:
            return self.roll_on
        if kind is Announce and self.announce_base is not None:
            return self.announce_base + (0 if action.box is None else 1 + self.target_index[action.box])
        raise ValueError(f"no number for the action {action}")

    def action(self, state: GameState, action_id: int) -> Action:
        """The engine action an integer stands for at this state (a roll at a chance node)."""
        a = int(action_id)
        if state.is_chance_node():
            return Roll(self.rolls[a])
        if 0 <= a < self.stop:
            return Keep(self.keeps[a])
        if a == self.stop:
            return Stop()
        if self.write_base <= a < self.write_base + len(self.targets):
            return Write(self.targets[a - self.write_base])
        if self.roll_on is not None and a == self.roll_on:
            return RollOn()
        if self.announce_base is not None and self.announce_base <= a < self.num_actions:
            j = a - self.announce_base
            return Announce(None if j == 0 else self.targets[j - 1])
        raise ValueError(f"{action_id} is no action of this game (0 … {self.num_actions - 1})")

    def legal_ids(self, state: GameState) -> list[int]:
        """The legal decisions as sorted integers ([] at a chance node or the end)."""
        if state.current_player() < 0:
            return []
        return sorted(self.action_id(a) for a in state.legal_actions())

    def mask(self, state: GameState) -> np.ndarray:
        """The legal decisions as a 0/1 vector of `num_actions` (int8)."""
        out = np.zeros(self.num_actions, np.int8)
        out[self.legal_ids(state)] = 1
        return out

    def chance_ids(self, state: GameState) -> list[tuple[int, float]]:
        """The pending roll's outcomes as (integer, exact probability)."""
        index = self.roll_index
        return [(index[r.faces], p) for r, p in state.chance_outcomes()]

    # observations -------------------------------------------------------------------------------
    def observe(self, state: GameState, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of `player` (see the module's description), written into `out` if given."""
        m = self.model
        P, F, T, C = self.players, m.faces, len(self.targets), len(self.cells)
        if out is None:
            out = np.zeros(self.observation_size, np.float32)
        else:
            out.fill(0)
        out[player] = 1
        who = mover(state)
        if who >= 0:
            out[P + who] = 1
        i = 2 * P
        step = state.step()
        kind = "over" if step is None else step.kind
        out[i + STEP_KINDS.index(kind)] = 1
        i += len(STEP_KINDS)
        out[i] = state.roll_number
        out[i + 1] = state.rolls_left() if step is not None else 0
        i += 2
        i = self._observe_dice(state.dice, out, i)
        for dice in (state.kept, state.held):
            for d in dice:
                out[i + d - 1] += 1
            i += F
        if state.announced is not None:
            out[i + self.target_index[state.announced]] = 1
        i += T
        for c in self.game_counters:
            out[i] = state.game_counters[c]
            i += 1
        for p in range(P):
            sheet = state.sheets[p]
            for j, cell in enumerate(self.cells):
                if cell in sheet:
                    out[i + j] = 1
                    out[i + C + j] = sheet[cell]
            i += 2 * C
            for c in self.counters:
                out[i] = state.counter_values[p][c]
                i += 1
        return out

    def _observe_dice(self, dice: tuple[int, ...], out: np.ndarray, i: int) -> int:
        """The dice on the table as counts of each face (per group, for dice that differ); the next index."""
        m = self.model
        if not m.grouped or len(dice) != m.n_dice:
            for d in dice:
                out[i + d - 1] += 1
            return i + self.dice_size
        for (_, faces), part in zip(m.groups, group_slices(m.groups)):
            for d in dice[part]:
                out[i + d - 1] += 1
            i += faces
        return i

    def describe(self, state: GameState) -> str:
        """The position in words (English, for logs and `str(state)`)."""
        if state.is_terminal():
            return "game over; " + ", ".join(f"{name}: {score}" for name, score in zip(state.players, state.returns()))
        parts = [f"{state.players[mover(state)]} to {'roll' if state.current_player() == CHANCE else state.step().kind}",
                 f"roll {state.roll_number}", "dice " + (" ".join(map(str, state.dice)) or "-")]
        if state.kept:
            parts.append("kept " + " ".join(map(str, state.kept)))
        if state.announced:
            parts.append(f"announced {state.announced}")
        for p, sheet in enumerate(state.sheets):
            parts.append(f"{state.players[p]}: " + (" ".join(f"{c}={v}" for c, v in sheet.items()) or "-"))
        return "; ".join(parts)
