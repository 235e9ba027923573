"""The generic engine: a game state in the OpenSpiel shape, driven by the model's phase tree.

`current_player()` is a player index, CHANCE or TERMINAL. Decisions and dice rolls both go through
`apply()`; `chance_outcomes()` lists a roll's results with exact probabilities, so solvers and
tests can walk any model. The state serializes to JSON and back.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from .actions import Action, Keep, Roll, Stop, Write
from .dice import outcomes, sub_multisets
from .dsl.compiler import SheetView
from .errors import IllegalActionError, SaveFileError
from .model import Model, Step
from .scoring import Choice, Scorer

CHANCE = -1
TERMINAL = -2


@dataclass
class Frame:
    """A container step being run: which child is next, and which pass through it this is."""

    step: Step
    index: int = 0
    iteration: int = 0


class GameState:
    """One game of a model in progress."""

    def __init__(self, model: Model, players: list[str]):
        if not model.min_players <= len(players) <= model.max_players:
            raise IllegalActionError(f"{model.id} is for {model.min_players} to {model.max_players} players, not {len(players)}")
        self.model, self.players = model, list(players)
        self.scorer = Scorer(model)
        self.sheets: list[dict[str, int]] = [{} for _ in players]
        self.awards: list[dict[str, int]] = [{} for _ in players]
        self.player = 0
        self.dice: tuple[int, ...] = ()
        self.kept: tuple[int, ...] = ()
        self.roll_number = 0
        self.ended_by: int | None = None  # the player whose write met the model's end_if
        self.stack: list[Frame] = [Frame(model.flow)] if model.flow.steps else []
        if model.flow.kind == "each_player":
            self._start_turn(0)
        self._settle()

    # the OpenSpiel interface ----------------------------------------------
    def step(self) -> Step | None:
        """The leaf step waiting to be done (None when the game is over)."""
        if not self.stack:
            return None
        frame = self.stack[-1]
        return frame.step.steps[frame.index]

    def current_player(self) -> int:
        step = self.step()
        if step is None:
            return TERMINAL
        return CHANCE if step.kind == "roll" else self.player

    def is_terminal(self) -> bool:
        return not self.stack

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def dice_to_roll(self) -> int:
        step = self.step()
        return self.model.n_dice if step.dice == "all" else self.model.n_dice - len(self.kept)

    def chance_outcomes(self) -> list[tuple[Roll, float]]:
        """Each possible result of the pending roll with its probability."""
        if not self.is_chance_node():
            return []
        m = self.dice_to_roll()
        total = self.model.faces ** m
        return [(Roll(faces), w / total) for faces, w in outcomes(m, self.model.faces)]

    def legal_actions(self) -> list[Action]:
        step = self.step()
        if step is None:
            return []
        if step.kind == "roll":
            return [a for a, _ in self.chance_outcomes()]
        if step.kind == "keep":
            keeps = sorted(sub_multisets(self.dice), key=lambda k: (len(k), k))
            if step.can_stop:
                return [Stop()] + [Keep(k) for k in keeps if len(k) < len(self.dice)]
            return [Keep(k) for k in keeps]
        return [Write(c.box) for c in self.write_choices()]

    def write_choices(self) -> list[Choice]:
        """The boxes the current dice may be written into, with their points and bonus."""
        step = self.step()
        if step is None or step.kind != "write":
            return []
        return self.scorer.choices(self.dice, self.sheets[self.player], self.roll_number, step)

    def apply(self, action: Action) -> None:
        """Carry out a decision or a chance outcome; IllegalActionError if the rules forbid it."""
        step = self.step()
        if step is None:
            raise IllegalActionError("the game is over")
        kind = step.kind
        if kind == "roll":
            self._apply_roll(step, action)
        elif kind == "keep":
            self._apply_keep(step, action)
        else:
            self._apply_write(step, action)

    def returns(self) -> list[int]:
        """Each player's total (the final score once the game is over)."""
        return [self.totals(p)["total"] for p in range(len(self.players))]

    # the steps --------------------------------------------------------------
    def _apply_roll(self, step: Step, action: Action) -> None:
        m = self.dice_to_roll()
        if not isinstance(action, Roll) or len(action.faces) != m or any(
                not 1 <= f <= self.model.faces for f in action.faces):
            raise IllegalActionError(f"a roll of {m} dice with faces 1 to {self.model.faces} is due, not '{action}'")
        base = () if step.dice == "all" else self.kept
        self.dice = tuple(sorted(base + tuple(action.faces)))
        self.kept = ()
        self.roll_number += 1
        self._next()

    def _apply_keep(self, step: Step, action: Action) -> None:
        if isinstance(action, Stop):
            if not step.can_stop:
                raise IllegalActionError(f"you cannot stop at '{step.name['en']}'")
            self._break()
            return
        if not isinstance(action, Keep):
            raise IllegalActionError(f"choose dice to keep{' or stop' if step.can_stop else ''}, not '{action}'")
        have, want = Counter(self.dice), Counter(action.dice)
        if any(have[f] < c for f, c in want.items()):
            raise IllegalActionError(f"you cannot keep {' '.join(map(str, action.dice))}: the dice are "
                                     f"{' '.join(map(str, self.dice))}")
        if len(action.dice) == len(self.dice) and step.can_stop:
            self._break()  # keeping every die is stopping
            return
        self.kept = tuple(sorted(action.dice))
        self._next()

    def _apply_write(self, step: Step, action: Action) -> None:
        if not isinstance(action, Write):
            raise IllegalActionError(f"write the dice into a box, not '{action}'")
        sheet = self.sheets[self.player]
        if action.box not in self.model.boxes:
            from .errors import did_you_mean
            raise IllegalActionError(f"there is no box '{action.box}'", did_you_mean(action.box, self.model.boxes))
        if action.box in sheet:
            raise IllegalActionError(f"the box '{action.box}' is already filled")
        choice = next((c for c in self.write_choices() if c.box == action.box), None)
        if choice is None:
            raise IllegalActionError(f"the rules do not let these dice go into '{action.box}' now"
                                     + (f" ({step.rule['en']})" if step.rule else ""))
        ctx = self.scorer.context(self.dice, sheet, action.box, self.roll_number)
        for bonus in self.scorer._write_bonuses:
            points = bonus.points(ctx)
            if points:
                self.awards[self.player][bonus.id] = self.awards[self.player].get(bonus.id, 0) + points
        sheet[action.box] = choice.points
        if self.model.end_if is not None:
            ctx.sheet = SheetView(sheet)
            if self.model.end_if(ctx):
                self.ended_by = self.player
                self.stack = []
                return
        self._next()

    # walking the phase tree ---------------------------------------------------
    def _start_turn(self, player: int) -> None:
        self.player = player
        self.dice, self.kept, self.roll_number = (), (), 0

    def _next(self) -> None:
        self.stack[-1].index += 1
        self._settle()

    def _break(self) -> None:
        """Leave the innermost repeat (a player stopped rolling)."""
        while self.stack and self.stack[-1].step.kind != "repeat":
            self.stack.pop()
        if self.stack:
            self.stack.pop()
        if self.stack:
            self._next()

    def _bound(self, step: Step) -> int:
        return len(self.players) if step.kind == "each_player" else step.times

    def _settle(self) -> None:
        """Descend into containers and wrap loops until a leaf step is due (or the game ends)."""
        while self.stack:
            frame = self.stack[-1]
            if frame.index >= len(frame.step.steps):
                frame.iteration += 1
                if frame.iteration < self._bound(frame.step) and not self._all_filled():
                    frame.index = 0
                    if frame.step.kind == "each_player":
                        self._start_turn(frame.iteration)
                    continue
                self.stack.pop()
                if self.stack:
                    self.stack[-1].index += 1
                continue
            child = frame.step.steps[frame.index]
            if child.kind in ("repeat", "each_player"):
                self.stack.append(Frame(child))
                if child.kind == "each_player":
                    self._start_turn(0)
                continue
            if child.kind == "write" and not self.write_choices():
                self._next_player_cannot_write()
                continue
            return

    def _all_filled(self) -> bool:
        """Every player's sheet is full: nothing more can be written."""
        n = len(self.model.boxes)
        return all(len(s) == n for s in self.sheets)

    def _next_player_cannot_write(self) -> None:
        """A write step with no allowed box is skipped (the sheet is full)."""
        self.stack[-1].index += 1

    # views ----------------------------------------------------------------------
    def totals(self, player: int) -> dict[str, int]:
        return self.scorer.totals(self.sheets[player], self.awards[player])

    def rolls_left(self) -> int:
        """How many more rolls the current player may make this turn."""
        left = 0
        for depth in range(len(self.stack) - 1, -1, -1):
            frame = self.stack[depth]
            if frame.step.kind == "each_player":
                break
            rest = frame.step.steps[frame.index + (0 if depth == len(self.stack) - 1 else 1):]
            left += sum(_rolls_in(s) for s in rest)
            if frame.step.kind == "repeat":
                left += (frame.step.times - frame.iteration - 1) * sum(_rolls_in(s) for s in frame.step.steps)
        return left

    def ranking(self) -> list[tuple[int, str, int]]:
        """(rank, player, total), best first; equal totals share a rank."""
        totals = self.returns()
        sign = 1 if self.model.winner == "lowest_total" else -1
        order = sorted(range(len(self.players)), key=lambda p: (p != self.ended_by, sign * totals[p], p))
        out, rank = [], 0
        for i, p in enumerate(order):
            if i == 0 or p == self.ended_by or totals[p] != totals[order[i - 1]] or order[i - 1] == self.ended_by:
                rank = i + 1
            out.append((rank, self.players[p], totals[p]))
        return out

    # JSON -------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players, "player": self.player, "dice": list(self.dice), "kept": list(self.kept),
            "roll_number": self.roll_number, "sheets": self.sheets, "awards": self.awards,
            "ended_by": self.ended_by,
            "stack": [[f.step.id, f.index, f.iteration] for f in self.stack],
        }

    @classmethod
    def from_json(cls, model: Model, data: dict[str, Any]) -> "GameState":
        """Rebuild a state saved by `to_json`; SaveFileError if it does not fit the model."""
        try:
            state = cls(model, [str(p) for p in data["players"]])
            state.player = int(data["player"])
            state.dice = tuple(int(d) for d in data["dice"])
            state.kept = tuple(int(d) for d in data["kept"])
            state.roll_number = int(data["roll_number"])
            state.ended_by = data.get("ended_by")
            state.sheets = [{str(k): int(v) for k, v in s.items()} for s in data["sheets"]]
            state.awards = [{str(k): int(v) for k, v in a.items()} for a in data["awards"]]
            steps = {s.id: s for s in model.flow.walk()}
            state.stack = [Frame(steps[sid], int(i), int(it)) for sid, i, it in data["stack"]]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise SaveFileError(f"the saved game does not fit the model {model.id}: {exc!s}") from None
        if len(state.sheets) != len(state.players) or any(b not in model.boxes for s in state.sheets for b in s):
            raise SaveFileError(f"the saved game's score sheets do not fit the model {model.id}")
        for f in state.stack:
            if not f.step.steps or not 0 <= f.index < len(f.step.steps):
                raise SaveFileError("the saved game's position is not a step of the model")
        return state


def _rolls_in(step: Step) -> int:
    if step.kind == "roll":
        return 1
    if step.kind == "repeat":
        return step.times * sum(_rolls_in(s) for s in step.steps)
    return sum(_rolls_in(s) for s in step.steps)
