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
from dataclasses import dataclass
from itertools import accumulate, filterfalse
from typing import Any, Callable

from .acting import actors, at_once
from .actions import Action, Announce, Keep, Roll, Stop, Write
from ..model.dice import canonical, group_outcomes, group_total, outcomes, sub_multisets
from ..model.errors import IllegalActionError, Message, ModelError, SaveFileError, as_message, did_you_mean
from ..model.frozen import Model, Step
from ..model.scoring import Choice, Option, Scorer

CHANCE = -1
TERMINAL = -2
_CONTAINERS = ("repeat", "each_player")
_ROLL, _KEEP, _WRITE, _ANNOUNCE = range(4)  # the kinds of leaf step
_KINDS = {"roll": _ROLL, "keep": _KEEP, "write": _WRITE, "announce": _ANNOUNCE}


# The instructions of a compiled phase tree (see `_Tables._compile_flow`). The engine dispatches on
# their class; their fields are read on every move, so they are slotted.
@dataclass(frozen=True, slots=True, eq=False)
class Leaf:
    """A roll, keep, write or announce step: where a state waits for an action."""

    step: Step
    kind: int  # _ROLL, _KEEP, _WRITE or _ANNOUNCE
    pc: int  # where it is in the program
    after: int  # the instruction after it
    stop: tuple[int, tuple[int, ...]]  # (where stopping here goes on, the counters stopping resets)
    all_dice: bool  # a roll of all dice (not only the unkept ones)
    can_stop: bool  # a keep that may stop rolling
    next_leaf: "Leaf | None"  # the roll or keep leaf right after it, if the next instruction is one
    roll_all: tuple | None  # for a roll of all dice: (valid faces, draw table)
    plans: dict | None  # a write's plans by dice (Scorer.plans_for), where they do not depend on the roll number
    ends_repeat: bool  # followed by the end of a repeat whose body begins with a roll or keep
    ruled: bool  # a keep whose dice are limited by a rule (`allowed:`) or stay aside (`locked`)


@dataclass(frozen=True, slots=True, eq=False)
class Start:
    """An each_player begins: the first player's turn."""

    leaf: Leaf | None  # the leaf right after it (saving a pass through `_run`), if there is one


@dataclass(frozen=True, slots=True, eq=False)
class Turns:
    """The end of an each_player: the next player's turn."""

    slot: int  # its pass counter
    body: int  # the first instruction of its body
    leaf: Leaf | None  # the leaf a new pass lands on, if it lands on one
    turn_start: bool  # a new pass begins a turn (via a Start)


@dataclass(frozen=True, slots=True, eq=False)
class Loop:
    """The end of a repeat: another pass, if one is left."""

    slot: int
    times: int
    body: int
    leaf: Leaf | None
    turn_start: bool


@dataclass(frozen=True, slots=True, eq=False)
class While:
    """The beginning of a repeat with a `while:` condition: its passes end when it is false."""

    condition: Any  # Compiled (reads the dice, the sheet, the roll number, the announcement)
    slot: int  # the repeat's pass counter (reset when it ends)
    exit: int  # the instruction after the repeat


