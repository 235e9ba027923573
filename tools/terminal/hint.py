"""`hint` while playing: what the strongest available computer player would do, and why."""
from __future__ import annotations

from ...interpreter.players.registry import GreedyBot
from ...interpreter.players.base import PlannerBot
from ...interpreter.engine.state import GameState
from ..i18n import number


def hint_bot(state: GameState) -> tuple[PlannerBot, bool]:
    """The optimal bot where the model can be solved, else the greedy one; (bot, is_optimal)."""
    from ...interpreter.model.errors import RulebookError
    try:
        from ...interpreter.players.optimal import OptimalBot
        from ...interpreter.solver.space import Space
        from ..progress import progress_bar
        Space(state.model)  # refuses an unsolvable model before any work
        with progress_bar("…") as update:
            return OptimalBot(state.model, update), True
    except (ImportError, RulebookError):
        return GreedyBot(), False


def hint_lines(state: GameState, view, top: int = 3) -> list[str]:
    bot, optimal = hint_bot(state)
    step = state.step()
    base = sum(state.sheets[state.player].values()) + sum(state.awards[state.player].values()) if optimal else 0
    if step.kind == "announce":
        values = bot.announce_values(state)
        ranked = sorted(values.items(), key=lambda kv: -kv[1])[:top]
        labels = [(view._("announce {box}", box=view.box_name(state, a.box)) if a.box else view._("announce nothing"), v)
                  for a, v in ranked]
    elif step.kind == "write":
        values = bot.write_values(state)
        ranked = sorted(values.items(), key=lambda kv: -kv[1])[:top]
        labels = [(view.box_name(state, b), v) for b, v in ranked]
    else:
        values = bot.keep_values(state)
        ranked = sorted(values.items(), key=lambda kv: (-kv[1], -len(kv[0])))[:top]
        labels = []
        for k, v in ranked:
            if len(k) == len(state.dice):
                labels.append((view._("stop"), v))
            else:  # (with dice that differ, k names each die's group: 'white:3 red:2')
                shown = str(state.keep_of(k))[5:] if k else ""
                labels.append((view._("keep {dice}", dice=shown or "–"), v))
    what = view._("expected final score") if optimal else view._("expected points this turn")
    lines = [view._("Hint ({what}):", what=what)]
    for label, v in labels:
        lines.append(f"  {label:<24} {number(base + v, view.lang, 2):>8}")
    return lines
