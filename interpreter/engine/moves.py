"""A move: `GameState.apply`, with its fast paths for a plain roll, keep and write (a position's: positions.py;
and without one, a plain roll and keep), the other cases going to the mixins that check them: keeping.py,
writing.py, luck.py."""
from __future__ import annotations

from .actions import Action, Stop
from ..model.errors import IllegalActionError
from .program import ANNOUNCE, KEEP, ROLL, WRITE

NO_NODE = (None,) * 7  # no node yet (see `_Tables.keeps`, `_Tables.after`): its [0] and [4] match no dice


class Moves:
    """GameState.apply."""

    __slots__ = ()

    def apply(self, action: Action) -> None:
        """Carry out a decision or a chance outcome; IllegalActionError if the rules forbid it."""
        pos = self._pos
        if pos is not None:  # a plain roll, keep or write with a position (see positions.py): the next one, if known
            if pos.chance:
                try:  # a roll the tables handed out, or one with the same sorted faces
                    i = action._i
                    if pos.rolls[i] is not action:
                        i = pos.index[action.faces]
                except (AttributeError, TypeError, IndexError, KeyError):
                    i = -1
                if i >= 0:
                    nxt = pos.nexts[i] or self._positions.after_roll(pos, i)
                    loop = pos.loop
                    if loop >= 0:  # the end of a repeat: another pass (no sheet is full within a position)
                        counters = self._counters
                        n = counters[loop] + 1
                        if n >= pos.times:  # no pass left: the write after the repeat, if it has a position
                            write = pos.writes[i]
                            if write is None:
                                write = self._positions.exit_write(pos, i)
                            if write:
                                counters[loop] = 0
                                self._arrive(write)
                                return
                            self._pos = None  # else the dice and roll number as fields, and on (as the general path)
                            node = nxt.node
                            self._dice, self._node, self._kept, self._roll_number = node[4], node, (), nxt.rn
                            write = pos.exit
                            if write is not None:
                                counters[loop] = 0
                                self._op = write
                                self._at_write(write)
                            else:
                                self._run(pos.op.after)
                            return
                        counters[loop] = n
                    self._pos, self._op, self._dice = nxt, nxt.op, nxt.dice
                    return
            elif pos.plan is None:
                try:  # a keep or Stop the tables handed out, by its id among the node's (see `_Tables.keeps`)
                    at = action._at
                    nxt = pos.nexts[at[3]] if at[0] is self._t else False
                except (AttributeError, KeyError):  # (made elsewhere, or not a keep of these dice)
                    nxt = False
                if not nxt:  # not met yet (None), or not an action of the node (False)
                    if nxt is None:
                        nxt = self._positions.after_keep(pos, at) if at[1] is not None else self._positions.stop_write(pos)
                    elif type(action) is Stop:  # (a Stop made elsewhere: as the node's own)
                        nxt = pos.nexts[-1]
                        if nxt is None:
                            nxt = self._positions.stop_write(pos)
                if nxt:
                    if nxt.chance:
                        self._pos, self._op = nxt, nxt.op
                        return
                    counters = self._counters  # stopping: the repeats it leaves end (as `_stop`), then the write
                    for slot in pos.op.stop[1]:
                        counters[slot] = 0
                    self._arrive(nxt)
                    return
            else:  # a write into an open box of the position's plan (set on arriving: `_arrive`); others: the general path
                player = self.player
                sheet = self.sheets[player]
                try:
                    box = action.box
                    option = None if box in sheet else pos.plan[box]
                except (AttributeError, KeyError, TypeError):
                    option = None
                if option is not None:
                    self._put(pos.op, player, sheet, box, option)
                    return
            self._settle()  # anything else: the general path
        op = self._op
        try:
            kind = op.kind
        except AttributeError:  # (no step is due)
            raise IllegalActionError("the game is over") from None
        if kind is WRITE:  # (first: in a turn with positions, the one step that takes this path)
            if not op.plain_write and type(action) is Stop and op.step.optional:
                if not self._may_pass(op):
                    raise IllegalActionError("you cannot pass at '{step}' now: write the dice into a box", step=op.step.name)
                self._next_actor(op)
            else:
                self._apply_write(op, action)
        elif op.plain_roll:  # a roll without a bust, hot dice or effects
            if op.all_dice:  # the node the roll leads to, if the table has met it (dice alike)
                after = self._all
            else:
                after = self._after
                if after[0] is not self._kept:
                    after = self._after = self._t.after(self._kept) if self._all is not None else NO_NODE
            try:  # a roll the tables handed out: its node by its index (the roll must be that outcome itself)
                i = action._i
                node = after[4][i] if after[2][i] is action else None
            except (AttributeError, TypeError, IndexError):
                node = None
            if node is not None:
                self._node = node
                self._dice = node[4]
            else:
                self._dice = self._dice_rolled(op, after, action)
            self._kept = ()
            if op.all_dice:  # every die is rolled again: none stays set aside
                self.held = ()
            self._roll_number += 1
            nxt = op.next_leaf
            if nxt is not None:
                self._op = nxt
                return
            loop = op.loop
            if loop is not None:  # the end of a repeat: another pass, if one is left (as _run would do)
                counters = self._counters
                n = counters[loop.slot] + 1
                if n < loop.times and not self._full:
                    counters[loop.slot] = n
                    self._op = loop.leaf
                    return
                write = op.exit_write
                if write is not None:  # no pass left: the write after the repeat (as _run would go on)
                    counters[loop.slot] = 0
                    self._op = write
                    self._at_write(write)
                    return
            self._run(op.after)
        elif op.plain_keep:  # a keep checked against the keeps of the roll alone
            try:  # an action the tables handed out: it says what it does (see `_Tables.keeps`)
                at = action._at
            except AttributeError:
                at = NO_NODE
            node = self._node
            if at[0] is not self._t or node[4] is not self._dice or at[3] not in node[6]:
                at = self._plain_keep_at(op, action)  # made elsewhere, or not a keep of these dice: by its dice
                if at is None:
                    return
            kept = at[1]
            if kept is None:  # stop
                if op.can_stop:
                    self._stop(op)
                else:
                    self._plain_keep_at(op, action)  # (refused: this keep may not stop)
                return
            self._kept, self._after = kept, at[2]  # a legal keep that leaves some die to roll
            nxt = op.next_leaf
            if nxt is not None:
                self._op = nxt
            else:
                self._run(op.after)
        elif kind is ROLL:  # a roll with a bust, hot dice or effects
            self._apply_luck_roll(op, action)
        elif kind is KEEP:
            if self._t.grouped:  # dice that differ: the kept dice as codes (group and face)
                self._keep_grouped(op, action)
            else:
                try:
                    keep = action.dice
                    legal = keep in self._t.ruled_keeps(op.step, self._dice, self.held)[2] if op.ruled else \
                        keep in (self._keeps.get(self._dice) or self._t.keeps(self._dice))[2]
                except (AttributeError, TypeError):
                    legal = False
                self._take_keep(op, keep if legal else self._check_keep(op, action))
        elif kind is ANNOUNCE:
            self._apply_announce(op, action)
        else:
            self._apply_bank(op, action)
