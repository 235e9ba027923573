"""Property tests: the parser, the compiler and the loader fail only with their own errors.

(a) any text → `parse` returns an Expr or raises ParseError;
(b) generated expressions (from the grammar, over a small scope) → `Compiler.compile` returns a
    Compiled whose values have the declared type, or raises a RulebookError;
(c) mutated copies of a real model → `load_source` returns a Model or raises a RulebookError.
"""
from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulebook.interpreter.model.dice import multisets
from rulebook.interpreter.model.dsl.ast import Expr
from rulebook.interpreter.model.dsl.builtins import FUNCTIONS
from rulebook.interpreter.model.dsl.compiler import Compiled, Compiler, Context, Scope
from rulebook.interpreter.model.dsl.parser import ParseError, parse
from rulebook.interpreter.model.errors import Pos, RulebookError
from rulebook.interpreter.model.loader import load_source
from rulebook.interpreter.model.yamlsource import Text

ROOT = Path(__file__).resolve().parent.parent
YAHTZEE = (ROOT / "rules" / "yahtzee.yaml").read_text(encoding="utf-8")
SCALE = int(os.environ.get("RULEBOOK_FUZZ_SCALE", "1"))  # e.g. 50 for a long local run


def _examples(n: int) -> settings:
    # CI replays a fixed set of examples (a green main stays green); local runs explore new ones
    return settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=n * SCALE,
                    derandomize=bool(os.environ.get("CI")))


FAST = _examples(150)


# (a) parser ------------------------------------------------------------------

GRAMMAR_CHARS = "()[]+-*/%<>=!.,'\" \n\t0123456789abcdefinorstux_"
WORDS = ["if", "else", "and", "or", "not", "in", "true", "false", "dice", "sum", "(", ")", "[", "]",
         ",", ".", "==", "//", "-", "'x'", "1", "option"]


@FAST
@given(st.one_of(st.text(), st.text(alphabet=GRAMMAR_CHARS),
                 st.lists(st.sampled_from(WORDS)).map(" ".join)))
def test_parse_returns_expr_or_raises_parse_error(text):
    try:
        tree = parse(text)
    except ParseError as exc:
        assert isinstance(exc.offset, int) and 0 <= exc.offset <= len(text)
        assert exc.message
    else:
        assert isinstance(tree, Expr)
        assert all(0 <= node.start <= len(text) and 0 <= node.offset <= len(text) for node in tree.walk())


# (b) compiler ------------------------------------------------------------------

def _text(source: str) -> Text:
    t = Text(source)
    t.pos, t.raw = Pos("fuzz.yaml", 1, 1), source
    return t


SECTIONS = {"upper": ("ones", "twos", "threes"), "lower": ("chance",)}
BOXES = [b for bs in SECTIONS.values() for b in bs]
N_DICE, FACES = 3, 6


def _scope() -> Scope:
    scope = Scope(N_DICE, FACES, SECTIONS, {"bonus": 35, "mode": "strict", "flag": True},
                  {"pair": _text("max(counts) >= 2"), "loop": _text("loop + 1"),
                   "first_box": _text("boxes(upper)[0]")})
    scope.option_choices = {"mode": ["strict", "loose"]}
    return scope


NAMES = ["dice", "counts", "faces", "target", "roll_number", "upper", "lower", "pair", "loop",
         "first_box", "option", "nosuch", *BOXES]
LEAVES = st.one_of(st.integers(0, 12).map(str), st.sampled_from(NAMES),
                   st.sampled_from(["true", "false", "'strict'", "'loose'", "option.bonus", "option.mode",
                                    "option.flag", "option.nope"]))
BINARY = ["+", "-", "*", "//", "%", "/", "==", "!=", "<", "<=", ">", ">=", "and", "or", "in", "not in"]


def _wrap(text: str, paren: bool) -> str:
    return f"({text})" if paren else text


