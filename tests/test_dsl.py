"""The scoring language: parsing and precedence, typing, constant folding, dice tables, errors."""
from __future__ import annotations

from collections import Counter

import pytest

from rulebook.interpreter.model.dice import multisets
from rulebook.interpreter.model.dsl.ast import Expr
from rulebook.interpreter.model.dsl.compiler import Compiler, Context, Scope
from rulebook.interpreter.model.dsl.parser import ParseError, parse
from rulebook.interpreter.model.errors import DslError, Pos
from rulebook.interpreter.model.yamlsource import Text, load_yaml

ALL = ("number", "bool", "list", "box", "boxes", "string", "section")
DEPS = {"dice", "sheet", "target", "turn"}
SECTIONS = {"upper": ("ones", "twos", "threes", "fours", "fives", "sixes"), "lower": ("pair", "chance")}
ROLLS = list(enumerate(multisets(5, 6)))


def text(source: str, line: int = 1, col: int = 1) -> Text:
    t = Text(source)
    t.pos, t.raw = Pos("m.yaml", line, col), source
    return t


def scope(**options) -> Scope:
    s = Scope(5, 6, SECTIONS, {"bonus": 35, "mode": "strict", "flag": False, **options},
              {"triple": text("max(counts) >= 3"), "doubled": text("sum(dice) * 2"),
               "a": text("b + 1", 20, 6), "b": text("a + 1", 21, 6)})
    s.option_choices = {"mode": ["strict", "loose"]}
    return s


def compile_(source: str, expect=ALL, allowed=DEPS, **options):
    return Compiler(scope(**options)).compile(source if isinstance(source, Text) else text(source),
                                              expect, allowed, "the expression")


def ctx(dice, sheet=None, target=None, roll_number=1) -> Context:
    dice = tuple(sorted(dice))
    index = next(i for i, m in ROLLS if m == dice)
    return Context(dice, index, tuple(dice.count(f) for f in range(1, 7)), sheet or {}, target, roll_number)


def sexp(e: Expr) -> str:
    """A syntax tree as nested parentheses, to check how the parser grouped an expression."""
    if e.op in ("number", "bool", "name"):
        return str(e.value).lower() if e.op == "bool" else str(e.value)
    if e.op == "string":
        return repr(e.value)
    label = {"binop": e.value, "compare": e.value, "call": e.value, "attr": "." + str(e.value)}.get(e.op, e.op)
    return "(" + " ".join([label] + [sexp(a) for a in e.args]) + ")"


# parsing and precedence --------------------------------------------------------------

@pytest.mark.parametrize("source, tree", [
    ("1 + 2 * 3", "(+ 1 (* 2 3))"),
    ("(1 + 2) * 3", "(* (+ 1 2) 3)"),
    ("10 - 3 - 2", "(- (- 10 3) 2)"),
    ("8 // 2 // 2", "(// (// 8 2) 2)"),
    ("-x[0]", "(neg (index x 0))"),
    ("-2 * 3", "(* (neg 2) 3)"),
    ("a or b and c", "(or a (and b c))"),
    ("not a == b", "(not (== a b))"),
    ("not a and b", "(and (not a) b)"),
    ("2 + 1 in dice", "(contains (+ 2 1) dice)"),
    ("x not in dice", "(not (contains x dice))"),
    ("a if c else b if d else e", "(ifelse c a (ifelse d b e))"),
    ("a + 1 if c or d else 0", "(ifelse (or c d) (+ a 1) 0)"),
    ("1 < 2 == true", None),  # comparisons do not chain
    ("f(1, g(2))[0]", "(index (f 1 (g 2)) 0)"),
    ("[1, 2 + 3][1]", "(index (list 1 (+ 2 3)) 1)"),
    ("option.mode == 'x'", "(== (.mode option) 'x')"),
    ("[]", "(list)"),
])
def test_precedence_and_grouping(source, tree):
    if tree is None:
        with pytest.raises(ParseError, match="comparisons do not chain"):
            parse(source)
    else:
        assert sexp(parse(source)) == tree


