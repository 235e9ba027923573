"""Computer players. Each is `choose(state) -> Action`; humans live in the user interfaces.

- `random`: a uniformly random legal action.
- `greedy`: maximizes the points (plus bonus) written this turn, planning its keeps exactly.
- `optimal`: maximizes the expected final score, from the solver's table (see solver.py).
"""
from __future__ import annotations

import random
from collections import OrderedDict
from typing import Protocol

import numpy as np

from ..engine.actions import Action, Keep, Stop, Write
from ..engine.state import GameState
from ..engine.turn import turn_tables
from .luck import LuckPlanner, pushes_luck


class Player(Protocol):
    def choose(self, state: GameState) -> Action: ...


class RandomBot:
    """Picks any legal action with equal chance."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def choose(self, state: GameState) -> Action:
        return self.rng.choice(state.legal_actions())


class PlannerBot:
    """Plans each turn exactly: keeps maximize the expected value of the final write.

    `box_value(state, points_plus_bonus, box)` says what writing a box is worth; the greedy bot
    counts only this turn's points, the optimal bot adds the value of the sheet that results.
    """

    PLAN_CACHE_BYTES = 64 * 2**20  # the memory bound of the plans kept (least recently used go first)
    COMPILED_LAYERS = True  # a turn's keep layers by numba where it can (the same numbers as numpy's)

    def __init__(self):
        self._plan_key = self._quick = None
        self._layers = None
        self._cache: OrderedDict = OrderedDict()  # plan key -> (boxes, tables by roll number, layers, bytes)
        self._cache_bytes = 0

    # subclasses give the value of writing each box for every possible final roll
    def write_table(self, state: GameState, roll_number: int | None = None) -> tuple[list[str], np.ndarray]:
        """(open boxes, values (B, R)) after the given roll of the turn (default: the last);
        -inf where a box may not take a roll."""
        raise NotImplementedError

    def roll_dependent(self, state: GameState) -> bool:
        """Whether points depend on which roll of the turn it is (then each roll gets its table)."""
        return _reads_roll_number(state.model)

    def plan_key(self, state: GameState):
        """What a turn's plan depends on: the player's sheet (subclasses may say less)."""
        return tuple(sorted(state.sheets[state.player].items()))

    def _plan(self, state: GameState):
        # the same sheet (and announcement) as last time: the same plan
        quick = (tuple(state.sheets[state.player].items()), state.announced)
        if quick == self._quick and self._layers is not None:
            return self._layers
        self._quick = quick
        key = (self.plan_key(state), state.announced)
        if key != self._plan_key:
            entry = self._cache.get(key)
            if entry is None:
                entry = self._make_plan(state)
                self._cache[key] = entry
                self._cache_bytes += entry[3]
                while self._cache_bytes > self.PLAN_CACHE_BYTES and len(self._cache) > 1:
                    self._cache_bytes -= self._cache.popitem(last=False)[1][3]
            else:
                self._cache.move_to_end(key)
            self._boxes, self._tables, self._layers, _ = entry
            self._plan_key = key
        return self._layers

    def _make_plan(self, state: GameState):
        """The turn's plan: (open boxes, write tables by roll number, TurnTables layers, bytes)."""
        model = state.model
        shape = self.__dict__.setdefault("_shape", {})
        if id(model) not in shape:  # (rerolls, may a keep stop?), once per model
            shape[id(model)] = (model, max_rerolls(model), any(s.kind == "keep" and s.can_stop for s in model.flow.walk()))
        rerolls, can_stop = shape[id(model)][1:]
        last = rerolls + 1
        numbers = range(1, last + 1) if self.roll_dependent(state) else [last]
        made = {rn: self.write_table(state, rn) for rn in numbers}
        tables = {rn: t for rn, (_, t) in made.items()}
        # no box left to write this turn (a keep after the turn's last write): nothing more to gain
        best = {rn: (t.max(axis=0) if len(t) else np.zeros(t.shape[1]))[:, None] for rn, t in tables.items()}
        stop = None
        if len(best) > 1 and can_stop:
            def stop(j):  # writing at once with j rerolls left
                return best[last - j]
        tt = turn_tables(model.n_dice, model.faces)
        layers = None
        if stop is None and self.COMPILED_LAYERS:
            from ..solver.turnplan import layers as compiled_layers
            layers = compiled_layers(tt, best[last][:, 0], rerolls)
        if layers is None:
            layers = tt.layers(best[last], rerolls, stop)
        size = sum(t.nbytes for t in tables.values()) + sum(a.nbytes for layer in layers for a in layer if a is not None)
        return made[last][0], tables, layers, size

    @property
    def _table(self) -> np.ndarray:
        return self._tables[self._roll_now]

    def _now(self, state: GameState) -> None:
        self._roll_now = state.roll_number if state.roll_number in self._tables else max(self._tables)

    def keep_values(self, state: GameState) -> dict[tuple[int, ...], float]:
        """The expected value of each keep of the current dice (only at a keep step); with a keep
        rule, of each allowed keep (keeping every die: stopping, where the step may stop)."""
        if state.model.grouped:  # dice that differ: keeps by group and face, as codes
            return _grouped(state).keep_values()
        rules = TurnRules.of(state.model)
        if rules.ruled:
            best = self._best_now(state)
            memo, j = rules.memo(best), state.rolls_left()
            out = {}
            for action in state.legal_actions():
                if isinstance(action, Stop):
                    out[state.dice] = rules.now(best, state.dice, j)
                else:
                    out[action.dice] = rules.keep_value(memo, best, state.dice, action.dice, state.held, j)
            return out
        layers = self._plan(state)
        tt = turn_tables(state.model.n_dice, state.model.faces)
        left = min(state.rolls_left(), len(layers) - 1)
        Kv = layers[left][0][:, 0]
        from ..model.dice import sub_multisets
        return {k: float(Kv[tt.keep_index[k]]) for k in sub_multisets(state.dice)}

    def write_values(self, state: GameState) -> dict[str, float]:
        """The value of each legal box for the current dice (only at a write step)."""
        if beyond_plans(state.model):  # writes the turn planner cannot read: this roll's points
            counting = counting_targets(state.model)
            return {c.box: float(c.points * counting[c.box] + c.bonus) for c in state.write_choices()}
        self._plan(state)
        self._now(state)
        tt = turn_tables(state.model.n_dice, state.model.faces)
        r = tt.roll_index[state.dice]
        return {b: float(self._table[i, r]) for i, b in enumerate(self._boxes) if np.isfinite(self._table[i, r])}

    # a turn of no fixed length (see luck.py): this bot's look-ahead; the strong bot looks further
    LUCK = (0, 1, False)  # (rolls looked ahead after a keep, after a bank decision, banks to win)

    def choose(self, state: GameState) -> Action:
        if pushes_luck(state.model):
            luck = self.__dict__.get("_luck")
            if luck is None:
                luck = self._luck = LuckPlanner(*self.LUCK)
            return luck.choose(state, self.choose_write_now)
        step = state.step()
        if step.kind == "announce":
            return self._announce(state)
        if step.kind == "write" and beyond_plans(state.model):
            return self.choose_write_now(state)
        if step.kind == "keep" and state.model.grouped:  # dice that differ: keeps by group and face
            return _grouped(state).choose()
        rules = TurnRules.of(state.model)
        if rules.ruled:
            return self._choose_by_rules(state, rules)
        layers = self._plan(state)
        self._now(state)
        tt = turn_tables(state.model.n_dice, state.model.faces)
        r = tt.roll_index[state.dice]
        if step.kind == "write":  # the best box; on a tie the first on the sheet
            column = self._table[:, r]
            if not np.isfinite(column).any():  # no box takes the dice: scratch one the rules let it
                return state.legal_actions()[0]
            return Write(self._boxes[int(np.argmax(column))])
        Kv = layers[min(state.rolls_left(), len(layers) - 1)][0][:, 0]
        candidates = tt.sub_index[r][::-1]  # largest keeps first, so a tie keeps more dice
        candidates = candidates[candidates < len(tt.keeps)]
        best = tt.keeps[int(candidates[int(np.argmax(Kv[candidates]))])]
        if len(best) == len(state.dice) and step.can_stop:
            return Stop()
        return Keep(best)


    def choose_write_now(self, state: GameState) -> Action:
        """A write the turn planner cannot plan (see `beyond_plans`): this roll's best points."""
        return best_write_now(state)

    # turns with rules: keep rules, announcements, rolls while a condition holds --------------
    def _best_now(self, state: GameState) -> dict[int, np.ndarray]:
        """Roll number → the best value of writing each final roll now (-inf: no box may take it),
        for the targets this turn's write may go into (the announced one, if any)."""
        self._plan(state)
        return {rn: table.max(axis=0) if len(table) else np.full(table.shape[1], -np.inf)
                for rn, table in self._tables.items()}

    def _choose_by_rules(self, state: GameState, rules: "TurnRules") -> Action:
        """Keep and write by an exact plan of the rest of the turn that follows the turn's rules: only
        legal keeps (`GameState.legal_actions`), dice set aside stay aside, the announced target."""
        step = state.step()
        best = self._best_now(state)
        tt = turn_tables(state.model.n_dice, state.model.faces)
        if step.kind == "write":
            self._now(state)
            values = self.write_values(state)
            legal = {a.box for a in state.legal_actions()}
            return Write(max((b for b in self._boxes if b in legal), key=lambda b: values.get(b, -np.inf)))
        j = state.rolls_left()
        memo = rules.memo(best)
        options = []
        for action in state.legal_actions():
            if isinstance(action, Stop):
                options.append((rules.now(best, state.dice, j), 1, action))
            else:
                options.append((rules.keep_value(memo, best, state.dice, action.dice, state.held, j),
                                0 if len(action.dice) < len(state.dice) else 1, action))
        options.sort(key=lambda o: (o[0], o[1], len(getattr(o[2], "dice", ()))), reverse=True)
        return options[0][2]

    def _announce(self, state: GameState) -> Action:
        """Announce the target (or none) whose plan of the rest of the turn is worth most."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        values = self.announce_values(state)
        return max(legal, key=lambda a: values[a])

    def announce_values(self, state: GameState) -> dict[Action, float]:
        """At an announce step, the expected value of the rest of the turn for each announcement: for a
        target, the turn planned with only that target to write into (and the rolls left after
        announcing it); for none, the turn planned as usual."""
        legal = state.legal_actions()
        rules = TurnRules.of(state.model)
        values = []
        targets = [a.box for a in legal if a.box is not None]
        rows = None if rules.ruled or state.model.grouped else self._announce_rows(state, targets)
        tt = turn_tables(state.model.n_dice, state.model.faces)
        r = tt.roll_index[state.dice] if rows is not None else None
        can_stop = any(s.kind == "keep" and s.can_stop for s in state.model.flow.walk())
        for action in legal:
            trial = state.clone()
            trial.apply(action)
            if action.box is None or rows is None:
                values.append((self.turn_value(trial), action))
                continue
            i, j = targets.index(action.box), trial.rolls_left()
            last = state.roll_number + j
            best = {rn: row[i] for rn, row in rows.items()}
            final = best.get(last, best[max(best)])
            if j == 0:
                values.append((float(best.get(state.roll_number, final)[r]), action))
                continue
            stop = (lambda k: best.get(last - k, final)[:, None]) if can_stop and len(best) > 1 else None
            layers = tt.layers(final[:, None], j, stop)
            values.append((float(layers[j][1][r, 0]), action))
        return {a: v for v, a in values}

    def _announce_rows(self, state: GameState, targets: list[str]) -> dict[int, np.ndarray]:
        """Roll number → (targets, rolls): the value of writing each roll into each target had it been
        announced (points + write bonus; -inf where its rule refuses the roll)."""
        model = state.model
        tt = turn_tables(model.n_dice, model.faces)
        sheet, scorer = state.sheets[state.player], state.scorer
        step = write_step_due(state)
        counting = counting_targets(model)
        last = max_rerolls(model) + 1
        numbers = range(1, last + 1) if self.roll_dependent(state) else [last]
        out = {}
        index = {t: i for i, t in enumerate(targets)}
        counters = state.counters_of(state.player)  # what a score or write rule reading a counter sees
        for rn in numbers:
            table = np.full((len(targets), len(tt.rolls)), -np.inf)
            for k, dice in enumerate(tt.rolls):
                for t, (c, _) in scorer.options_for(dice, sheet, rn, step, targets, counters).items():
                    table[index[t], k] = c.points * counting[t] + c.bonus
            out[rn] = table
        return out

    def turn_value(self, state: GameState) -> float:
        """The expected value of the rest of this turn for the current dice, as this bot plays it."""
        rules = TurnRules.of(state.model)
        j = state.rolls_left()
        if state.model.grouped:
            return _grouped(state).value(state.dice, state.held, j)
        if rules.ruled:
            best = self._best_now(state)
            return rules.value(rules.memo(best), best, state.dice, state.held, j)
        layers = self._plan(state)
        tt = turn_tables(state.model.n_dice, state.model.faces)
        return float(layers[min(j, len(layers) - 1)][1][tt.roll_index[state.dice], 0])


class TurnRules:
    """The rest of a turn planned exactly when its keeps follow rules: V(dice, held, j) is the
    expected best write with j rolls left, the keeps each step allows (`_Tables.ruled_keeps`) and
    stopping where a step may stop. The keep step with j rolls left is the j-th from the end."""

    @staticmethod
    def of(model) -> "TurnRules":
        """The model's TurnRules (kept beside the model's frozen fields)."""
        found = model.__dict__.get("_turn_rules")
        if found is None:
            found = model.__dict__["_turn_rules"] = TurnRules(model)
        return found

    def __init__(self, model):
        from ..engine.state import tables
        self.model, self.t = model, tables(model)
        turn = next(s for s in model.flow.walk() if s.kind == "each_player")
        self.keeps = [s for s in turn.walk() if s.kind == "keep"]
        self.ruled = any(s.allowed is not None or s.locked for s in self.keeps)
        self.conditional = any(s.condition is not None for s in turn.walk())
        self.last = max_rerolls(model) + 1
        self.tt = turn_tables(model.n_dice, model.faces)
        from ..model.dice import outcomes
        self.outcomes = [[(f, w / model.faces ** m) for f, w in outcomes(m, model.faces)] for m in range(model.n_dice + 1)]
        self._memos: OrderedDict = OrderedDict()

    def memo(self, best: dict[int, np.ndarray]) -> dict:
        key = tuple((rn, v.tobytes()) for rn, v in sorted(best.items()))
        memo = self._memos.get(key)
        if memo is None:
            memo = self._memos[key] = {}
            while len(self._memos) > 64:
                self._memos.popitem(last=False)
        return memo

    def now(self, best, dice, j: int) -> float:
        """Writing the dice now, with j rolls left."""
        table = best.get(self.last - j, best[max(best)]) if len(best) > 1 else next(iter(best.values()))
        return float(table[self.tt.roll_index[dice]])

    def step_for(self, j: int):
        """The keep step met with j rolls left."""
        return self.keeps[max(0, len(self.keeps) - j)] if self.keeps else None

    def value(self, memo, best, dice, held, j: int) -> float:
        key = (dice, held, j)
        found = memo.get(key)
        if found is not None:
            return found
        step = self.step_for(j) if j > 0 else None
        if step is None:
            v = self.now(best, dice, j)
        else:
            entry = self.t.ruled_keeps(step, dice, held) if (step.allowed is not None or step.locked) else self.t.keeps(dice)
            v = self.now(best, dice, j) if step.can_stop else -np.inf
            for k in entry[2]:
                if step.can_stop and len(k) == len(dice):
                    continue  # keeping every die is stopping
                v = max(v, self.keep_value(memo, best, dice, k, held, j))
        memo[key] = v
        return v

    def keep_value(self, memo, best, dice, kept, held, j: int) -> float:
        """Keeping `kept` with j rolls left: the expected value after rolling the other dice."""
        step = self.step_for(j)
        new_held = kept if step is not None and step.locked else held
        m = len(dice) - len(kept)
        total = 0.0
        for faces, p in self.outcomes[m]:
            total += p * self.value(memo, best, tuple(sorted(kept + faces)), new_held, j - 1)
        return total


_GROUPED: OrderedDict = OrderedDict()  # what a grouped turn's plan depends on → the plan (its memo kept)


def _grouped(state: GameState):
    """The exact plan of the rest of the turn with dice that differ (`players.grouped`), kept while the
    sheet, counters, announcement and write step stay (the later decisions of a turn reuse its memo)."""
    from .grouped import GroupedTurn
    step = write_step_due(state)
    counters = state.counters_of(state.player)
    key = (id(state.model), state.player, tuple(state.sheets[state.player].items()), state.announced, step.id,
           tuple(sorted(counters.items())) if counters else None)
    plan = _GROUPED.get(key)
    if plan is None or plan.model is not state.model:
        plan = _GROUPED[key] = GroupedTurn(state, TurnRules.of(state.model), step, counting_targets(state.model))
        while len(_GROUPED) > 16:
            _GROUPED.popitem(last=False)
    plan.state = state
    return plan


def max_rerolls(model) -> int:
    """How many times a turn may roll after its first roll (rolls in a turn, less one)."""
    turn = next(s for s in model.flow.walk() if s.kind == "each_player")

    def rolls(step) -> int:
        inner = sum(rolls(c) for c in step.steps)
        return (1 if step.kind == "roll" else 0) + ((step.times or 1) * inner if step.kind == "repeat" else inner)
    return max(0, rolls(turn) - 1)


def beyond_plans(model) -> bool:
    """Whether the turn planner cannot read the model's turns: dice that differ (its tables are of
    one kind of die), or writes that other players take or that may be passed (the sheet written is
    not the active player's, or not written at all). Writes are then chosen on this roll's points."""
    cached = model.__dict__.get("_beyond_plans")
    if cached is None:
        cached = model.__dict__["_beyond_plans"] = model.grouped or any(
            s.kind == "write" and (s.by != "active" or s.optional) for s in model.flow.walk())
    return cached


def best_write_now(state: GameState) -> Action:
    """The write worth the most points (and bonus) now, the first on the sheet on a tie; passing,
    where it is allowed, when no box gives more than 0."""
    legal = state.legal_actions()
    choices = state.write_choices()
    best = max(choices, key=lambda c: c.points + c.bonus, default=None)  # max keeps the first of equals
    if any(type(a) is Stop for a in legal) and (best is None or best.points + best.bonus <= 0):
        return Stop()
    return Write(best.box)


def closes(state: GameState, target: str) -> int:
    """How many open boxes a write into `target` closes for good: in a section crossed as a row
    (`order: row`), the open boxes to its left that no later write can take."""
    model = state.model
    box = model.targets[target].box
    section = next(s for s in model.sections if box in s.boxes)
    if section.order != "row":
        return 0
    sheet = state.sheets[state.actor]
    left = section.boxes[:section.boxes.index(box)]
    last = max((i for i, b in enumerate(left) if b in sheet), default=-1)
    return sum(1 for b in left[last + 1:] if b not in sheet)


def careful_write_now(state: GameState, per_box: float = 1.0) -> Action:
    """Like `best_write_now`, but every box a write closes for good costs `per_box` points: a row is
    worth more the more crosses it gets, so a cross that skips many boxes is often worse than none."""
    legal = state.legal_actions()
    choices = state.write_choices()
    value = {c.box: c.points + c.bonus - per_box * closes(state, c.box) for c in choices}
    best = max(choices, key=lambda c: value[c.box], default=None)
    if any(type(a) is Stop for a in legal) and (best is None or value[best.box] <= 0):
        return Stop()
    return Write(best.box)


def _reads_roll_number(model) -> bool:
    from ..solver.abstraction import scoring_expressions
    return any("turn" in c.deps for _, c in scoring_expressions(model))


def immediate_table(state: GameState, roll_number: int | None = None) -> tuple[list[str], np.ndarray]:
    """For every open box and every final roll: points + write bonus, or -inf if not allowed."""
    model = state.model
    tt = turn_tables(model.n_dice, model.faces)
    sheet = state.sheets[state.player]
    scorer = state.scorer
    step = write_step_due(state)
    announced = state.announced  # this turn's write goes there
    open_boxes = [announced] if announced is not None else [t for t in model.targets if scorer.is_open(t, sheet)]
    row = {b: i for i, b in enumerate(open_boxes)}
    writable = scorer.writable(sheet, announced)  # the same for every roll
    counters = state.counters_of(state.player)  # what a score or write rule reading a counter sees
    rn = roll_number or max_rerolls(model) + 1
    counting = counting_targets(model)
    table = np.full((len(open_boxes), len(tt.rolls)), -np.inf)
    for r, dice in enumerate(tt.rolls):
        for c, _ in scorer.options_for(dice, sheet, rn, step, writable, counters).values():
            table[row[c.box], r] = c.points * counting[c.box] + c.bonus
    return open_boxes, table


def write_step_due(state: GameState):
    """The write step this turn's dice go to next: the one due, else the first write after the step
    due in the flow's order (a turn with two writes has two rules), else the model's first."""
    steps = list(state.model.flow.walk())
    now = state.step()
    if now is not None and now.kind == "write":
        return now
    start = next((i for i, s in enumerate(steps) if s is now), 0)
    return next((s for s in steps[start:] if s.kind == "write"), None) or next(s for s in steps if s.kind == "write")


def counting_targets(model) -> dict[str, int]:
    """Target → 1 if its points count towards the grand total, 0 for a `counts: false` section."""
    counts = {s.id: s.counts for s in model.sections}
    return {t.id: int(counts[model.boxes[t.box].section]) for t in model.targets.values()}
