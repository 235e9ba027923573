"""Expression cost bounded before evaluation (issue 28): the compiler counts the steps of one
evaluation of every expression (a definition at each use) and of the per-roll tables it builds, and
refuses a model past `expression_cost` or `table_work` at the position, with the number."""
from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from rulebook.interpreter.model.errors import ErrorList
from rulebook.interpreter.model.limits import DEFAULT, set_limits
from rulebook.interpreter.model.loader import load_model, load_source

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hostile import _minimal  # noqa: E402
from hostile_two import cost_models, dear_tables  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_budget():
    set_limits(DEFAULT)
    yield
    set_limits(DEFAULT)


def refusal(text: str) -> str:
    with pytest.raises(ErrorList) as info:
        load_source(text, "m.yaml")
    return str(info.value)


# place -> (line:col of the refusal, steps) for a chain 38 deep of `d + d - d`: refused inside its eighth
# link (s7: s6 + s6 - s6), at `s6 + s6` (1 + 2 × 3,644 steps)
DEEP = {"box": ("25:10", "7,289"), "end-bonus": ("25:10", "7,289"), "write-rule": ("25:15", "6,560"),
        "while": ("25:10", "7,289"), "effect": ("29:10", "7,289"), "tie-break": ("32:10", "7,289")}


@pytest.mark.parametrize("place", sorted(DEEP))
def test_a_chain_of_definitions_is_refused_where_it_passes_the_budget(place):
    started = time.process_time()
    message = refusal(cost_models(_minimal)[place])
    where, steps = DEEP[place]
    assert message.count("\n") == 0, message
    assert message.startswith(f"m.yaml:{where}: error: evaluating this expression takes {steps} steps"), message
    assert "the limit is 5,000" in message and "--limit expression_cost=N" in message
    assert time.process_time() - started < 5  # refused before a single evaluation (2**38 of them otherwise)


@pytest.mark.parametrize("place", sorted(DEEP))
def test_a_wide_chain_is_refused_too(place):
    message = refusal(cost_models(_minimal, 12, 8)[place])  # each link uses the one before eight times
    assert "error: evaluating this expression takes" in message and message.count("\n") == 0


def test_the_refusal_is_in_the_users_language(cli, tmp_path):
    model = tmp_path / "m.yaml"
    model.write_text(cost_models(_minimal)["box"], encoding="utf-8")
    for lang, start in (("de", "Fehler: diesen Ausdruck auszuwerten kostet 7.289 Schritte"),
                        ("nl", "deze uitdrukking uitrekenen kost 7.289 stappen")):
        code, _, err = cli("--lang", lang, "check", str(model))
        assert code == 2 and err.count("\n") == 1 and start in err and ":25:10: " in err, err


def test_a_chain_below_the_budget_loads_and_the_limit_can_be_raised():
    assert load_source(cost_models(_minimal, 6)["box"], "m.yaml").boxes["ones"].score.ast.cost == 3_644
    set_limits(replace(DEFAULT, expression_cost=11_000))  # the next link: 3 × 3,644 + 2 (`s6 + s6 - s6`)
    assert load_source(cost_models(_minimal, 7)["box"], "m.yaml").boxes["ones"].score.ast.cost == 10_934


def test_tables_over_every_roll_are_counted_before_they_are_built():
    set_limits(replace(DEFAULT, table_work=5_000_000))  # two boxes of 4,368 rolls × 702 steps: 6.1 million
    message = refusal(dear_tables(_minimal, 2))
    assert message.count("\n") == 0
    assert "m.yaml:30:16: error: the tables of this model's expressions over every roll take 6,132,672 steps" in message
    assert "(4,368 rolls of 702 steps for this one); the limit is 5,000,000" in message


@pytest.mark.parametrize("name, cost, tables", [("balut", 182, 10_584), ("yahtzee", 27, 25_200)])
def test_bundled_models_keep_a_wide_margin(name, cost, tables):
    """The numbers docs/writing-a-game.md §19 gives: the dearest bundled expression (Balut's ranking,
    182 steps) and the tables (at most Qwixx's 6.0 million) are far below the defaults."""
    set_limits(replace(DEFAULT, expression_cost=cost, table_work=tables))
    load_model(name)
    for lower in (replace(DEFAULT, expression_cost=cost - 1), replace(DEFAULT, table_work=tables - 1)):
        set_limits(lower)
        with pytest.raises(ErrorList):
            load_model(name)
