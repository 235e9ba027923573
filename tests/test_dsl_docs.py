"""docs/dsl.md documents exactly the built-in functions and names, and its examples are true.

Every table with an Example and a Result column is compiled and evaluated in the page's
"example situation" (a YAML block); every table with an Expression and an Error column must fail
with exactly that message.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from rulebook.interpreter.model.dice import index_of
from rulebook.interpreter.model.dsl.builtins import FUNCTIONS, VARIABLES
from rulebook.interpreter.model.dsl.compiler import Compiler, Context, Scope
from rulebook.interpreter.model.errors import Pos, RulebookError
from rulebook.interpreter.model.yamlsource import Text

DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "dsl.md"
DOC = DOC_PATH.read_text(encoding="utf-8")
TYPES = ("number", "bool", "list", "box", "boxes", "string", "section")
DEPS = {"dice", "sheet", "target", "turn", "keep", "announce"}


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def tables(doc: str) -> list[list[dict[str, str]]]:
    """Every Markdown table of the page as a list of rows (column name → cell text)."""
    out, lines, i = [], doc.splitlines(), 0
    while i < len(lines) - 1:
        if lines[i].startswith("|") and re.match(r"^\|[-| :]+\|$", lines[i + 1].strip()):
            header, rows = _cells(lines[i]), []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(dict(zip(header, _cells(lines[i]))))
                i += 1
            out.append(rows)
        else:
            i += 1
    return out


def rows_with(*columns: str) -> list[dict[str, str]]:
    return [row for table in tables(DOC) for row in table if all(c in row for c in columns)]


def code(cell: str) -> str:
    match = re.fullmatch(r"`([^`]*)`(.*)", cell)
    assert match, f"expected `code` in {cell!r}"
    return match.group(1)


def situation() -> dict:
    section = DOC.split("## The example situation", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block, "the example situation needs a yaml block"
    return yaml.safe_load(block.group(1))


def _text(source: str) -> Text:
    t = Text(source)
    t.pos, t.raw = Pos("docs/dsl.md", 1, 1), source
    return t


def compiler() -> Compiler:
    s = situation()
    scope = Scope(s["dice"]["count"], s["dice"]["faces"], {k: tuple(v) for k, v in s["sections"].items()},
                  s["options"], {k: _text(v) for k, v in s["define"].items()})
    scope.option_choices = s["choices"]
    return Compiler(scope)


def context() -> Context:
    s = situation()
    n, faces = s["dice"]["count"], s["dice"]["faces"]
    roll = tuple(sorted(s["roll"]))
    counts = tuple(roll.count(f) for f in range(1, faces + 1))
    return Context(roll, index_of(n, faces)[roll], counts, dict(s["sheet"]), s["target"], s["roll_number"],
                   tuple(s["kept"]), tuple(s["held"]), s["announced"], s["announced_column"])


def show(value, kind: str) -> str:
    """A value as the page writes it."""
    if kind == "bool":
        return "true" if value else "false"
    if kind == "string":
        return f"'{value}'"
    if isinstance(value, tuple):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


# the tables list exactly the built-ins ------------------------------------------------

FUNCTION_ROWS = rows_with("Function", "What it does", "Example", "Result")
NAME_ROWS = rows_with("Name", "Type", "Depends on", "What it is", "Example", "Result")


def _signature(cell: str) -> tuple[str, tuple[str, ...], str]:
    match = re.fullmatch(r"`(\w+)\(([\w, ]*)\)` → (\w+)", cell)
    assert match, f"a function is written `name(type, …)` → type, not {cell!r}"
    params = tuple(p.strip() for p in match.group(2).split(",") if p.strip())
    return match.group(1), params, match.group(3)


def test_every_function_is_documented_once_and_nothing_else():
    names = [_signature(row["Function"])[0] for row in FUNCTION_ROWS]
    assert len(names) == len(set(names)), "a function is listed twice"
    assert sorted(names) == sorted(FUNCTIONS)


def test_every_built_in_name_is_documented_once_and_nothing_else():
    names = [code(row["Name"]) for row in NAME_ROWS]
    assert len(names) == len(set(names))
    assert sorted(names) == sorted(VARIABLES)


@pytest.mark.parametrize("row", FUNCTION_ROWS, ids=lambda r: r["Function"].split("(")[0].strip("`"))
def test_function_row_matches_the_builtin(row):
    name, params, returns = _signature(row["Function"])
    spec = FUNCTIONS[name]
    assert (params, returns) == (spec.params, spec.returns)
    assert row["What it does"] == spec.doc
    assert code(row["Example"]) == spec.example


@pytest.mark.parametrize("row", NAME_ROWS, ids=lambda r: code(r["Name"]))
def test_name_row_matches_the_builtin(row):
    kind, dep, doc, example = VARIABLES[code(row["Name"])]
    assert row["Type"] == kind
    assert row["Depends on"] == (dep or "—")
    assert row["What it is"] == doc
    assert code(row["Example"]) == example


# the examples are true ---------------------------------------------------------------

EXAMPLES = rows_with("Example", "Result")
MISTAKES = rows_with("Expression", "Error")


def test_the_page_has_examples_and_mistakes():
    assert len(EXAMPLES) >= len(FUNCTIONS) + len(VARIABLES) + 20
    assert len(MISTAKES) >= 10


@pytest.mark.parametrize("row", EXAMPLES, ids=lambda r: code(r["Example"]))
def test_example_evaluates_to_the_stated_result(row):
    compiled = compiler().compile(_text(code(row["Example"])), TYPES, DEPS, "the example")
    if row["Result"]:
        assert show(compiled(context()), compiled.type) == code(row["Result"])


@pytest.mark.parametrize("row", MISTAKES, ids=lambda r: code(r["Expression"]))
def test_mistake_fails_with_the_stated_message(row):
    with pytest.raises(RulebookError) as info:
        compiler().compile(_text(code(row["Expression"])), TYPES, DEPS, "the example")
    exc = info.value
    assert exc.message + (f"; {exc.hint}" if exc.hint else "") == row["Error"]


def test_where_table_names_real_keys():
    """The 'Where expressions appear' table only names keys that the schema has."""
    schema = (DOC_PATH.parent.parent / "schema" / "model.schema.json").read_text(encoding="utf-8")
    for row in rows_with("Key in the model", "Must be", "May look at"):
        for key in re.findall(r"`(\w+)`", row["Key in the model"]):
            assert f'"{key}"' in schema, key