@pytest.mark.parametrize("source, value", [
    ("2 + 3 * 4", 14), ("10 - 3 - 2", 5), ("-7 // 2", -4), ("7 % 3", 1), ("-7 % 3", 2), ("--3", 3),
    ("1 if false else 2 if true else 3", 2), ("not 1 > 2 and 2 >= 2", True), ("true or false and false", True),
    ("[1, 2] == [1, 2]", True), ("3 in [1, 2]", False), ("'a' != 'b'", True),
])
def test_constant_arithmetic(source, value):
    c = compile_(source)
    assert c.deps == frozenset() and c(Context()) == value


def test_nodes_know_where_they_start():
    tree = parse("sum(dice) + count(6) * 2")
    assert (tree.op, tree.offset, tree.start) == ("binop", 10, 0)  # errors point at '+'
    right = tree.args[1]
    assert (right.start, right.offset) == (12, 21)
    assert parse("dice[1 + 2]").offset == 5  # an index points inside the brackets


# options fold away --------------------------------------------------------------------

def test_options_are_constants():
    c = compile_("option.bonus * 2 + 1")
    assert c.deps == frozenset() and c.type == "number"
    assert c(Context()) == 71
    assert compile_("option.bonus * 2 + 1", bonus=10)(Context()) == 21


def test_option_word_and_bool():
    assert compile_("option.mode == 'loose'")(Context()) is False
    assert compile_("option.mode == 'loose'", mode="loose")(Context()) is True
    assert compile_("option.mode").type == "string"
    assert compile_("option.flag").type == "bool"


def test_option_decides_and_or_alone():
    off = compile_("option.flag and count(6) > 0")
    assert off.deps == frozenset() and off(Context()) is False
    on = compile_("option.flag and count(6) > 0", flag=True)
    assert on.deps == frozenset({"dice"}) and on(ctx([6, 1, 1, 1, 1])) is True


def test_unknown_option_and_choice():
    with pytest.raises(DslError, match=r"unknown option 'bonsu'") as info:
        compile_("option.bonsu")
    assert info.value.hint == "did you mean 'bonus'?"
    with pytest.raises(DslError, match="option 'mode' has no choice 'lose'") as info:
        compile_("option.mode == 'lose'")
    assert info.value.hint == "did you mean 'loose'?"


# dice-only parts become tables -----------------------------------------------------------

def _faces(d):
    return Counter(d)


REFERENCE = {
    "sum(dice)": lambda d: sum(d),
    "sum(dice) if max(counts) >= 3 else 0": lambda d: sum(d) if max(_faces(d).values()) >= 3 else 0,
    "count(6) * 6": lambda d: d.count(6) * 6,
    "25 if 3 in counts and 2 in counts else 0": lambda d: 25 if sorted(_faces(d).values()) == [2, 3] else 0,
    "40 if longest_run(dice) == 5 else 0": lambda d: 40 if sorted(d) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]) else 0,
    "len(distinct(dice))": lambda d: len(set(d)),
    "faces_with(2)": lambda d: tuple(f for f in range(1, 7) if d.count(f) >= 2),
    "take(reversed(sorted(dice)), 2)": lambda d: tuple(sorted(d, reverse=True)[:2]),
    "abs(dice[0] - dice[4]) + count_of(counts, 1)": lambda d: max(d) - min(d) + list(_faces(d).values()).count(1),
    "boxes(upper)[dice[0] - 1]": lambda d: SECTIONS["upper"][min(d) - 1],
    "triple": lambda d: max(_faces(d).values()) >= 3,
    "doubled + option.bonus": lambda d: 2 * sum(d) + 35,
}


@pytest.mark.parametrize("source", list(REFERENCE))
def test_dice_only_expression_is_a_table_of_all_252_rolls(source):
    c = compile_(source)
    assert c.deps == frozenset({"dice"})
    ref = REFERENCE[source]
    for index, dice in ROLLS:
        expected = ref(list(dice))
        assert c(ctx(dice)) == expected, dice
        # a table lookup: only the roll's index is read, not the dice themselves
        assert c(Context((), index, ())) == expected, dice
    assert len(ROLLS) == 252


