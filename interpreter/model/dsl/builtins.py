"""The scoring language's standard library: one table, name → function, each documented.

Everything here is general (lists, counts, runs); games build their rules from these in YAML.
`docs/dsl.md` is checked against this table by the tests, so the two cannot drift.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Builtin:
    """A function callable from expressions."""

    name: str
    params: tuple[str, ...]  # parameter types: number bool string list box section boxes
    returns: str
    fn: Callable[..., Any]
    doc: str
    example: str  # an expression using it
    sheet: bool = False  # reads the score sheet (fn receives the evaluation context first)


def _longest_run(values: tuple[int, ...]) -> int:
    best = run = 0
    prev = None
    for v in sorted(set(values)):
        run = run + 1 if prev is not None and v == prev + 1 else 1
        best, prev = max(best, run), v
    return best


PURE: list[Builtin] = [
    Builtin("sum", ("list",), "number", lambda xs: sum(xs), "The total of a list of numbers.", "sum(dice)"),
    Builtin("len", ("list",), "number", lambda xs: len(xs), "How many items a list has.", "len(distinct(dice))"),
    Builtin("max", ("list",), "number", lambda xs: max(xs, default=0), "The largest number of a list; 0 for an empty list.", "max(counts)"),
    Builtin("min", ("list",), "number", lambda xs: min(xs, default=0), "The smallest number of a list; 0 for an empty list.", "min(dice)"),
    Builtin("count", ("number",), "number", None, "How many dice show the given face.", "count(6)"),
    Builtin("count_of", ("list", "number"), "number", lambda xs, v: xs.count(v), "How often a number occurs in a list.", "count_of(counts, 2)"),
    Builtin("sorted", ("list",), "list", lambda xs: tuple(sorted(xs)), "The list in ascending order.", "sorted(counts)"),
    Builtin("reversed", ("list",), "list", lambda xs: tuple(reversed(xs)), "The list back to front.", "reversed(sorted(dice))"),
    Builtin("distinct", ("list",), "list", lambda xs: tuple(sorted(set(xs))), "The different values of a list, ascending.", "distinct(dice)"),
    Builtin("take", ("list", "number"), "list", lambda xs, n: tuple(xs[: max(n, 0)]), "The first n items of a list.", "take(reversed(sorted(dice)), 2)"),
    Builtin("longest_run", ("list",), "number", _longest_run, "The length of the longest run of consecutive values (1 2 3 4 is a run of 4).", "longest_run(dice)"),
    Builtin("faces_with", ("number",), "list", None, "The faces shown by at least n dice, ascending.", "faces_with(2)"),
    Builtin("abs", ("number",), "number", abs, "The absolute value of a number.", "abs(dice[0] - dice[4])"),
]

SHEET: list[Builtin] = [
    Builtin("filled", ("box",), "bool", None, "Whether the player has written into a box.", "filled(chance)", sheet=True),
    Builtin("value", ("box",), "number", None, "The points written in a box; 0 while it is open.", "value(chance)", sheet=True),
    Builtin("total", ("section",), "number", None, "The sum of the points written in a section's boxes.", "total(upper)", sheet=True),
    Builtin("open_count", ("section",), "number", None, "How many boxes of a section are still open.", "open_count(lower)", sheet=True),
    Builtin("uses", ("box",), "number", None, "How many entries the player has written into a box (a box may take several, see `uses:`).", "uses(chance)", sheet=True),
    Builtin("entries", ("box",), "list", None, "The points of each entry written into a box, in the order written.", "entries(chance)", sheet=True),
    Builtin("column_values", ("box",), "list", None, "The value of a box in every column of the sheet, in column order (one item on a sheet without columns).", "column_values(chance)", sheet=True),
    Builtin("columns_filled", ("box",), "number", None, "In how many columns of the sheet a box is filled (0 or 1 on a sheet without columns).", "columns_filled(chance)", sheet=True),
    Builtin("boxes", ("section",), "boxes", None, "The boxes of a section in sheet order; index from 0.", "boxes(upper)[dice[0] - 1]"),
]

FUNCTIONS: dict[str, Builtin] = {b.name: b for b in PURE + SHEET}

# Names that are not functions. deps: what their value depends on.
VARIABLES: dict[str, tuple[str, str, str, str]] = {
    # name: (type, dependency, doc, example)
    "dice": ("list", "dice", "The dice of the current roll, ascending.", "dice[0]"),
    "counts": ("list", "dice", "How many dice show each face: counts[0] for face 1, and so on.", "max(counts) == 5"),
    "faces": ("list", "", "Every face of a die, ascending (1 to 6 for ordinary dice).", "len(faces)"),
    "target": ("box", "target", "In a write rule or bonus: the box being written into.", "target == chance"),
    "roll_number": ("number", "turn", "How many times the dice have been rolled this turn (1 after the first roll).", "roll_number == 1"),
    "kept": ("list", "keep", "In a keep rule: the dice the player would keep, ascending (the dice set aside before included).", "kept == [5, 6]"),
    "held": ("list", "keep", "In a keep rule: the dice set aside earlier this turn that stay aside (`locked`), ascending.", "6 in held"),
    "aside": ("list", "keep", "In a keep rule and a keep's effects: the dice set aside at this keep, ascending (`kept` less `held`).", "aside == [6]"),
    "rolled": ("list", "keep", "The dice the last roll threw, ascending: `dice` less those set aside (`held`); a roll's `bust` and effects read it.", "rolled == [2, 3, 4, 6]"),
    "announced": ("box", "announce", "In a `while:` condition: the box announced this turn (no box if none was).", "announced == chance"),
    "my_turn": ("bool", "turn", "In a write step's effects and `optional:` condition: whether the player acting is the one whose turn it is (a step taken `by: all` is taken by the others too).", "my_turn"),
    "announced_column": ("string", "announce", "In a `while:` condition: the column of the box announced this turn ('' if none was, or the sheet has no columns).", "announced_column == 'hand'"),
}
