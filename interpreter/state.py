"""The generic engine: a game state in the OpenSpiel shape, driven by the model's phase tree.

`current_player()` is a player index, CHANCE or TERMINAL. Decisions and dice rolls both go through
`apply()`; `chance_outcomes()` lists a roll's results with exact probabilities, so solvers and
tests can walk any model, and `sample_chance(rng)` draws one. The state serializes to JSON and back.

Speed: the phase tree is compiled once per model into a flat program (`_Tables`), and everything
that depends only on the model and the dice is computed once and kept: the legal keeps of every
roll, the chance tables, and (`Scorer.for_model`) what each roll may be written into. A state
carries only its position, the dice and the players' sheets.
"""
from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate, filterfalse
from typing import Any, Callable

from .actions import Action, Keep, Roll, Stop, Write
from .dice import outcomes, sub_multisets
from .errors import IllegalActionError, Message, ModelError, SaveFileError, as_message, did_you_mean
from .model import Model, Step
from .scoring import Choice, Option, Scorer

CHANCE = -1
TERMINAL = -2
_CONTAINERS = ("repeat", "each_player")
_START, _LEAF, _LOOP, _TURNS, _END = range(5)  # the instructions of a compiled phase tree
_ROLL, _KEEP, _WRITE = range(3)  # the kinds of leaf step
_KINDS = {"roll": _ROLL, "keep": _KEEP, "write": _WRITE}


class Frame:
    """A container step being run: which child is next, and which pass through it this is."""

    __slots__ = ("step", "index", "iteration")

    def __init__(self, step: Step, index: int = 0, iteration: int = 0):
        self.step, self.index, self.iteration = step, index, iteration

    def __repr__(self) -> str:
        return f"Frame({self.step.id!r}, {self.index}, {self.iteration})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Frame) and (self.step.id, self.index, self.iteration) == (
            other.step.id, other.index, other.iteration)


