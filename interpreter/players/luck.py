"""Push your luck: how the greedy and strong players decide in a turn of no fixed length (a bank
decision, a roll that can bust, a repeat without `times`), where the turn planner's tables of a
fixed number of rolls do not apply.

Both look ahead through the engine itself (clones of the state, the exact chances of every roll),
so whatever the model's busts, effects, keep rules and hot dice say is what they weigh:
- `greedy`: at a bank decision, banking now against rolling once more and then banking (the
  expected final score of each); a keep is the one worth most if the player banked right after it.
- `strong`: the same, but a keep is weighed with the bank decision after it (rolling on included),
  and a game won by banking now is worth more than any points (it banks to win).

Values are memoized by what they depend on (the step, the dice, the dice set aside, the counters,
the sheet), so a turn state met again costs a lookup.
"""
from __future__ import annotations

from ..engine.actions import Action, Stop
from ..engine.state import GameState

WIN = 1e9  # what winning the game now is worth to the strong player, beyond its points


def pushes_luck(model) -> bool:
    """Whether a turn of the model has no fixed length: a bank step, a bust, or a repeat without
    `times` inside a turn (the turn planner's tables need a fixed number of rolls)."""
    found = model.__dict__.get("_pushes_luck")
    if found is None:
        turn = next((s for s in model.flow.walk() if s.kind == "each_player"), None)
        found = turn is not None and any(s.kind == "bank" or s.bust is not None or (s.kind == "repeat" and s.times is None)
                                         for s in turn.walk())
        model.__dict__["_pushes_luck"] = found
    return found


class LuckPlanner:
    """Decisions of a turn of no fixed length by looking ahead `depth` rolls (see the module)."""

    def __init__(self, keep_depth: int, bank_depth: int, wins: bool):
        self.keep_depth, self.bank_depth, self.wins = keep_depth, bank_depth, wins
        self._memo: dict = {}

    def choose(self, state: GameState, write_now) -> Action:
        step = state.step()
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if step.kind == "write":
            return write_now(state)
        p = state.actor
        depth = self.bank_depth if step.kind == "bank" else self.keep_depth
        best, best_value = legal[0], None
        for action in legal:
            trial = state.clone()
            trial.apply(action)
            v = self._settle(trial, p, state.turns_begun, depth - 1 if step.kind == "bank" and type(action) is not Stop
                             else depth, write_now)
            if best_value is None or v > best_value + 1e-9:
                best, best_value = action, v
        return best

    # the value of a state to player p, once their turn is over (or at the look-ahead's horizon) --------------
    def value(self, state: GameState, p: int) -> float:
        score = state.final_scores()[p][0]
        v = float(-score if state.model.winner == "lowest_total" else score)
        if self.wins and state.is_terminal():
            ranking = state.ranking()
            if ranking[0][1] == state.players[p] and (len(ranking) == 1 or ranking[1][0] > 1):
                v += WIN
        return v

    def _settle(self, state: GameState, p: int, turn: int, depth: int, write_now) -> float:
        """The expected value to p of playing on from `state` to the end of p's turn: at a bank
        decision with no look-ahead left, banking (where it may); otherwise the better of banking
        and rolling on; at a keep, the best keep; at a roll, every outcome with its chance."""
        if state.is_terminal() or state.turns_begun != turn or state.actor != p and not state.is_chance_node():
            return self.value(state, p)
        key = self._key(state, p, depth, self.wins)
        found = self._memo.get(key)
        if found is not None:
            return found
        if state.is_chance_node():
            v = 0.0
            for roll, chance in state.chance_outcomes():
                trial = state.clone()
                trial.apply(roll)
                v += chance * self._settle(trial, p, turn, depth, write_now)
        else:
            step = state.step()
            legal = state.legal_actions()
            if step.kind == "write":
                legal = [write_now(state)]
            elif step.kind == "bank" and depth <= 0:
                legal = [a for a in legal if type(a) is Stop] or legal[:1]  # no look-ahead left: bank (where allowed)
            v = None
            for action in legal:
                trial = state.clone()
                trial.apply(action)
                w = self._settle(trial, p, turn, depth - 1 if step.kind == "bank" and type(action) is not Stop else depth,
                                 write_now)
                v = w if v is None else max(v, w)
        if len(self._memo) > 500_000:
            self._memo.clear()
        self._memo[key] = v
        return v

    @staticmethod
    def _key(state: GameState, p: int, depth: int, wins: bool):
        op = state._op
        counters = state.counter_values if wins else (state.counter_values[p],)
        return (id(state.model), op.pc, () if state.is_chance_node() else state.dice, state.kept, state.held, depth,
                state.actor, tuple(tuple(sorted(c.items())) for c in counters), tuple(sorted(state.game_counters.items())),
                tuple(sorted(state.sheets[p].items())) if state.model.cells else (), state._ending)
