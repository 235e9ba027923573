"""Actions as small values with a parse/format pair: `Keep((2, 2, 4))` ↔ "keep 2 2 4"."""
from __future__ import annotations

from dataclasses import dataclass

from ..model.errors import IllegalActionError


@dataclass(frozen=True)
class Roll:
    """A chance outcome: the faces the rolled dice show (sorted)."""

    faces: tuple[int, ...]

    def __str__(self) -> str:
        return "roll " + " ".join(map(str, self.faces))


@dataclass(frozen=True)
class Keep:
    """Keep these dice (a sub-multiset of the current roll) and roll the others."""

    dice: tuple[int, ...]

    def __str__(self) -> str:
        return "keep " + " ".join(map(str, self.dice)) if self.dice else "keep none"


@dataclass(frozen=True)
class Stop:
    """Stop rolling: go on with the dice as they are."""

    def __str__(self) -> str:
        return "stop"


@dataclass(frozen=True)
class Write:
    """Write the dice into a box."""

    box: str

    def __str__(self) -> str:
        return f"write {self.box}"


@dataclass(frozen=True)
class Announce:
    """Announce the box (write target) this turn's write must go into; None: announce nothing."""

    box: str | None

    def __str__(self) -> str:
        return f"announce {self.box}" if self.box is not None else "announce none"


Action = Roll | Keep | Stop | Write | Announce


def parse_action(text: str) -> Action:
    """Parse the canonical text form of an action (what `str(action)` prints)."""
    words = text.strip().split()
    if not words:
        raise IllegalActionError("empty move")
    verb, rest = words[0].lower(), words[1:]
    try:
        if verb == "stop" and not rest:
            return Stop()
        if verb == "write" and len(rest) == 1:
            return Write(rest[0])
        if verb == "announce" and len(rest) == 1:
            return Announce(None if rest[0].lower() == "none" else rest[0])
        if verb == "keep":
            if rest in (["none"], []):
                return Keep(())
            return Keep(tuple(sorted(int(x) for x in rest)))
        if verb == "roll":
            return Roll(tuple(sorted(int(x) for x in rest)))
    except ValueError:
        pass
    raise IllegalActionError("cannot read the move '{move}'",
                             hint="moves look like 'keep 2 2 4', 'keep none', 'stop', 'announce BOX' or 'write BOX'", move=text.strip())