class _Tables:
    """Per-model lookups shared by every state of the model."""

    def __init__(self, model: Model):
        self.model = model
        self.scorer = Scorer.for_model(model)
        self.writes = {t: Write(t) for t in model.targets}
        self._keeps: dict[tuple[int, ...], tuple] = {}
        self._chance: dict[int, tuple] = {}
        self.merge: dict[tuple[int, ...], dict[tuple[int, ...], tuple[int, ...]]] = {}  # kept → faces → dice
        # the sorted faces a roll of m dice may show, for m = 0 … n
        self.valid = [self.chance(m)[3] for m in range(model.n_dice + 1)]
        # drawing a roll with k dice kept: (cumulative weights, outcomes, total weight), for k = 0 … n
        self.draw = [self.chance(model.n_dice - k)[1:3] + (self.chance(model.n_dice - k)[4],)
                     for k in range(model.n_dice + 1)]
        self._compile_flow(model.flow)

    def _compile_flow(self, root: Step) -> None:
        """The phase tree as a flat program of tuples, one pass counter per container.

          (_LEAF, step, kind, pc, pc after it, (pc after stopping there, counters that stopping
           resets), rolls all dice?, can stop?, next leaf, (valid faces, draw table) if it rolls all
           dice, a write's plans by dice (Scorer.plans_for) if they do not depend on the roll number,
           followed by a repeat's end whose body begins with a roll or keep?)
          (_START, leaf)                                 an each_player begins: the first player's turn
          (_TURNS, slot, first pc of the body, leaf, starts a turn?)   the end of an each_player: the next turn
          (_LOOP, slot, times, first pc of the body, leaf, starts a turn?)   the end of a repeat: another pass
          (_END,)
        A container's counter is 0 outside it: loops reset theirs when they end, and stopping resets
        those it leaves. Stopping at a keep leaves the innermost repeat around it (or ends the game if
        there is none). `leaf` and `next leaf` are the roll or keep LEAF a jump lands on, if it lands on
        one (saving a step; for a jump onto a START, the leaf after it, the START done on the way).
        A position is a LEAF plus the counters; `paths[pc]` gives it as the
        (container, child index) frames from the root down to the leaf at pc.
        """
        program: list[list] = []
        self.slots: dict[str, int] = {}
        self.leaf_pc: dict[str, int] = {}
        self.paths: dict[int, tuple[tuple[Step, int], ...]] = {}
        loop_end: dict[str, int] = {}

        def emit(container: Step, path: tuple) -> None:
            slot = self.slots[container.id] = len(self.slots)
            each = container.kind == "each_player"
            if each:
                program.append([_START])
            body = len(program)
            for i, child in enumerate(container.steps):
                here = path + ((container, i),)
                if child.kind in _CONTAINERS:
                    emit(child, here)
                else:
                    pc = self.leaf_pc[child.id] = len(program)
                    self.paths[pc] = here
                    program.append([_LEAF, child, _KINDS[child.kind], pc, pc + 1, None, child.dice == "all",
                                    bool(child.can_stop)])
            loop_end[container.id] = len(program)
            program.append([_TURNS, slot, body] if each else [_LOOP, slot, container.times, body])

        if root.steps:
            emit(root, ())
        self.end = len(program)
        program.append([_END])
        for pc, path in self.paths.items():
            inner = max((d for d, (c, _) in enumerate(path) if c.kind == "repeat"), default=None)
            if inner is None:
                program[pc][5] = (self.end, ())
            else:
                program[pc][5] = (loop_end[path[inner][0].id] + 1, tuple(self.slots[c.id] for c, _ in path[inner:]))
        final: list = [None] * len(program)
        # repeats whose body begins with a roll or keep: another pass needs no trip through _run
        repeat_ends = {pc for pc, op in enumerate(program) if op[0] == _LOOP
                       and program[op[3]][0] == _LEAF and program[op[3]][2] != _WRITE}

        def leaf_at(pc: int):
            return final[pc] if program[pc][0] == _LEAF and program[pc][2] != _WRITE else None

        n = self.model.n_dice
        for pc in range(len(program) - 1, -1, -1):
            if program[pc][0] == _LEAF:
                all_dice = (self.valid[n], self.draw[0]) if program[pc][6] and program[pc][2] == _ROLL else None
                plans = None  # a write's plans, where the roll number does not matter
                if program[pc][2] == _WRITE and not self.scorer._turn_matters and self.scorer.simple:
                    plans = self.scorer.plans_for(program[pc][1])
                final[pc] = tuple(program[pc]) + (leaf_at(pc + 1), all_dice, plans, pc + 1 in repeat_ends)
        for pc, op in enumerate(program):
            if op[0] == _START:
                final[pc] = (_START, leaf_at(pc + 1))
            elif op[0] in (_LOOP, _TURNS):
                body = op[-1]
                if program[body][0] == _START and leaf_at(body + 1) is not None:  # a pass begins a turn
                    final[pc] = tuple(op) + (leaf_at(body + 1), True)
                else:
                    final[pc] = tuple(op) + (leaf_at(body), False)
            elif op[0] == _END:
                final[pc] = tuple(op)
        self.program: list[tuple] = final

    def precompute(self) -> "_Tables":
        """Fill every table now instead of on first use: the keeps of every roll, every roll beside
        every keep, and (where they do not depend on the roll number) the write plans."""
        from .dice import keeps as all_keeps, multisets
        n, faces = self.model.n_dice, self.model.faces
        for dice in multisets(n, faces):
            self.keeps(dice)
        for kept in all_keeps(n, faces):
            if len(kept) < n:
                for rolled in self.valid[n - len(kept)]:
                    self.merged(kept, rolled)
        if not self.scorer._turn_matters and self.scorer.simple:
            for op in self.program:
                if op[0] == _LEAF and op[2] == _WRITE:
                    for dice in multisets(n, faces):
                        self.scorer.write_plan(dice, {}, 1, op[1])
        return self

    def keeps(self, dice: tuple[int, ...]) -> tuple[list[Action], list[Action], frozenset]:
        """(legal actions when the step may stop, when it may not, the keepable sub-multisets)."""
        entry = self._keeps.get(dice)
        if entry is None:
            subs = sorted(sub_multisets(dice), key=lambda k: (len(k), k))
            keeps = [Keep(k) for k in subs]
            entry = ([Stop()] + [k for k in keeps if len(k.dice) < len(dice)], keeps, frozenset(subs))
            self._keeps[dice] = entry
        return entry

    def merged(self, kept: tuple[int, ...], faces: tuple[int, ...]) -> tuple[int, ...]:
        """The dice after rolling `faces` (valid, sorted) beside `kept`, remembered in `merge`."""
        dice = tuple(sorted(kept + faces))
        self.merge.setdefault(kept, {})[faces] = dice
        return dice

    def chance(self, m: int) -> tuple[list[tuple[Roll, float]], list[int], list[Roll], frozenset, int]:
        """For rolling m dice: (outcomes with probabilities, cumulative weights, rolls, faces set, total)."""
        entry = self._chance.get(m)
        if entry is None:
            faces = self.model.faces
            total = faces ** m
            outs = outcomes(m, faces)
            rolls = [Roll(f) for f, _ in outs]
            # cumulative weights as floats (whole numbers, exact below 2**53): bisected at a float, compared fast
            entry = ([(r, w / total) for r, (_, w) in zip(rolls, outs)], [float(c) for c in accumulate(w for _, w in outs)],
                     rolls, frozenset(f for f, _ in outs), total)
            self._chance[m] = entry
        return entry


