"""What `rulebook check` proves about a flow before anyone plays it (and the engine relies on).

1. **Writes and the sheet agree**: the turns give every player exactly as many writes as the
   sheet has cells (entries). Otherwise the game would end with empty boxes, or ask for a write
   when the sheet is full. Refused at the `times` of the repeat that holds the turns.
2. **No write can face no legal box**: a write step with an `allowed:` rule is tried with every
   roll (and every roll number it reads) on the empty sheet and on every sheet with a single box
   left open (the others filled with 0, and with their best score). If some roll leaves no box
   allowed, the model is refused at its `allowed:` rule, unless the step says what happens then
   (`otherwise: scratch`: write 0 into any open box).
3. **An announcement can be kept**: after an announce step a turn writes at most once (the
   announcement names the box of one write, and a second would have nowhere to go), and the write
   rule lets every box that can be announced on the empty sheet take every roll once announced
   (unless `otherwise: scratch` says what happens then). Refused at the announce step or the rule.

Writes inside a loop that a player may stop early are not counted (the number is not fixed); the
model is then not checked for (1).
"""
from __future__ import annotations

import hashlib
from dataclasses import astuple
from functools import lru_cache
from math import prod
from pathlib import Path

from .cachedir import mark, marked
from .dice import group_rolls
from .errors import Message, ModelError, RulebookError
from .limits import limits
from .frozen import Model, Step


_CHECKED: dict[tuple, list[RulebookError]] = {}  # the same text and options prove the same


def check_soundness(model: Model) -> list[RulebookError]:
    """The problems found (an empty list: the flow is sound).

    A model text found sound with the same options by the same code before is not checked again:
    that is noted in the cache folder (`_sound_marker`), like the schema check (loader.py).
    """
    options = tuple(sorted((k, str(v)) for k, v in model.option_values.items()))
    key = (model.path, model.hash, options)
    if key not in _CHECKED:
        marker = _sound_marker(model, options)
        if marker is not None and marked(marker):
            errors = []
        else:
            errors = _check_ends(model) + _check_counts(model) + _check_announce_writes(model)
            if not errors:
                errors = _check_writes(model)
            if not errors and marker is not None:
                mark(marker)  # sealed; no note, no harm: checked again next time
        if len(_CHECKED) > 256:
            _CHECKED.clear()
        _CHECKED[key] = errors
    return list(_CHECKED[key])


# The code whose answer a marker records: this check, scoring, the dice and the scoring language.
_CODE = ("soundness.py", "scoring.py", "dice.py", "frozen.py", "loader.py", "limits.py",
         "dsl/compiler.py", "dsl/builtins.py", "dsl/parser.py", "dsl/ast.py", "dsl/grammar.lark")


