"""The phase tree compiled once per model into a flat program, and what depends only on the model and the dice.

`tables(model)` gives the compiled program (`Leaf`, `Start`, `Turns`, `Loop`, `While`, `End`), the legal keeps of
every roll and the chance tables; `GameState` carries only its position, the dice and the sheets.
"""
from __future__ import annotations

from itertools import accumulate

from .actions import Action, Keep, Roll, Stop, Write
from ..model.dice import group_outcomes, group_total, outcomes, sub_multisets
from ..model.errors import ModelError
from ..model.frozen import Model, Step
from ..model.scoring import Scorer
from .positions import Positions
from .instructions import (ANNOUNCE, BANK, CHANCE, KEEP, ROLL, TERMINAL, UNBOUNDED, WRITE,  # noqa: F401 (the engine's names)
                           End, Frame, Leaf, Loop, Start, Turns, While)

_CONTAINERS = ("repeat", "each_player")
_KINDS = {"roll": ROLL, "keep": KEEP, "write": WRITE, "announce": ANNOUNCE, "bank": BANK}

class _Tables:
    """Per-model lookups shared by every state of the model."""

    def __init__(self, model: Model):
        self.model = model
        self.scorer = Scorer.for_model(model)
        self.writes = {t: Write(t) for t in model.targets}
        self._keeps: dict[tuple[int, ...], tuple] = {}
        # one Stop for the model and (dice alike) one Keep per kept multiset, handed out by every node (see `keeps`)
        self._keep_of: dict[tuple[int, ...], Keep] = {}
        self.stop = Stop()
        if not model.grouped:
            object.__setattr__(self.stop, "_at", (self, None, None, -1))  # (a frozen value: noted beside its fields)
        self._chance: dict[int, tuple] = {}
        self.faces_at: dict[int, dict[tuple[int, ...], int]] = {}  # m → the sorted faces of m dice → their outcome's index
        self.merge: dict[tuple[int, ...], dict[tuple[int, ...], tuple[int, ...]]] = {}  # kept → faces → dice
        self._ruled: dict[tuple, tuple] = {}  # (keep step id, dice, held) → its keeps (see `ruled_keeps`)
        self._after: dict[tuple[int, ...], tuple] = {}  # kept → rolling the others (see `after`)
        self.counter = {c.id: c for c in model.counters}  # the model's counters by id
        # what a new state starts from: each player's counters, the game's, those of a turn (id, start)
        self.player_counters = {c.id: c.start for c in model.counters if c.per != "game"}
        self.game_counters = {c.id: c.start for c in model.counters if c.per == "game"}
        self.turn_counters = tuple((c.id, c.start) for c in model.counters if c.per == "turn")
        self.n_cells, self.simple = len(model.cells), model.simple_sheet
        # a sheet of boxes: each box's bit in a mask of boxes, and the write actions of the boxes in a mask
        # (in sheet order: what a write step offers, once the open boxes of its plan are known)
        self.bit = {t: 1 << i for i, t in enumerate(model.targets)}
        self.open_writes: dict[int, list[Write]] = {}  # see `writes_in`
        # ... and for the first 16 boxes, from two small tables (the writes of each set of boxes 0-7 and 8-15):
        # a mask's writes are two lookups (`GameState._open_writes`) in tables that stay in the cache, where a
        # table of every mask (8,192 lists for 13 boxes) was a cache miss per write in random play
        order = [self.writes[t] for t in self.bit]
        self.low_writes, self.high_writes = ([[w for i, w in enumerate(order[lo:lo + 8]) if m >> i & 1] for m in range(256)]
                                             for lo in (0, 8))
        # an announce step: writes follow the announcement, so they are never planned ahead
        self.announces = any(s.kind == "announce" for s in model.flow.walk()) or any(
            c.order == "announced" for c in model.columns)
        # the sorted faces a roll of m dice may show, for m = 0 … n
        self.valid = [self.chance(m)[3] for m in range(model.n_dice + 1)]
        # drawing a roll with k dice kept: (cumulative weights, outcomes, total weight), for k = 0 … n
        self.draw = [self.chance(model.n_dice - k)[1:3] + (float(self.chance(model.n_dice - k)[4]),)  # (float: x * total is a float product)
                     for k in range(model.n_dice + 1)]
        # dice that differ: a kept die is a code, group * faces + face, so that kept dice of several
        # groups are one sorted multiset (group after group, like a roll) and keeps are its sub-multisets
        self.grouped = model.grouped
        self.die_group = tuple(g for g, (c, _) in enumerate(model.groups) for _ in range(c))
        self.group_ids = tuple(g.id for g in model.dice_groups)
        self._group_chance: dict[tuple, tuple] = {}
        self.plan_slots = 0  # the write leaves with plans (each node of dice keeps their static plans)
        self.positions = Positions(self)  # (see positions.py)
        self.roll_all = None if self.grouped else self.after(())  # rolling every die (dice alike; see `after`)
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
            program.append([Turns, slot, body] if each else [Loop, slot, container.times or UNBOUNDED, body])

        if root.steps:
            emit(root, ())
        self.end = len(program)
        program.append([End])
        # a turn whose writes vary (a while:, a stop inside a repeat of writes): once the player's
        # sheet is full, the turn ends at its next write (the end of the each_player, its repeats reset)
        each = next((s for s in root.walk() if s.kind == "each_player"), None)
        from ..model.soundness import writes_per_player
        self.turn_end = (loop_end[each.id], tuple(self.slots[s.id] for s in each.walk() if s is not each and
                                                  s.kind in _CONTAINERS)) \
            if each is not None and each.id in loop_end and writes_per_player(self.model) is None else None
        # where a turn ends at once (a bust): the end of the each_player, the repeats inside it reset
        self.turn_over = (loop_end[each.id], tuple(self.slots[s.id] for s in each.walk() if s is not each and
                                                   s.kind in _CONTAINERS)) \
            if each is not None and each.id in loop_end else None
        for pc, path in self.paths.items():
            inner = max((d for d, (c, _) in enumerate(path) if c.kind == "repeat"), default=None)
            if inner is None:
                program[pc][5] = (self.end, ())
            else:
                program[pc][5] = (loop_end[path[inner][0].id] + 1, tuple(self.slots[c.id] for c, _ in path[inner:]))
        final: list = [None] * len(program)
        # repeats whose body begins with a roll or keep: another pass needs no trip through _run
        repeat_ends = {pc for pc, op in enumerate(program) if op[0] is Loop
                       and program[op[3]][0] is Leaf and program[op[3]][2] in (ROLL, KEEP)}

        def leaf_at(pc: int):
            return final[pc] if program[pc][0] is Leaf and program[pc][2] in (ROLL, KEEP) else None

        def exit_write(pc: int):
            if pc + 1 not in repeat_ends or program[pc][2] != ROLL:
                return None
            w = final[pc + 2] if pc + 2 < len(final) else None
            return w if type(w) is Leaf and w.kind == WRITE and not w.shared else None

        n = self.model.n_dice
        for pc in range(len(program) - 1, -1, -1):
            op = program[pc]
            if op[0] is Leaf:
                _, step, kind, _, after, stop, all_dice, can_stop, ruled = op
                roll_all = (self.valid[n], self.draw[0]) if all_dice and kind == ROLL else None
                plans = None  # a write's plans, where the roll number does not matter
                if kind == WRITE and not self.scorer._turn_matters and self.scorer.simple and not self.announces:
                    plans = self.scorer.plans_for(step)
                luck = (kind == ROLL and (step.bust is not None or step.hot_dice or bool(step.effects))) or (
                    kind == KEEP and bool(step.effects))
                final[pc] = Leaf(step, kind, pc, after, stop, all_dice, can_stop, leaf_at(pc + 1), roll_all, plans,
                                 pc + 1 in repeat_ends, ruled, luck,
                                 kind == KEEP and not ruled and not luck and not self.grouped, 0 if can_stop else 1,
                                 kind == WRITE and (bool(step.optional) or step.by != "active"), bool(step.effects),
                                 exit_write(pc),
                                 None if kind != ROLL or luck else [roll_all[1]] * (n + 1) if roll_all is not None
                                 else None if self.grouped else self.draw,
                                 plan_slot=None if plans is None else self._next_plan_slot(),
                                 chance=kind == ROLL, plain_roll=kind == ROLL and not luck,
                                 plain_write=kind == WRITE and not step.optional and step.by == "active"
                                 and not step.effects and self.model.end_if is None)
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
        for op in final:  # a roll or keep at the end of a repeat: that repeat's end
            if type(op) is Leaf and op.ends_repeat:
                object.__setattr__(op, "loop", final[op.after])  # (known only now)
        for op in final:  # a write followed by the end of the turns and of the rounds around them
            if type(op) is Leaf and op.kind == WRITE and not op.shared and op.after + 1 < len(final):
                turns, loop = final[op.after], final[op.after + 1]
                if type(turns) is Turns and turns.leaf is not None and not turns.turn_start \
                        and type(loop) is Loop and loop.leaf is not None and loop.turn_start:
                    object.__setattr__(op, "next_turn", (turns.slot, loop.slot, loop.times, turns.leaf, loop.leaf,
                                                         op.after + 2, self.positions.start(turns.leaf),
                                                         self.positions.start(loop.leaf)))  # (known only now)
        self.program: list = final
        first = final[0]  # a program that begins with a turn (see `GameState.__init__`)
        self.opening = (first.leaf, self.positions.start(first.leaf)) if type(first) is Start and first.leaf is not None \
            else None

    def _next_plan_slot(self) -> int:
        self.plan_slots += 1
        return self.plan_slots - 1

    def precompute(self) -> "_Tables":
        """Fill every table now instead of on first use: the keeps of every roll, every roll beside
        every keep (and the node it leads to), and (where they do not depend on the roll number) the write plans."""
        from ..model.dice import keeps as all_keeps, multisets
        if self.grouped:  # dice that differ: their tables are filled as play meets them
            return self
        n, faces = self.model.n_dice, self.model.faces
        for dice in multisets(n, faces):
            self.keeps(dice)
        for kept in all_keeps(n, faces):
            if len(kept) < n:
                for rolled in self.valid[n - len(kept)]:
                    self.merged(kept, rolled)
                after = self.after(kept)
                for roll in after[2]:
                    self.node_after(after, roll.faces)
        self.positions.precompute()
        if not self.scorer._turn_matters and self.scorer.simple and not self.announces:
            for op in self.program:
                if type(op) is Leaf and op.kind == WRITE:
                    for dice in multisets(n, faces):
                        self.scorer.write_plan(dice, {}, 1, op.step)
                        if op.plan_slot is not None:
                            self.static_plan(op, dice)
        return self

    # dice that differ: kept dice as codes ------------------------------------------------------
    def codes(self, dice: tuple[int, ...]) -> tuple[int, ...]:
        """A roll of dice that differ as kept-dice codes (sorted, since a roll is group after group)."""
        F = self.model.faces
        return tuple(g * F + d for g, d in zip(self.die_group, dice))

    def faces_of(self, codes: tuple[int, ...]) -> tuple[int, ...]:
        """Kept-dice codes as the faces they show (group after group)."""
        F = self.model.faces
        return tuple((c - 1) % F + 1 for c in codes) if self.grouped else codes

    def keep_action(self, codes: tuple[int, ...]) -> Keep:
        """The Keep that keeps these dice (codes with dice that differ, else faces)."""
        if not self.grouped:
            return Keep(codes)
        F = self.model.faces
        return Keep(tuple((c - 1) % F + 1 for c in codes), tuple(self.group_ids[(c - 1) // F] for c in codes))

    def _keep(self, codes: tuple[int, ...]) -> Keep:
        """The Keep of a node's sub-multiset (see `keeps`): with dice alike the model's one Keep of those dice,
        noting what taking it does (a few hundred at most: only sub-multisets of rolls come here)."""
        if self.grouped:
            return self.keep_action(codes)
        found = self._keep_of.get(codes)
        if found is None:
            found = self._keep_of[codes] = Keep(codes)
            if len(codes) < self.model.n_dice:  # (keeping every die is stopping)
                after = self.after(codes)
                object.__setattr__(found, "_at", (self, after[0], after, len(self._keep_of)))  # (the kept dice as `after` holds them)
        return found

    def codes_of_keep(self, action: Keep) -> tuple[int, ...] | None:
        """The codes of a Keep of dice that differ (None: it names a group the model lacks)."""
        groups, dice = action.groups, action.dice
        if len(groups) != len(dice) or (dice and not groups):
            return None
        where = {g: i for i, g in enumerate(self.group_ids)}
        F = self.model.faces
        if any(g not in where for g in groups) or any(type(d) is not int or not 1 <= d <= F for d in dice):
            return None
        return tuple(sorted(where[g] * F + d for g, d in zip(groups, dice)))

    def group_chance(self, kept: tuple[int, ...]) -> tuple:
        """Rolling the dice not kept (codes) of dice that differ: like `chance`, for the groups' dice left."""
        entry = self._group_chance.get(kept)
        if entry is None:
            F = self.model.faces
            left = [c for c, _ in self.model.groups]
            mine: list[list[int]] = [[] for _ in left]
            for code in kept:
                g = (code - 1) // F
                left[g] -= 1
                mine[g].append((code - 1) % F + 1)
            rolled = tuple((n, f) for n, (_, f) in zip(left, self.model.groups) if n > 0)
            outs = group_outcomes(rolled) if rolled else (((), 1),)
            total = group_total(rolled) if rolled else 1
            rolls = [Roll(f) for f, _ in outs]
            merge = self.merge.setdefault(kept, {})
            for faces, _ in outs:
                dice, at = [], 0
                for g, n in enumerate(left):
                    dice.extend(sorted(mine[g] + list(faces[at:at + n])))
                    at += n
                merge[faces] = tuple(dice)
            entry = ([(r, w / total) for r, (_, w) in zip(rolls, outs)], [float(c) for c in accumulate(w for _, w in outs)],
                     rolls, frozenset(f for f, _ in outs), total)
            self._group_chance[kept] = entry
        return entry

    def keeps(self, dice: tuple[int, ...]) -> tuple[list[Action], list[Action], frozenset, frozenset, tuple, list, frozenset]:
        """(legal actions when the step may stop, when it may not, the keepable sub-multisets, those
        that leave some die to roll (with dice that differ, as codes), the dice themselves, the
        static plan of each write leaf with plans (by `Leaf.plan_slot`: see `static_plan`; None
        until found), and the ids of its short keeps and of stopping (below)): the node of a roll, for
        the engine's per-step fast paths.

        A state remembers the node of its dice (`GameState._node`, valid while `node[4] is state.dice`).
        With dice alike, every node hands out the same action for the same kept dice (`_keep`) and
        the same Stop (`stop`), so a turn touches a few hundred actions, not one set per roll. Each carries
        what taking it does, `_at` = (these tables, the kept dice, `after(kept)`, its id), or (these tables,
        None, None, -1) for Stop; so a keep is checked (its id among the node's) and carried out by reading
        the action instead of hashing dice (an action of other tables, or one made elsewhere, is checked the
        long way)."""
        entry = self._keeps.get(dice)
        if entry is None:
            subs = sorted(sub_multisets(self.codes(dice) if self.grouped else dice), key=lambda k: (len(k), k))
            keeps = [self._keep(k) for k in subs]
            short = [k for k in keeps if len(k.dice) < len(dice)]
            ids = frozenset([-1] + [k._at[3] for k in short]) if not self.grouped else frozenset()
            entry = ([self.stop] + short, keeps, frozenset(subs), frozenset(k for k in subs if len(k) < len(dice)), dice,
                     [None] * self.plan_slots, ids)
            self._keeps[dice] = entry
        return entry

    def after(self, kept: tuple[int, ...]) -> tuple:
        """Rolling the dice not kept beside `kept` (dice alike): (kept, cumulative weights, rolls,
        total weight, nodes) where `nodes[i]` is, once met, the node (`keeps`) of the dice after
        `rolls[i]`, the i-th outcome of the roll as the engine draws them (each Roll of the
        table carries its i as `_i`, see `chance`)."""
        entry = self._after.get(kept)
        if entry is None:
            cum, rolls, total = self.draw[len(kept)]
            entry = self._after[kept] = (kept, cum, rolls, total, [None] * len(rolls))
        return entry

    def node_after(self, after: tuple, faces: tuple[int, ...]) -> tuple:
        """The node of the dice after rolling these (valid, sorted) faces in `after` (remembered there)."""
        kept = after[0]
        node = self.keeps(self.merge.get(kept, {}).get(faces) or self.merged(kept, faces))
        after[4][self.faces_at[len(faces)][faces]] = node
        return node

    def static_plan(self, op: Leaf, dice: tuple[int, ...]) -> tuple[dict, int] | None:
        """A write leaf's static plan for the dice (`Scorer.write_plan`) with its boxes as a mask of `bit`,
        remembered in the node of the dice (at `op.plan_slot`); None if the plan is not static (or not
        known yet, or the leaf has no plans)."""
        entry = op.plans.get(dice) if op.plans is not None else None
        if entry is None or not entry[0]:
            return None
        plan = entry[1]
        bit = self.bit
        found = (self._keeps.get(dice) or self.keeps(dice))[5][op.plan_slot] = (plan, sum(bit[b] for b in plan))
        return found

    def writes_in(self, mask: int) -> list[Write]:
        """The write actions of the boxes in a mask of `bit`, in sheet order (remembered: do not change the list)."""
        found = self.open_writes.get(mask)
        if found is None:
            writes = self.writes
            found = [writes[t] for t, b in self.bit.items() if b & mask]
            if len(self.open_writes) < 100_000:  # bounded: the masks a model's games meet
                self.open_writes[mask] = found
        return found

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
            held_set = multiset_of(held)
            legal = []
            shown_held = self.faces_of(held)
            for k in self.keeps(dice)[2]:
                if held and not contains(multiset_of(k), held_set):
                    continue
                if rule is not None and not rule(Context(dice, index, counts, kept=self.faces_of(k), held=shown_held)):
                    continue
                legal.append(k)
            if not legal and not step.can_stop:
                raise ModelError("the keep rule of step '{step}' lets the player keep no dice of the roll {dice}",
                                 rule.text.pos if rule is not None else step.pos,
                                 "allow at least one keep (keeping none, say) for every roll",
                                 step=step.id, dice=" ".join(map(str, dice)))
            subs = sorted(legal, key=lambda k: (len(k), k))
            keeps = [self._keep(k) for k in subs]
            entry = ([self.stop] + [k for k in keeps if len(k.dice) < len(dice)], keeps, frozenset(subs))
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
            if not (self.model.grouped and m == self.model.n_dice):
                for i, roll in enumerate(rolls):  # its index among the outcomes (see `after`)
                    object.__setattr__(roll, "_i", i)  # (a frozen value: noted beside its fields)
                self.faces_at[m] = {f: i for i, (f, _) in enumerate(outs)}
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


def multiset_of(dice: tuple[int, ...]) -> dict[int, int]:
    out: dict[int, int] = {}
    for d in dice:
        out[d] = out.get(d, 0) + 1
    return out


def contains(big: dict[int, int], small: dict[int, int]) -> bool:
    """Whether one multiset (face → count) holds another."""
    return all(big.get(face, 0) >= n for face, n in small.items())