def tables(model: Model) -> _Tables:
    t = model.__dict__.get("_engine_tables")  # a cache beside the frozen fields, not part of the model
    if t is None:
        t = model.__dict__["_engine_tables"] = _Tables(model)
    return t


class GameState:
    """One game of a model in progress.

    The position is a leaf instruction of the model's compiled phase tree plus a pass counter
    per container (see `_Tables`); `stack` shows it as the frames from the root of the tree down
    to the step that is due. Change a state only through `apply`.
    """

    def __init__(self, model: Model, players: list[str]):
        if not model.min_players <= len(players) <= model.max_players:
            raise IllegalActionError("{game} is for {least} to {most} players, not {count}", game=model.name,
                                     least=model.min_players, most=model.max_players, count=len(players))
        self.model, self.players = model, list(players)
        self._t = t = tables(model)
        self.scorer = t.scorer
        self.sheets: list[dict[str, int]] = [{} for _ in players]
        self.awards: list[dict[str, int]] = [{} for _ in players]
        self.player = 0
        self.dice: tuple[int, ...] = ()
        self.kept: tuple[int, ...] = ()
        self.roll_number = 0
        self.ended_by: int | None = None  # the player whose write met the model's end_if
        self.last_cell: str | None = None  # the cell the last write filled
        self._n_boxes = len(model.cells)  # the sheet is full when every cell is
        self._program, self._keeps, self._merge = t.program, t._keeps, t.merge  # (saves a lookup per move)
        self._writes, self._n_players = t.writes, len(self.players)
        self._counters = [0] * len(t.slots)  # the pass through each container (0 outside it)
        self._simple = model.simple_sheet  # the sheet's cells are its boxes
        self._full = self._all_filled()  # every sheet is full (kept up to date by writes)
        self._op: tuple | None = None  # the LEAF instruction due (None: the game is over)
        self._options: dict[str, Option] | None = None  # what the dice may be written into (at a write)
        self._plan: dict[str, Option] | None = None  # at a write, a static plan (see Scorer.write_plan)
        self._run(0)

    # the OpenSpiel interface ----------------------------------------------
    def step(self) -> Step | None:
        """The leaf step waiting to be done (None when the game is over)."""
        op = self._op
        return None if op is None else op[1]

    def current_player(self) -> int:
        op = self._op
        if op is None:
            return TERMINAL
        return CHANCE if op[2] is _ROLL else self.player

    def is_terminal(self) -> bool:
        return self._op is None

    def is_chance_node(self) -> bool:
        op = self._op
        return op is not None and op[2] is _ROLL

    def dice_to_roll(self) -> int:
        """How many dice the pending roll throws."""
        return self.model.n_dice if self._op[6] else self.model.n_dice - len(self.kept)

    def chance_outcomes(self) -> list[tuple[Roll, float]]:
        """Each possible result of the pending roll with its probability."""
        if not self.is_chance_node():
            return []
        return list(self._t.chance(self.dice_to_roll())[0])

    def sample_chance(self, rng) -> Roll:
        """A result of the pending roll drawn with its probability, from one `rng.random()`.

        Drawn the way `random.choices` draws with weights: bisecting the cumulative weights of the
        outcomes (the distinct sorted results) at `rng.random()` times their total.
        """
        op = self._op
        if op is None or op[2] is not _ROLL:
            raise IllegalActionError("no dice are to be rolled now")
        all_dice = op[9]
        cum, rolls, total = all_dice[1] if all_dice is not None else self._t.draw[len(self.kept)]
        return rolls[bisect_right(cum, rng.random() * total)]

    def legal_actions(self) -> list[Action]:
        op = self._op
        if op is None:
            return []
        kind = op[2]
        if kind is _KEEP:
            entry = self._keeps.get(self.dice) or self._t.keeps(self.dice)
            return (entry[0] if op[7] else entry[1])[:]  # a copy: the cached list stays as it is
        if kind is _WRITE:
            writes, plan = self._writes, self._plan
            if plan is not None:  # the plan's boxes that are open
                return list(map(writes.__getitem__, filterfalse(self.sheets[self.player].__contains__, plan)))
            return list(map(writes.__getitem__, self._write_options()))
        return [a for a, _ in self.chance_outcomes()]

    def write_choices(self) -> list[Choice]:
        """The boxes the current dice may be written into, with their points and bonus."""
        op = self._op
        if op is None or op[2] is not _WRITE:
            return []
        return [c for c, _ in self._write_options().values()]

    def apply(self, action: Action) -> None:
        """Carry out a decision or a chance outcome; IllegalActionError if the rules forbid it."""
        op = self._op
        if op is None:
            raise IllegalActionError("the game is over")
        kind = op[2]
        if kind is _ROLL:
            all_dice = op[9]
            try:  # a roll's sorted faces, as sample_chance and chance_outcomes give them: a lookup
                faces = action.faces
                if all_dice is not None:
                    dice = faces if faces in all_dice[0] else None
                else:
                    merged = self._merge.get(self.kept)
                    dice = merged.get(faces) if merged is not None else None
            except (AttributeError, TypeError):
                dice = None
            if dice is None:
                dice = self._rolled(op, action)
            self.dice = dice
            self.kept = ()
            self.roll_number += 1
            if op[8] is not None:
                self._op = op[8]
                return
            if op[11]:  # the end of a repeat: another pass, if one is left (as _run would do)
                loop = self._program[op[4]]
                counters = self._counters
                n = counters[loop[1]] + 1
                if n < loop[2] and not self._full:
                    counters[loop[1]] = n
                    self._op = loop[4]
                    return
            self._run(op[4])
        elif kind is _KEEP:
            try:
                keep = action.dice
                legal = keep in (self._keeps.get(self.dice) or self._t.keeps(self.dice))[2]
            except (AttributeError, TypeError):
                legal = False
            if not legal:
                keep = self._check_keep(op, action)
            if keep is None or (op[7] and len(keep) == len(self.dice)):  # stop rolling
                self._stop(op)  # keeping every die is stopping
            else:
                self.kept = keep
                if op[8] is not None:
                    self._op = op[8]
                else:
                    self._run(op[4])
        else:
            self._apply_write(op, action)

    def returns(self) -> list[int]:
        """Each player's final score: the grand total, or the model's own final score (`winner`)."""
        if self.model.ranking is None:
            return [self.totals(p)["total"] for p in range(len(self.players))]
        return [self.final_scores()[p][0] for p in range(len(self.players))]

    def final_scores(self) -> list[tuple[int, ...]]:
        """Each player's (final score, tie-breaks…), as they are ranked."""
        return [self.scorer.final_score(self.sheets[p], self.awards[p]) for p in range(len(self.players))]

    # the steps --------------------------------------------------------------
    def _rolled(self, op: tuple, action: Action) -> tuple[int, ...]:
        """The dice after a roll given other than as sorted faces (checked: IllegalActionError)."""
        n = self.model.n_dice
        if op[6]:
            return self._check_roll(n, action)
        kept = self.kept
        return self._t.merged(kept, self._check_roll(n - len(kept), action))

    def _check_roll(self, m: int, action: Action) -> tuple[int, ...]:
        """The sorted faces of a roll of m dice; or why it is wrong."""
        try:
            faces = tuple(sorted(action.faces)) if isinstance(action, Roll) else None
        except TypeError:
            faces = None
        if faces in self._t.valid[m]:
            return faces
        raise IllegalActionError("a roll of {count} dice with faces 1 to {faces} is due, not '{action}'",
                                 count=m, faces=self.model.faces, action=action)

    def _check_keep(self, op: tuple, action: Action) -> tuple[int, ...] | None:
        """The dice to keep (None: stop) for an action that is not a keep of sorted dice; or why it is wrong."""
        step = op[1]
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
        return keep

    def _apply_write(self, op: tuple, action: Action) -> None:
        try:
            box = action.box
        except AttributeError:
            box = None
        player = self.player
        sheet = self.sheets[player]
        plan = self._plan
        if plan is not None:
            option = plan.get(box)
            if box in sheet:
                option = None
        else:
            option = self._write_options().get(box)
        if option is None:
            box = self._check_write(op[1], action)
            option = self._write_options()[box]
        choice, parts = option
        if parts:
            awards = self.awards[player]
            for bonus_id, points in parts:
                awards[bonus_id] = awards.get(bonus_id, 0) + points
        cell = box if self._simple else self.scorer.next_cell(box, sheet)
        sheet[cell] = choice.points
        self.last_cell = cell
        if len(sheet) == self._n_boxes:
            self._full = self._all_filled()
        end_if = self.model.end_if
        if end_if is not None and end_if(self.scorer.context(self.dice, sheet, box, self.roll_number)):
            self.ended_by = player
            self._run(self._t.end)
        else:
            self._run(op[4])

    def _check_write(self, step: Step, action: Action) -> str:
        """The box of a write given as a Write subclass; or why the write is not allowed."""
        if not isinstance(action, Write):
            raise IllegalActionError("write the dice into a box, not '{action}'", action=action)
        box = action.box
        if box in self._write_options():
            return box
        if box not in self.model.targets:
            raise IllegalActionError("there is no box '{box}'", hint=did_you_mean(box, self.model.targets), box=box)
        if not self.scorer.is_open(box, self.sheets[self.player]):
            raise IllegalActionError("the box '{box}' is already filled", box=box)
        if step.rule:
            raise IllegalActionError("the rules do not let these dice go into '{box}' now ({rule})", box=box, rule=step.rule)
        raise IllegalActionError("the rules do not let these dice go into '{box}' now", box=box)

    def _write_options(self) -> dict[str, Option]:
        options = self._options
        if options is None:
            options = self._options = self.scorer.write_map(self.dice, self.sheets[self.player],
                                                            self.roll_number, self._op[1])
        return options

    def _no_box(self, op: tuple) -> None:
        """No box may take the dice: the step's `otherwise` says what happens (scratch: write 0 into
        any open box), or the model is unsound here and this is an error with the rule's position
        (`rulebook check` refuses such models; the engine never skips a write silently)."""
        step = op[1]
        sheet = self.sheets[self.player]
        scorer = self.scorer
        if step.otherwise == "scratch":
            self._plan = None
            self._options = {t: (Choice(t, 0, 0), ()) for t in self.model.targets
                             if scorer.is_open(t, sheet) and (scorer.simple or scorer.order_allows(t, sheet))}
            if self._options:
                return
        where = step.allowed.text.pos if step.allowed is not None else step.pos
        dice = " ".join(map(str, self.dice))
        if len(sheet) == len(self.model.cells):
            raise ModelError("step '{step}' asks {player} to write, but their sheet is full", step.pos,
                             step=step.id, player=self.players[self.player])
        raise ModelError("no box may take the roll {dice} at step '{step}'", where,
                         "allow a box for every roll, or say what happens then with 'otherwise: scratch'",
                         dice=dice, step=step.id)

    def _can_write(self, op: tuple) -> bool:
        """On arriving at a write step: whether any box may take the dice (else the step is skipped)."""
        self._options = None
        sheet = self.sheets[self.player]
        if not self._simple:
            self._plan = None
            return bool(self._write_options())
        plans = op[10] or self.scorer.plans_for(op[1], self.roll_number)
        static, plan = plans.get(self.dice) or self.scorer.write_plan(self.dice, sheet, self.roll_number, op[1])
        if static:
            self._plan = plan
            return next(filterfalse(sheet.__contains__, plan), None) is not None
        self._plan = None
        return bool(self._write_options())

    # walking the phase tree ---------------------------------------------------
    def _run(self, pc: int) -> None:
        """Go on from instruction pc until a leaf step is due (or the game ends).

        Entering a container starts its passes at 0 (and a turn, for each_player); at its end it
        runs again while passes are left and some sheet has an open box. A write step with no
        allowed box is skipped (the sheet is full).
        """
        program = self._program
        while True:
            op = program[pc]
            code = op[0]
            if code is _LOOP:
                counters = self._counters
                slot = op[1]
                n = counters[slot] + 1
                if n < op[2] and not self._full:  # another pass
                    counters[slot] = n
                    if op[4] is not None:
                        if op[5]:
                            self.player = 0
                            self.dice, self.kept, self.roll_number = (), (), 0
                        self._op = op[4]
                        return
                    pc = op[3]
                else:
                    counters[slot] = 0
                    pc += 1
            elif code is _LEAF:
                self._op = op
                if op[2] is _WRITE:  # some box must be able to take the dice
                    sheet = self.sheets[self.player]
                    self._options = None
                    entry = op[10].get(self.dice) if op[10] is not None else None
                    if entry is not None and entry[0]:  # a static plan
                        self._plan = plan = entry[1]
                        if next(filterfalse(sheet.__contains__, plan), None) is None:
                            self._no_box(op)
                    elif not self._can_write(op):
                        self._no_box(op)
                return
            elif code is _TURNS:
                counters = self._counters
                slot = op[1]
                n = counters[slot] + 1
                if n < self._n_players and not self._full:  # the next player's turn
                    counters[slot] = n
                    self.player = n
                    self.dice, self.kept, self.roll_number = (), (), 0
                    if op[3] is not None:
                        if op[4]:
                            self.player = 0
                        self._op = op[3]
                        return
                    pc = op[2]
                else:
                    counters[slot] = 0
                    pc += 1
            elif code is _START:
                self.player = 0
                self.dice, self.kept, self.roll_number = (), (), 0
                if op[1] is not None:
                    self._op = op[1]
                    return
                pc += 1
            else:  # _END
                self._op = None
                return

    def _stop(self, op: tuple) -> None:
        """Stop rolling: leave the innermost repeat."""
        pc, slots = op[5]
        counters = self._counters
        for slot in slots:
            counters[slot] = 0
        self._run(pc)

    def _all_filled(self) -> bool:
        """Every player's sheet is full: nothing more can be written."""
        n = self._n_boxes
        return all(len(s) == n for s in self.sheets)

    @property
    def stack(self) -> list[Frame]:
        """The position as frames: each container from the root down, its child due and its pass."""
        op = self._op
        if op is None:
            return []
        slots, counters = self._t.slots, self._counters
        return [Frame(c, i, counters[slots[c.id]]) for c, i in self._t.paths[op[3]]]

    # views ----------------------------------------------------------------------
    def totals(self, player: int) -> dict[str, int]:
        return self.scorer.totals(self.sheets[player], self.awards[player])

    def rolls_left(self) -> int:
        """How many more rolls the current player may make this turn (at most)."""
        left = 0
        stack = self.stack
        top = len(stack) - 1
        for depth in range(top, -1, -1):
            frame = stack[depth]
            rest = frame.step.steps[frame.index + (0 if depth == top else 1):]
            left += sum(_rolls_in(s) for s in rest)
            if frame.step.kind == "repeat":
                left += (frame.step.times - frame.iteration - 1) * sum(_rolls_in(s) for s in frame.step.steps)
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
                rounds = (frame.iteration + 1, frame.step.times)
        return rounds

    def ranking(self) -> list[tuple[int, str, int]]:
        """(rank, player, total), best first; equal totals share a rank."""
        keys = self.final_scores()
        sign = 1 if self.model.winner == "lowest_total" else -1
        order = sorted(range(len(self.players)), key=lambda p: (p != self.ended_by, [sign * k for k in keys[p]], p))
        out, rank = [], 0
        for i, p in enumerate(order):
            if i == 0 or p == self.ended_by or keys[p] != keys[order[i - 1]] or order[i - 1] == self.ended_by:
                rank = i + 1
            out.append((rank, self.players[p], keys[p][0]))
        return out

    # JSON -------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """A snapshot of the position: nothing in it changes as the game goes on."""
        return {
            "players": list(self.players), "player": self.player, "dice": list(self.dice), "kept": list(self.kept),
            "roll_number": self.roll_number, "sheets": [dict(s) for s in self.sheets],
            "awards": [dict(a) for a in self.awards],
            "ended_by": self.ended_by,
            "stack": [[f.step.id, f.index, f.iteration] for f in self.stack],
        }

    @classmethod
    def from_json(cls, model: Model, data: dict[str, Any]) -> "GameState":
        """Rebuild a state saved by `to_json`; SaveFileError if it does not fit the model."""
        def bad(reason: str | Message, hint: Message | None = None, **params) -> SaveFileError:
            return SaveFileError("the saved game does not fit the model {model}: {reason}", None, hint,
                                 model=model.id, reason=as_message(reason, params))

        if not isinstance(data, dict):
            raise bad("the game state is not a JSON object")
        try:
            state = cls(model, [str(p) for p in data["players"]])
            state.player = _int(data["player"])
            state.dice = tuple(_int(d) for d in data["dice"])
            state.kept = tuple(_int(d) for d in data["kept"])
            state.roll_number = _int(data["roll_number"])
            ended_by = data.get("ended_by")
            state.ended_by = None if ended_by is None else _int(ended_by)
            state.sheets = [{str(k): _int(v) for k, v in s.items()} for s in data["sheets"]]
            state.awards = [{str(k): _int(v) for k, v in a.items()} for a in data["awards"]]
            steps = {s.id: s for s in model.flow.walk()}
            frames = [Frame(steps[sid], _int(i), _int(it)) for sid, i, it in data["stack"]]
        except IllegalActionError as exc:
            raise bad(exc.msg) from None
        except KeyError as exc:
            raise bad("{key} is missing or unknown", key=repr(exc.args[0])) from None
        except (TypeError, ValueError, AttributeError) as exc:
            raise bad(exc.args[0] if exc.args and isinstance(exc.args[0], Message) else str(exc)) from None
        n = len(state.players)
        if len(state.sheets) != n or len(state.awards) != n:
            raise bad("it has {sheets} score sheets for {count} players", sheets=len(state.sheets), count=n)
        for s in state.sheets:
            for b in s:
                if b not in model.cells:
                    raise bad("there is no box '{box}'", did_you_mean(b, model.cells), box=b)
        bonus_ids = {b.id for b in model.bonuses}
        for a in state.awards:
            for b in a:
                if b not in bonus_ids:
                    raise bad("there is no bonus '{bonus}'", bonus=b)
        for who in (state.player, state.ended_by):
            if who is not None and not 0 <= who < n:
                raise bad("there is no player number {number}", number=who)
        for dice in (state.dice, state.kept):
            if len(dice) > model.n_dice or any(not 1 <= d <= model.faces for d in dice):
                raise bad("the dice {dice} are not {count} dice with faces 1 to {faces}", dice=list(dice),
                          count=model.n_dice, faces=model.faces)
        if state.dice and len(state.dice) != model.n_dice:
            raise bad("the dice {dice} are not {count} dice", dice=list(state.dice), count=model.n_dice)
        if state.dice != tuple(sorted(state.dice)) or state.kept != tuple(sorted(state.kept)):
            raise bad("the dice are not in order")
        state._place(frames, bad)
        return state

    def _place(self, frames: list[Frame], bad: Callable[..., SaveFileError]) -> None:
        """Put the state at the position the frames describe (a path from the root to a leaf)."""
        t = self._t
        if not frames:
            self._op = None
            return
        here = frames[-1].step.steps[frames[-1].index] if 0 <= frames[-1].index < len(frames[-1].step.steps) else None
        pc = t.leaf_pc.get(here.id) if here is not None else None
        if pc is None or [(f.step, f.index) for f in frames] != list(t.paths[pc]):
            raise bad("the saved position is not a step of the model")
        for f in frames:
            bound = len(self.players) if f.step.kind == "each_player" else f.step.times
            if not 0 <= f.iteration < max(bound, 1):
                raise bad("pass {number} of '{step}' is beyond its {bound}", number=f.iteration + 1, step=f.step.id, bound=bound)
            if f.step.kind == "each_player" and f.iteration != self.player:
                raise bad("it is player {number}'s turn, not player {player}'s", number=f.iteration, player=self.player)
            self._counters[t.slots[f.step.id]] = f.iteration
        self._op, self._options, self._plan = t.program[pc], None, None
        self._full = self._all_filled()
        if here.kind in ("keep", "write") and not self.dice:
            raise bad("the saved position is at '{step}' before any dice were rolled", step=here.id)


def _int(value) -> int:
    """An integer from JSON (booleans and fractions refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(Message("{value} is not a whole number", {"value": repr(value)}))
    return value


def _rolls_in(step: Step) -> int:
    if step.kind == "roll":
        return 1
    if step.kind == "repeat":
        return step.times * sum(_rolls_in(s) for s in step.steps)
    return sum(_rolls_in(s) for s in step.steps)
