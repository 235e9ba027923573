"""The instructions of a compiled phase tree (`Leaf`, `Start`, `Turns`, `Loop`, `While`, `End`), the kinds of
leaf step, and `Frame`, a position shown as the containers from the root down (see program.py)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model.frozen import Step

CHANCE = -1
TERMINAL = -2
ROLL, KEEP, WRITE, ANNOUNCE, BANK = range(5)  # the kinds of leaf step
UNBOUNDED = 2 ** 62  # the passes of a repeat without `times`: it runs until it is left


# The instructions of a compiled phase tree (see `_Tables._compile_flow`). The engine dispatches on
# their class; their fields are read on every move, so they are slotted.
@dataclass(frozen=True, slots=True, eq=False)
class Leaf:
    """A roll, keep, write or announce step: where a state waits for an action."""

    step: Step
    kind: int  # ROLL, KEEP, WRITE or ANNOUNCE
    pc: int  # where it is in the program
    after: int  # the instruction after it
    stop: tuple[int, tuple[int, ...]]  # (where stopping here goes on, the counters stopping resets)
    all_dice: bool  # a roll of all dice (not only the unkept ones)
    can_stop: bool  # a keep that may stop rolling
    next_leaf: "Leaf | None"  # the roll or keep leaf right after it, if the next instruction is one
    roll_all: tuple | None  # for a roll of all dice: (valid faces, draw table)
    plans: dict | None  # a write's plans by dice (Scorer.plans_for), where they do not depend on the roll number
    ends_repeat: bool  # followed by the end of a repeat whose body begins with a roll or keep
    ruled: bool  # a keep whose dice are limited by a rule (`allowed:`) or stay aside (`locked`)
    luck: bool  # a roll with a bust, effects or hot dice, or a keep with effects (the slow path: `Luck`)
    # read on the hot paths of GameState (each saves a lookup or two per move)
    plain_keep: bool  # a keep without rule, effects or dice that differ: checked against `keeps` alone
    keep_slot: int  # which list of `keeps` a keep's legal actions are: 0 where it may stop, else 1
    shared: bool  # a write several players take, or one a player may pass (see acting.py)
    effects: bool  # the step has effects
    exit_write: "Leaf | None"  # a roll that ends a repeat followed by a write (not shared): that write
    # a plain roll (no luck; of all dice, or of the dice not kept of dice alike): its draw table (cumulative
    # weights, rolls, total) by the number of dice kept (a roll of all dice: the same table at every index)
    draws: list | None
    # a write (not shared) that ends a turn inside a repeat of rounds: (the pass counter of the each_player, that
    # of the repeat, the repeat's passes, the leaves a new pass of each lands on, the instruction after the
    # repeat, and the positions those leaves begin a turn at, see positions.py), so the next turn begins without a
    # walk through the program
    next_turn: tuple | None = None
    plain_write: bool = False  # a write one player takes, without effects, in a model without end_if
    loop: "Loop | None" = None  # with ends_repeat: the end of that repeat (the instruction after this one)
    plan_slot: int | None = None  # a write with plans: where the node of the dice keeps its static plan (`_Tables.keeps`)
    chance: bool = False  # a roll (the state waits for chance)
    plain_roll: bool = False  # a roll without luck (`GameState.apply`'s first path)


@dataclass(frozen=True, slots=True, eq=False)
class Start:
    """An each_player begins: the first player's turn."""

    leaf: Leaf | None  # the leaf right after it (saving a pass through `_run`), if there is one


@dataclass(frozen=True, slots=True, eq=False)
class Turns:
    """The end of an each_player: the next player's turn."""

    slot: int  # its pass counter
    body: int  # the first instruction of its body
    leaf: Leaf | None  # the leaf a new pass lands on, if it lands on one
    turn_start: bool  # a new pass begins a turn (via a Start)


@dataclass(frozen=True, slots=True, eq=False)
class Loop:
    """The end of a repeat: another pass, if one is left."""

    slot: int
    times: int
    body: int
    leaf: Leaf | None
    turn_start: bool


@dataclass(frozen=True, slots=True, eq=False)
class While:
    """The beginning of a repeat with a `while:` condition: its passes end when it is false."""

    condition: Any  # Compiled (reads the dice, the sheet, the roll number, the announcement)
    slot: int  # the repeat's pass counter (reset when it ends)
    exit: int  # the instruction after the repeat


@dataclass(frozen=True, slots=True, eq=False)
class End:
    """The end of the game."""


class Frame:
    """A container step being run: which child is next, and which pass through it this is."""

    __slots__ = ("step", "index", "iteration")

    def __init__(self, step: Step, index: int = 0, iteration: int = 0):
        self.step, self.index, self.iteration = step, index, iteration

    def __repr__(self) -> str:
        return f"Frame({self.step.id!r}, {self.index}, {self.iteration})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Frame) and (self.step.id, self.index, self.iteration) == (
            other.step.id, other.index, other.iteration)
