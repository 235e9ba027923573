"""Positions: where a state stands in a turn of plain rolls, keeps and its write, interned once per model.

Within a turn of dice alike, from its first roll to its write, a state's position is one of few: a
plain roll due beside some kept dice, a plain keep due at the node of some dice, or the write that
ends the turn with the dice of a node, each at a roll number (`Position`). Each position holds what
the hot calls of `GameState` need (the draw table, the legal actions, the write plan) and, once met,
the position each action leads to. So in a turn such as roll, keep, roll, keep, roll, write, a move
is a lookup: the state notes its position (`GameState._pos`) and derives the kept dice and the roll
number from it, instead of checking and storing them move by move.

A turn has positions only where its active player acts (`GameState.acting` is None) and no sheet is
full. Only the hot paths use positions. A state leaves them (`GameState._settle`: the fields are
written back) for anything else: a slow path, a move that is refused, or a field set by hand.
"""
from __future__ import annotations

from .instructions import ROLL, WRITE, Leaf, Loop, Start, Turns


class Position:
    """A plain roll, keep or write due in a turn of dice alike, at roll number `rn` (rolls made this turn).

    A roll (`chance`): beside the kept dice `after[0]` (see `_Tables.after`), with its draw table and
    outcomes (`index`: their positions by sorted faces); `nexts[i]` is the keep position the i-th outcome
    leads to (None until met), `cont` that keep's leaf. At the end of a repeat, `loop` and `times` are its pass counter's slot and its passes (loop -1: the
    next leaf follows), `exit` the write after the repeat if one follows it, and `writes[i]` the write position
    the i-th outcome leads to when no pass is left (None until met; False: the general path takes it).

    A keep: at the node of the dice (see `_Tables.keeps`); `nexts` maps the id of each of the node's keeps
    (`Keep._at[3]`) to the roll position it leads to, and -1 to the write position stopping leads to (None
    until met; False: the general path takes it, as for a roll no position covers, or a stop where the step
    may not stop).

    A write (`plan` is not None): a write step one player takes that ends the turn (`Leaf.next_turn`), with
    the static plan of the node's dice (`_Tables.static_plan`: `plan` and its mask `bits`). The legal writes and a
    write into an open box of the plan (`Writing._put`) read it from the position; leaving it sets the state's (`_settle`).

    One class for all three, so that every attribute the hot paths read is a slot of one type."""

    __slots__ = ("op", "chance", "rn", "kept", "legal", "nexts", "after", "cum", "rolls", "total", "loop", "times",
                 "exit", "writes", "cont", "node", "dice", "plan", "bits", "index")

    def __init__(self, op: Leaf, rn: int, node: tuple | None = None):
        self.op, self.rn, self.node, self.dice = op, rn, node, None if node is None else node[4]
        self.chance, self.kept, self.legal, self.nexts, self.writes, self.loop, self.times = False, (), None, None, None, -1, 0
        self.after = self.cum = self.rolls = self.total = self.exit = self.cont = self.plan = self.bits = None
        self.index = None

    @classmethod
    def roll(cls, op: Leaf, after: tuple, rn: int, cont: Leaf, index: dict) -> "Position":
        pos = cls(op, rn)
        pos.index = index
        pos.chance, pos.kept, pos.after, pos.cont = True, after[0], after, cont
        pos.cum, pos.rolls, pos.total = after[1], after[2], after[3]
        pos.legal = list(pos.rolls)
        pos.nexts = [None] * len(pos.rolls)
        if op.next_leaf is None:
            pos.loop, pos.times, pos.exit = op.loop.slot, op.loop.times, op.exit_write
            pos.writes = [None if pos.exit is not None else False] * len(pos.rolls)
        return pos

    @classmethod
    def keep(cls, op: Leaf, node: tuple, rn: int) -> "Position":
        pos = cls(op, rn, node)
        pos.legal = node[op.keep_slot]
        pos.nexts = dict.fromkeys(node[6])  # (by the id of a keep of the node, -1: stopping)
        pos.nexts[-1] = None if op.can_stop else False
        return pos

    @classmethod
    def write(cls, op: Leaf, node: tuple, rn: int, plan: tuple[dict, int]) -> "Position":
        pos = cls(op, rn, node)
        pos.plan, pos.bits = plan
        return pos


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
        self._rolls: dict[tuple, Position] = {}
        self._keeps: dict[tuple, Position] = {}
        self._writes: dict[tuple, Position | bool] = {}
        self._starts: dict[int, Position | None] = {}
        # rolls at roll numbers below this have positions: the most rolls a turn makes, at most MOST (a repeat
        # without `times`, or a long one, plays on in the general path: the positions stay few)
        turn = next((s for s in tables.model.flow.walk() if s.kind == "each_player"), tables.model.flow)
        self.most = min(most_rolls(turn), MOST)

    def precompute(self) -> None:
        """Meet every position a turn can reach from the first roll of a turn (see `_Tables.precompute`)."""
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
                if pos.exit is not None:
                    todo += [pos.writes[i] or self.exit_write(pos, i) for i in range(len(pos.rolls))]
            elif pos.plan is None:
                for action in pos.node[1]:
                    at = getattr(action, "_at", None)
                    if at is not None and at[1] is not None and at[3] in pos.nexts:  # (the node's short keeps)
                        todo.append(pos.nexts[at[3]] or self.after_keep(pos, at))
                if pos.op.can_stop:
                    todo.append(pos.nexts[-1] or self.stop_write(pos))

    def start(self, op: Leaf) -> Position | None:
        """The position of a turn's first roll at leaf `op` (nothing kept, roll number 0), if one covers it."""
        try:
            return self._starts[op.pc]
        except KeyError:
            pass
        cont = continues_to(op) if op.kind == ROLL and not self._t.grouped else None
        found = self._starts[op.pc] = Position.roll(op, self._t.after(()), 0, cont, self._t.faces_at[self._t.model.n_dice]) if cont is not None else None
        return found

    def roll(self, op: Leaf, after: tuple, rn: int) -> Position | bool:
        """The position of the plain roll `op` beside `after[0]` at roll number rn (False: none covers it)."""
        key = (op.pc, id(after), rn)
        found = self._rolls.get(key)
        if found is None:
            cont = continues_to(op) if not op.all_dice and rn < self.most else None
            found = self._rolls[key] = Position.roll(op, after, rn, cont, self._t.faces_at[self._t.model.n_dice - len(after[0])]) if cont is not None else False
        return found

    def keep(self, op: Leaf, node: tuple, rn: int) -> Position:
        """The position of the plain keep `op` at the node of the dice, at roll number rn."""
        key = (op.pc, id(node), rn)
        found = self._keeps.get(key)
        if found is None:
            found = self._keeps[key] = Position.keep(op, node, rn)
        return found

    def after_roll(self, pos: Position, i: int) -> Position:
        """Where the i-th outcome of the roll at `pos` leads (the keep it goes on to), noted in `pos.nexts`."""
        after = pos.after
        node = after[4][i] or self._t.node_after(after, pos.rolls[i].faces)
        found = pos.nexts[i] = self.keep(pos.cont, node, pos.rn + 1)
        return found

    def after_keep(self, pos: Position, at: tuple) -> Position | bool:
        """Where a keep at `pos` leads (what the Keep's `_at` says it does), noted in `pos.nexts`; False where
        no position covers the roll after it (the general path takes it)."""
        op = pos.op.next_leaf
        found = pos.nexts[at[3]] = self.roll(op, at[2], pos.rn) if op is not None else False
        return found

    def write(self, op: Leaf, node: tuple, rn: int) -> Position | bool:
        """The position of the write leaf `op` with the dice of `node` at roll number rn (False: none covers it:
        a write with effects, an end check, several players or a choice to pass, one that does not end the
        turn, or dice whose plan reads the sheet)."""
        key = (op.pc, id(node), rn)
        found = self._writes.get(key)
        if found is None:
            plan = None
            if op.plain_write and op.next_turn is not None and op.plan_slot is not None and self._t.simple:
                self._t.scorer.write_plan(node[4], {}, rn, op.step)  # (built, if play has not met it yet)
                plan = self._t.static_plan(op, node[4])
            found = self._writes[key] = Position.write(op, node, rn, plan) if plan is not None else False
        return found

    def exit_write(self, pos: Position, i: int) -> Position | bool:
        """Where the i-th outcome of the roll at `pos` leads when no pass of its repeat is left, noted in `pos.writes`."""
        keep = pos.nexts[i] or self.after_roll(pos, i)
        found = pos.writes[i] = self.write(pos.exit, keep.node, pos.rn + 1)
        return found

    def stop_write(self, pos: Position) -> Position | bool:
        """Where stopping at the keep `pos` leads (the write stopping goes on to), noted as `pos.nexts[-1]`."""
        op = self._t.program[pos.op.stop[0]]
        found = pos.nexts[-1] = self.write(op, pos.node, pos.rn) if type(op) is Leaf and op.kind == WRITE else False
        return found