def test_mixed_expression_tables_its_dice_part():
    c = compile_("value(chance) + sum(dice) * 2")
    assert c.deps == frozenset({"dice", "sheet"})
    for index, dice in ROLLS[::17]:
        assert c(Context((), index, (), {"chance": 7})) == 7 + 2 * sum(dice)


def test_dice_independent_parts_are_not_tabled():
    c = compile_("value(target) if filled(target) else roll_number")
    assert c.deps == frozenset({"sheet", "target", "turn"})
    assert c(Context(target="ones", sheet={"ones": 4})) == 4
    assert c(Context(target="ones", roll_number=3)) == 3


# types and names ----------------------------------------------------------------------------

@pytest.mark.parametrize("source, kind", [
    ("dice", "list"), ("counts[0]", "number"), ("ones", "box"), ("upper", "section"), ("boxes(lower)", "boxes"),
    ("[ones, chance][1]", "box"), ("target", "box"), ("roll_number", "number"), ("filled(ones)", "bool"),
    ("'word'", "string"), ("[]", "list"), ("triple", "bool"),
])
def test_types(source, kind):
    assert compile_(source).type == kind


def test_required_type_and_dependencies():
    with pytest.raises(DslError) as info:
        compile_("ones", expect="number")
    assert info.value.message == "the expression must be a number, but this expression is a box"
    with pytest.raises(DslError) as info:
        compile_(text("total(upper) + sum(dice)", 4, 13), expect="number", allowed={"sheet"})
    assert info.value.message == "the expression cannot depend on the dice"
    assert info.value.pos == Pos("m.yaml", 4, 32)  # at 'dice'


# errors and where they point ---------------------------------------------------------------

@pytest.mark.parametrize("source, message, col", [
    ("1 + true", "each side of '+' must be a number, not true/false", 5),
    ("(1 + 2) and true", "each side of 'and' must be true/false, not a number", 2),
    ("5 if count(1) else 0", "the condition after 'if' must be true/false, not a number", 6),
    ("1 if true else ones", "both branches must be of one kind: a number and a box", 16),
    ("ones[0]", "only lists can be indexed, not a box", 1),
    ("sum(dice) / 2", "'/' is not whole-number division", 11),
    ("dice == 2", "cannot compare a list of numbers with a number", 6),
    ("sum(dise)", "unknown name 'dise'", 5),
    ("summ(dice)", "unknown function 'summ'", 1),
    ("count(1, 2)", "count() takes 1 argument, not 2", 1),
    ("sum", "'sum' is a function; call it as sum(…)", 1),
    ("option", "'option' needs an option name, as in option.NAME", 1),
    ("dice.x", "the dice of this game are all alike: there is no group of dice 'x'", 6),
    ("target.x", "only options and counters have fields (option.NAME, counter.NAME)", 8),
    ("[1, ones]", "a list holds numbers or boxes, all of one kind", 1),
    ("1 in ones", "'in' needs a number and a list, or a box and a list of boxes, not a number and a box", 1),
    ("dice[count(1) + 5]", "index 10 is out of range for a list of 5 (with the roll 1 1 1 1 1)", 6),
    ("sum(dice) // (count(1) - count(1))", "division by zero (with the roll 1 1 1 1 1)", 11),
    ("7 // (2 - 2)", "division by zero", 3),
    ("count(1) = 1", "unexpected character '=' (use '==' to compare)", 10),
    ("count(1", "unexpected end of expression; expected ')' or ','", 8),
    ("max(dice) +", "unexpected end of expression; expected a value", 12),
    ("sum(dice) 2", "unexpected '2'; expected an operator or the end of the expression", 11),
    ("  ", "empty expression", 1),
    ("1 < 2 < 3", "comparisons do not chain: write 'a < b and b < c', not 'a < b < c'", 7),
])
def test_error_message_and_column(source, message, col):
    with pytest.raises(DslError) as info:
        compile_(text(source, 7, 1))
    assert info.value.message == message
    assert info.value.pos == Pos("m.yaml", 7, col)


