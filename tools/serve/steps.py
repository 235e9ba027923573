"""Tap a step: what one step of the rule diagram decides, in one language, with an example.

For every step of a model's phase tree: its name, who decides there, what can be chosen, and, for
decisions, what a computer player would choose in an example position (an empty sheet, the model's
showcase roll). The optimal player answers only when its table is on disk already; otherwise the
greedy bot does, and says so. Nothing here ever solves a model.
"""
from __future__ import annotations

from typing import Any

from ...interpreter.engine.actions import Announce, Keep, Roll, RollOn, Stop, Write
from ...interpreter.model.errors import RulebookError
from ...interpreter.model.frozen import Model
from ...interpreter.engine.state import CHANCE, GameState
from ..i18n import translator

MAX_MOVES = 200  # moves walked to reach an example position


def example_roll(model: Model) -> tuple[int, ...]:
    """The roll the page shows in every box (when it fits the dice), else a spread of faces."""
    from ..documents.pages import showcase_roll
    roll = showcase_roll(model)
    if roll and len(roll) == model.n_dice and all(1 <= d <= model.faces for d in roll):
        return tuple(sorted(roll))
    return tuple(sorted((i * 2) % model.faces + 1 for i in range(model.n_dice)))


def _player(model: Model):
    """(bot, is it the optimal player?): optimal only if its table is cached, never by solving."""
    from ...interpreter.players.registry import GreedyBot
    try:
        from ...interpreter.players.optimal import OptimalBot
        from ...interpreter.solver.cache import cache_path
        if cache_path(model).exists():
            return OptimalBot(model), True
    except (RulebookError, OSError, ValueError):
        pass
    return GreedyBot(), False


def _walk_to(model: Model, target, roll: tuple[int, ...]) -> GameState | None:
    """The first position where `target` is due, rolling `roll` (or as much of it as is thrown),
    keeping every die and stopping where the rules allow, so the dice stay the example's."""
    state = GameState(model, [f"P{i + 1}" for i in range(max(1, model.min_players))])
    for _ in range(MAX_MOVES):
        if state.is_terminal():
            return None
        step = state.step()
        if step.id == target.id and state.current_player() != CHANCE:
            return state
        if state.current_player() == CHANCE:
            n = state.dice_to_roll()
            left = list(roll)
            for d in state.kept_faces:
                if d in left:
                    left.remove(d)
            faces = tuple(left[:n] + [1] * max(0, n - len(left)))
            state.apply(Roll(faces if model.grouped else tuple(sorted(faces))))
        elif step.kind == "keep":  # every die (with a keep rule, the most it allows)
            state.apply(Stop() if step.can_stop else max(state.legal_actions(), key=lambda a: len(a.dice)))
        elif step.kind in ("write", "announce"):
            state.apply(state.legal_actions()[0])
        else:
            return None
    return None


def _announced_box(model: Model, target: str, lang: str) -> str:
    """The box an announcement names (its column is the announce column: no need to say it)."""
    t = model.targets.get(target)
    return model.boxes[t.box if t else target].name[lang]


def step_infos(model: Model, lang: str, example: bool = True) -> dict[str, dict[str, Any]]:
    """Per step id: name, kind, role, who decides, what can be chosen, a sentence, an example."""
    from ..documents import describe
    _ = translator(lang).gettext
    roll = example_roll(model)
    bot, optimal = _player(model) if example else (None, False)
    who_plays = _("The solver") if optimal else _("The greedy bot")
    out: dict[str, dict[str, Any]] = {}
    for step in model.flow.walk():
        kind = describe.kind_of(step)
        info: dict[str, Any] = {
            "id": step.id, "kind": step.kind, "role": kind.role, "name": step.name[lang],
            "who": describe.who_text(step, model, lang), "choice": describe.choice_text(step, model, lang),
            "sentence": describe.step_sentence(step, model, lang), "bound": describe.bound_text(step, model, lang),
            "rule": step.rule[lang] if step.rule else None, "example": None,
        }
        if bot is not None and kind.role == "decision":
            try:
                info["example"] = _example(model, step, bot, optimal, who_plays, roll, lang)
            except (RulebookError, ValueError, KeyError, IndexError):
                info["example"] = None  # no example where the position cannot be reached
        out[step.id] = info
    return out


def _example(model: Model, step, bot, optimal: bool, who_plays: str, roll, lang: str) -> dict[str, Any] | None:
    _ = translator(lang).gettext
    state = _walk_to(model, step, roll)
    if state is None:
        return None
    dice = " ".join(map(str, state.dice))
    action = bot.choose(state)
    position = _("An empty score sheet; the dice show {dice} (roll {roll} of the turn).").format(
        dice=dice, roll=state.roll_number)
    if isinstance(action, Write):
        points = next((c.points + c.bonus for c in state.write_choices() if c.box == action.box), 0)
        choice = _("{player} would write them into {box} ({points} points).").format(
            player=who_plays, box=model.boxes[action.box].name[lang], points=points)
    elif isinstance(action, Announce):
        choice = (_("{player} would announce {box}.").format(player=who_plays, box=_announced_box(model, action.box, lang))
                  if action.box is not None else _("{player} would announce nothing.").format(player=who_plays))
    elif isinstance(action, Stop) and step.kind == "bank":
        choice = _("{player} would bank the turn total.").format(player=who_plays)
    elif isinstance(action, RollOn):
        choice = _("{player} would roll on.").format(player=who_plays)
    elif isinstance(action, Stop) or (isinstance(action, Keep) and len(action.dice) == len(state.dice) and step.can_stop):
        choice = _("{player} would keep all the dice and stop rolling.").format(player=who_plays)
    elif isinstance(action, Keep) and not action.dice:
        choice = _("{player} would keep no dice and roll them all again.").format(player=who_plays)
    else:
        choice = _("{player} would keep {dice} and roll the rest again.").format(
            player=who_plays, dice=" ".join(map(str, action.dice)))
    note = None if optimal else _("The optimal player's table for this game is not computed yet, so the greedy "
                                  "bot answers: it counts only this turn's points.")
    return {"dice": list(state.dice), "roll_number": state.roll_number, "action": str(action),
            "optimal": optimal, "position": position, "choice": choice, "note": note}
