"""Actions as small values with a parse/format pair: `Keep((2, 2, 4))` ↔ "keep 2 2 4"."""
from __future__ import annotations

from dataclasses import dataclass, fields

from ..model.errors import IllegalActionError


def _fields_only(self) -> tuple:
    """Pickled and copied as its fields alone: the engine notes lookups on the actions its tables hand out
    (`_Tables.keeps`, `_Tables.chance`), and they stay with the tables."""
    return type(self), tuple(getattr(self, f.name) for f in fields(self))


@dataclass(frozen=True)
class Roll:
    """A chance outcome: the faces the rolled dice show (sorted)."""

    __reduce__ = _fields_only
    _i = -1  # a Roll of the engine's tables: its index among the outcomes (see `_Tables.chance`); not one: -1

    faces: tuple[int, ...]

    def __str__(self) -> str:
        return "roll " + " ".join(map(str, self.faces))


@dataclass(frozen=True)
class Keep:
    """Keep these dice (a sub-multiset of the current roll) and roll the others.

    With dice that differ, `groups` names each kept die's group (the same length as `dice`, group
    after group, each group's faces sorted): `Keep((3, 2), ("white", "red"))` ↔ "keep white:3 red:2".
    """

    __reduce__ = _fields_only
    _at = (None, None, None)  # a Keep a node of the engine's tables handed out: what it does (see `_Tables.keeps`)

    dice: tuple[int, ...]
    groups: tuple[str, ...] = ()

    def __str__(self) -> str:
        if not self.dice:
            return "keep none"
        if self.groups:
            return "keep " + " ".join(f"{g}:{d}" for g, d in zip(self.groups, self.dice))
        return "keep " + " ".join(map(str, self.dice))


@dataclass(frozen=True)
class Stop:
    """Stop rolling: go on with the dice as they are."""

    __reduce__ = _fields_only
    _at = (None, None, None)  # (as Keep's)

    def __str__(self) -> str:
        return "stop"


@dataclass(frozen=True)
class RollOn:
    """At a bank step: do not bank, roll on (banking is `Stop`)."""

    __reduce__ = _fields_only

    def __str__(self) -> str:
        return "roll on"


@dataclass(frozen=True)
class Write:
    """Write the dice into a box."""

    __reduce__ = _fields_only

    box: str

    def __str__(self) -> str:
        return f"write {self.box}"


@dataclass(frozen=True)
class Announce:
    """Announce the box (write target) this turn's write must go into; None: announce nothing."""

    __reduce__ = _fields_only

    box: str | None

    def __str__(self) -> str:
        return f"announce {self.box}" if self.box is not None else "announce none"


Action = Roll | Keep | Stop | RollOn | Write | Announce


def parse_action(text: str) -> Action:
    """Parse the canonical text form of an action (what `str(action)` prints)."""
    words = text.strip().split()
    if not words:
        raise IllegalActionError("empty move")
    verb, rest = words[0].lower(), words[1:]
    try:
        if verb == "stop" and not rest:
            return Stop()
        if (verb, rest) in (("roll", ["on"]), ("roll_on", [])):
            return RollOn()
        if verb == "write" and len(rest) == 1:
            return Write(rest[0])
        if verb == "announce" and len(rest) == 1:
            return Announce(None if rest[0].lower() == "none" else rest[0])
        if verb == "keep":
            if rest in (["none"], []):
                return Keep(())
            if any(":" in x for x in rest):  # dice that differ: group:face for each kept die
                pairs = [x.split(":", 1) for x in rest]
                if any(len(p) != 2 or not p[0] for p in pairs):
                    raise ValueError
                return Keep(tuple(int(f) for _, f in pairs), tuple(g for g, _ in pairs))
            return Keep(tuple(sorted(int(x) for x in rest)))
        if verb == "roll":  # as given: dice that differ are read group after group (the engine sorts each group)
            return Roll(tuple(int(x) for x in rest))
    except ValueError:
        pass
    raise IllegalActionError("cannot read the move '{move}'",
                             hint="moves look like 'keep 2 2 4', 'keep none', 'stop', 'roll on', 'announce BOX' or 'write BOX'", move=text.strip())