def _grow(children):
    p = st.booleans()
    return st.one_of(
        st.tuples(children, st.sampled_from(BINARY), children, p).map(lambda t: _wrap(f"{t[0]} {t[1]} {t[2]}", t[3])),
        st.tuples(st.sampled_from([*FUNCTIONS, "nosuch"]), st.lists(children, max_size=3))
        .map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.tuples(children, children, children, p).map(lambda t: _wrap(f"{t[0]} if {t[1]} else {t[2]}", t[3])),
        st.tuples(st.sampled_from(["not ", "-"]), children).map("".join),
        st.lists(children, max_size=3).map(lambda xs: f"[{', '.join(xs)}]"),
        st.tuples(children, children).map(lambda t: f"{t[0]}[{t[1]}]"),
        children.map(lambda c: f"({c})"),
    )


ANY_EXPR = st.recursive(LEAVES, _grow, max_leaves=10)


def _typed() -> dict[str, st.SearchStrategy[str]]:
    """Well-typed expressions, so that compiling usually succeeds and evaluation is exercised."""
    t: dict[str, st.SearchStrategy[str]] = {}
    num, boolean, lst = (st.deferred(lambda k=k: t[k]) for k in ("number", "bool", "list"))
    box, boxes, section = (st.deferred(lambda k=k: t[k]) for k in ("box", "boxes", "section"))

    def call(name, *args):
        return st.tuples(*args).map(lambda a: f"{name}({', '.join(a)})")

    def op(a, ops, b):
        return st.tuples(a, st.sampled_from(ops), b).map(lambda x: f"({x[0]} {x[1]} {x[2]})")

    def ifelse(kind):
        return st.tuples(kind, boolean, kind).map(lambda x: f"({x[0]} if {x[1]} else {x[2]})")

    t["section"] = st.sampled_from(list(SECTIONS))
    t["box"] = st.one_of(st.sampled_from([*BOXES, "target", "first_box"]),
                         st.tuples(section, num).map(lambda x: f"boxes({x[0]})[{x[1]}]"), ifelse(box))
    t["boxes"] = st.one_of(call("boxes", section), st.lists(box, min_size=1, max_size=3).map(lambda b: f"[{', '.join(b)}]"))
    t["number"] = st.one_of(
        st.integers(0, 9).map(str), st.just("roll_number"), st.just("option.bonus"),
        *(call(f, lst) for f in ("sum", "len", "max", "min", "longest_run")),
        call("count", num), call("count_of", lst, num), call("abs", num),
        call("value", box), call("total", section), call("open_count", section),
        op(num, ["+", "-", "*", "//", "%"], num), num.map(lambda n: f"-{n}"),
        st.tuples(lst, num).map(lambda x: f"{x[0]}[{x[1]}]"), ifelse(num))
    t["bool"] = st.one_of(
        st.sampled_from(["true", "false", "pair", "option.flag", "option.mode == 'loose'"]),
        op(num, ["==", "!=", "<", "<=", ">", ">="], num), op(boolean, ["and", "or"], boolean),
        boolean.map(lambda b: f"not {b}"), op(num, ["in", "not in"], lst), op(box, ["in"], boxes),
        op(box, ["==", "!="], box), call("filled", box), ifelse(boolean))
    t["list"] = st.one_of(
        st.sampled_from(["dice", "counts", "faces"]), st.lists(num, max_size=3).map(lambda n: f"[{', '.join(n)}]"),
        *(call(f, lst) for f in ("sorted", "reversed", "distinct")), call("take", lst, num),
        call("faces_with", num), ifelse(lst))
    return t


TYPED = _typed()
ROLLS = list(enumerate(multisets(N_DICE, FACES)))
CONTEXTS = st.builds(
    lambda roll, sheet, target, n: Context(roll[1], roll[0], tuple(roll[1].count(f) for f in range(1, FACES + 1)),
                                           sheet, target, n),
    st.sampled_from(ROLLS), st.dictionaries(st.sampled_from(BOXES), st.integers(0, 50)),
    st.sampled_from(BOXES), st.integers(1, 3))
TYPES = ("number", "bool", "list", "box", "boxes", "string", "section")