@dataclass(frozen=True, slots=True, eq=False)
class End:
    """The end of the game."""


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
        self._ruled: dict[tuple, tuple] = {}  # (keep step id, dice, held) → its keeps (see `ruled_keeps`)
        self.counter = {c.id: c for c in model.counters}  # the model's counters by id
        # an announce step: writes follow the announcement, so they are never planned ahead
        self.announces = any(s.kind == "announce" for s in model.flow.walk()) or any(
            c.order == "announced" for c in model.columns)
        # the sorted faces a roll of m dice may show, for m = 0 … n
        self.valid = [self.chance(m)[3] for m in range(model.n_dice + 1)]
        # drawing a roll with k dice kept: (cumulative weights, outcomes, total weight), for k = 0 … n
        self.draw = [self.chance(model.n_dice - k)[1:3] + (self.chance(model.n_dice - k)[4],)
                     for k in range(model.n_dice + 1)]
        self._compile_flow(model.flow)

    def _compile_flow(self, root: Step) -> None:
        """The phase tree as a flat program of instructions (`Leaf`, `Start`, `Turns`, `Loop`,
        `While`, `End`), one pass counter per container.

        An each_player is a `Start`, its body and a `Turns`; a repeat is its body (after a `While`
        if it has a condition) and a `Loop`. A container's counter is 0 outside it: loops reset theirs
        when they end, and stopping resets those it leaves. Stopping at a keep leaves the innermost
        repeat around it (or ends the game if there is none). `leaf` and `next_leaf` are the roll or
        keep `Leaf` a jump lands on, if it lands on one (saving a step; for a jump onto a `Start`, the
        leaf after it, the `Start` done on the way). A position is a `Leaf` plus the counters;
        `paths[pc]` gives it as the (container, child index) frames from the root down to the leaf at pc.
        """
        program: list[list] = []  # [class, fields…] until every instruction is known
        self.slots: dict[str, int] = {}
        self.leaf_pc: dict[str, int] = {}
        self.paths: dict[int, tuple[tuple[Step, int], ...]] = {}
        loop_end: dict[str, int] = {}
        whiles: list[tuple[int, Step]] = []

        def emit(container: Step, path: tuple) -> None:
            slot = self.slots[container.id] = len(self.slots)
            each = container.kind == "each_player"
            if each:
                program.append([Start])
            body = len(program)
            if container.kind == "repeat" and container.condition is not None:
                whiles.append((body, container))
                program.append([While])
            for i, child in enumerate(container.steps):
                here = path + ((container, i),)
                if child.kind in _CONTAINERS:
                    emit(child, here)
                else:
                    pc = self.leaf_pc[child.id] = len(program)
                    self.paths[pc] = here
                    ruled = child.kind == "keep" and (child.allowed is not None or child.locked)
                    program.append([Leaf, child, _KINDS[child.kind], pc, pc + 1, None, child.dice == "all",
                                    bool(child.can_stop), ruled])
            loop_end[container.id] = len(program)
            program.append([Turns, slot, body] if each else [Loop, slot, container.times, body])

        if root.steps:
            emit(root, ())
        self.end = len(program)
        program.append([End])
        # a turn whose writes vary (a while:, a stop inside a repeat of writes): once the player's
        # sheet is full, the turn ends at its next write (the end of the each_player, its repeats reset)
        each = next((s for s in root.walk() if s.kind == "each_player"), None)
        from .soundness import writes_per_player
        self.turn_end = (loop_end[each.id], tuple(self.slots[s.id] for s in each.walk() if s is not each and
                                                  s.kind in _CONTAINERS)) \
            if each is not None and each.id in loop_end and writes_per_player(self.model) is None else None
        for pc, path in self.paths.items():
            inner = max((d for d, (c, _) in enumerate(path) if c.kind == "repeat"), default=None)
            if inner is None:
                program[pc][5] = (self.end, ())
            else:
                program[pc][5] = (loop_end[path[inner][0].id] + 1, tuple(self.slots[c.id] for c, _ in path[inner:]))
        final: list = [None] * len(program)
        # repeats whose body begins with a roll or keep: another pass needs no trip through _run
        repeat_ends = {pc for pc, op in enumerate(program) if op[0] is Loop
                       and program[op[3]][0] is Leaf and program[op[3]][2] in (_ROLL, _KEEP)}

        def leaf_at(pc: int):
            return final[pc] if program[pc][0] is Leaf and program[pc][2] in (_ROLL, _KEEP) else None

        n = self.model.n_dice
        for pc in range(len(program) - 1, -1, -1):
            op = program[pc]
            if op[0] is Leaf:
                _, step, kind, _, after, stop, all_dice, can_stop, ruled = op
                roll_all = (self.valid[n], self.draw[0]) if all_dice and kind == _ROLL else None
                plans = None  # a write's plans, where the roll number does not matter
                if kind == _WRITE and not self.scorer._turn_matters and self.scorer.simple and not self.announces:
                    plans = self.scorer.plans_for(step)
                final[pc] = Leaf(step, kind, pc, after, stop, all_dice, can_stop, leaf_at(pc + 1), roll_all, plans,
                                 pc + 1 in repeat_ends, ruled)
        for pc, op in enumerate(program):
            cls = op[0]
            if cls is Start:
                final[pc] = Start(leaf_at(pc + 1))
            elif cls in (Loop, Turns):
                body = op[-1]
                if program[body][0] is Start and leaf_at(body + 1) is not None:  # a pass begins a turn
                    final[pc] = cls(*op[1:], leaf_at(body + 1), True)
                else:
                    final[pc] = cls(*op[1:], leaf_at(body), False)
            elif cls is End:
                final[pc] = End()
        for pc, repeat in whiles:
            final[pc] = While(repeat.condition, self.slots[repeat.id], loop_end[repeat.id] + 1)
        self.program: list = final

    def precompute(self) -> "_Tables":
        """Fill every table now instead of on first use: the keeps of every roll, every roll beside
        every keep, and (where they do not depend on the roll number) the write plans."""
        from ..model.dice import keeps as all_keeps, multisets
        n, faces = self.model.n_dice, self.model.faces
        for dice in multisets(n, faces):
            self.keeps(dice)
        for kept in all_keeps(n, faces):
            if len(kept) < n:
                for rolled in self.valid[n - len(kept)]:
                    self.merged(kept, rolled)
        if not self.scorer._turn_matters and self.scorer.simple and not self.announces:
            for op in self.program:
                if type(op) is Leaf and op.kind == _WRITE:
                    for dice in multisets(n, faces):
                        self.scorer.write_plan(dice, {}, 1, op.step)
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

    def ruled_keeps(self, step: Step, dice: tuple[int, ...], held: tuple[int, ...]) -> tuple[list[Action], list[Action], frozenset]:
        """`keeps` at a keep step with a rule: only keeps that hold the dice set aside earlier in the
        turn (`held`, when they stay aside) and that its `allowed:` rule accepts. Stopping stays
        possible where the step may stop: the rule says which dice may be set aside, not whether
        the player may write the dice as they are."""
        key = (step.id, dice, held)
        entry = self._ruled.get(key)
        if entry is None:
            from ..model.dsl.compiler import Context
            index = self.scorer._index[dice]
            counts = self.scorer._counts[index]
            rule = step.allowed
            held_set = _multiset(held)
            legal = []
            for k in self.keeps(dice)[2]:
                if held and not _contains(_multiset(k), held_set):
                    continue
                if rule is not None and not rule(Context(dice, index, counts, kept=k, held=held)):
                    continue
                legal.append(k)
            if not legal and not step.can_stop:
                raise ModelError("the keep rule of step '{step}' lets the player keep no dice of the roll {dice}",
                                 rule.text.pos if rule is not None else step.pos,
                                 "allow at least one keep (keeping none, say) for every roll",
                                 step=step.id, dice=" ".join(map(str, dice)))
            subs = sorted(legal, key=lambda k: (len(k), k))
            keeps = [Keep(k) for k in subs]
            entry = ([Stop()] + [k for k in keeps if len(k.dice) < len(dice)], keeps, frozenset(subs))
            if len(self._ruled) < 200_000:  # bounded: (step, roll, held) triples of a model
                self._ruled[key] = entry
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
            if self.model.grouped and m == self.model.n_dice:  # dice that differ: every group rolled
                total, outs = group_total(self.model.groups), group_outcomes(self.model.groups)
            else:
                total, outs = faces ** m, outcomes(m, faces)
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
        # the model's counters (numbers that outlive a turn): each player's own, and the game's
        self.counter_values: list[dict[str, int]] = [{c.id: c.start for c in model.counters if c.per == "player"}
                                                     for _ in players]
        self.game_counters: dict[str, int] = {c.id: c.start for c in model.counters if c.per == "game"}
        self.player = 0
        # at a write step taken by several players (`by: others|all`) or one the player may pass:
        # the player asked now (None: the active player), those still to ask, the writes made
        self.acting: int | None = None
        self._queue: list[int] = []
        self._written: list[tuple[int, str]] = []
        self.dice: tuple[int, ...] = ()
        self.kept: tuple[int, ...] = ()
        self.held: tuple[int, ...] = ()  # dice set aside this turn that stay aside (a keep step with `locked`)
        self.announced: str | None = None  # the write target announced this turn (an announce step)
        self.roll_number = 0
        self.ended_by: int | None = None  # the player whose write met the model's end_if
        self.last_cell: str | None = None  # the cell the last write filled
        self._n_boxes = len(model.cells)  # the sheet is full when every cell is
        self._program, self._keeps, self._merge = t.program, t._keeps, t.merge  # (saves a lookup per move)
        self._writes, self._n_players = t.writes, len(self.players)
        self._counters = [0] * len(t.slots)  # the pass through each container (0 outside it)
        self._simple = model.simple_sheet  # the sheet's cells are its boxes
        self._full = self._all_filled()  # every sheet is full (kept up to date by writes)
        self._op: Leaf | None = None  # the leaf instruction due (None: the game is over)
        self._options: dict[str, Option] | None = None  # what the dice may be written into (at a write)
        self._plan: dict[str, Option] | None = None  # at a write, a static plan (see Scorer.write_plan)
        self._run(0)

    def clone(self) -> "GameState":
        """An independent copy of the position (to look ahead: apply moves to it, not to this one)."""
        other = object.__new__(GameState)
        other.__dict__.update(self.__dict__)
        other.players = list(self.players)
        other.sheets = [dict(s) for s in self.sheets]
        other.awards = [dict(a) for a in self.awards]
        other.counter_values = [dict(c) for c in self.counter_values]
        other.game_counters = dict(self.game_counters)
        other._counters = list(self._counters)
        other._queue = list(self._queue)
        other._written = list(self._written)
        return other

    # the OpenSpiel interface ----------------------------------------------
    def step(self) -> Step | None:
        """The leaf step waiting to be done (None when the game is over)."""
        op = self._op
        return None if op is None else op.step

    def current_player(self) -> int:
        op = self._op
        if op is None:
            return TERMINAL
        if op.kind is _ROLL:
            return CHANCE
        acting = self.acting
        return self.player if acting is None else acting

    @property
    def actor(self) -> int:
        """The player who decides now: the active player, or the one asked at a step several take."""
        acting = self.acting
        return self.player if acting is None else acting

    def is_terminal(self) -> bool:
        return self._op is None

    def is_chance_node(self) -> bool:
        op = self._op
        return op is not None and op.kind is _ROLL

    def dice_to_roll(self) -> int:
        """How many dice the pending roll throws."""
        return self.model.n_dice if self._op.all_dice else self.model.n_dice - len(self.kept)

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
        if op is None or op.kind is not _ROLL:
            raise IllegalActionError("no dice are to be rolled now")
        all_dice = op.roll_all
        cum, rolls, total = all_dice[1] if all_dice is not None else self._t.draw[len(self.kept)]
        return rolls[bisect_right(cum, rng.random() * total)]

    def legal_actions(self) -> list[Action]:
        op = self._op
        if op is None:
            return []
        kind = op.kind
        if kind is _KEEP:
            if op.ruled:
                entry = self._t.ruled_keeps(op.step, self.dice, self.held)
            else:
                entry = self._keeps.get(self.dice) or self._t.keeps(self.dice)
            return (entry[0] if op.can_stop else entry[1])[:]  # a copy: the cached list stays as it is
        if kind is _ANNOUNCE:
            return self._announce_options()
        if kind is _WRITE:
            writes, plan = self._writes, self._plan
            if plan is not None:  # the plan's boxes that are open
                out = list(map(writes.__getitem__, filterfalse(self.sheets[self.actor].__contains__, plan)))
            else:
                out = list(map(writes.__getitem__, self._write_options()))
            if op.step.optional and self._may_pass(op):
                out.insert(0, Stop())
            return out
        return [a for a, _ in self.chance_outcomes()]

    def write_choices(self) -> list[Choice]:
        """The boxes the current dice may be written into, with their points and bonus."""
        op = self._op
        if op is None or op.kind is not _WRITE:
            return []
        return [c for c, _ in self._write_options().values()]

    def apply(self, action: Action) -> None:
        """Carry out a decision or a chance outcome; IllegalActionError if the rules forbid it."""
        op = self._op
        if op is None:
            raise IllegalActionError("the game is over")
        kind = op.kind
        if kind is _ROLL:
            all_dice = op.roll_all
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
            if all_dice is not None:  # every die is rolled again: none stays set aside
                self.held = ()
            self.roll_number += 1
            if op.next_leaf is not None:
                self._op = op.next_leaf
                return
            if op.ends_repeat:  # the end of a repeat: another pass, if one is left (as _run would do)
                loop = self._program[op.after]
                counters = self._counters
                n = counters[loop.slot] + 1
                if n < loop.times and not self._full:
                    counters[loop.slot] = n
                    self._op = loop.leaf
                    return
            self._run(op.after)
        elif kind is _KEEP:
            try:
                keep = action.dice
                entry = (self._t.ruled_keeps(op.step, self.dice, self.held) if op.ruled
                         else self._keeps.get(self.dice) or self._t.keeps(self.dice))
                legal = keep in entry[2]
            except (AttributeError, TypeError):
                legal = False
            if not legal:
                keep = self._check_keep(op, action)
            if keep is None or (op.can_stop and len(keep) == len(self.dice)):  # stop rolling
                self._stop(op)  # keeping every die is stopping
            else:
                self.kept = keep
                if op.ruled and op.step.locked:
                    self.held = keep
                if op.next_leaf is not None:
                    self._op = op.next_leaf
                else:
                    self._run(op.after)
        elif kind is _ANNOUNCE:
            self._apply_announce(op, action)
        elif type(action) is Stop and op.step.optional:
            if not self._may_pass(op):
                raise IllegalActionError("you cannot pass at '{step}' now: write the dice into a box", step=op.step.name)
            self._next_actor(op)
        else:
            self._apply_write(op, action)

    def returns(self) -> list[int]:
        """Each player's final score: the grand total, or the model's own final score (`winner`)."""
        if self.model.ranking is None:
            return [self.totals(p)["total"] for p in range(len(self.players))]
        return [self.final_scores()[p][0] for p in range(len(self.players))]

    def final_scores(self) -> list[tuple[int, ...]]:
        """Each player's (final score, tie-breaks…), as they are ranked."""
        return [self.scorer.final_score(self.sheets[p], self.awards[p], self.counters_of(p))
                for p in range(len(self.players))]

    def counters_of(self, player: int) -> dict[str, int] | None:
        """The counters as the player's expressions read them: their own and the game's (None: the
        model has no counters)."""
        if not self.model.counters:
            return None
        return {**self.game_counters, **self.counter_values[player]}

    # the steps --------------------------------------------------------------
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
            if self.held and not _contains(_multiset(keep), _multiset(self.held)):
                raise IllegalActionError("you cannot keep {keep}: the dice {held} were set aside and stay aside",
                                         keep=shown, held=" ".join(map(str, self.held)))
            if step.rule:
                raise IllegalActionError("the rules do not let you keep {keep} now ({rule})", keep=shown, rule=step.rule)
            raise IllegalActionError("the rules do not let you keep {keep} now", keep=shown)
        return keep

    def _apply_write(self, op: Leaf, action: Action) -> None:
        try:
            box = action.box
        except AttributeError:
            box = None
        player = self.actor
        sheet = self.sheets[player]
        plan = self._plan
        if plan is not None:
            option = plan.get(box)
            if box in sheet:
                option = None
        else:
            option = self._write_options().get(box)
        if option is None:
            box = self._check_write(op.step, action)
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
        if op.step.optional or op.step.by != "active":  # effects and the end check after the last player
            self._written.append((player, box))
            self._next_actor(op)
            return
        if op.step.effects:
            self._apply_effects(op.step, box)
        end_if = self.model.end_if
        if end_if is not None and end_if(self.scorer.context(self.dice, sheet, box, self.roll_number,
                                                             self.counters_of(player))):
            self.ended_by = player
            self._run(self._t.end)
        else:
            self._run(op.after)

    def _apply_effects(self, step: Step, box: str, writer: int | None = None) -> None:
        """A write's effects, in order: counters of the writer, of every other player or of all
        (a game counter has one value), each kept within its bounds."""
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
                if effect.when is not None and not effect.when(ctx):
                    continue
                store = self.game_counters if p is None else self.counter_values[p]
                amount = effect.amount(ctx)
                store[counter.id] = counter.bounded(amount if effect.op == "set" else store[counter.id] + amount)

    # a step several players take, or one a player may pass (see acting.py) -----------------
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
        end_if = self.model.end_if
        if end_if is not None:
            for p, box in written:
                if end_if(self.scorer.context(self.dice, self.sheets[p], box, self.roll_number, self.counters_of(p))):
                    self.ended_by = p
                    self._run(self._t.end)
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
            self._plan = plan
            return next(filterfalse(sheet.__contains__, plan), None) is not None
        self._plan = None
        return bool(self._write_options())

    # announcing -------------------------------------------------------------------
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

    # walking the phase tree ---------------------------------------------------
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
                            self.dice, self.kept, self.held, self.roll_number, self.announced = (), (), (), 0, None
                        self._op = op.leaf
                        return
                    pc = op.body
                else:
                    counters[slot] = 0
                    pc += 1
            elif cls is Leaf:
                self._op = op
                if op.kind is _WRITE and (op.step.optional or op.step.by != "active"):
                    self._queue = list(actors(op.step.by, self.player, self._n_players))
                    self._written = []
                    if self._ask_next(op):
                        return
                    done = self._finish_shared(op)
                    if done is None:
                        return
                    pc = done
                    continue
                if op.kind is _WRITE:  # some box must be able to take the dice
                    sheet = self.sheets[self.actor]
                    self._options = None
                    entry = op.plans.get(self.dice) if op.plans is not None else None
                    if entry is not None and entry[0]:  # a static plan
                        self._plan = plan = entry[1]
                        if next(filterfalse(sheet.__contains__, plan), None) is None:
                            self._no_box(op)
                    elif not self._can_write(op):
                        self._no_box(op)
                return
            elif cls is Turns:
                counters = self._counters
                slot = op.slot
                n = counters[slot] + 1
                if n < self._n_players and not self._full:  # the next player's turn
                    counters[slot] = n
                    self.player = n
                    self.dice, self.kept, self.held, self.roll_number, self.announced = (), (), (), 0, None
                    if op.leaf is not None:
                        if op.turn_start:
                            self.player = 0
                        self._op = op.leaf
                        return
                    pc = op.body
                else:
                    counters[slot] = 0
                    pc += 1
            elif cls is Start:
                self.player = 0
                self.dice, self.kept, self.held, self.roll_number, self.announced = (), (), (), 0, None
                if op.leaf is not None:
                    self._op = op.leaf
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
        return all(len(s) == n for s in self.sheets)

    @property
    def stack(self) -> list[Frame]:
        """The position as frames: each container from the root down, its child due and its pass."""
        op = self._op
        if op is None:
            return []
        slots, counters = self._t.slots, self._counters
        return [Frame(c, i, counters[slots[c.id]]) for c, i in self._t.paths[op.pc]]

    # views ----------------------------------------------------------------------
    def totals(self, player: int) -> dict[str, int]:
        return self.scorer.totals(self.sheets[player], self.awards[player], self.counters_of(player))

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
                for _ in range(frame.step.times - frame.iteration - 1):
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
                rounds = (frame.iteration + 1, frame.step.times)
        return rounds

    def ranking(self) -> list[tuple[int, str, int]]:
        """(rank, player, final score), best first; equal keys share a rank (a tie). The ranking alone
        decides: players for whom the model's `winner.ahead_if` holds come first, then the final score
        and tie-breaks; who ended the game has no say."""
        keys = self.final_scores()
        sign = 1 if self.model.winner == "lowest_total" else -1
        ahead = self.model.ahead_if
        first = [False] * len(self.players)
        if ahead is not None:
            from ..model.dsl.compiler import Context
            first = [bool(ahead(Context(sheet=self.scorer.view(self.sheets[p]), counters=self.counters_of(p))))
                     for p in range(len(self.players))]
        full = [(not first[p], [sign * k for k in keys[p]]) for p in range(len(self.players))]
        order = sorted(range(len(self.players)), key=lambda p: (full[p], p))
        out, rank = [], 0
        for i, p in enumerate(order):
            if i == 0 or full[p] != full[order[i - 1]]:
                rank = i + 1
            out.append((rank, self.players[p], keys[p][0]))
        return out

    # JSON -------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """A snapshot of the position: nothing in it changes as the game goes on."""
        return {
            "players": list(self.players), "player": self.player, "dice": list(self.dice), "kept": list(self.kept),
            "roll_number": self.roll_number, "held": list(self.held), "announced": self.announced,
            "sheets": [dict(s) for s in self.sheets],
            "awards": [dict(a) for a in self.awards],
            **({"counters": [dict(c) for c in self.counter_values], "game_counters": dict(self.game_counters)}
               if self.model.counters else {}),
            "ended_by": self.ended_by,
            **({"acting": self.acting, "waiting": list(self._queue), "written": [list(w) for w in self._written]}
               if self.acting is not None or self._queue or self._written else {}),
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
            state.held = tuple(_int(d) for d in data.get("held", ()))  # (saves from before keep rules have none)
            announced = data.get("announced")
            state.announced = None if announced is None else str(announced)
            ended_by = data.get("ended_by")
            state.ended_by = None if ended_by is None else _int(ended_by)
            state.sheets = [{str(k): _int(v) for k, v in s.items()} for s in data["sheets"]]
            state.awards = [{str(k): _int(v) for k, v in a.items()} for a in data["awards"]]
            if model.counters:
                state.counter_values = [{str(k): _int(v) for k, v in c.items()} for c in data["counters"]]
                state.game_counters = {str(k): _int(v) for k, v in data["game_counters"].items()}
            acting = data.get("acting")
            state.acting = None if acting is None else _int(acting)
            state._queue = [_int(p) for p in data.get("waiting", ())]
            state._written = [(_int(p), str(b)) for p, b in data.get("written", ())]
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
        if model.counters:
            mine = {c.id: c for c in model.counters if c.per == "player"}
            shared = {c.id: c for c in model.counters if c.per == "game"}
            if len(state.counter_values) != n or any(set(v) != set(mine) for v in state.counter_values) \
                    or set(state.game_counters) != set(shared) \
                    or any(c.bounded(v[k]) != v[k] for v in state.counter_values for k, c in mine.items()) \
                    or any(c.bounded(state.game_counters[k]) != state.game_counters[k] for k, c in shared.items()):
                raise bad("the saved counters do not fit the model's counters")
        for who in (state.player, state.ended_by, state.acting, *state._queue, *(p for p, _ in state._written)):
            if who is not None and not 0 <= who < n:
                raise bad("there is no player number {number}", number=who)
        if state.announced is not None and state.announced not in model.targets:
            raise bad("there is no box '{box}'", did_you_mean(state.announced, model.targets), box=state.announced)
        if not _contains(_multiset(state.dice), _multiset(state.held)):
            raise bad("the dice set aside, {held}, are not among the dice {dice}", held=list(state.held), dice=list(state.dice))
        for dice in (state.dice, state.kept, state.held):
            if len(dice) > model.n_dice or any(not 1 <= d <= model.faces for d in dice):
                raise bad("the dice {dice} are not {count} dice with faces 1 to {faces}", dice=list(dice),
                          count=model.n_dice, faces=model.faces)
        if state.dice and len(state.dice) != model.n_dice:
            raise bad("the dice {dice} are not {count} dice", dice=list(state.dice), count=model.n_dice)
        if model.grouped:
            if state.kept or state.held or (state.dice and canonical(state.dice, model.groups) != state.dice):
                raise bad("the dice are not in order")
        elif any(d != tuple(sorted(d)) for d in (state.dice, state.kept, state.held)):
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


def _multiset(dice: tuple[int, ...]) -> dict[int, int]:
    out: dict[int, int] = {}
    for d in dice:
        out[d] = out.get(d, 0) + 1
    return out


def _contains(big: dict[int, int], small: dict[int, int]) -> bool:
    """Whether one multiset (face → count) holds another."""
    return all(big.get(face, 0) >= n for face, n in small.items())


def _rolls_in(step: Step, ctx=None) -> int:
    """The rolls a step makes (at most). With a context, a repeat's `while:` condition is checked
    before every pass, and `ctx.roll_number` counts on with the rolls made."""
    if step.kind == "roll":
        if ctx is not None:
            ctx.roll_number += 1
        return 1
    if step.kind == "repeat":
        if ctx is None:
            return step.times * sum(_rolls_in(s) for s in step.steps)
        n = 0
        for _ in range(step.times):
            if step.condition is not None and not step.condition(ctx):
                break
            n += sum(_rolls_in(s, ctx) for s in step.steps)
        return n
    return sum(_rolls_in(s, ctx) for s in step.steps)
