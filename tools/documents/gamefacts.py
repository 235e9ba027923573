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


def playing_time(model: Model, players: int) -> int:
    """Minutes a game takes, estimated from its rounds, players and rolls per turn (rounded to 5)."""
    seconds = rounds_of(model) * players * rolls_per_turn(model) * SECONDS_PER_ROLL
    return max(5, round(seconds / 60 / 5) * 5)
