"""Type-check scoring expressions and compile them once into Python closures.

Options are constants, so they fold away. Every maximal sub-expression that depends on the dice
alone is evaluated for all possible rolls up front and becomes a table lookup.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..dice import group_rolls, group_slices
from ..errors import DslError, Message, as_message, did_you_mean
from ..limits import hint_for, limits
from ..yamlsource import Text
from .ast import Expr
from .builtins import FUNCTIONS, VARIABLES
from .cost import Tables, count
from .parser import ParseError, parse
from .sheetview import SheetView

Fn = Callable[["Context"], Any]
MAX_DEFINITION_DEPTH = 40  # a definition using one using one … (bundled models: 3)


class Context:
    """What an expression can see while it is evaluated."""

    __slots__ = ("dice", "index", "counts", "sheet", "target", "roll_number", "kept", "held", "announced",
                 "announced_column", "counters", "my_turn")

    def __init__(self, dice=(), index=0, counts=(), sheet=None, target=None, roll_number=0, kept=(), held=(),
                 announced=None, announced_column="", counters=None):
        self.dice, self.index, self.counts = dice, index, counts
        self.sheet = SheetView(sheet if sheet is not None else {}) if not hasattr(sheet, "filled") else sheet
        self.target, self.roll_number = target, roll_number
        self.kept, self.held = kept, held  # a keep rule: the dice to keep, the dice set aside before
        self.announced, self.announced_column = announced, announced_column  # this turn's announcement
        self.counters = counters  # counter id → value (the player's own and the game's); None: the start values
        self.my_turn = True  # the player acting is the one whose turn it is (see acting.py)


@dataclass
class Compiled:
    """A compiled expression: call it with a Context."""

    fn: Fn
    type: str
    deps: frozenset[str]
    ast: Expr
    text: Text

    def __call__(self, ctx: Context) -> Any:
        return self.fn(ctx)


@dataclass
class Scope:
    """The names a model gives its expressions."""

    n_dice: int
    faces: int
    sections: dict[str, tuple[str, ...]]  # section id -> box ids in order
    options: dict[str, Any]  # bound option values
    definitions: dict[str, Text] = field(default_factory=dict)

    @property
    def boxes(self) -> dict[str, str]:
        return {b: s for s, bs in self.sections.items() for b in bs}


_WHERE = {"dice": "{what} cannot depend on the dice", "sheet": "{what} cannot depend on the score sheet",
          "target": "{what} cannot depend on the box being written", "turn": "{what} cannot depend on the roll number",
          "keep": "{what} cannot depend on the dice kept", "announce": "{what} cannot depend on the announcement",
          "counter": "{what} cannot depend on a counter"}
_WHERE_TEMPLATES = (  # (for the catalogs)
    Message("{what} cannot depend on the dice"), Message("{what} cannot depend on the score sheet"),
    Message("{what} cannot depend on the box being written"), Message("{what} cannot depend on the roll number"),
    Message("{what} cannot depend on the dice kept"), Message("{what} cannot depend on the announcement"),
    Message("{what} cannot depend on a counter"))


class Compiler:
    """Compiles the expressions of one model against its Scope."""

    def __init__(self, scope: Scope):
        self.scope = scope
        self.box_section = scope.boxes
        groups = getattr(scope, "groups", None) or {}  # dice that differ: group id → (count, faces)
        spec = tuple(groups.values()) if len(groups) > 1 else ((scope.n_dice, scope.faces),)
        self._group_slices = dict(zip(groups, group_slices(spec))) if len(groups) > 1 else {}
        self._rolls = [(m, i, tuple(m.count(f) for f in range(1, scope.faces + 1)))
                       for i, m in enumerate(group_rolls(spec))]
        self._defs: dict[str, tuple[Expr, Fn]] = {}
        self._failed: dict[str, DslError] = {}
        self._defining: list[str] = []
        self._text: Text | None = None
        self._tables = Tables(len(self._rolls))  # the steps of building the per-roll tables (cost.py)
        self._widest = max((len(b) for b in scope.sections.values()), default=0)  # a section function's loop

    # public -----------------------------------------------------------------
    def compile(self, text: Text, expect: str | tuple[str, ...], allowed: set[str], what: str) -> Compiled:
        """Compile `text`, requiring result type `expect` and deps within `allowed`."""
        source = str(text)
        try:
            tree = parse(source)
        except ParseError as exc:
            raise DslError(exc.message, self._pos(text, exc.offset)) from None
        saved, self._text = self._text, text
        try:
            fn = self._compile(tree)
            fn = self._materialize(tree, fn)
        except RecursionError:
            raise DslError("the expression is nested too deeply", self._pos(text, 0)) from None
        finally:
            self._text = saved
        expects = (expect,) if isinstance(expect, str) else expect
        if tree.type not in expects:
            raise DslError("{what} must be {want}, but this expression is {got}", self._pos(text, tree.start),
                           what=as_message(what), want=_a(expects[0]), got=_a(tree.type))
        extra = tree.deps - allowed
        if extra:
            dep = sorted(extra)[0]
            node = next(n for n in tree.walk() if dep in n.deps and not any(dep in a.deps for a in n.args))
            raise DslError(_WHERE[dep], self._pos(text, node.offset), what=as_message(what))
        return Compiled(fn, tree.type, tree.deps, tree, text)

    # helpers ----------------------------------------------------------------
    def _pos(self, text: Text | None, offset: int):
        return text.at(offset) if isinstance(text, Text) else None

    def _error(self, node: Expr, message: str | Message, hint: str | Message | None = None, at_start: bool = False,
               **params) -> DslError:
        return DslError(message, self._pos(self._text, node.start if at_start else node.offset), hint, **params)

    def _materialize(self, node: Expr, fn: Fn) -> Fn:
        """Turn a dice-only expression into a lookup table over every roll (its work counted first)."""
        if node.deps != frozenset({"dice"}) or node.op == "name":
            return fn
        if self._tables.refused:
            return fn  # evaluated live: the model is refused already
        refusal = self._tables.add(node)
        if refusal is not None:
            raise self._error(node, refusal, hint_for("table_work"))
        table = []
        for dice, index, counts in self._rolls:
            try:
                table.append(fn(Context(dice, index, counts)))
            except DslError as exc:
                raise DslError("{why} (with the roll {dice})", exc.pos, exc.hint_msg, why=exc.msg,
                               dice=" ".join(map(str, dice))) from None
            except (IndexError, ZeroDivisionError) as exc:
                raise self._error(node, "{why} (with the roll {dice})", why=_explain(exc), dice=" ".join(map(str, dice))) from None
        table = tuple(table)
        node.cost = 1  # type: ignore[attr-defined]  # a lookup from now on
        return lambda ctx: table[ctx.index]

    def _count(self, node: Expr) -> None:
        refusal = count(node, self._widest)
        if refusal is not None:
            raise self._error(node, refusal, hint_for("expression_cost"))

    def _constant(self, node: Expr, fn: Fn) -> Fn:
        try:
            value = fn(Context())
        except DslError:
            raise
        except (IndexError, ZeroDivisionError) as exc:
            raise self._error(node, _explain(exc)) from None
        return lambda ctx: value

    def _compile(self, node: Expr) -> Fn:
        method = getattr(self, "_c_" + node.op)
        fn = method(node)
        self._count(node)
        if not node.deps and node.op not in ("number", "string", "bool"):
            fn = self._constant(node, fn)
        if not node.deps:
            node.const = fn(Context())  # type: ignore[attr-defined]  # for analyses (solver)
        return fn

    def _children(self, node: Expr) -> list[Fn]:
        fns = [self._compile(a) for a in node.args]
        node.deps = frozenset().union(*(a.deps for a in node.args)) if node.args else frozenset()
        if node.deps != frozenset({"dice"}):
            fns = [self._materialize(a, f) for a, f in zip(node.args, fns)]
        return fns

    def _expect(self, node: Expr, types: tuple[str, ...], role: str) -> None:
        if node.type not in types:
            raise self._error(node, "{role} must be {want}, not {got}", at_start=True, role=as_message(role),
                              want=_a(types[0]), got=_a(node.type))

    # literals and names -----------------------------------------------------
    def _c_number(self, node):
        node.type, v = "number", node.value
        return lambda ctx: v

    def _c_string(self, node):
        node.type, v = "string", node.value
        return lambda ctx: v

    def _c_bool(self, node):
        node.type, v = "bool", node.value
        return lambda ctx: v

    def _c_name(self, node: Expr) -> Fn:
        name = node.value
        if name in VARIABLES:
            typ, dep, _, _ = VARIABLES[name]
            node.type, node.deps = typ, frozenset({dep}) if dep else frozenset()
            if name == "dice":
                return lambda ctx: ctx.dice
            if name == "counts":
                return lambda ctx: ctx.counts
            if name == "faces":
                faces = tuple(range(1, self.scope.faces + 1))
                return lambda ctx: faces
            if name == "target":
                return lambda ctx: ctx.target
            if name == "kept":
                return lambda ctx: ctx.kept
            if name == "held":
                return lambda ctx: ctx.held
            if name == "aside":
                return lambda ctx: _less(ctx.kept, ctx.held)
            if name == "rolled":
                return lambda ctx: _less(ctx.dice, ctx.held)
            if name == "announced":
                return lambda ctx: ctx.announced
            if name == "announced_column":
                return lambda ctx: ctx.announced_column
            if name == "my_turn":
                return lambda ctx: ctx.my_turn
            return lambda ctx: ctx.roll_number
        if name in self.box_section:
            node.type = "box"
            return lambda ctx: name
        if name in self.scope.sections:
            node.type = "section"
            return lambda ctx: name
        if name in self.scope.definitions:
            return self._definition(node, name)
        if name == "option":
            raise self._error(node, "'option' needs an option name, as in option.NAME",
                              did_you_mean("", []) or None)
        if name == "counter":
            raise self._error(node, "'counter' needs a counter name, as in counter.NAME")
        known = list(VARIABLES) + list(self.box_section) + list(self.scope.sections) + list(self.scope.definitions) + ["option"]
        if name in FUNCTIONS:
            raise self._error(node, "'{name}' is a function; call it as {name}(…)", name=name)
        raise self._error(node, "unknown name '{name}'", did_you_mean(name, known), name=name)

    def _definition(self, node: Expr, name: str) -> Fn:
        if name in self._defining:
            cycle = " → ".join(self._defining[self._defining.index(name):] + [name])
            raise self._error(node, "definition '{name}' refers to itself ({cycle})", name=name, cycle=cycle)
        if name in self._failed and not self._defining:  # a broken definition fails once, not at every use
            raise self._failed[name]
        if len(self._defining) >= MAX_DEFINITION_DEPTH:
            raise self._error(node, Message("definitions refer to each other more than {limit} deep (here '{name}')",
                                            {"limit": MAX_DEFINITION_DEPTH, "name": name}))
        if name not in self._defs:
            text = self.scope.definitions[name]
            try:
                tree = parse(str(text))
            except ParseError as exc:
                raise DslError(exc.message, self._pos(text, exc.offset)) from None
            self._defining.append(name)
            saved, self._text = self._text, text
            try:
                fn = self._materialize(tree, self._compile(tree))
            except DslError as exc:
                if len(self._defining) == 1:  # compiled for itself, not inside another (a cycle's error depends on where it starts)
                    self._failed[name] = exc
                raise
            finally:
                self._text = saved
                self._defining.pop()
            self._defs[name] = (tree, fn)
        tree, fn = self._defs[name]
        node.type, node.deps = tree.type, tree.deps
        node.args = []  # the definition's tree is shared, not copied
        node.value = name
        node.op = "name"
        node.definition = tree  # type: ignore[attr-defined]
        return fn

    def _c_attr(self, node: Expr) -> Fn:
        base = node.args[0]
        if base.op == "name" and base.value == "counter":
            return self._counter(node)
        if base.op == "name" and base.value == "dice":
            return self._dice_group(node)
        if base.op != "name" or base.value != "option":
            self._compile(base)
            raise self._error(node, "only options and counters have fields (option.NAME, counter.NAME)")
        name = node.value
        if name not in self.scope.options:
            raise self._error(node, "unknown option '{name}'", did_you_mean(name, self.scope.options), name=name)
        value = self.scope.options[name]
        node.type = "bool" if isinstance(value, bool) else "number" if isinstance(value, int) else "string"
        node.args, node.op, node.value = [], "option", (name, value)
        return lambda ctx: value

    def _dice_group(self, node: Expr) -> Fn:
        """`dice.GROUP`: the dice of one group of dice that differ, ascending."""
        name = node.value
        groups = self._group_slices
        if name not in groups:
            if not groups:
                raise self._error(node, Message("the dice of this game are all alike: there is no group of dice '{group}'",
                                                {"group": name}))
            raise self._error(node, Message("unknown group of dice '{group}'", {"group": name}), did_you_mean(name, groups))
        where = groups[name]
        node.type, node.deps = "list", frozenset({"dice"})
        node.args, node.op, node.value = [], "dice_group", name
        return lambda ctx: ctx.dice[where]

    def _counter(self, node: Expr) -> Fn:
        """`counter.NAME`: a counter's value now (the player's own, for a per-player counter)."""
        name = node.value
        counters = getattr(self.scope, "counters", {})
        if name not in counters:
            raise self._error(node, "unknown counter '{name}'", did_you_mean(name, counters), name=name)
        start = counters[name]
        node.type, node.deps = "number", frozenset({"counter"})
        node.args, node.op, node.value = [], "counter", name
        return lambda ctx: start if ctx.counters is None else ctx.counters[name]

    def _c_list(self, node: Expr) -> Fn:
        fns = self._children(node)
        types = {a.type for a in node.args}
        if not types or types == {"number"}:
            node.type = "list"
        elif types == {"box"}:
            node.type = "boxes"
        else:
            raise self._error(node, "a list holds numbers or boxes, all of one kind")
        return lambda ctx: tuple(f(ctx) for f in fns)

    # operators --------------------------------------------------------------
    def _c_binop(self, node: Expr) -> Fn:
        a, b = self._children(node)
        op = node.value
        for arg in node.args:
            self._expect(arg, ("number",), Message("each side of '{op}'", {"op": op}))
        if op == "/":
            raise self._error(node, "'/' is not whole-number division", "did you mean '//'?")
        node.type = "number"
        pos = self._pos(self._text, node.offset)
        if op in ("+", "-", "*"):
            return _bounded({"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y}[op], a, b, pos)

        def divide(ctx):
            x, y = a(ctx), b(ctx)
            if y == 0:
                raise DslError("division by zero", pos)
            return x // y if op == "//" else x % y
        return divide

    def _c_neg(self, node):
        (a,) = self._children(node)
        self._expect(node.args[0], ("number",), Message("the operand of '-'"))
        node.type = "number"
        return _bounded(lambda x, _: -x, a, lambda ctx: 0, self._pos(self._text, node.offset))

    def _c_compare(self, node: Expr) -> Fn:
        a, b = self._children(node)
        op, (left, right) = node.value, node.args
        if op in ("==", "!="):
            if left.type != right.type:
                raise self._error(node, "cannot compare {left} with {right}", left=_a(left.type), right=_a(right.type))
            self._check_choice(left, right)
            self._check_choice(right, left)
        else:
            self._expect(left, ("number",), Message("each side of '{op}'", {"op": op}))
            self._expect(right, ("number",), Message("each side of '{op}'", {"op": op}))
        node.type = "bool"
        return {
            "==": lambda ctx: a(ctx) == b(ctx), "!=": lambda ctx: a(ctx) != b(ctx),
            "<": lambda ctx: a(ctx) < b(ctx), "<=": lambda ctx: a(ctx) <= b(ctx),
            ">": lambda ctx: a(ctx) > b(ctx), ">=": lambda ctx: a(ctx) >= b(ctx),
        }[op]

    def _check_choice(self, opt: Expr, lit: Expr) -> None:
        """`option.x == 'word'` must name one of the option's choices."""
        if opt.op == "option" and lit.op == "string":
            choices = self.scope.option_choices.get(opt.value[0]) if hasattr(self.scope, "option_choices") else None
            if choices and lit.value not in choices:
                raise self._error(lit, "option '{option}' has no choice '{choice}'", did_you_mean(lit.value, choices),
                                  option=opt.value[0], choice=lit.value)

    def _c_contains(self, node: Expr) -> Fn:
        a, b = self._children(node)
        item, coll = node.args
        if not ((item.type == "number" and coll.type == "list") or (item.type == "box" and coll.type == "boxes")):
            raise self._error(node, "'in' needs a number and a list, or a box and a list of boxes, not {item} and {coll}",
                              item=_a(item.type), coll=_a(coll.type))
        node.type = "bool"
        return lambda ctx: a(ctx) in b(ctx)

    def _c_and(self, node):
        a, b = self._children(node)
        for arg in node.args:
            self._expect(arg, ("bool",), Message("each side of 'and'"))
        node.type = "bool"
        if self._settled(node, (a, b), False):
            return lambda ctx: False
        return lambda ctx: a(ctx) and b(ctx)

    def _c_or(self, node):
        a, b = self._children(node)
        for arg in node.args:
            self._expect(arg, ("bool",), Message("each side of 'or'"))
        node.type = "bool"
        if self._settled(node, (a, b), True):
            return lambda ctx: True
        return lambda ctx: a(ctx) or b(ctx)

    def _settled(self, node: Expr, fns, value: bool) -> bool:
        """Whether a constant side (an option, say) decides `and`/`or` alone; then the whole is
        that constant and depends on nothing, e.g. `option.sudden_win and …` with the option off."""
        if any(not arg.deps and fn(Context()) is value for arg, fn in zip(node.args, fns)):
            node.deps = frozenset()
            return True
        return False

    def _c_not(self, node):
        (a,) = self._children(node)
        self._expect(node.args[0], ("bool",), Message("the operand of 'not'"))
        node.type = "bool"
        return lambda ctx: not a(ctx)

    def _c_ifelse(self, node: Expr) -> Fn:
        c, t, e = self._children(node)
        cond, then, other = node.args
        self._expect(cond, ("bool",), Message("the condition after 'if'"))
        if then.type != other.type:
            raise self._error(other, "both branches must be of one kind: {then} and {other}", at_start=True,
                              then=_a(then.type), other=_a(other.type))
        node.type = then.type
        return lambda ctx: t(ctx) if c(ctx) else e(ctx)

    def _c_index(self, node: Expr) -> Fn:
        a, i = self._children(node)
        seq, idx = node.args
        self._expect(idx, ("number",), Message("an index"))
        if seq.type == "list":
            node.type = "number"
        elif seq.type == "boxes":
            node.type = "box"
        else:
            raise self._error(seq, "only lists can be indexed, not {kind}", at_start=True, kind=_a(seq.type))
        text, offset = self._text, node.offset

        def index(ctx):
            s, k = a(ctx), i(ctx)
            try:
                return s[k]
            except IndexError:
                raise DslError("index {index} is out of range for a list of {size}", self._pos(text, offset),
                               index=k, size=len(s)) from None
        return index

    def _c_call(self, node: Expr) -> Fn:
        name = node.value
        if name not in FUNCTIONS:
            raise self._error(node, "unknown function '{name}'", did_you_mean(name, FUNCTIONS), name=name)
        spec = FUNCTIONS[name]
        fns = self._children(node)
        if len(fns) != len(spec.params):
            raise self._error(node, "{name}() takes 1 argument, not {count}" if len(spec.params) == 1 else
                              "{name}() takes {takes} arguments, not {count}", name=name, takes=len(spec.params),
                              count=len(fns))
        for arg, want in zip(node.args, spec.params):
            self._expect(arg, (want,), Message("argument of {name}()", {"name": name}))
        node.type = spec.returns
        deps = set(node.deps)
        if name in ("count", "faces_with"):
            deps.add("dice")
        if spec.sheet:
            deps.add("sheet")
        node.deps = frozenset(deps)
        return self._call(node, spec, fns)

    def _call(self, node: Expr, spec, fns: list[Fn]) -> Fn:
        name = spec.name
        sections = self.scope.sections
        if name == "count":
            (f,) = fns
            return lambda ctx: ctx.counts[f(ctx) - 1] if 1 <= f(ctx) <= len(ctx.counts) else 0
        if name == "faces_with":
            (n,) = fns
            return lambda ctx: tuple(face for face, c in enumerate(ctx.counts, 1) if c >= n(ctx))
        if name == "total":
            (s,) = fns
            return lambda ctx: ctx.sheet.total(s(ctx), sections[s(ctx)])
        if name == "open_count":
            (s,) = fns
            return lambda ctx: ctx.sheet.open_count(s(ctx), sections[s(ctx)])
        if name == "filled":
            (b,) = fns
            return lambda ctx: ctx.sheet.filled(b(ctx))
        if name == "value":
            (b,) = fns
            return lambda ctx: ctx.sheet.value(b(ctx))
        if name == "uses":
            (b,) = fns
            return lambda ctx: ctx.sheet.uses(b(ctx))
        if name == "entries":
            (b,) = fns
            return lambda ctx: ctx.sheet.entries(b(ctx))
        if name == "column_values":
            (b,) = fns
            return lambda ctx: ctx.sheet.column_values(b(ctx))
        if name == "columns_filled":
            (b,) = fns
            return lambda ctx: ctx.sheet.columns_filled(b(ctx))
        if name == "boxes":
            (s,) = fns
            return lambda ctx: sections[s(ctx)]
        impl = spec.fn
        if name == "sum":
            (x,) = fns
            return _bounded(lambda xs, _: sum(xs), x, lambda ctx: 0, self._pos(self._text, node.offset))
        if len(fns) == 1:
            (x,) = fns
            return lambda ctx: impl(x(ctx))
        return lambda ctx: impl(*(f(ctx) for f in fns))


