"""Hints: the best few decisions for the player to move, by the optimal bot where the model is solved,
else by the greedy one."""
from __future__ import annotations

from typing import Any

from ...interpreter.engine.actions import Stop, Write
from ...interpreter.players.registry import GreedyBot
from ...interpreter.model.errors import RulebookError
from ...interpreter.engine.state import GameState
from .solving import is_solved

def compute_hint(state: GameState, top: int = 3) -> dict[str, Any]:
    """The best few decisions for the player to move, by the optimal bot where solved, else greedy."""
    bot, optimal = GreedyBot(), False
    if is_solved(state.model):
        try:
            from ...interpreter.players.optimal import OptimalBot
            bot, optimal = OptimalBot(state.model), True
        except (ImportError, RulebookError):
            pass
    step = state.step()
    base = (sum(state.sheets[state.player].values()) + sum(state.awards[state.player].values())) if optimal else 0
    options = []
    if step.kind == "write":
        values = bot.write_values(state)
        for box, v in sorted(values.items(), key=lambda kv: -kv[1])[:top]:
            options.append({"action": str(Write(box)), "type": "write", "box": box, "value": round(base + v, 2)})
    elif step.kind == "announce":
        values = bot.announce_values(state)
        for action, v in sorted(values.items(), key=lambda kv: -kv[1])[:top]:
            options.append({"action": str(action), "type": "announce", "box": action.box, "value": round(base + v, 2)})
    else:
        values = bot.keep_values(state)
        for k, v in sorted(values.items(), key=lambda kv: (-kv[1], -len(kv[0])))[:top]:
            keep = state.keep_of(k)  # (with dice that differ, k names each die's group: a code)
            if len(k) == len(state.dice):
                action = Stop() if step.can_stop else keep
                options.append({"action": str(action), "type": "stop" if step.can_stop else "keep",
                                "dice": list(keep.dice), "value": round(base + v, 2)})
            else:
                options.append({"action": str(keep), "type": "keep", "dice": list(keep.dice), "value": round(base + v, 2)})
    return {"optimal": optimal, "options": options}
