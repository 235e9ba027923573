"""A loaded, validated model: frozen dataclasses with defaults filled and expressions compiled."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .dsl.compiler import Compiled
from .errors import Pos

LANGUAGES = ("en", "de", "nl")
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


@dataclass(frozen=True)
class Section:
    id: str
    name: Text
    boxes: tuple[str, ...]


@dataclass(frozen=True)
class Bonus:
    id: str
    name: Text
    section: str | None
    when: str  # 'end' or 'write'
    points: Compiled
    rule: Text
    progress: tuple[Compiled, Compiled] | None = None


@dataclass(frozen=True)
class Step:
    """A node of the phase tree. Containers (repeat, each_player) have `steps`."""

    id: str
    kind: str  # repeat each_player roll keep write
    name: Text
    steps: tuple["Step", ...] = ()
    times: int | None = None
    dice: str | None = None  # roll: 'all' or 'unkept'
    can_stop: bool = False
    allowed: Compiled | None = None
    rule: Text | None = None
    pos: Pos | None = None

    def walk(self):
        """This step and every step below it, depth first."""
        yield self
        for s in self.steps:
            yield from s.walk()


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

    def step(self, step_id: str) -> Step:
        return next(s for s in self.flow.walk() if s.id == step_id)
