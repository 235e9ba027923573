"""What a page states about a game, found from the model's structure and the engine's scores: how
many rounds and rolls a turn has, the roll most examples share, whether a roll that fits nowhere is
written for 0, and an estimate of the playing time. (The example games use it too.)"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ...interpreter.model.frozen import Model, Step
from ...interpreter.model.loader import counters_read
from ...interpreter.model.scoring import Scorer

def rounds_of(model: Model) -> int | None:
    """How many rounds a game has: the repeats around the turn step, multiplied (None: a repeat
    around the turns has no fixed number, a game of no fixed length)."""
    turn = _turn(model)
    around = [s for s in model.flow.ancestors(turn) if s.kind == "repeat"]
    if any(not s.times for s in around):
        return None
    rounds = 1
    for s in around:
        rounds *= s.times
    return rounds


@dataclass(frozen=True)
class TurnRolls:
    """How many rolls a turn has, as the engine counts them (`GameState.rolls_left`, which follows
    counters and `while:`): `most` in the first turn (None: no fixed number, a repeat without
    `times`), and the counters a `while:` reads, whose values may allow more in later turns."""

    most: int | None
    counters: tuple[str, ...] = ()


def _turn(model: Model) -> Step:
    return next(s for s in model.flow.walk() if s.kind == "each_player")


def turn_rolls(model: Model) -> TurnRolls:
    """The rolls of the first turn, counted by the engine on a fresh game (the first roll made)."""
    from ...interpreter.engine.state import GameState
    turn = _turn(model)
    if any(s.kind == "repeat" and not s.times for s in turn.walk()):
        return TurnRolls(None)
    read = {c for s in turn.walk() if s.kind == "repeat" and s.condition is not None
            for c in counters_read(s.condition.ast)}
    counters = tuple(c.id for c in model.counters if c.id in read)
    state = GameState(model, [f"P{i + 1}" for i in range(max(1, model.min_players))])
    made = 0
    if state.is_chance_node():
        state.apply(state.chance_outcomes()[0][0])
        made = 1
    return TurnRolls(max(1, made + state.rolls_left()), counters)


def rolls_per_turn(model: Model) -> int:
    """The rolls the first turn allows (the number of a turn's last roll in the worked examples); 1
    for a turn with no fixed number of rolls."""
    return turn_rolls(model).most or 1


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


def grand_total_parts(model: Model, lang: str, scorer: Scorer | None = None) -> list[str]:
    """What the grand total adds up, by name, as the scorer adds it (`Scorer.counted_sections`, then
    every bonus): the one account the page, the diagram and the sheets state."""
    scorer = scorer or Scorer(model)
    parts = []
    for section in model.sections:
        if section.id in scorer.counted_sections:
            parts.append(section.total[lang] if section.total else section.name[lang])
        parts += [b.name[lang] for b in model.bonuses if b.section == section.id]
    return parts + [b.name[lang] for b in model.bonuses if b.section is None]
