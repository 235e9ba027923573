"""A played game reviewed: for every decision of a log, the best choice and what the choice made cost.

The cost is read off the solver's table for the model and its options: the value of a choice is the
expected final score after it, with the rest of the game played optimally (the optimal bot's values:
keeps planned exactly through the turn, a write worth its points and bonus plus the table's value of the
sheet it leaves, a stop worth the best write of the dice as they are). The best choice minus the choice made is the loss, never below 0; the optimal
player's own game loses nothing. A model the solver cannot read is refused (`NotSolvable`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..engine.actions import Action, Announce, Keep, Stop, Write
from ..engine.state import GameState
from ..model.frozen import Model
from .game import Seat, replay

# Values closer than this are equal: the table is float64 and a plan adds up to a few hundred terms.
TIE = 1e-9


@dataclass(frozen=True)
class Decision:
    """One decision of the game: where it was made, the choice made and the best one, their values."""

    line: int  # the log line of the move
    player: int
    round: int  # the round of the game, from 1
    kind: str  # 'keep', 'write' or 'announce'
    dice: tuple[int, ...]
    made: Action
    best: Action
    made_value: float  # expected final score after the choice made (or the chance to win: `unit`)
    best_value: float
    unit: str = "points"  # 'points': expected final points; 'chance': the chance to win (a `win` seat)

    @property
    def loss(self) -> float:
        return max(0.0, self.best_value - self.made_value)

    def to_json(self) -> dict:
        return {"line": self.line, "player": self.player, "round": self.round, "kind": self.kind,
                "dice": list(self.dice), "made": str(self.made), "best": str(self.best),
                "made_value": round(self.made_value, 6), "best_value": round(self.best_value, 6),
                "loss": round(self.loss, 6), "unit": self.unit}


@dataclass
class Review:
    """Every decision of a game with its cost, and what a reader wants to know of them."""

    model: Model
    seats: list[Seat]
    unit: str = "points"  # what a value is: expected final points
    decisions: list[Decision] = field(default_factory=list)
    finished: bool = False

    def of(self, player: int) -> list[Decision]:
        return [d for d in self.decisions if d.player == player]

    def unit_of(self, player: int) -> str:
        """What the player's decisions are rated in: the chance to win for a `win` seat at a table of
        several players, else expected points."""
        return "chance" if self.seats[player].kind == "win" and len(self.seats) > 1 else "points"

    def total_loss(self, player: int) -> float:
        return sum(d.loss for d in self.of(player))

    def mistakes(self, player: int, n: int = 3) -> list[Decision]:
        """The player's n costliest decisions (a loss above 0 only), the costliest first, earlier first on a tie."""
        costly = [d for d in self.of(player) if d.loss > TIE]
        return sorted(costly, key=lambda d: (-d.loss, d.line))[:n]

    def to_json(self) -> dict:
        return {"model": self.model.id, "unit": self.unit, "finished": self.finished,
                "players": [{"name": s.name, "kind": s.kind, "unit": self.unit_of(p), "decisions": len(self.of(p)),
                             "total_loss": round(self.total_loss(p), 6),
                             "mistakes": [d.line for d in self.mistakes(p)]} for p, s in enumerate(self.seats)],
                "decisions": [d.to_json() for d in self.decisions]}


class ExpectedJudge:
    """Values of a position's choices in expected final points, from the solver's table (the optimal bot)."""

    unit = "points"

    def __init__(self, model: Model, progress=None):
        from ..solver.space import Space
        Space(model)  # NotSolvable before any work
        from ..players.optimal import OptimalBot
        self.bot = OptimalBot(model, progress)

    def values(self, state: GameState) -> dict[Action, float]:
        """Each legal choice of the player to move → the expected final score after it."""
        return choice_values(self.bot, state)


class WinJudge:
    """Values of a position's choices as the chance to win, as the `win` seat sees them (players/win.py)."""

    unit = "chance"

    def __init__(self, model: Model, progress=None):
        from ..solver.space import Space
        Space(model)
        from ..players.win import WinBot
        self.bot = WinBot(model, progress)

    def values(self, state: GameState) -> dict[Action, float]:
        return choice_values(self.bot, state, with_sheet=False)


