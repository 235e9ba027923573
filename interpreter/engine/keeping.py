"""Rolling and keeping: the checks of a roll's result and of a keep that the fast paths of `GameState.apply` did not settle."""
from __future__ import annotations


from .actions import Action, Keep, Roll, Stop
from ..model.dice import canonical
from ..model.errors import IllegalActionError
from .program import Leaf, contains, multiset_of

class Keeping:
    """GameState's dice: a rolled result and a keep, checked against the rules."""

    def _rolled(self, op: tuple, action: Action) -> tuple[int, ...]:
        """The dice after a roll given other than as sorted faces (checked: IllegalActionError)."""
        n = self.model.n_dice
        if op.all_dice:
            return self._check_roll(n, action)
        kept = self.kept
        return self._t.merged(kept, self._check_roll(n - len(kept), action))

    def _check_roll(self, m: int, action: Action) -> tuple[int, ...]:
        """The sorted faces of a roll of m dice; or why it is wrong."""
        try:
            if not isinstance(action, Roll):
                faces = None
            elif self.model.grouped and m == self.model.n_dice:  # each group's faces sorted, group after group
                faces = canonical(action.faces, self.model.groups)
            else:
                faces = tuple(sorted(action.faces))
        except TypeError:
            faces = None
        if faces in self._t.valid[m]:
            return faces
        if self.model.grouped:
            raise IllegalActionError("a roll of the dice {groups}, group after group, is due, not '{action}'",
                                     groups=", ".join(f"{g.count}×{g.id} (1 to {g.faces})" for g in self.model.dice_groups),
                                     action=action)
        raise IllegalActionError("a roll of {count} dice with faces 1 to {faces} is due, not '{action}'",
                                 count=m, faces=self.model.faces, action=action)

    def _check_keep(self, op: Leaf, action: Action) -> tuple[int, ...] | None:
        """The dice to keep (None: stop) for an action that is not a keep of sorted dice; or why it is wrong."""
        step = op.step
        if type(action) is Stop:
            if not step.can_stop:
                raise IllegalActionError("you cannot stop at '{step}'", step=step.name)
            return None
        if not isinstance(action, Keep):
            raise IllegalActionError("choose dice to keep or stop, not '{action}'" if step.can_stop
                                     else "choose dice to keep, not '{action}'", action=action)
        try:
            keep = tuple(sorted(action.dice))
        except TypeError:
            keep = None
        if keep not in self._t.keeps(self.dice)[2]:
            raise IllegalActionError("you cannot keep {keep}: the dice are {dice}",
                                     keep=" ".join(map(str, action.dice)), dice=" ".join(map(str, self.dice)))
        if op.ruled and keep not in self._t.ruled_keeps(step, self.dice, self.held)[2]:
            if step.can_stop and len(keep) == len(self.dice):
                return keep  # keeping every die is stopping
            shown = " ".join(map(str, keep)) if keep else "none"
            if self.held and not contains(multiset_of(keep), multiset_of(self.held)):
                raise IllegalActionError("you cannot keep {keep}: the dice {held} were set aside and stay aside",
                                         keep=shown, held=" ".join(map(str, self.held)))
            if step.rule:
                raise IllegalActionError("the rules do not let you keep {keep} now ({rule})", keep=shown, rule=step.rule)
            raise IllegalActionError("the rules do not let you keep {keep} now", keep=shown)
        return keep
