"""Rolling and keeping: the checks of a roll's result and of a keep that the fast paths of `GameState.apply` did not settle."""
from __future__ import annotations


from .actions import Action, Keep, Roll, Stop
from ..model.dice import canonical
from ..model.errors import IllegalActionError
from .program import Leaf, contains, multiset_of

class Keeping:
    """GameState's dice: a rolled result and a keep, checked against the rules."""

    __slots__ = ()

    @property
    def kept_faces(self) -> tuple[int, ...]:
        """The dice kept before the pending roll as the faces they show (with dice that differ, `kept`
        and `held` are codes of group and face: `_Tables.codes`)."""
        return self._t.faces_of(self.kept)

    def keep_of(self, kept: tuple[int, ...]) -> Keep:
        """The Keep action that keeps these dice (codes with dice that differ, else faces)."""
        return self._t.keep_action(kept)

    def faces_to_roll(self) -> tuple[int, ...]:
        """The faces of each die the pending roll throws, group after group (dice that differ: the
        groups' dice not kept), as a roll given die by die lists them."""
        m = self.model
        if not m.grouped:
            return (m.faces,) * self.dice_to_roll()
        left = [g.count for g in m.dice_groups]
        if not self._op.all_dice:
            for code in self.kept:
                left[(code - 1) // m.faces] -= 1
        return tuple(g.faces for n, g in zip(left, m.dice_groups) for _ in range(n))

    def _plain_keep_at(self, op: Leaf, action: Action) -> tuple | None:
        """A plain keep whose action the node of the dice did not hand out: what it does, as `Keep._at` says it
        ((the dice, the kept dice, the roll beside them) for a legal keep that leaves some die to roll); or
        None once it is taken the long way (stopping, keeping every die, or the error that says why not)."""
        try:
            keep = action.dice
            entry = self._keeps.get(self._dice) or self._t.keeps(self._dice)
            if keep in entry[3]:
                return self._dice, keep, self._after  # (the roll finds its node beside these kept dice)
            legal = keep in entry[2]
        except (AttributeError, TypeError):
            legal = False
        self._take_keep(op, keep if legal else self._check_keep(op, action))
        return None

    def _keep_grouped(self, op: Leaf, action: Action) -> None:
        """A keep of dice that differ (checked: IllegalActionError): the kept dice as codes."""
        self._take_keep(op, self._check_keep(op, action))

    def _take_keep(self, op: Leaf, keep: tuple[int, ...] | None) -> None:
        """Keep these (checked) dice and move on; keeping none where the step may stop, or every die, stops."""
        if keep is None or (op.can_stop and len(keep) == len(self.dice)):
            self._stop(op)  # keeping every die is stopping
            return
        self.kept = keep
        before = self.held
        if op.ruled and op.step.locked:
            self.held = keep
        if op.luck and self._keep_effects(op, keep, before):
            return  # the game has ended
        if op.next_leaf is not None:
            self._op = op.next_leaf
        else:
            self._run(op.after)

    def _dice_rolled(self, op: Leaf, after: tuple, action: Action) -> tuple[int, ...]:
        """The dice after a roll the fast path of `apply` did not settle: dice alike, a roll whose node in
        `after` (see `_Tables.after`) has not met yet (it joins the table, and is the state's node) or a
        Roll made elsewhere (its sorted faces looked up); dice that differ; or faces to check."""
        if self._all is not None:  # dice alike: the outcome with these faces, if they are a roll of the dice not kept
            try:
                i = self._t.faces_at[self.model.n_dice - len(after[0])].get(action.faces)
            except (AttributeError, TypeError, KeyError):
                i = None
            if i is not None:
                node = self._node = after[4][i] or self._t.node_after(after, action.faces)
                return node[4]
        try:  # dice that differ: a roll's faces, group after group, as sample_chance and chance_outcomes give them
            if op.all_dice:
                dice = action.faces
                if dice not in op.roll_all[0]:
                    dice = None
            else:
                dice = self._merge[self._kept].get(action.faces)
        except (AttributeError, TypeError, KeyError):
            dice = None
        return self._rolled(op, action) if dice is None else dice

    def _rolled(self, op: tuple, action: Action) -> tuple[int, ...]:
        """The dice after a roll given other than as sorted faces (checked: IllegalActionError)."""
        n = self.model.n_dice
        if op.all_dice:
            return self._check_roll(n, action)
        kept = self.kept
        if self._t.grouped:  # the groups' dice not kept, group after group, each group's faces sorted
            entry = self._t.group_chance(kept)
            left = [c for c, _ in self.model.groups]
            for code in kept:
                left[(code - 1) // self.model.faces] -= 1
            rolled = tuple((m, f) for m, (_, f) in zip(left, self.model.groups) if m > 0)
            try:
                faces = canonical(action.faces, rolled) if isinstance(action, Roll) else None
            except TypeError:
                faces = None
            if faces not in entry[3]:
                raise IllegalActionError("a roll of the dice {groups}, group after group, is due, not '{action}'",
                                         groups=", ".join(f"{m}×{g.id} (1 to {g.faces})" for m, g in
                                                          zip(left, self.model.dice_groups) if m > 0),
                                         action=action)
            return self._t.merge[kept][faces]
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
            keep = self._t.codes_of_keep(action) if self._t.grouped else tuple(sorted(action.dice))
        except TypeError:
            keep = None
        if keep not in self._t.keeps(self.dice)[2]:
            if self._t.grouped:
                raise IllegalActionError("you cannot keep {keep}: the dice are {dice}", keep=str(action)[5:],
                                         dice=str(self._t.keep_action(self._t.codes(self.dice)))[5:])
            raise IllegalActionError("you cannot keep {keep}: the dice are {dice}",
                                     keep=" ".join(map(str, action.dice)), dice=" ".join(map(str, self.dice)))
        if op.ruled and keep not in self._t.ruled_keeps(step, self.dice, self.held)[2]:
            if step.can_stop and len(keep) == len(self.dice):
                return keep  # keeping every die is stopping
            shown = str(self._t.keep_action(keep))[5:]
            if self.held and not contains(multiset_of(keep), multiset_of(self.held)):
                raise IllegalActionError("you cannot keep {keep}: the dice {held} were set aside and stay aside",
                                         keep=shown, held=str(self._t.keep_action(self.held))[5:])
            if step.rule:
                raise IllegalActionError("the rules do not let you keep {keep} now ({rule})", keep=shown, rule=step.rule)
            raise IllegalActionError("the rules do not let you keep {keep} now", keep=shown)
        return keep
