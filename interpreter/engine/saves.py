"""A game state to JSON and back; a save is untrusted input, checked value by value."""
from __future__ import annotations

from typing import Any, Callable

from ..model.dice import canonical
from ..model.errors import IllegalActionError, Message, SaveFileError, as_message, did_you_mean
from ..model.frozen import Model
from typing import Self
from .program import UNBOUNDED, Frame, contains, multiset_of, tables

class Saves:
    """GameState.to_json and GameState.from_json."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        """A snapshot of the position: nothing in it changes as the game goes on."""
        return {
            "players": list(self.players), "player": self.player, "dice": list(self.dice), "kept": list(self.kept),
            "roll_number": self.roll_number, "held": list(self.held), "announced": self.announced,
            "sheets": [dict(s) for s in self.sheets],
            "awards": [dict(a) for a in self.awards],
            **({"counters": [dict(c) for c in self.counter_values], "game_counters": dict(self.game_counters)}
               if self.model.counters else {}),
            "ended_by": self.ended_by,
            **({"ending": self._ending} if self._ending is not None else {}),  # the game's last round or turns
            **({"acting": self.acting, "waiting": list(self._queue), "written": [list(w) for w in self._written]}
               if self.acting is not None or self._queue or self._written else {}),
            "stack": [[f.step.id, f.index, f.iteration] for f in self.stack],
        }

    @classmethod
    def from_json(cls, model: Model, data: dict[str, Any]) -> Self:
        """Rebuild a state saved by `to_json`; SaveFileError if it does not fit the model."""
        def bad(reason: str | Message, hint: Message | None = None, **params) -> SaveFileError:
            return SaveFileError("the saved game does not fit the model {model}: {reason}", None, hint,
                                 model=model.id, reason=as_message(reason, params))

        if not isinstance(data, dict):
            raise bad("the game state is not a JSON object")
        try:
            state = cls(model, [str(p) for p in data["players"]])
            state.player = _int(data["player"])
            state.dice = tuple(_int(d) for d in data["dice"])
            state.kept = tuple(_int(d) for d in data["kept"])
            state.roll_number = _int(data["roll_number"])
            state.held = tuple(_int(d) for d in data.get("held", ()))  # (saves from before keep rules have none)
            announced = data.get("announced")
            state.announced = None if announced is None else str(announced)
            ended_by = data.get("ended_by")
            state.ended_by = None if ended_by is None else _int(ended_by)
            ending = data.get("ending")
            state._ending = None if ending is None else _int(ending)
            state.sheets = [{str(k): _int(v) for k, v in s.items()} for s in data["sheets"]]
            state.awards = [{str(k): _int(v) for k, v in a.items()} for a in data["awards"]]
            if model.counters:
                state.counter_values = [{str(k): _int(v) for k, v in c.items()} for c in data["counters"]]
                state.game_counters = {str(k): _int(v) for k, v in data["game_counters"].items()}
            acting = data.get("acting")
            state.acting = None if acting is None else _int(acting)
            state._queue = [_int(p) for p in data.get("waiting", ())]
            state._written = [(_int(p), str(b)) for p, b in data.get("written", ())]
            steps = {s.id: s for s in model.flow.walk()}
            frames = [Frame(steps[sid], _int(i), _int(it)) for sid, i, it in data["stack"]]
        except IllegalActionError as exc:
            raise bad(exc.msg) from None
        except KeyError as exc:
            raise bad("{key} is missing or unknown", key=repr(exc.args[0])) from None
        except (TypeError, ValueError, AttributeError) as exc:
            # Python's own words would mislead: say what is wrong
            raise bad(exc.args[0] if exc.args and isinstance(exc.args[0], Message)
                      else Message("a value in the game state is of the wrong kind")) from None
        n = len(state.players)
        if state._ending is not None and (model.end not in ("round", "last_turn") or not -1 <= state._ending < n
                                          or state.ended_by is None):
            raise bad("its game end ({ending}) does not fit the model's way of ending", ending=state._ending)
        if len(state.sheets) != n or len(state.awards) != n:
            raise bad("it has {sheets} score sheets for {count} players", sheets=len(state.sheets), count=n)
        for s in state.sheets:
            for b in s:
                if b not in model.cells:
                    raise bad("there is no box '{box}'", did_you_mean(b, model.cells), box=b)
        for number, sheet in enumerate(state.sheets, 1):
            problem = _out_of_order(model, sheet)
            if problem is not None:
                raise bad(Message("on the sheet of player {number}, {problem}", {"number": number, "problem": problem}))
        bonus_ids = {b.id for b in model.bonuses}
        for a in state.awards:
            for b in a:
                if b not in bonus_ids:
                    raise bad("there is no bonus '{bonus}'", bonus=b)
        if model.counters:
            mine = {c.id: c for c in model.counters if c.per != "game"}
            shared = {c.id: c for c in model.counters if c.per == "game"}
            if len(state.counter_values) != n or any(set(v) != set(mine) for v in state.counter_values) \
                    or set(state.game_counters) != set(shared) \
                    or any(c.bounded(v[k]) != v[k] for v in state.counter_values for k, c in mine.items()) \
                    or any(c.bounded(state.game_counters[k]) != state.game_counters[k] for k, c in shared.items()):
                raise bad("the saved counters do not fit the model's counters")
        for who in (state.player, state.ended_by, state.acting, *state._queue, *(p for p, _ in state._written)):
            if who is not None and not 0 <= who < n:
                raise bad("there is no player number {number}", number=who)
        if state.announced is not None and state.announced not in model.targets:
            raise bad("there is no box '{box}'", did_you_mean(state.announced, model.targets), box=state.announced)
        t = tables(model)
        if not contains(multiset_of(t.codes(state.dice) if model.grouped else state.dice), multiset_of(state.held)):
            raise bad("the dice set aside, {held}, are not among the dice {dice}", held=list(t.faces_of(state.held)),
                      dice=list(state.dice))
        for dice in (state.dice, t.faces_of(state.kept), t.faces_of(state.held)):
            if len(dice) > model.n_dice or any(not 1 <= d <= model.faces for d in dice):
                raise bad("the dice {dice} are not {count} dice with faces 1 to {faces}", dice=list(dice),
                          count=model.n_dice, faces=model.faces)
        if state.dice and len(state.dice) != model.n_dice:
            raise bad("the dice {dice} are not {count} dice", dice=list(state.dice), count=model.n_dice)
        if model.grouped:
            if (state.dice and canonical(state.dice, model.groups) != state.dice) \
                    or any(d != tuple(sorted(d)) or any(not 1 <= c <= len(model.groups) * model.faces for c in d)
                           for d in (state.kept, state.held)) \
                    or not contains(multiset_of(t.codes(state.dice)), multiset_of(state.kept)):
                raise bad("the dice are not in order")
        elif any(d != tuple(sorted(d)) for d in (state.dice, state.kept, state.held)):
            raise bad("the dice are not in order")
        state._place(frames, bad)
        return state

    def _place(self, frames: list[Frame], bad: Callable[..., SaveFileError]) -> None:
        """Put the state at the position the frames describe (a path from the root to a leaf)."""
        t = self._t
        if not frames:
            self._op = None
            return
        here = frames[-1].step.steps[frames[-1].index] if 0 <= frames[-1].index < len(frames[-1].step.steps) else None
        pc = t.leaf_pc.get(here.id) if here is not None else None
        if pc is None or [(f.step, f.index) for f in frames] != list(t.paths[pc]):
            raise bad("the saved position is not a step of the model")
        for f in frames:
            bound = len(self.players) if f.step.kind == "each_player" else f.step.times or UNBOUNDED
            if not 0 <= f.iteration < max(bound, 1):
                raise bad("pass {number} of '{step}' is beyond its {bound}", number=f.iteration + 1, step=f.step.id, bound=bound)
            if f.step.kind == "each_player" and f.iteration != self.player:
                raise bad("it is player {number}'s turn, not player {player}'s", number=f.iteration, player=self.player)
            self._counters[t.slots[f.step.id]] = f.iteration
        self._op, self._options, self._plan = t.program[pc], None, None
        self._full = self._all_filled()
        if here.kind in ("keep", "write") and not self.dice:
            raise bad("the saved position is at '{step}' before any dice were rolled", step=here.id)


def _out_of_order(model: Model, sheet: dict[str, int]) -> Message | None:
    """What in a saved sheet the model's fill order could not have written (None: nothing): a box's
    entries fill one after another, a `down` column from the top and an `up` column from the bottom."""
    for t in model.targets.values():
        filled = [c in sheet for c in t.cells]
        if filled != sorted(filled, reverse=True):
            later = next(c for c, f in zip(t.cells, filled) if not f)
            written = next(c for c, f in zip(t.cells[t.cells.index(later):], filled[t.cells.index(later):]) if f)
            return Message("'{cell}' is written while '{earlier}' is empty; a box's entries fill in order",
                           {"cell": written, "earlier": later})
    for column in model.columns:
        if column.order not in ("down", "up"):
            continue
        targets = [t for t in model.targets.values() if t.column == column.id]
        if column.order == "up":
            targets.reverse()
        gap = next((t for t in targets if t.cells[-1] not in sheet), None)
        after = targets[targets.index(gap) + 1:] if gap is not None else []
        written = next((t for t in after if t.cells[0] in sheet), None)
        if written is not None:
            text = ("'{box}' is written while '{earlier}' above it is open; column '{column}' fills from the top"
                    if column.order == "down" else
                    "'{box}' is written while '{earlier}' below it is open; column '{column}' fills from the bottom")
            return Message(text, {"box": written.id, "earlier": gap.id, "column": column.id})
    return None


def _int(value) -> int:
    """An integer from JSON (booleans and fractions refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(Message("{value} is not a whole number", {"value": repr(value)}))
    return value
