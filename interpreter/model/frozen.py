"""A loaded, validated model: frozen dataclasses with defaults filled and expressions compiled."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .dsl.compiler import Compiled
from .errors import Pos

from .languages import LANGUAGES  # noqa: F401  (here for the modules that import it from the model)
Text = dict  # language -> string


@dataclass(frozen=True)
class Option:
    """A rule variant with its allowed values and the value in force."""

    id: str
    name: Text
    description: Text | None
    default: Any
    choices: dict[str, Text] | None  # word options
    min: int | None = None
    max: int | None = None

    @property
    def type(self) -> str:
        if isinstance(self.default, bool):
            return "bool"
        return "number" if isinstance(self.default, int) else "word"


@dataclass(frozen=True)
class Box:
    id: str
    section: str
    name: Text
    rule: Text
    score: Compiled
    example: tuple[int, ...] | None
    pos: Pos | None = None
    uses: int = 1  # how many entries the box takes (each write fills one)


@dataclass(frozen=True)
class Target:
    """Where a write can go: a box (in one column, if the sheet has columns) and its cells.

    A cell holds one entry. Its id is the box id, followed by `@column` on a sheet with columns and
    by `#k` (k = 1 … uses) for a box used more than once: `fours#3`, `ones@down`. The cells of a
    target are filled in order, so how many are filled says which.
    """

    id: str  # the box id, or box@column
    box: str
    column: str | None
    cells: tuple[str, ...]


@dataclass(frozen=True)
class Ranking:
    """How players are ranked at the end: a final score (an expression over the sheet) and tie-breaks."""

    name: Text  # what the final score is called ("points")
    score: Compiled
    tie_breaks: tuple[tuple[Text, Compiled], ...] = ()
    rule: Text | None = None  # how the final score is made up, in words (the rule pages)


@dataclass(frozen=True)
class Column:
    """A column of a sheet with columns: every box appears in it once, scored × `multiplier`.

    `order` says which of its boxes may be written: `free` (any open one), `down` (the first open one,
    top to bottom), `up` (the last open one, bottom to top) or `announced` (the box the player
    announced this turn).
    """

    id: str
    name: Text
    multiplier: int = 1
    order: str = "free"
    rule: Text | None = None


@dataclass(frozen=True)
class DiceGroup:
    """Dice that differ: a group of dice with its own count, faces, name and colour (Qwixx's two
    white and four coloured dice). A model with one plain `dice: {count, faces}` has one group,
    `dice`. Expressions read a group's dice, ascending, as `dice.ID`; `dice` is every die, group
    after group in this order."""

    id: str
    name: Text | None
    count: int
    faces: int
    colour: str | None = None  # a CSS colour name or #rrggbb, for the readers that draw dice
    pos: Pos | None = None


@dataclass(frozen=True)
class Section:
    id: str
    name: Text
    boxes: tuple[str, ...]
    total: Text | None = None  # the name of its total on the sheet ("Upper total"); None: "Total"
    counts: bool = True  # False: its boxes are read by bonuses but do not add to the grand total
    order: str = "free"  # free, or row: crossed left to right with skips (a cross closes every box to its left)


@dataclass(frozen=True)
class Bonus:
    id: str
    name: Text
    section: str | None
    when: str  # 'end' or 'write'
    points: Compiled
    rule: Text
    progress: tuple[Compiled, Compiled] | None = None
    per_column: bool = False  # an end bonus scored in each column (with its multiplier)


@dataclass(frozen=True)
class Counter:
    """A number that outlives a turn: one per player (`per: player`) or one for the whole game.

    It starts at `start`; a change past `least`/`most` stops at the bound. Expressions read it as
    `counter.ID` (the player's own for a per-player counter); steps change it (`Effect`).
    """

    id: str
    name: Text
    per: str = "player"  # player | game
    start: int = 0
    least: int | None = None  # min
    most: int | None = None  # max
    pos: Pos | None = None

    def bounded(self, value: int) -> int:
        """The value kept within the counter's bounds."""
        if self.least is not None and value < self.least:
            return self.least
        if self.most is not None and value > self.most:
            return self.most
        return value


@dataclass(frozen=True)
class Effect:
    """What a write does besides filling a box: change a counter of the writer, of every other
    player or of all players (`players`: me | others | all; a game counter has one value), by
    `add` or to `set` a value, if `when` holds. Expressions see the dice, the box written (`target`),
    the roll number, the writer's sheet after the write and the counters of the player changed."""

    counter: str
    op: str  # add | set
    amount: Compiled
    players: str = "me"  # me | others | all
    when: Compiled | None = None
    pos: Pos | None = None
    rule: Text | None = None  # the effect in words


@dataclass(frozen=True)
class Step:
    """A node of the phase tree. Containers (repeat, each_player) have `steps`."""

    id: str
    kind: str  # repeat each_player roll keep announce write bank
    name: Text
    steps: tuple["Step", ...] = ()
    times: int | None = None  # repeat: None runs until it is left (a stop, bank, bust or the end of the game)
    dice: str | None = None  # roll: 'all' or 'unkept'
    can_stop: bool = False
    allowed: Compiled | None = None  # write: may `target` take the dice; keep: may `kept` be kept
    rule: Text | None = None  # write, keep: the restriction in words
    pos: Pos | None = None
    otherwise: str | None = None  # write: what happens when no box may take the dice ('scratch')
    times_pos: Pos | None = None  # repeat: where `times` is written
    locked: bool = False  # keep: the dice kept here stay aside for the rest of the turn
    condition: Compiled | None = None  # repeat: `while:`, another pass only while it holds
    optional: bool = False  # announce: the player may also announce nothing
    effects: tuple[Effect, ...] = ()  # write: counters changed after the write
    by: str = "active"  # write: who takes it on the roll: active | others | all (see engine.acting)
    may_pass: Compiled | None = None  # write with `optional: EXPR`: passing is allowed only while it holds
    bust: Compiled | None = None  # roll: the turn ends at once, its turn counters lost, when this holds after the roll
    hot_dice: bool = False  # roll: when every die is set aside, all dice are rolled again

    def walk(self):
        """This step and every step below it, depth first."""
        yield self
        for s in self.steps:
            yield from s.walk()

    def ancestors(self, target: "Step") -> list["Step"]:
        """The steps from this one down to `target`'s parent, outermost first ([] if not below)."""
        def search(node: Step, path: list[Step]) -> list[Step] | None:
            if node is target:
                return path
            for child in node.steps:
                found = search(child, path + [node])
                if found is not None:
                    return found
            return None
        return search(self, []) or []


@dataclass(frozen=True)
class Model:
    """A dice game ready to run: everything validated and compiled for one choice of options."""

    id: str
    name: Text
    tagline: Text | None
    objective: Text | None
    min_players: int
    max_players: int
    n_dice: int
    faces: int
    winner: str
    options: dict[str, Option]
    option_values: dict[str, Any]
    sections: tuple[Section, ...]
    boxes: dict[str, Box]
    bonuses: tuple[Bonus, ...]
    flow: Step
    end_if: Compiled | None
    path: str
    source: str = field(repr=False)
    hash: str = ""
    definitions: dict[str, Compiled] = field(default_factory=dict, repr=False)
    targets: dict[str, Target] = field(default_factory=dict)  # write target id -> Target, sheet order
    cells: tuple[str, ...] = ()  # every cell of the sheet, in sheet order
    ranking: Ranking | None = None  # None: ranked by the grand total (`winner` says which way)
    columns: tuple[Column, ...] = ()  # empty: a sheet without columns
    also_known_as: dict[str, tuple[str, ...]] = field(default_factory=dict)  # lang → other names of the game
    counters: tuple[Counter, ...] = ()  # numbers that outlive a turn (only those the model reads or changes)
    dice_groups: tuple[DiceGroup, ...] = ()  # empty: one group of n_dice dice with `faces` faces
    ahead_if: Compiled | None = None  # `winner.ahead_if`: players for whom it holds at the end rank first
    end: str = "now"  # once end_if holds: now, round (the round is finished) or last_turn (the others play one more turn)

    @property
    def groups(self) -> tuple[tuple[int, int], ...]:
        """(count, faces) of each group of dice, in order: what `dice.group_rolls` and friends take."""
        if not self.dice_groups:
            return ((self.n_dice, self.faces),)
        return tuple((g.count, g.faces) for g in self.dice_groups)

    @property
    def grouped(self) -> bool:
        """The dice differ: more than one group."""
        return len(self.dice_groups) > 1

    @property
    def simple_sheet(self) -> bool:
        """Every box takes one entry and there are no columns: cells, targets and boxes are the same."""
        return not self.columns and len(self.cells) == len(self.boxes) and all(s.order == "free" for s in self.sections)

    def step(self, step_id: str) -> Step:
        return next(s for s in self.flow.walk() if s.id == step_id)
