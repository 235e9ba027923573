"""Running the compiled phase tree: from one leaf step to the next, the end of a turn, rolls left and the round."""
from __future__ import annotations

from .acting import actors
from ..model.frozen import Step
from .program import Frame, Leaf, Loop, Start, Turns, WRITE, While

class Flow:
    """GameState's position in the program, and how it moves on."""

    __slots__ = ()

    def _run(self, pc: int) -> None:
        """Go on from instruction pc until a leaf step is due (or the game ends).

        Entering a container starts its passes at 0 (and a turn, for each_player); at its end it
        runs again while passes are left and some sheet has an open box. A repeat with a `while:`
        condition ends when the condition is false at the start of a pass.
        """
        program = self._program
        while True:
            op = program[pc]
            cls = type(op)
            if cls is Loop:
                counters = self._counters
                slot = op.slot
                n = counters[slot] + 1
                if n < op.times and not self._full:  # another pass
                    counters[slot] = n
                    if op.leaf is not None:
                        if op.turn_start:
                            self.player = 0
                            self._new_turn()
                            self._begin_at(op.leaf)
                        else:
                            self._op = op.leaf
                        return
                    pc = op.body
                else:
                    counters[slot] = 0
                    pc += 1
            elif cls is Leaf:
                self._op = op
                if op.kind is not WRITE:
                    return
                if op.shared:
                    self._queue = list(actors(op.step.by, self.player, self._n_players))
                    self._written = []
                    if self._ask_next(op):
                        return
                    done = self._finish_shared(op)
                    if done is None:
                        return
                    pc = done
                    continue
                self._at_write(op)
                return
            elif cls is Turns:
                counters = self._counters
                slot = op.slot
                if self._ending is not None and self._last_turns(slot):  # the game's last turn is over
                    pc = self._t.end
                    continue
                n = counters[slot] + 1
                if n < self._n_players and not self._full:  # the next player's turn
                    counters[slot] = n
                    self.player = n
                    self._new_turn()
                    if op.leaf is not None:
                        if op.turn_start:
                            self.player = 0
                        self._begin_at(op.leaf)
                        return
                    pc = op.body
                else:
                    counters[slot] = 0
                    pc += 1
            elif cls is Start:
                self.player = 0
                self._new_turn()
                if op.leaf is not None:
                    self._begin_at(op.leaf)
                    return
                pc += 1
            elif cls is While:
                if op.condition(self._context()):
                    pc += 1
                else:  # no more passes
                    self._counters[op.slot] = 0
                    pc = op.exit
            else:  # End
                self._op = None
                return

    def _at_write(self, op: Leaf) -> None:
        """Arriving at a write step the active player takes: some box must be able to take the dice."""
        self._options = None
        slot = op.plan_slot
        if slot is not None:  # a static plan (from the node of the dice, where it is known): some box of it must be open
            node = self._node
            found = (node[5][slot] if node[4] is self._dice else None) or self._t.static_plan(op, self._dice)
            if found is not None:
                self._plan, self._plan_bits = found
                acting = self.acting
                player = self.player if acting is None else acting
                sheet, mark = self.sheets[player], self._marks[player]  # (see `_filled`)
                if not found[1] & ~(mark[2] if mark[0] is sheet and mark[1] == len(sheet) else self._filled(player)):
                    self._no_box(op)
                return
        if not self._can_write(op):
            self._no_box(op)

    def _arrive(self, write) -> None:
        """Arriving at the write of a position (see positions.py) with the dice of its node: the position, if some
        box of its plan is open (else the general path: `_at_write`)."""
        player = self.player
        sheet, mark = self.sheets[player], self._marks[player]  # (see `_filled`)
        self._dice, self._options = write.dice, None
        if write.bits & ~(mark[2] if mark[0] is sheet and mark[1] == len(sheet) else self._filled(player)) \
                and self._ending is None:
            self._pos, self._op = write, write.op  # (its plan stays the position's: `_settle` sets the state's)
            return
        self._pos = None
        self._node, self._kept, self._roll_number, self._op = write.node, (), write.rn, write.op
        self._at_write(write.op)

    def _new_turn(self) -> None:
        """A turn begins: no dice, nothing kept or set aside, no roll made or box announced (no position yet)."""
        self._pos = None
        self._dice = self._kept = self.held = ()
        self._roll_number, self.announced = 0, None
        self.turns_begun += 1
        if self._turn_counters:
            self._turn_begins()

    def _begin_at(self, leaf: Leaf) -> None:
        """A turn's first leaf is due: with its position, where one covers it and the active player acts."""
        self._op = leaf
        self._pos = self._positions.start(leaf) if self.acting is None else None

    def _turn_begins(self) -> None:
        """A turn starts: the player's turn counters (`per: turn`) go back to their start values."""
        mine = self.counter_values[self.player]
        for cid, start in self._turn_counters:
            mine[cid] = start

    def _context(self):
        """What a condition of the flow (`while:`) sees: the dice, the sheet, the roll number and the
        announcement of this turn."""
        from ..model.dsl.compiler import Context
        scorer = self.scorer
        sheet = self.sheets[self.player]
        index = scorer._index.get(self.dice, 0)
        announced = self.announced
        target = self.model.targets.get(announced) if announced is not None else None
        return Context(self.dice, index, scorer._counts[index] if self.dice else (), scorer.view(sheet),
                       None, self.roll_number, announced=target.box if target else None,
                       announced_column=(target.column or "") if target else "", counters=self.counters_of(self.player))

    def _stop(self, op: Leaf) -> None:
        """Stop rolling: leave the innermost repeat."""
        pc, slots = op.stop
        counters = self._counters
        for slot in slots:
            counters[slot] = 0
        self._run(pc)

    def _all_filled(self) -> bool:
        """Every player's sheet is full: nothing more can be written."""
        n = self._n_boxes
        return n > 0 and all(len(s) == n for s in self.sheets)  # (a sheet of no boxes is never full)

    @property
    def stack(self) -> list[Frame]:
        """The position as frames: each container from the root down, its child due and its pass."""
        op = self._op
        if op is None:
            return []
        slots, counters = self._t.slots, self._counters
        return [Frame(c, i, counters[slots[c.id]]) for c, i in self._t.paths[op.pc]]

    def rolls_left(self) -> int:
        """How many more rolls the current player may make this turn (at most). A repeat with a
        `while:` condition runs its passes while the condition holds, the roll number counted on
        as the rolls before it are made (the dice, sheet and counters as they are now)."""
        left = 0
        stack = self.stack
        top = len(stack) - 1
        conditional = any(s.condition is not None for s in self.model.flow.walk())
        ctx = self._context() if conditional else None
        for depth in range(top, -1, -1):
            frame = stack[depth]
            rest = frame.step.steps[frame.index + (0 if depth == top else 1):]
            left += sum(_rolls_in(s, ctx) for s in rest)
            if frame.step.kind == "repeat":
                for _ in range((frame.step.times or frame.iteration + 1) - frame.iteration - 1):  # (unbounded: this pass)
                    if ctx is not None and frame.step.condition is not None and not frame.step.condition(ctx):
                        break
                    left += sum(_rolls_in(s, ctx) for s in frame.step.steps)
            if frame.step.kind == "each_player":
                break
        return left

    def round(self) -> tuple[int, int]:
        """(this round, how many rounds), from the innermost repeat around the players' turns.

        (1, 1) when the game is over or the model has no such repeat.
        """
        rounds = (1, 1)
        for frame in self.stack:
            if frame.step.kind == "each_player":
                break
            if frame.step.kind == "repeat":
                rounds = (frame.iteration + 1, frame.step.times or 0)  # (0: no fixed number of rounds)
        return rounds


def _rolls_in(step: Step, ctx=None) -> int:
    """The rolls a step makes (at most). With a context, a repeat's `while:` condition is checked
    before every pass, and `ctx.roll_number` counts on with the rolls made."""
    if step.kind == "roll":
        if ctx is not None:
            ctx.roll_number += 1
        return 1
    if step.kind == "repeat":
        if ctx is None:
            return (step.times or 1) * sum(_rolls_in(s) for s in step.steps)
        n = 0
        for _ in range(step.times or 1):
            if step.condition is not None and not step.condition(ctx):
                break
            n += sum(_rolls_in(s, ctx) for s in step.steps)
        return n
    return sum(_rolls_in(s, ctx) for s in step.steps)