def _bounded(op: Callable[[Any, Any], Any], a: Fn, b: Fn, pos) -> Fn:
    """`op(a, b)` whose result must stay below 10**value_digits in magnitude (a DslError at `pos` if not),
    so definitions that square each other stop at once instead of computing numbers of millions of digits."""
    top = limits().max_value

    def run(ctx):
        v = op(a(ctx), b(ctx))
        if -top < v < top:
            return v
        raise DslError("a value here reaches {digits} digits; values must have at most {limit} digits",
                       pos, hint_for("value_digits"), digits=len(str(abs(v))), limit=len(str(top)) - 1)
    return run


_KINDS = {"number": Message("a number"), "bool": Message("true/false"), "string": Message("a word"),
          "list": Message("a list of numbers"), "box": Message("a box"), "section": Message("a section"),
          "boxes": Message("a list of boxes")}


def _a(typ: str) -> Message | str:
    return _KINDS.get(typ, typ)


def _explain(exc: Exception) -> Message:
    if isinstance(exc, ZeroDivisionError):
        return Message("division by zero")
    return Message("index out of range")


def _less(dice: tuple, taken: tuple) -> tuple:
    """The sorted dice less the sorted dice `taken` (a multiset difference)."""
    if not taken:
        return tuple(dice)
    out, i = [], 0
    for d in dice:
        if i < len(taken) and taken[i] == d:
            i += 1
        else:
            out.append(d)
    return tuple(out)