def _check_value(compiled: Compiled, value) -> None:
    kind = compiled.type
    if kind == "number":
        assert isinstance(value, int) and not isinstance(value, bool)
    elif kind == "bool":
        assert isinstance(value, bool)
    elif kind == "list":
        assert isinstance(value, tuple) and all(isinstance(x, int) and not isinstance(x, bool) for x in value)
    elif kind == "box":
        assert value in BOXES
    elif kind == "boxes":
        assert isinstance(value, tuple) and all(b in BOXES for b in value)
    elif kind == "section":
        assert value in SECTIONS
    else:
        assert isinstance(value, str)


def _compile_and_run(source: str, contexts: list[Context]) -> Compiled | None:
    try:
        compiled = Compiler(_scope()).compile(_text(source), TYPES, {"dice", "sheet", "target", "turn"}, "fuzz")
    except RulebookError as exc:
        assert exc.pos is None or exc.pos.line == 1
        assert "\n" not in str(exc)
        return None
    assert isinstance(compiled, Compiled) and compiled.type in TYPES
    for ctx in contexts:
        try:
            value = compiled(ctx)
        except RulebookError:  # division by zero or an index out of range that depends on the sheet
            continue
        _check_value(compiled, value)
    return compiled


@FAST
@given(ANY_EXPR, st.lists(CONTEXTS, min_size=1, max_size=3))
def test_generated_expressions_compile_or_fail_cleanly(source, contexts):
    _compile_and_run(source, contexts)


@FAST
@given(st.sampled_from(list(TYPED)).flatmap(lambda k: TYPED[k]), st.lists(CONTEXTS, min_size=1, max_size=3))
def test_well_typed_expressions_evaluate_to_their_type(source, contexts):
    _compile_and_run(source, contexts)


# (c) loader --------------------------------------------------------------------

LINES = YAHTZEE.splitlines(keepends=True)
MUTATION = st.one_of(
    st.tuples(st.just("delete"), st.integers(0, len(LINES) - 1)),
    st.tuples(st.just("duplicate"), st.integers(0, len(LINES) - 1)),
    st.tuples(st.just("swap"), st.integers(0, len(LINES) - 1), st.integers(0, len(LINES) - 1)),
    st.tuples(st.just("replace"), st.integers(0, len(YAHTZEE) - 1), st.sampled_from(list(" :-[]{}'\"#&*!|>\t\n0129aZ"))),
    st.tuples(st.just("insert"), st.integers(0, len(YAHTZEE) - 1), st.text(alphabet=" :-[]{}'\"#&*,x1\n", max_size=4)),
)


def _mutate(text: str, mutations) -> str:
    for m in mutations:
        lines = text.splitlines(keepends=True)
        if m[0] in ("delete", "duplicate", "swap") and not lines:
            continue
        if m[0] == "delete":
            del lines[m[1] % len(lines)]
        elif m[0] == "duplicate":
            i = m[1] % len(lines)
            lines.insert(i, lines[i])
        elif m[0] == "swap":
            i, j = m[1] % len(lines), m[2] % len(lines)
            lines[i], lines[j] = lines[j], lines[i]
        if m[0] in ("delete", "duplicate", "swap"):
            text = "".join(lines)
        elif m[0] == "replace" and text:
            i = m[1] % len(text)
            text = text[:i] + m[2] + text[i + 1:]
        elif m[0] == "insert":
            i = m[1] % (len(text) + 1)
            text = text[:i] + m[2] + text[i:]
    return text


@_examples(120)
@given(st.lists(MUTATION, min_size=1, max_size=3))
def test_mutated_model_loads_or_fails_cleanly(mutations):
    text = _mutate(YAHTZEE, mutations)
    try:
        model = load_source(text, "yahtzee.yaml")
    except RulebookError as exc:
        for line in str(exc).splitlines():
            assert line.startswith("yahtzee.yaml:") and ": error: " in line
    else:
        assert model.boxes and model.flow


def test_unmutated_model_loads():
    assert load_source(YAHTZEE, "yahtzee.yaml").id == "yahtzee"
