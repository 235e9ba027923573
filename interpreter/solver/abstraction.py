"""What a solver needs to know about a model, derived from the model alone.

- `turn_shape`: a turn must be roll all dice, then (keep, roll the rest) k times, then write.
- `views`: how expressions see the sheet. The solver's unit is a write target (a box, or box@column
  on a sheet with columns); a box used N times is one unit whose state is how many of its N
  entries are written. An expression sees the column of the target being written (`box` means
  `box@column` there), an end bonus per column sees each column, any other end bonus all of them.
- `features`: the few sheet quantities that scoring reads besides how full each unit is — a total
  (of a section, of a section in one column, of a box used several times, or of several units)
  compared with constants (kept capped at the largest threshold) and a box's points compared with
  constants (kept as yes/no). Found by walking the compiled expressions.
- The solver maximizes the expected grand total; a model ranked by its own final score (`winner:`)
  is solved for its grand total, which is said wherever the value is shown.
- `explore`: how one expression, for one roll and one target box, depends on those quantities:
  a small decision tree, found by evaluating it against an abstract sheet that asks for each
  quantity only when the expression reads it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..model.dsl.ast import Expr
from ..model.dsl.compiler import Compiled, Context
from ..model.errors import ModelError
from ..model.frozen import Model, Step

SENTINEL = -(10**9)  # a box's points that equal none of the constants it is compared with


class NotSolvable(ModelError):
    """The model has a shape or a rule the solver cannot abstract."""


# the turn ----------------------------------------------------------------------

def turn_shape(model: Model, relaxed: bool = False) -> int:
    """The number of rerolls in a turn; NotSolvable unless the turn is roll, (keep, roll)×k, write.

    `relaxed` (the strong bot's parts, never an exact solve): announce steps, while conditions and
    columns filled by announcement are read as if absent (every roll of the turn may be taken, any
    open box chosen after it), and sections that do not add to the total are allowed (their
    points count only through the bonuses that read them)."""
    turn = next(s for s in model.flow.walk() if s.kind == "each_player")
    leaves: list[Step] = []

    def flatten(step: Step, times: int = 1) -> None:
        for _ in range(times):
            for child in step.steps:
                if child.kind == "repeat":
                    flatten(child, child.times or 1)
                elif child.kind == "each_player":
                    raise NotSolvable("a turn inside a turn cannot be solved", child.pos)
                elif not (relaxed and child.kind == "announce"):
                    leaves.append(child)

    flatten(turn)
    if model.grouped:  # the solver's rolls are multisets of one kind of die
        group = model.dice_groups[0]
        raise NotSolvable("the solver cannot read dice that differ (groups of dice such as '{group}')",
                          group.pos, group=group.id)
    for step in model.flow.walk():  # push your luck: no fixed number of turns or rolls
        if (step.kind == "repeat" and step.times is None) or step.kind == "bank" or step.bust is not None:
            raise NotSolvable("the solver cannot yet solve a game of no fixed length (step '{step}': a repeat "
                              "without times, a bank or a bust); play it with the greedy or strong player",
                              step.pos, step=step.id)
    for step in turn.walk():
        if step.kind == "write" and (step.by != "active" or step.optional):
            raise NotSolvable("the solver cannot read a write that other players take or that may be passed "
                              "(step '{step}')", step.pos, step=step.id)
    if model.end_if is not None:
        raise NotSolvable("end_if can end the game early; the solver maximizes the final score of a full sheet",
                          model.end_if.text.pos)
    if model.counters:  # numbers that outlive a turn are not part of the solver's state
        counter = model.counters[0]
        raise NotSolvable("the solver cannot follow counters such as '{counter}', whose values outlive a turn",
                          counter.pos, counter=counter.id)
    for step in turn.walk():  # the turn rules: the solver plans every keep and every roll of a fixed turn
        if step.kind == "keep" and (step.allowed is not None or step.locked):
            raise NotSolvable("the solver cannot read keep rules (which dice may be kept, dice that stay aside)",
                              step.allowed.text.pos if step.allowed is not None else step.pos)
        if relaxed:
            continue
        if step.kind == "announce":
            raise NotSolvable("the solver cannot read announce steps", step.pos)
        if step.kind == "repeat" and step.condition is not None:
            raise NotSolvable("the solver cannot read rolls that depend on a while condition", step.condition.text.pos)
    for section in model.sections:
        if not section.counts and not relaxed:
            raise NotSolvable("the solver needs every section to add to the grand total", model.flow.pos)
    kinds = [s.kind for s in leaves]
    if not kinds or kinds[0] != "roll" or leaves[0].dice != "all" or kinds[-1] != "write":
        raise NotSolvable("the solver needs turns that start by rolling all dice and end by writing", turn.pos)
    middle = leaves[1:-1]
    if len(middle) % 2 or any(a.kind != "keep" or b.kind != "roll" or b.dice != "unkept"
                              for a, b in zip(middle[::2], middle[1::2])):
        raise NotSolvable("the solver needs turns of the form: roll, (keep, roll the rest) repeated, write", turn.pos)
    rounds = 1
    for step in model.flow.walk():
        if step.kind == "each_player":
            break
        if step.kind == "repeat" and any(s is turn for s in step.walk()):
            rounds *= step.times
    if rounds < len(model.cells or model.boxes):
        raise NotSolvable("the game has {rounds} rounds but {boxes} boxes; the solver needs a round per box",
                          model.flow.pos, rounds=rounds, boxes=len(model.cells or model.boxes))
    if not relaxed and any(c.order not in ("free", "down", "up") for c in model.columns):
        raise NotSolvable("the solver reads columns filled in any order, top down or bottom up, not columns whose "
                          "box is announced", model.flow.pos)
    stops = {s.can_stop for s in middle[::2]}
    if len(stops) > 1:
        raise NotSolvable("the solver needs every keep step of a turn to allow stopping, or none", turn.pos)
    return len(middle) // 2


def turn_can_stop(model: Model) -> bool:
    """Whether the keep steps of a turn let the player stop rolling."""
    turn = next(s for s in model.flow.walk() if s.kind == "each_player")
    return any(s.kind == "keep" and s.can_stop for s in turn.walk())


# features ------------------------------------------------------------------------

@dataclass(frozen=True)
class Feature:
    """A sheet quantity the state must carry: ('total', section, cap), ('equals', box, c): whether the
    box holds exactly c, or ('atleast', box, t): whether it holds t or more."""

    kind: str
    name: str  # section or box id
    limit: int  # cap for totals; the constant for equals and atleast

    @property
    def size(self) -> int:
        return self.limit + 1 if self.kind == "total" else 2

    def holds(self, points):
        """For a box feature: whether writing `points` (a number or an array) makes it true, as 0/1."""
        p = np.asarray(points)
        return ((p == self.limit) if self.kind == "equals" else (p >= self.limit)).astype(np.int64)


def value_candidates(feats: list[Feature], box: str) -> list[int]:
    """Numbers that stand for every distinguishable value of a filled box (SENTINEL: below them all)."""
    out = {0, SENTINEL}
    for f in feats:
        if f.name == box and f.kind == "equals":
            out.add(f.limit)
        elif f.name == box and f.kind == "atleast":
            out.update((f.limit, f.limit - 1))
    return sorted(out)


def representative(feats: list[Feature], box: str, bits: dict[int, object]):
    """The candidate value of a filled box consistent with its tracked yes/no features.

    `bits`: feature position -> 0/1 (numbers, or arrays over a batch of states)."""
    mine = [(i, f) for i, f in enumerate(feats) if f.name == box and f.kind in ("equals", "atleast")]
    equal_to = {f.limit for _, f in mine if f.kind == "equals"}
    out = None
    for r in reversed(value_candidates(feats, box)):  # the smallest consistent candidate wins
        if r in equal_to:
            ok = np.all([np.asarray(bits[i]) == 1 for i, f in mine if f.kind == "equals" and f.limit == r], axis=0)
        else:
            ok = np.all([np.asarray(bits[i]) == int(r >= f.limit) if f.kind == "atleast" else np.asarray(bits[i]) == 0
                         for i, f in mine] or [True], axis=0)
        out = np.where(ok, r, SENTINEL if out is None else out)
    return out


def scoring_expressions(model: Model) -> list[tuple[str, Compiled]]:
    """Every expression that decides points or legality, with a label."""
    out = [(f"box {b.id}", b.score) for b in model.boxes.values()]
    out += [(f"bonus {b.id}", b.points) for b in model.bonuses]
    out += [(f"step {s.id}", s.allowed) for s in model.flow.walk() if s.allowed is not None]
    return out


def _nodes(tree: Expr, seen: set[int]):
    """Every node, following named definitions into their trees (each once)."""
    stack: list[tuple[Expr, Expr | None]] = [(tree, None)]
    while stack:
        node, parent = stack.pop()
        yield node, parent
        if not node.deps:
            continue  # a constant (options decided it): its parts are never read at run time
        sub = getattr(node, "definition", None)
        if sub is not None and id(sub) not in seen:
            seen.add(id(sub))
            stack.append((sub, None))
        stack.extend((a, node) for a in _live_args(node))


def _decided(node: Expr):
    """(True, value) if the options alone decide the node (it reads nothing of the game), else (False, None)."""
    if not node.deps and hasattr(node, "const"):
        return True, node.const
    return False, None


def _live_args(node: Expr) -> list[Expr]:
    """The sub-expressions that can matter: a branch the options switch off is never evaluated."""
    if node.op == "ifelse":
        known, cond = _decided(node.args[0])
        if known:
            return [node.args[1] if cond else node.args[2]]
    elif node.op in ("and", "or") and node.args:
        known, first = _decided(node.args[0])
        if known and bool(first) == (node.op == "or"):
            return []  # `false and …`, `true or …`: the rest is never read
    return list(node.args)


# views: how expressions see the sheet, in units -------------------------------------------

@dataclass(frozen=True)
class View:
    """The sheet as one evaluation of an expression sees it: each box is one or more units.

    `column`: the column seen (None: the whole sheet). `units[box]`: the units `box` means here
    (one; or, for the whole of a sheet with columns, one per column). `rows[box]`: its unit in
    every column (what `column_values` and `columns_filled` read).
    """

    column: str | None
    units: dict
    rows: dict
    sections: dict  # section id -> the feature name of its total seen from here

    def unit(self, box: str):
        us = self.units[box]
        if len(us) != 1:
            return None
        return us[0]


def unit_ids(model: Model) -> list[str]:
    """The solver's units: the write targets in sheet order (box ids on a sheet without columns)."""
    return list(model.targets) if model.targets else list(model.boxes)


def views(model: Model) -> dict[str | None, View]:
    """Every view expressions are evaluated in: one per column (writes and per-column bonuses see
    their column) and None (the whole sheet: end bonuses that are not per column)."""
    targets = model.targets or {b: None for b in model.boxes}
    rows: dict[str, tuple[str, ...]] = {}
    for t, target in targets.items():
        box = target.box if target is not None else t
        rows[box] = rows.get(box, ()) + (t,)
    if not model.columns:
        return {None: View(None, {b: (b,) for b in rows}, rows, {s.id: s.id for s in model.sections})}
    out = {c.id: View(c.id, {b: (f"{b}@{c.id}",) for b in rows}, rows,
                      {s.id: f"{s.id}@{c.id}" for s in model.sections}) for c in model.columns}
    out[None] = View(None, rows, rows, {s.id: s.id for s in model.sections})
    return out


def quantity_units(model: Model, name: str) -> list[str]:
    """The units whose points a total feature adds up: a section (all its units), `section@column`,
    a unit (a box used several times), or several units joined by '+'."""
    sections = {s.id: s.boxes for s in model.sections}
    if name in sections:
        return [u for b in sections[name] for u in views(model)[None].units[b]]
    if "@" in name and name.split("@")[0] in sections:
        section, column = name.split("@", 1)
        return [f"{b}@{column}" for b in sections[section]]
    return name.split("+")


def expression_views(model: Model) -> list[tuple[str, Compiled, list[str | None]]]:
    """Every scoring expression with the views it is evaluated in."""
    columns = [c.id for c in model.columns] or [None]
    out = [(label, c, columns) for label, c in scoring_expressions(model) if not label.startswith("bonus ")]
    out += [(f"bonus {b.id}", b.points, columns if (b.when == "write" or b.per_column) else [None])
            for b in model.bonuses]
    return out


def features(model: Model, writes_only: bool = False) -> list[Feature]:
    """The sheet quantities (beyond how full each unit is) that scoring depends on; NotSolvable if a
    use can't be abstracted. writes_only: only those a write reads (its points, its rule, its write
    bonuses), not those only the end bonuses read (what a bot that counts only this turn looks at)."""
    caps: dict[str, int] = {}
    equals: set[tuple[str, int]] = set()
    atleast: set[tuple[str, int]] = set()
    uses = {u: len(t.cells) for u, t in model.targets.items()} if model.targets else {}
    all_views = views(model)
    at_end = {f"bonus {b.id}" for b in model.bonuses if b.when != "write"} if writes_only else set()
    for label, compiled, where_seen in expression_views(model):
        if label in at_end:
            continue
        seen: set[int] = set()
        for node, parent in _nodes(compiled.ast, seen):
            if node.op == "call" and node.value == "entries":
                box = getattr(node.args[0], "const", "…")
                raise NotSolvable("the solver does not read entries({box}); compare uses({box}) or value({box}) instead",
                                  compiled.text.at(node.offset) if hasattr(compiled.text, "at") else None, box=box)
            if node.op != "call" or node.value not in ("total", "value"):
                continue
            arg = node.args[0]
            where = compiled.text.at(node.offset) if hasattr(compiled.text, "at") else None
            if arg.deps or not hasattr(arg, "const"):
                raise NotSolvable("{call}() of a box or section that depends on the game is not supported by the solver",
                                  where, call=node.value)
            other, op = _compared_with(node, parent)
            for v in where_seen:
                view = all_views[v]
                if node.value == "total":
                    name = view.sections[arg.const]
                else:
                    name = "+".join(view.units[arg.const])
                if other is None:  # used as a number (in a sum, a difference, a product…): tracked exactly
                    caps[name] = max(caps.get(name, 0), largest(model, name) + 1)
                    model.__dict__.setdefault("_exact", set()).add(name)
                    continue
                need = {">=": other, ">": other + 1, "<": other, "<=": other + 1}.get(op, other + 1)
                if node.value == "value":
                    us = view.units[arg.const]
                    if len(us) == 1 and uses.get(us[0], 1) == 1:
                        if op in ("==", "!="):
                            equals.add((us[0], other))
                        else:  # value(b) >= t, > t, < t, <= t: whether it holds t (or t + 1) or more
                            atleast.add((us[0], other + 1 if op in (">", "<=") else other))
                        continue
                most = largest(model, name)
                if need > most + 1:  # a threshold no sheet can reach: clipped to the most the total can hold, + 1
                    model.__dict__.setdefault("_clipped", set()).add(name)
                    need = most + 1
                caps[name] = max(caps.get(name, 0), need)  # a total (or the sum of several entries), capped
    return ([Feature("total", s, c) for s, c in sorted(caps.items())]
            + [Feature("equals", b, c) for b, c in sorted(equals)]
            + [Feature("atleast", b, t) for b, t in sorted(atleast)])


def largest(model: Model, name: str) -> int:
    """The most points the units of a total can hold together: each entry at its box's best roll
    (scored on an empty sheet; the solver checks later that no roll scores more)."""
    from ..model.dice import multisets
    from ..model.scoring import Scorer
    memo = model.__dict__.setdefault("_largest", {})
    if name not in memo:
        scorer = Scorer.for_model(model)
        rolls = multisets(model.n_dice, model.faces)
        best = 0
        for u in quantity_units(model, name):
            target = model.targets.get(u)
            box = target.box if target is not None else u
            top = 0
            for dice in rolls:
                try:
                    top = max(top, scorer.points(u if target is not None else box, dice, {}))
                except Exception:  # noqa: BLE001 - a roll the rule cannot score on an empty sheet
                    pass
            best += top * (len(target.cells) if target is not None else 1)
        memo[name] = best
    return memo[name]


def _compared_with(node: Expr, parent: Expr | None) -> tuple[int | None, str]:
    if parent is None or parent.op != "compare":
        return None, ""
    left, right = parent.args
    other = right if left is node else left
    if other.deps or not isinstance(getattr(other, "const", None), int) or isinstance(other.const, bool):
        return None, ""
    op = parent.value
    if other is left:  # c OP x  ->  x OP' c
        op = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(op, op)
    return other.const, op


# exploration ------------------------------------------------------------------------

class NeedAtom(Exception):
    def __init__(self, atom: tuple):
        self.atom = atom


class AbstractSheet:
    """A sheet that answers only from an assignment of atoms, asking for any atom it lacks.

    Atoms name units and feature names as seen through `view`: ("filled", unit), ("value", unit),
    ("uses", unit), ("total", name), ("open", section id as seen)."""

    __slots__ = ("given", "view")

    def __init__(self, given: dict, view: View):
        self.given, self.view = given, view

    def _get(self, atom):
        try:
            return self.given[atom]
        except KeyError:
            raise NeedAtom(atom) from None

    def filled(self, box):
        return all(self._get(("filled", u)) for u in self.view.units[box])

    def value(self, box):
        us = self.view.units[box]
        if len(us) != 1:
            return self._get(("total", "+".join(us)))
        return self._get(("value", us[0]))

    def total(self, section, boxes):
        return self._get(("total", self.view.sections[section]))

    def open_count(self, section, boxes):
        return sum(0 if self.filled(b) else 1 for b in boxes)

    def uses(self, box):
        return sum(self._get(("uses", u)) for u in self.view.units[box])

    def entries(self, box):
        raise NotSolvable("the solver does not read entries({box}); compare uses({box}) or value({box}) instead", box=box)

    def column_values(self, box):
        return tuple(self._get(("value", u)) for u in self.view.rows[box])

    def columns_filled(self, box):
        return sum(1 for u in self.view.rows[box] if self._get(("filled", u)))


@dataclass
class Tree:
    """A value, or a branch on one atom: {atom value: subtree}."""

    value: Any = None
    atom: tuple | None = None
    branches: dict = field(default_factory=dict)

    @property
    def leaf(self) -> bool:
        return self.atom is None

    def values(self):
        if self.leaf:
            yield self.value
        else:
            for t in self.branches.values():
                yield from t.values()


class Explorer:
    """Builds decision trees of expressions over the atoms of an abstract sheet."""

    def __init__(self, model: Model, feats: list[Feature], uses: dict[str, int] | None = None):
        self.model = model
        self.caps = {f.name: f.limit for f in feats if f.kind == "total"}
        self.feats = feats
        self.uses = uses or {}
        self.tracked = {f.name for f in feats if f.kind != "total"} | {f.name for f in feats if f.kind == "total"}
        self.views = views(model)

    def domain(self, atom: tuple) -> list:
        kind, name = atom
        if kind == "filled":
            return [False, True]
        if kind == "uses":
            return list(range(self.uses.get(name, 1) + 1))
        if kind == "total":
            if name not in self.caps:
                raise NotSolvable("the solver needs the total {name} to be compared with a constant", name=name)
            return list(range(self.caps[name] + 1))
        if self.uses.get(name, 1) != 1 or name in self.caps:
            if name not in self.caps:
                raise NotSolvable("the solver needs {call}({name}) to be compared with a constant (as in {call}(x) >= 63)",
                                  call="value", name=name)
            return list(range(self.caps[name] + 1))
        if name not in self.tracked:
            raise NotSolvable("the solver needs {call}({name}) to be compared with a constant (as in {call}(x) >= 63)",
                              call="value", name=name)
        return value_candidates(self.feats, name)

    def explore(self, compiled: Compiled, ctx: Context, given: dict | None = None, view: str | None = None) -> Tree:
        given = dict(given or {})
        ctx.sheet = AbstractSheet(given, self.views[view])
        try:
            return Tree(value=compiled(ctx))
        except NeedAtom as need:
            atom = need.atom
        tree = Tree(atom=atom)
        for v in self.domain(atom):
            tree.branches[v] = self.explore(compiled, ctx, {**given, atom: v}, view)
        return tree


def walk(tree: Tree, atom) -> object:
    """A tree's value for one state, given its atoms as plain numbers."""
    while not tree.leaf:
        tree = tree.branches[atom(tree.atom)]
    return tree.value
