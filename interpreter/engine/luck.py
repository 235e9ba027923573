"""Push your luck and how a game ends: a roll's bust, hot dice and effects, a keep's effects, the bank
decision, and `end` (now, round or last_turn) once `end_if` holds.

These are the slow paths of `GameState.apply`: a leaf takes them only when its step has such a rule
(`Leaf.luck`, a bank step), so models without them run exactly as before.
"""
from __future__ import annotations

from .actions import Action, RollOn, Stop
from ..model.errors import IllegalActionError
from .program import Leaf


class Luck:
    """GameState's push-your-luck steps and the end of the game."""

    __slots__ = ()

    # a roll ---------------------------------------------------------------------------------------
    def rolls_all(self, op: Leaf) -> bool:
        """Whether the roll due throws every die: a roll of all dice, or hot dice (every die set aside)."""
        return op.all_dice or (op.step.hot_dice and len(self.kept) >= self.model.n_dice)

    def _luck_draw(self, op: Leaf) -> tuple:
        """The draw table (cumulative weights, rolls, total) of a roll the plain path does not
        draw: hot dice (every die is rolled again), or the dice not kept of dice that differ."""
        if op.all_dice or (op.luck and self.rolls_all(op)):
            return self._t.draw[0]
        if self.kept and self._t.grouped:  # dice that differ: the groups' dice not kept
            _, cum, rolls, _, total = self._t.group_chance(self.kept)
            return cum, rolls, total
        return self._t.draw[len(self.kept)]

    def _apply_luck_roll(self, op: Leaf, action: Action) -> None:
        """A roll with a bust, hot dice or effects: the dice, then the bust (the turn ends, its turn
        counters lost), else the roll's effects and the end check, then on."""
        n = self.model.n_dice
        if self.rolls_all(op):
            faces = getattr(action, "faces", None)
            dice = faces if faces in self._t.valid[n] else self._check_roll(n, action)
            self.held = ()
        else:
            dice = self._rolled(op, action)
        self.dice, self.kept = dice, ()
        self.roll_number += 1
        step = op.step
        if step.bust is not None and step.bust(self._luck_context()):
            self._bust()
            return
        if step.effects:
            self._apply_effects(step, None, kept=(), held=self.held)
            if self._ends(self.player):
                return
        self._run(op.after)

    def _bust(self) -> None:
        """The turn ends at once: its turn counters go back to their start, its writes stay."""
        if self._turn_counters:
            mine = self.counter_values[self.player]
            for cid, start in self._turn_counters:
                mine[cid] = start
        pc, slots = self._t.turn_over
        for slot in slots:
            self._counters[slot] = 0
        self._run(pc)

    def _luck_context(self):
        """What a bust condition and a bank rule see: the dice, the dice set aside, the sheet and counters."""
        ctx = self.scorer.context(self.dice, self.sheets[self.player], None, self.roll_number,
                                  self.counters_of(self.player))
        ctx.held = self._t.faces_of(self.held)  # (dice that differ: held dice are codes of group and face)
        return ctx

    # a keep with effects --------------------------------------------------------------------------
    def _keep_effects(self, op: Leaf, kept: tuple[int, ...], held_before: tuple[int, ...]) -> bool:
        """A keep's effects (they read `aside`: the dice set aside at this keep); True when the
        game has ended."""
        self._apply_effects(op.step, None, kept=kept, held=held_before)
        return self._ends(self.player)

    # the bank decision ----------------------------------------------------------------------------
    def may_bank(self) -> bool:
        rule = self._op.step.allowed
        return rule is None or bool(rule(self._luck_context()))

    def _bank_options(self) -> list[Action]:
        return ([Stop()] if self.may_bank() else []) + [RollOn()]

    def _apply_bank(self, op: Leaf, action: Action) -> None:
        """Bank (Stop: the step's effects run, the innermost repeat ends) or roll on (the next step)."""
        if type(action) is RollOn:
            self._run(op.after)
            return
        if type(action) is not Stop:
            raise IllegalActionError("bank (stop) or roll on, not '{action}'", action=action)
        if not self.may_bank():
            raise IllegalActionError("you cannot bank now ({rule}): roll on", rule=op.step.rule or "")
        if op.step.effects:
            self._apply_effects(op.step, None, kept=self.held, held=self.held)
        if self._ends(self.player):
            return
        self._stop(op)

    # the end of the game --------------------------------------------------------------------------
    def _ends(self, player: int, box: str | None = None) -> bool:
        """The end check after a step's effects or a write: once `end_if` holds, the game ends now
        (True: the state is placed at the end), or at the end of the round or after every other
        player's last turn (`Model.end`: noted in `_ending`, False)."""
        end_if = self.model.end_if
        if end_if is None or self._ending is not None:
            return False
        ctx = self.scorer.context(self.dice, self.sheets[player], box, self.roll_number, self.counters_of(player))
        if not end_if(ctx):
            return False
        self.ended_by = player
        mode = self.model.end
        if mode == "now":
            self._run(self._t.end)
            return True
        self._ending = -1 if mode == "round" else self._n_players - 1
        return False

    def _last_turns(self, slot: int) -> bool:
        """At the end of a turn while the game is ending: whether it is over now (the round is done,
        or every other player has had their last turn)."""
        if self._ending == -1:
            return self._counters[slot] + 1 >= self._n_players
        if self._ending == 0:
            return True
        self._ending -= 1
        return False
