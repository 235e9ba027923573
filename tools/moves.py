"""What a person types during play → an action: faces or positions to keep, a box by name or number."""
from __future__ import annotations

from ..interpreter.actions import Action, Keep, Stop, Write, parse_action
from ..interpreter.errors import IllegalActionError, did_you_mean
from ..interpreter.state import GameState

COMMANDS = {"help", "?", "hint", "quit", "sheet"}


def parse_move(text: str, state: GameState, lang: str) -> Action | str:
    """An action, or one of COMMANDS. IllegalActionError explains what was wrong."""
    words = text.strip().split()
    if not words:
        raise IllegalActionError("type a move, or 'help'")
    verb = words[0].lower()
    if verb in COMMANDS:
        return "help" if verb == "?" else verb
    step = state.step()
    if step is None:
        raise IllegalActionError("the game is over")
    if step.kind == "keep":
        if verb in ("s", "stop"):
            return Stop()
        if verb in ("r", "roll", "reroll"):
            return Keep(())
        if verb in ("p", "pos", "position", "positions"):
            return Keep(_positions(words[1:], state))
        if verb in ("k", "keep"):
            if words[1:] == ["all"]:
                return Stop() if step.can_stop else Keep(state.dice)
            return parse_action("keep " + " ".join(words[1:]))
        if verb.isdigit():
            return parse_action("keep " + " ".join(words))
        raise IllegalActionError(f"cannot read '{text.strip()}' here",
                                 "keep dice with 'keep 2 2 4' (faces) or 'pos 1 2 5' (positions), or 'stop'")
    if step.kind == "write":
        if verb in ("w", "write") and len(words) > 1:
            return Write(box_from(" ".join(words[1:]), state, lang))
        return Write(box_from(" ".join(words), state, lang))
    raise IllegalActionError("wait: the dice are being rolled")


def _positions(words: list[str], state: GameState) -> tuple[int, ...]:
    chars = [c for w in words for c in (w if w.isdigit() else [w])]
    try:
        positions = sorted({int(c) for c in chars})
    except ValueError:
        raise IllegalActionError(f"positions are numbers from 1 to {len(state.dice)}") from None
    if any(not 1 <= p <= len(state.dice) for p in positions):
        raise IllegalActionError(f"positions are numbers from 1 to {len(state.dice)}")
    return tuple(sorted(state.dice[p - 1] for p in positions))


def box_from(text: str, state: GameState, lang: str) -> str:
    """A box by id, by its name in any language, or by its number on the sheet (1 = first)."""
    text = text.strip()
    boxes = list(state.model.boxes)
    if text.isdigit() and 1 <= int(text) <= len(boxes):
        return boxes[int(text) - 1]
    key = text.lower().replace(" ", "_").replace("-", "_")
    names = {}
    for b, box in state.model.boxes.items():
        names[b] = b
        for l in (lang, "en", "de", "nl"):
            names.setdefault(box.name[l].lower().replace(" ", "_").replace("-", "_"), b)
    if key in names:
        return names[key]
    raise IllegalActionError(f"there is no box '{text}'", did_you_mean(key, names))
