"""The play-to-win player where the whole game is solved exactly (`solver/jointtable.py`).

For a game the expected-score solver cannot read (no fixed length: a bank, a bust, a repeat without
`times`; counters that outlive a turn; an `end_if`), the `win` seat plays from the exact chances to
win of every joint state of the game for the players at the table, found once per model, options and
number of players (as `solve MODEL --objective win` finds them). At each of its decisions it takes the
move whose successor has the highest chance to win for it, the first of the engine's legal moves
among equals (the value iteration's own choice). The table is made at the seat's first decision, or
before the games by `prepare` (so that a refusal comes first, in one line, and progress is shown).

A position the walk never met (an opponent that did not take a move winning at once, which the walk
cuts short) is played by the greedy player; `stand_ins` counts those decisions.
"""
from __future__ import annotations

from ..engine.actions import Action
from ..engine.state import GameState
from ..model.frozen import Model
from ..model.limits import limits
from ..model.errors import Number
from ..solver.abstraction import NotSolvable
from ..solver.jointtable import JointTable, best_index, joint_table
from .greedy import GreedyBot


class ExactWinBot:
    """Plays the exact joint solve's best move (see the module's text)."""

    def __init__(self, model: Model, players: int | None = None, progress=None):
        self.model = model
        self.table: JointTable | None = None
        self.stand_ins = 0
        self._greedy = None
        if players is not None:
            self.table = prepare(model, players, progress)

    def choose(self, state: GameState) -> Action:
        if self.table is None or self.table.players != len(state.players):
            self.table = prepare(self.model, len(state.players))
        chances = self.table.move_chances(state)
        if chances is None:
            self.stand_ins += 1
            if self._greedy is None:
                self._greedy = GreedyBot()
            return self._greedy.choose(state)
        return state.legal_actions()[best_index(chances)]


def prepare(model: Model, players: int, progress=None, max_states: int | None = None) -> JointTable:
    """The game solved for `players` players; NotSolvable in one line if its joint states are beyond the
    limit (`max_states`, default `--limit joint_states`)."""
    cap = max_states if max_states is not None else limits().joint_states
    try:
        return joint_table(model, players, progress, cap)
    except NotSolvable as exc:
        if "joint_states" not in str(getattr(exc, "hint_msg", "") or ""):
            raise
        raise NotSolvable("the play-to-win player needs the exact chances of the whole game for {players} players, "
                          "and it has more than {limit} states, the limit; play it with the greedy or strong player",
                          model.flow.pos, exc.hint_msg, players=players, limit=Number(cap)) from None