def choice_values(bot, state: GameState, with_sheet: bool = True) -> dict[Action, float]:
    """Each legal choice → its value as a planning bot sees it (`keep_values`, `write_values`,
    `announce_values`), plus what the player's sheet holds already. A choice the bot gives no value
    (a write its table refuses) is left out."""
    p = state.player
    base = sum(state.sheets[p].values()) + sum(state.awards[p].values()) if with_sheet else 0
    step = state.step()
    legal = state.legal_actions()
    out: dict[Action, float] = {}
    if step.kind == "write":
        values = bot.write_values(state)
        for a in legal:
            if isinstance(a, Write) and a.box in values:
                out[a] = base + values[a.box]
    elif step.kind == "announce":
        values = bot.announce_values(state)
        for a in legal:
            if a in values:
                out[a] = base + values[a]
    else:
        values = bot.keep_values(state)
        for a in legal:
            if isinstance(a, Keep) and a.dice in values:
                out[a] = base + values[a.dice]
        if any(isinstance(a, Stop) for a in legal):  # stopping writes these dice now: no more keeps
            now = bot.write_values(state)
            if now:
                out[Stop()] = base + max(now.values())
    return out


class _Reviewer:
    """Looks at each position before its move is made (the hook of `replay`), and keeps the decisions."""

    def __init__(self, judge_for: Callable[[Model], object] | None = None):
        self.judge_for = judge_for or ExpectedJudge
        self.review: Review | None = None

    def start(self, model: Model, seats: list[Seat]) -> None:
        self.judge = self.judge_for(model)
        self.review = Review(model, seats, self.judge.unit)
        self.judges = {"points": self.judge}

    def judge_of(self, player: int):
        """The expected-points judge, or for a `win` seat among several players the chance-to-win one."""
        unit = self.review.unit_of(player) if self.judge_for is ExpectedJudge else "points"
        if unit not in self.judges:
            self.judges[unit] = WinJudge(self.review.model)
        return self.judges[unit]

    def before(self, state: GameState, action: Action, line: int) -> None:
        if len(state.legal_actions()) < 2:
            return  # no choice, nothing to review
        judge = self.judge_of(state.player)
        values = judge.values(state)
        if action not in values:
            return
        best = max(values, key=lambda a: values[a])
        if values[action] >= values[best] - TIE:
            best = action  # a choice as good as the best is the best
        kind = "keep" if isinstance(action, (Keep, Stop)) else state.step().kind
        self.review.decisions.append(Decision(line, state.player, state.round()[0], kind, tuple(state.dice),
                                              action, best, values[action], values[best], judge.unit))


def review_log(path: Path, judge_for: Callable[[Model], object] | None = None) -> Review:
    """Review every decision of a `play --log` file (SaveFileError where the log does not fit its model;
    NotSolvable, before any move is read, if the solver cannot read the model)."""
    reviewer = _Reviewer(judge_for)
    result = replay(path, reviewer.before, reviewer.start)
    reviewer.review.finished = result.state.is_terminal()
    return reviewer.review


def review_moves(model: Model, seats: list[Seat], moves: list[Action],
                 judge_for: Callable[[Model], object] | None = None) -> Review:
    """Review a game played from the start with these moves (rolls included), as a server keeps them:
    a decision's `line` is its move's number, from 1. IllegalActionError if a move does not fit."""
    reviewer = _Reviewer(judge_for)
    reviewer.start(model, seats)
    state = GameState(model, [s.name for s in seats])
    for n, action in enumerate(moves, start=1):
        if state.current_player() >= 0:
            reviewer.before(state, action, n)
        state.apply(action)
    reviewer.review.finished = state.is_terminal()
    return reviewer.review


__all__ = ["Announce", "Decision", "ExpectedJudge", "Review", "WinJudge", "choice_values", "review_log", "review_moves"]