def _sound_marker(model: Model, options: tuple) -> "Path | None":
    """The file whose presence says this text, with these options, passed this code's check."""
    from .cachedir import folder
    where = folder()
    if where is None:
        return None
    digest = hashlib.sha256(_code_hash() + repr((options, astuple(limits()))).encode()
                            + model.source.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return where / "sound-models" / digest


@lru_cache(maxsize=1)
def _code_hash() -> bytes:
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for name in _CODE:
        try:
            h.update((here / name).read_bytes())
        except OSError:
            h.update(b"?")
        h.update(b"\0")
    return h.digest()


def writes_per_player(model: Model) -> int | None:
    """How many writes the flow gives each player in a full game (None if a player can change it)."""
    turn = next((s for s in model.flow.walk() if s.kind == "each_player"), None)
    if turn is None:
        return None
    outer = [s for s in model.flow.ancestors(turn) if s.kind == "repeat"]
    if any(s.times is None for s in outer):  # rounds until the game ends: no fixed number
        return None
    rounds = prod(s.times or 1 for s in outer)
    total = 0
    for step in turn.walk():
        if step.kind == "repeat" and step.times is None and any(s.kind == "write" for s in step.walk()):
            return None  # writes in a repeat that runs until it is left
        if step.kind != "write":
            continue
        if step.optional or step.by != "active":  # a player may pass, or writes on others' rolls
            return None
        loops = [s for s in turn.ancestors(step) if s.kind == "repeat"]
        if any(k.kind == "keep" and k.can_stop for loop in loops for k in loop.walk()):
            return None
        if any(loop.condition is not None for loop in loops):  # a while: decides how many passes write
            return None
        total += prod(s.times or 1 for s in loops)
    return rounds * total


def _check_ends(model: Model) -> list[RulebookError]:
    """3. **Every repeat can end**: a repeat without `times` that holds the turns needs something that
    ends the game (`end_if`, its `while:`, or a write every turn makes, so the sheets fill up); one
    inside a turn needs a way out (a bank or stop decision, a bust that some roll meets, its `while:`,
    or a write every pass makes). A flow that can never end is refused at the repeat."""
    turn = next((s for s in model.flow.walk() if s.kind == "each_player"), None)
    errors: list[RulebookError] = []
    for step in model.flow.walk():
        if step.kind != "repeat" or step.times is not None or step.condition is not None:
            continue
        if turn is not None and any(s is turn for s in step.walk()):
            if model.end_if is None and not (model.cells and _writes_every_pass(turn)):
                errors.append(ModelError("repeat '{step}' has no 'times' and nothing ends the game, so it would never end",
                                         step.pos, "give it 'times', or the model an 'end_if'", step=step.id))
        elif not _can_leave(model, step):
            errors.append(ModelError("repeat '{step}' has no 'times' and no way out, so the turn would never end",
                                     step.pos, "give it 'times' or 'while', a bank or stop decision, or a roll that can bust",
                                     step=step.id))
    return errors


def _writes_every_pass(step: Step) -> bool:
    """Whether every pass through the step writes: a compulsory write of the active player directly
    in it (not inside a repeat that may be left before it)."""
    return any(s.kind == "write" and s.by == "active" and not s.optional for s in step.steps)


def _can_leave(model: Model, repeat: Step) -> bool:
    """A way out of a repeat inside a turn: a bank or stop decision, a bust some roll meets, a write
    every pass makes (a full sheet ends the turn)."""
    from .scoring import Scorer
    for s in repeat.walk():
        if s.kind == "bank" or (s.kind == "keep" and s.can_stop):
            return True
        if s.kind == "roll" and s.bust is not None:
            scorer = Scorer(model)
            for dice in group_rolls(model.groups):
                try:
                    ctx = scorer.context(dice, {}, None, 1)
                    if s.bust(ctx):
                        return True
                except Exception:  # noqa: BLE001 - a condition that needs more than a first roll: not this roll
                    continue
    return _writes_every_pass(repeat)


def _check_counts(model: Model) -> list[RulebookError]:
    writes = writes_per_player(model)
    cells = len(model.cells)
    if writes is None or writes == cells:
        return []
    turn = next(s for s in model.flow.walk() if s.kind == "each_player")
    rounds = [s for s in model.flow.ancestors(turn) if s.kind == "repeat"]
    where = rounds[-1] if rounds else model.flow
    pos = where.times_pos or where.pos
    per_round = writes // prod(s.times or 1 for s in rounds) if rounds else writes
    hint = None
    outer = per_round * prod(s.times or 1 for s in rounds[:-1])
    if rounds and outer and cells % outer == 0:
        hint = Message("with {rounds} rounds the writes fill the sheet", {"rounds": cells // outer})
    return [ModelError("the turns give each player {writes} writes, but the sheet has {cells} entries to fill",
                       pos, hint, writes=writes, cells=cells)]


def _check_writes(model: Model) -> list[RulebookError]:
    from .scoring import Scorer
    steps = [s for s in model.flow.walk() if s.kind == "write" and s.allowed is not None and s.otherwise is None
             and not s.optional]  # a step the player may pass needs no box for every roll
    if not steps:
        return []
    scorer = Scorer(model)
    rolls = group_rolls(model.groups)
    best = {}  # each target's best score, to fill the sheet with
    for t in model.targets.values():
        box = model.boxes[t.box]
        top = 0
        for r in rolls:
            try:
                top = max(top, box.score(scorer.context(r, {}, t.id, 1)))
            except Exception:  # noqa: BLE001 - a score that needs a fuller sheet: 0 will do
                pass
        best[t.id] = top
    sheets = [("", {})]
    if any(s.kind == "announce" for s in model.flow.walk()):  # announced on the empty sheet: only that box may take the roll
        sheets += [(t, {}) for t in model.targets if scorer.order_allows(t, {}, t)]
    for t in model.targets.values():
        if not _can_be_last(model, t):
            continue  # no game reaches a sheet where only this target is open
        others = [u for u in model.targets.values() if u.id != t.id]
        for fill in ("zero", "best"):
            sheet = {c: (0 if fill == "zero" else best[u.id]) for u in others for c in u.cells}
            sheet.update({c: 0 for c in t.cells[:-1]})
            sheets.append((t.id, sheet))
    roll_numbers = range(1, _rolls_per_turn(model) + 1) if any("turn" in s.allowed.deps for s in steps) else (1,)
    errors = []
    for step in steps:
        problem = _first_dead_end(scorer, step, sheets, rolls, roll_numbers)
        if problem:
            only, dice, _ = problem
            hint = "allow a box for every roll, or say what happens then with 'otherwise: scratch'"
            dice = " ".join(map(str, dice))
            if only and not problem[2]:
                errors.append(ModelError("the write rule of step '{step}' lets no box take the roll {dice} "
                                         "after '{box}' was announced on the empty sheet", step.allowed.text.pos,
                                         "allow an announced box every roll, or say what happens then with 'otherwise: scratch'",
                                         step=step.id, dice=dice, box=only))
            elif only:
                errors.append(ModelError("the write rule of step '{step}' lets no box take the roll {dice} "
                                         "when only '{box}' is open", step.allowed.text.pos, hint,
                                         step=step.id, dice=dice, box=only))
            else:
                errors.append(ModelError("the write rule of step '{step}' lets no box take the roll {dice} "
                                         "on the empty sheet", step.allowed.text.pos, hint, step=step.id, dice=dice))
    return errors


def _can_be_last(model: Model, target) -> bool:
    """Whether some game leaves `target` the only open one: in a column filled from the top it must
    be the column's bottom box, from the bottom its top box."""
    column = next((c for c in model.columns if c.id == target.column), None) if target.column else None
    if column is None or column.order not in ("down", "up"):
        return True
    inside = [u for u in model.targets.values() if u.column == column.id]
    return target is (inside[-1] if column.order == "down" else inside[0])


def _first_dead_end(scorer, step, sheets, rolls, roll_numbers):
    """(the open box or '', a roll, whether the sheet has more open boxes than that) where no box may take the roll."""
    for only, sheet in sheets:
        # a box of a column filled by announcement is written after announcing it (the announce step
        # makes announcing it compulsory when nothing else is open); on the empty sheet, `only` is an
        # announced box
        announced = only if only and (not sheet or scorer.needs_announcement(only)) else None
        if not only and scorer.columns and all(scorer.needs_announcement(t) for t in scorer.targets):
            continue  # every box needs an announcement: the one-box-open sheets try each
        for rn in roll_numbers:
            for dice in rolls:
                if not scorer.write_map(dice, sheet, rn, step, announced):
                    return only, dice, bool(sheet)
    return None


def _check_announce_writes(model: Model) -> list[RulebookError]:
    """After an announce step, at most one write of the player whose turn it is (before the turn
    ends or the step comes again)."""
    errors = []
    for turn in (s for s in model.flow.walk() if s.kind == "each_player"):
        order = list(turn.walk())
        for call in (s for s in order if s.kind == "announce"):
            around = set(map(id, turn.ancestors(call)))
            writes = 0
            for w in order[order.index(call) + 1:]:
                if w.kind != "write" or w.by == "others":
                    continue
                passes = 1
                for loop in turn.ancestors(w):  # the repeats around the write but not around the announcement
                    if loop.kind == "repeat" and id(loop) not in around:
                        passes *= loop.times if loop.times else 2
                writes += passes
            if writes > 1:
                errors.append(ModelError("after the announcement at step '{step}' a turn can write {count} times, but an "
                                         "announcement names the box of one write", call.pos,
                                         "announce before each write, inside the same repeat",
                                         step=call.id, count=writes))
    return errors


def _rolls_per_turn(model: Model) -> int:
    turn = next(s for s in model.flow.walk() if s.kind == "each_player")

    def rolls(step: Step) -> int:
        inner = sum(rolls(c) for c in step.steps)
        return (1 if step.kind == "roll" else 0) + ((step.times or 1) * inner if step.kind == "repeat" else inner)
    return max(1, rolls(turn))
