"""What a page states about a game, found from the model's structure and the engine's scores: how
many rounds and rolls a turn has, the roll most examples share, whether a roll that fits nowhere is
written for 0, and an estimate of the playing time. (The example games use it too.)"""
from __future__ import annotations

from collections import Counter

from ...interpreter.model.frozen import Model, Step
from ...interpreter.model.scoring import Scorer

def rounds_of(model: Model) -> int:
    """How many rounds a game has: the repeats around the turn step, multiplied."""
    def walk(step: Step, times: int) -> int | None:
        if step.kind == "each_player":
            return times
        for child in step.steps:
            found = walk(child, times * (step.times or 1) if step.kind == "repeat" else times)
            if found is not None:
                return found
        return None
    return walk(model.flow, 1) or 1


def rolls_per_turn(model: Model) -> int:
    """The most rolls one turn can have: roll steps inside the turn, times their repeats."""
    def count(step: Step) -> int:
        if step.kind == "roll":
            return 1
        inner = sum(count(c) for c in step.steps)
        return inner * (step.times or 1) if step.kind == "repeat" else inner
    turn = next(s for s in model.flow.walk() if s.kind == "each_player")
    return count(turn)


def showcase_roll(model: Model) -> tuple[int, ...] | None:
    """The example roll most boxes share (the first on a tie): shown in every box on the page."""
    examples = [b.example for b in model.boxes.values() if b.example]
    if not examples:
        return None
    counts = Counter(examples)
    return max(examples, key=lambda e: counts[e])  # max keeps the first of equals


def zero_writes(model: Model, scorer: Scorer | None = None) -> bool:
    """Whether dice that do not fit a box may still be written into it (for 0), with an empty sheet."""
    scorer = scorer or Scorer(model)
    for box in model.boxes.values():
        if box.example and any(c.points == 0 for c in scorer.choices(box.example, {})):
            return True
    return False


SECONDS_PER_ROLL = 10  # the playing-time estimate: a roll, a look, a choice
SIMULATED_GAMES = 1  # greedy games played (seed 0) to count the rolls a game really has (a five-column sheet: 4 s a game;
# the workshop checks and draws a copy in 8 s of CPU)


_ROLLS: dict[str, float] = {}  # model hash → rolls per player


def _rolls_per_player(model: Model) -> float:
    """The rolls one player makes in a whole game, on average over a few seeded greedy games: what
    counters, while conditions, set-aside dice and busts really allow (not the most a turn could have)."""
    from ...interpreter.engine.actions import Roll
    from ...interpreter.play.game import Game, Seat
    if model.hash in _ROLLS:
        return _ROLLS[model.hash]
    players = max(model.min_players, min(2, model.max_players))
    rolls = 0
    for seed in range(SIMULATED_GAMES):
        game = Game(model, [Seat(f"P{i + 1}", "greedy") for i in range(players)], seed)
        rolls += sum(isinstance(event.action, Roll) for event in game.run_bots())
    _ROLLS[model.hash] = rolls / SIMULATED_GAMES / players
    return _ROLLS[model.hash]


def playing_time(model: Model, players: int) -> int:
    """Minutes a game takes (rounded to 5): the rolls a player makes in simulated games, times the
    players, times SECONDS_PER_ROLL."""
    seconds = _rolls_per_player(model) * players * SECONDS_PER_ROLL
    return max(5, round(seconds / 60 / 5) * 5)
