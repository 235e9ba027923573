"""Positions: where a state stands in a turn of plain rolls and keeps, interned once per model.

Within a turn of dice alike, between its first roll and its write, a state's position is one of few:
a plain roll due beside some kept dice (`RollAt`), or a plain keep due at the node of some dice
(`KeepAt`), each at a roll number. Each position holds what the hot calls of `GameState` need (the
draw table, the legal actions) and, once met, the position each action leads to. So in a turn such as
roll, keep, roll, keep, roll, write a move is a lookup: the state notes its position (`GameState._pos`) and derives the kept
dice and the roll number from it, instead of checking and storing them move by move.

Only the hot paths use positions. A state leaves them (`GameState._settle`: the fields are written
back) for anything else: a slow path, a stop, the write, or a field set by hand.
"""
from __future__ import annotations

from .instructions import Leaf


class RollAt:
    """A plain roll of dice alike due beside the kept dice `after[0]` (see `_Tables.after`), at roll number `rn`.

    `nexts[i]`: the keep position the i-th outcome leads to (None until met). `loop`, `times`: at the end
    of a repeat, its pass counter's slot and its passes (loop -1: the next leaf follows); `exit`: the write
    after the repeat, if one follows it."""

    __slots__ = ("op", "after", "kept", "cum", "rolls", "total", "rn", "legal", "nexts", "loop", "times", "exit", "cont")
    chance = True

    def __init__(self, op: Leaf, after: tuple, rn: int, cont: Leaf):
        self.op, self.after, self.kept, self.rn, self.cont = op, after, after[0], rn, cont
        self.cum, self.rolls, self.total = after[1], after[2], after[3]
        self.legal = list(self.rolls)
        self.nexts: list[KeepAt | None] = [None] * len(self.rolls)
        ends = op.next_leaf is None
        self.loop, self.times, self.exit = (op.loop.slot, op.loop.times, op.exit_write) if ends else (-1, 0, None)


class KeepAt:
    """A plain keep due at the node of the dice (see `_Tables.keeps`), at roll number `rn`.

    `nexts[j]`: the roll position the node's j-th keep leads to (None until met; False: the roll after it
    is not one a position covers)."""

    __slots__ = ("op", "node", "dice", "legal", "rn", "nexts")
    chance = False
    rolls = None
    kept = ()

    def __init__(self, op: Leaf, node: tuple, rn: int):
        self.op, self.node, self.dice, self.legal, self.rn = op, node, node[4], node[op.keep_slot], rn
        self.nexts: list[RollAt | bool | None] = [None] * len(node[1])


MOST = 16  # the most rolls in a turn that positions cover


def most_rolls(step) -> int:
    """The most rolls a step makes (a repeat without `times`: MOST)."""
    if step.kind == "roll":
        return 1
    inner = sum(most_rolls(s) for s in step.steps) if step.steps else 0
    return min(MOST, inner * (step.times or MOST)) if step.kind == "repeat" else min(MOST, inner)


def continues_to(op: Leaf) -> Leaf | None:
    """The plain keep a plain roll of dice alike goes on to (the next leaf, or the first of another pass
    of the repeat it ends); None where a position does not cover the roll."""
    if not op.plain_roll:
        return None
    cont = op.next_leaf if op.next_leaf is not None else op.loop.leaf if op.loop is not None else None
    return cont if cont is not None and cont.plain_keep else None


class Positions:
    """A model's positions, interned as play meets them (dice alike only)."""

    def __init__(self, tables):
        self._t = tables
        self._rolls: dict[tuple, RollAt] = {}
        self._keeps: dict[tuple, KeepAt] = {}
        self._starts: dict[int, RollAt | None] = {}
        # rolls at roll numbers below this have positions: the most rolls a turn makes, at most MOST (a repeat
        # without `times`, or a long one, plays on in the general path: the positions stay few)
        turn = next((s for s in tables.model.flow.walk() if s.kind == "each_player"), tables.model.flow)
        self.most = min(most_rolls(turn), MOST)

    def precompute(self) -> None:
        """Meet every position a turn can reach from the first roll of a turn (see `_Tables.precompute`)."""
        from .instructions import Loop, Start, Turns
        todo = [self.start(op.leaf) for op in self._t.program
                if type(op) in (Start, Loop, Turns) and op.leaf is not None and (type(op) is not Loop or op.turn_start)]
        seen = set()
        while todo:
            pos = todo.pop()
            if not pos or id(pos) in seen:
                continue
            seen.add(id(pos))
            if pos.chance:
                todo += [pos.nexts[i] or self.after_roll(pos, i) for i in range(len(pos.rolls))]
            else:
                for action in pos.node[1]:
                    at = getattr(action, "_at", None)
                    if at is not None and at[1] is not None:
                        todo.append(pos.nexts[at[3]] or self.after_keep(pos, at))

    def start(self, op: Leaf) -> RollAt | None:
        """The position of a turn's first roll at leaf `op` (nothing kept, roll number 0), if one covers it."""
        try:
            return self._starts[op.pc]
        except KeyError:
            pass
        cont = continues_to(op) if op.kind == 0 and not self._t.grouped else None  # (0: ROLL)
        found = self._starts[op.pc] = RollAt(op, self._t.after(()), 0, cont) if cont is not None else None
        return found

    def roll(self, op: Leaf, after: tuple, rn: int) -> RollAt | bool:
        """The position of the plain roll `op` beside `after[0]` at roll number rn (False: none covers it)."""
        key = (op.pc, id(after), rn)
        found = self._rolls.get(key)
        if found is None:
            cont = continues_to(op) if not op.all_dice and rn < self.most else None
            found = self._rolls[key] = RollAt(op, after, rn, cont) if cont is not None else False
        return found

    def keep(self, op: Leaf, node: tuple, rn: int) -> KeepAt:
        """The position of the plain keep `op` at the node of the dice, at roll number rn."""
        key = (op.pc, id(node), rn)
        found = self._keeps.get(key)
        if found is None:
            found = self._keeps[key] = KeepAt(op, node, rn)
        return found

    def after_roll(self, pos: RollAt, i: int) -> KeepAt:
        """Where the i-th outcome of the roll at `pos` leads (the keep it goes on to), noted in `pos.nexts`."""
        after = pos.after
        node = after[4][i] or self._t.node_after(after, pos.rolls[i].faces)
        found = pos.nexts[i] = self.keep(pos.cont, node, pos.rn + 1)
        return found

    def after_keep(self, pos: KeepAt, at: tuple) -> RollAt | bool:
        """Where a keep at `pos` leads (what the Keep's `_at` says it does), noted in `pos.nexts`; False where
        no position covers the roll after it (the general path takes it)."""
        op = pos.op.next_leaf
        found = pos.nexts[at[3]] = self.roll(op, at[2], pos.rn) if op is not None else False
        return found