def test_definition_errors_point_into_the_definition():
    with pytest.raises(DslError) as info:
        compile_("a")
    assert info.value.message == "definition 'a' refers to itself (a → b → a)"
    assert info.value.pos == Pos("m.yaml", 21, 6)  # the 'a' in b's text, which closes the loop


def test_runtime_division_by_zero_is_a_dsl_error():
    c = compile_(text("total(upper) // open_count(upper)", 3, 9))
    assert c(Context(sheet={"ones": 3})) == 0
    with pytest.raises(DslError) as info:
        c(Context(sheet={b: 1 for b in SECTIONS["upper"]}))
    assert info.value.message == "division by zero" and info.value.pos == Pos("m.yaml", 3, 22)


def test_runtime_index_error_is_a_dsl_error():
    c = compile_("boxes(upper)[value(ones)]")
    assert c(Context(sheet={"ones": 2})) == "threes"
    with pytest.raises(DslError, match="index 9 is out of range for a list of 6"):
        c(Context(sheet={"ones": 9}))


def test_deep_nesting_is_an_error_not_a_crash():
    with pytest.raises(DslError, match="nested too deeply"):
        compile_("-" * 3900 + "1")
    with pytest.raises(ParseError, match="nested too deeply"):
        parse("+".join(["1"] * 1900))


def test_long_expressions_and_numbers_are_refused_before_parsing():
    with pytest.raises(ParseError, match="the expression has 5001 characters; the limit is 4000"):
        parse("-" * 5000 + "1")
    with pytest.raises(ParseError, match="a number of 16 digits; numbers may have at most 15 digits"):
        parse("1 + " + "9" * 16)
    with pytest.raises(ParseError, match="a number of 3990 digits"):  # int() alone would take it
        parse("1 +" + "7" * 3990)


def test_values_are_bounded_so_squaring_definitions_stop():
    with pytest.raises(DslError, match="values must have at most 15 digits"):
        compile_("99999999 * 99999999")


# positions inside YAML scalars ---------------------------------------------------------------

@pytest.mark.parametrize("yaml_text, where", [
    ("x: 1 + true\n", (1, 8)),
    ("x:   1 +   true   # c\n", (1, 12)),
    ("x: '1 + true'\n", (1, 9)),
    ("x: '''a'' != ''b'' or 1 + true'\n", (1, 27)),
    ('x: "\\"a\\" != \\"b\\" or 1 + true"\n', (1, 27)),
    ("x: >-\n  1 +\n    true\n", (3, 5)),
    ("x: |\n  1\n  + true\n", (3, 5)),
    ("y: 0\nx:\n  1 +\n  true\n", (4, 3)),
])
def test_error_columns_inside_yaml_scalars(yaml_text, where):
    value = load_yaml(yaml_text, "m.yaml")["x"]
    with pytest.raises(DslError) as info:
        compile_(value)
    assert info.value.message == "each side of '+' must be a number, not true/false"
    assert (info.value.pos.line, info.value.pos.col) == where


def test_unexpected_end_points_after_the_last_character_of_a_block():
    value = load_yaml("x: >-\n  count(1) +\n\ny: 1\n", "m.yaml")["x"]
    with pytest.raises(DslError) as info:
        compile_(value)
    assert info.value.pos == Pos("m.yaml", 2, 13)


def test_text_slices_keep_positions():
    value = load_yaml('x: "a {option.bonsu} b"\n', "m.yaml")["x"]
    start = str(value).index("{") + 1
    part = value.slice(start, str(value).index("}"))
    assert part.pos == Pos("m.yaml", 1, 8)
    with pytest.raises(DslError) as info:
        compile_(part)
    assert info.value.pos == Pos("m.yaml", 1, 15)  # at 'bonsu'
