"""Writing into the sheet and announcing: legal targets, a write with its bonuses and effects, who writes next on a shared roll, scratching."""
from __future__ import annotations

from .actions import Action, Announce, Write
from ..model.errors import IllegalActionError, ModelError, did_you_mean
from ..model.frozen import Step
from ..model.scoring import Choice, Option
from .program import Leaf, WRITE

class Writing:
    """GameState's writes and announcements."""

    __slots__ = ()

    def write_choices(self) -> list[Choice]:
        """The boxes the current dice may be written into, with their points and bonus."""
        op = self._op
        if op is None or op.kind is not WRITE:
            return []
        return [c for c, _ in self._write_options().values()]

    def _apply_write(self, op: Leaf, action: Action) -> None:
        """A write by the general path (see `GameState.apply`): checked against the plan or the write options."""
        acting = self.acting
        player = self.player if acting is None else acting
        sheet = self.sheets[player]
        plan = self._plan
        try:
            box = action.box
            option = (None if box in sheet else plan[box]) if plan is not None else self._write_options()[box]
        except (AttributeError, KeyError, TypeError):  # not a write of a box the dice may go into: checked below
            option = None
        if option is None:
            box = self._check_write(op.step, action)
            option = self._write_options()[box]
        self._put(op, player, sheet, box, option)

    def _put(self, op: Leaf, player: int, sheet: dict, box: str, option: Option) -> None:
        """Write a checked option into the player's sheet, then what follows the write: its bonuses, effects and
        end check, and the next player, turn or round."""
        choice, parts = option
        if parts:
            awards = self.awards[player]
            for bonus_id, points in parts:
                awards[bonus_id] = awards.get(bonus_id, 0) + points
        if self._simple:
            cell = box
            sheet[cell] = choice.points
            size = len(sheet)
            mark = self._marks[player]  # (the mask of filled boxes, kept up to date: see `_filled`)
            if mark[0] is sheet and mark[1] == size - 1:
                self._marks[player] = (sheet, size, mark[2] | self._t.bit[cell])
        else:
            cell = self.scorer.next_cell(box, sheet)
            sheet[cell] = choice.points
            size = len(sheet)
        self.last_cell = cell
        if size == self._n_boxes:
            self._full = self._all_filled()
        if not op.plain_write:  # (plain: no effects, no end check)
            if op.shared:  # effects and the end check after the last player
                self._written.append((player, box))
                self._next_actor(op)
                return
            if op.effects:
                self._apply_effects(op.step, box)
            if self.model.end_if is not None and self._ends(player, box):
                return
        next_turn = op.next_turn
        if next_turn is None or self._ending is not None:  # (a save may carry a game's end)
            self._run(op.after)
            return
        # the write ends a turn (`Leaf.next_turn`): the next player's turn, else the next round, else on after
        # the repeat of rounds (what `_run` does through the end of the each_player and of the repeat)
        turns, rounds, times, leaf, round_leaf, exit_pc, start, round_start = next_turn
        counters = self._counters
        n = counters[turns] + 1
        if n < self._n_players and not self._full:
            counters[turns] = n
            self.player = n
        else:
            counters[turns] = 0
            n = counters[rounds] + 1
            if n >= times or self._full:
                counters[rounds] = 0
                if self._pos is not None:  # (the write had a position: the fields say the last turn's dice)
                    self._settle()
                self._run(exit_pc)
                return
            counters[rounds] = n
            self.player = 0
            leaf, start = round_leaf, round_start
        self._dice = self.held = ()
        self.announced = None
        self.turns_begun += 1
        if self._turn_counters:
            self._turn_begins()
        self._op = leaf
        if start is not None and self.acting is None:  # the turn's first roll has a position: it says the kept
            self._pos = start  # dice and the roll number (and the active player acts in it)
        else:
            self._pos = None
            self._kept, self._roll_number = (), 0

    def _apply_effects(self, step: Step, box: str | None, writer: int | None = None, kept=(), held=None) -> None:
        """A step's effects, in order: counters of the writer, of every other player or of all
        (a game counter has one value), each kept within its bounds. A keep's effects see the dice
        kept and those set aside before (`aside` is the difference)."""
        me, n = self.player if writer is None else writer, len(self.players)
        sheet = self.sheets[me]
        for effect in step.effects:
            counter = self._t.counter[effect.counter]
            if counter.per == "game":
                whose = (None,)
            else:
                whose = {"me": (me,), "others": tuple(p for p in range(n) if p != me),
                         "all": tuple(range(n))}[effect.players]
            for p in whose:
                ctx = self.scorer.context(self.dice, sheet, box, self.roll_number)
                ctx.counters = self.counters_of(me if p is None else p)
                ctx.my_turn = me == self.player
                faces = self._t.faces_of  # (dice that differ: kept and held are codes of group and face)
                ctx.kept, ctx.held = faces(kept), faces(self.held if held is None else held)
                if effect.when is not None and not effect.when(ctx):
                    continue
                store = self.game_counters if p is None else self.counter_values[p]
                amount = effect.amount(ctx)
                store[counter.id] = counter.bounded(amount if effect.op == "set" else store[counter.id] + amount)

    def _may_pass(self, op: Leaf) -> bool:
        """Whether the player asked may write nothing at this optional write step."""
        rule = op.step.may_pass
        if rule is None:
            return True
        ctx = self.scorer.context(self.dice, self.sheets[self.actor], None, self.roll_number)
        ctx.counters = self.counters_of(self.actor)
        ctx.my_turn = self.acting is None or self.acting == self.player
        return bool(rule(ctx))

    def _ask_next(self, op: Leaf) -> bool:
        """Ask the next player of the step who has a choice to make; False when none is left. A
        player whom no box may take the dice passes at an optional step without being asked."""
        by = op.step.by
        while self._queue:
            p = self._queue.pop(0)
            self.acting = None if by == "active" else p
            self._options = None
            self._plan = None
            if self._write_options():
                return True
            if op.step.optional and self._may_pass(op):
                continue  # nothing to write: a pass, with no choice to make
            self._no_box(op)  # scratch, or the model's error
            return True
        self.acting = None
        return False

    def _next_actor(self, op: Leaf) -> None:
        """After a write or a pass at such a step: the next player, or the step is done."""
        if self._ask_next(op):
            return
        done = self._finish_shared(op)
        if done is not None:
            self._run(done)

    def _finish_shared(self, op: Leaf) -> int | None:
        """Every player of the step has acted: their writes' effects, then the end check (the first
        writer, in the step's order, whose sheet meets `end_if` ended the game). The instruction to
        go on from (None: the game is over and the state is placed already)."""
        written, self._written = self._written, []
        step = op.step
        if step.effects:
            for p, box in written:
                self._apply_effects(step, box, p)
        if self.model.end_if is not None:
            for p, box in written:
                if self._ends(p, box):
                    return None
        return op.after

    def _check_write(self, step: Step, action: Action) -> str:
        """The box of a write given as a Write subclass; or why the write is not allowed."""
        if not isinstance(action, Write):
            raise IllegalActionError("write the dice into a box, not '{action}'", action=action)
        box = action.box
        if box in self._write_options():
            return box
        if box not in self.model.targets:
            raise IllegalActionError("there is no box '{box}'", hint=did_you_mean(box, self.model.targets), box=box)
        if not self.scorer.is_open(box, self.sheets[self.actor]):
            raise IllegalActionError("the box '{box}' is already filled", box=box)
        if self.announced is not None and box != self.announced:
            raise IllegalActionError("you announced '{announced}' this turn: the dice go there", announced=self.announced)
        if self.scorer.needs_announcement(box) and self.announced is None:
            raise IllegalActionError("the box '{box}' can only be written after announcing it", box=box)
        if step.rule:
            raise IllegalActionError("the rules do not let these dice go into '{box}' now ({rule})", box=box, rule=step.rule)
        raise IllegalActionError("the rules do not let these dice go into '{box}' now", box=box)

    def _write_options(self) -> dict[str, Option]:
        options = self._options
        if options is None:
            options = self._options = self.scorer.write_map(self.dice, self.sheets[self.actor],
                                                            self.roll_number, self._op.step, self.announced,
                                                            self.counters_of(self.actor))
        return options

    def _no_box(self, op: Leaf) -> None:
        """No box may take the dice: the step's `otherwise` says what happens (scratch: write 0 into
        any open box), or the model is unsound here and this is an error with the rule's position
        (`rulebook check` refuses such models; the engine never skips a write silently)."""
        step = op.step
        sheet = self.sheets[self.actor]
        scorer = self.scorer
        turn_end = self._t.turn_end
        if turn_end is not None and len(sheet) == len(self.model.cells) and step.by == "active" and not step.optional:
            pc, slots = turn_end  # a variable turn of a player whose sheet is full: it is over
            for slot in slots:
                self._counters[slot] = 0
            self._run(pc)
            return
        if step.otherwise == "scratch":
            self._plan = None
            self._options = {t: (Choice(t, 0, 0), ()) for t in self.model.targets
                             if scorer.is_open(t, sheet) and (scorer.simple or scorer.order_allows(t, sheet, self.announced))
                             and self.announced in (None, t)}
            if self._options:
                return
        where = step.allowed.text.pos if step.allowed is not None else step.pos
        dice = " ".join(map(str, self.dice))
        if len(sheet) == len(self.model.cells):
            raise ModelError("step '{step}' asks {player} to write, but their sheet is full", step.pos,
                             step=step.id, player=self.players[self.actor])
        raise ModelError("no box may take the roll {dice} at step '{step}'", where,
                         "allow a box for every roll, or say what happens then with 'otherwise: scratch'",
                         dice=dice, step=step.id)

    def _can_write(self, op: Leaf) -> bool:
        """On arriving at a write step: whether any box may take the dice (else the step is skipped)."""
        self._options = None
        sheet = self.sheets[self.actor]
        if not self._simple or self._t.announces:
            self._plan = None
            return bool(self._write_options())
        plans = op.plans or self.scorer.plans_for(op.step, self.roll_number)
        static, plan = plans.get(self.dice) or self.scorer.write_plan(self.dice, sheet, self.roll_number, op.step)
        if static:
            found = self._t.static_plan(op, self.dice) if op.plans is not None else None
            bit = self._t.bit
            return bool(self._take_plan(found or (plan, sum(bit[b] for b in plan)), self.actor))
        self._plan = None
        return bool(self._write_options())

    def _take_plan(self, found: tuple[dict, int], player: int) -> int:
        """At a write with a static plan (and its mask of boxes, see `_Tables.static_plan`): the plan, and
        the mask of its boxes open on the player's sheet (0: no box may take the dice)."""
        self._plan, self._plan_bits = found
        return found[1] & ~self._filled(player)

    def _open_writes(self, bits: int, player: int) -> list[Action]:
        """The writes into the boxes of a static plan (`bits`: their mask) still open on the player's sheet, as a
        new list (the table's list stays as it is)."""
        sheet, mark = self.sheets[player], self._marks[player]  # (see `_filled`)
        mask = bits & ~(mark[2] if mark[0] is sheet and mark[1] == len(sheet) else self._filled(player))
        if mask < 65536:  # (boxes 0-15: see `_Tables.low_writes`)
            t = self._t
            return t.low_writes[mask & 255] + t.high_writes[mask >> 8]
        return self._t.writes_in(mask).copy()

    def _filled(self, player: int) -> int:
        """The mask of the player's filled boxes (see `_Tables.bit`), remembered in `_marks` as (sheet, its
        size, the mask): valid while the player's sheet is that dict of that size (writes keep it up to date)."""
        sheet = self.sheets[player]
        mark = self._marks[player]
        if mark[0] is sheet and mark[1] == len(sheet):
            return mark[2]
        bit = self._t.bit  # the sheet changed other than by a write
        mark = self._marks[player] = (sheet, len(sheet), sum(bit.get(c, 0) for c in sheet))
        return mark[2]

    def _announceable(self) -> list[str]:
        """The open targets the player may announce: those of the columns filled by announcement, or
        (on a sheet without such columns) every open target."""
        scorer, sheet = self.scorer, self.sheets[self.player]
        announced_only = [t for t in self.model.targets if scorer.needs_announcement(t)]
        return [t for t in (announced_only or self.model.targets) if scorer.is_open(t, sheet)
                and (scorer.simple or scorer.order_allows(t, sheet, t))]

    def _announce_options(self) -> list[Action]:
        """Announce an open target; or announce nothing, where the step is optional and some open
        target can be written without an announcement (or nothing can be announced)."""
        targets = self._announceable()
        options: list[Action] = [Announce(t) for t in targets]
        scorer, sheet = self.scorer, self.sheets[self.player]
        writable_without = any(scorer.is_open(t, sheet) and not scorer.needs_announcement(t) for t in self.model.targets)
        if not targets or (self._op.step.optional and writable_without):
            options.insert(0, Announce(None))
        return options

    def _apply_announce(self, op: Leaf, action: Action) -> None:
        legal = self._announce_options()
        if action not in legal:
            if not isinstance(action, Announce):
                raise IllegalActionError("announce a box (or none), not '{action}'", action=action)
            if action.box is None:
                raise IllegalActionError("you must announce a box now")
            if action.box not in self.model.targets:
                raise IllegalActionError("there is no box '{box}'", hint=did_you_mean(action.box, self.model.targets),
                                         box=action.box)
            raise IllegalActionError("the box '{box}' cannot be announced now", box=action.box)
        self.announced = action.box
        self._run(op.after)
