"""The mechanism chapters of docs/writing-a-game.md: every example block is part of the model file
named above it, that file loads, and it behaves as the chapter says."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.model.scoring import Scorer
from rulebook.interpreter.engine.state import GameState

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "writing-a-game.md").read_text(encoding="utf-8")
EXAMPLES = re.findall(r"<!-- example: (\S+) -->\n```yaml\n(.*?)```", DOC, re.S)


def test_the_chapters_have_examples():
    assert {path for path, _ in EXAMPLES} >= {"tests/data/examples/rows.yaml"}


@pytest.mark.parametrize("path, block", EXAMPLES, ids=[f"{p}:{i}" for i, (p, _) in enumerate(EXAMPLES)])
def test_each_example_is_in_its_file_and_the_file_loads(path, block):
    text = (ROOT / path).read_text(encoding="utf-8")
    assert block in text, f"the block shown in the chapter is not in {path}"
    load_model(ROOT / path)


def test_rows_boxes_used_several_times_and_the_winner():
    model = load_model(ROOT / "tests/data/examples/rows.yaml")
    scorer = Scorer(model)
    assert model.cells == ("sixes#1", "sixes#2", "sixes#3", "pairs#1", "pairs#2", "pairs#3")
    three_pairs = {"pairs#1": 8, "pairs#2": 2, "pairs#3": 12}
    assert scorer.final_score(three_pairs) == (2, 22)
    scratched = dict(three_pairs, **{"pairs#2": 0})
    assert scorer.final_score(scratched) == (0, 20)
    sixes = {"sixes#1": 12, "sixes#2": 18, "sixes#3": 6}
    assert scorer.final_score(sixes) == (1, 36)
    state = GameState(model, ["a", "b"])
    state.sheets = [dict(sixes), {"sixes#1": 12, "sixes#2": 12, "sixes#3": 18}]
    # one point each (sixes at 36 or more); b's total is 48, a's 36: b wins the tie
    state.sheets[1]["pairs#1"] = 6
    assert state.ranking() == [(1, "b", 1), (2, "a", 1)]


COLUMNS = ROOT / "tests/data/examples/columns.yaml"
SCRATCH = ROOT / "tests/data/examples/scratch.yaml"


def test_columns_cells_order_and_multiplier():
    model = load_model(COLUMNS)
    scorer = Scorer(model)
    assert list(model.targets) == ["low@free", "high@free", "double@free", "low@down", "high@down", "double@down"]
    # the Down column takes its first open box only; the Free column any open box
    assert {c.box for c in scorer.choices([2, 5], {})} == {"low@free", "high@free", "double@free", "low@down"}
    assert {c.box for c in scorer.choices([2, 5], {"low@down": 2})} >= {"high@down"}
    assert "double@down" not in {c.box for c in scorer.choices([2, 5], {"low@down": 2})}
    # totals: Free counts once, Down twice; the column bonus is scored per column (5 at 15)
    sheet = {"low@free": 2, "high@free": 5, "double@free": 10, "low@down": 3, "high@down": 6, "double@down": 0}
    totals = scorer.totals(sheet)
    assert (totals["sheet@free"], totals["sheet@down"]) == (17, 9)
    assert (totals["column_bonus@free"], totals["column_bonus@down"]) == (5, 0)
    assert totals["sheet"] == 17 + 2 * 9 and totals["column_bonus"] == 5
    assert totals["total"] == 35 + 5


def test_columns_a_write_names_box_and_column():
    from rulebook.interpreter.engine.actions import Write
    state = GameState(load_model(COLUMNS), ["a"])
    state.apply(state.legal_actions()[0])
    state.apply(Write("low@down"))
    assert list(state.sheets[0]) == ["low@down"]


def _at_write(model, dice, sheet):
    from rulebook.interpreter.engine.actions import Roll
    state = GameState(model, ["a"])
    state.sheets[0].update(sheet)
    state.apply(Roll(dice))
    return state


def test_scratch_when_no_box_fits():
    model = load_model(SCRATCH)
    assert model.step("write").otherwise == "scratch"
    state = _at_write(model, (2, 3), {})
    assert [str(a) for a in state.legal_actions()] == ["write sixes", "write pair"]
    assert [c.points for c in state.write_choices()] == [0, 0]
    state = _at_write(model, (6, 6), {})
    assert {c.box: c.points for c in state.write_choices()} == {"sixes": 12, "pair": 12}


def test_without_otherwise_check_refuses_and_the_engine_never_skips(capsys):
    from rulebook.interpreter.model.errors import ErrorList, ModelError
    from rulebook.interpreter.model.loader import load_source
    text = SCRATCH.read_text(encoding="utf-8")
    strict = text.replace("          otherwise: scratch\n", "")
    with pytest.raises(ErrorList) as err:
        load_source(strict, "scratch.yaml")
    line = next(i for i, l in enumerate(strict.splitlines(), 1) if "allowed:" in l)
    assert str(err.value.errors[0]).startswith(f"scratch.yaml:{line}:20: error: the write rule of step 'write' "
                                                "lets no box take the roll 1 2 on the empty sheet")
    # a rule the check cannot see through (it fills the sheet with 0 and with best scores): the
    # engine stops with the rule's position instead of skipping the write
    sly = strict.replace("allowed: (target == sixes and 6 in dice) or (target == pair and dice[0] == dice[1])",
                         "allowed: target != pair or value(sixes) != 6")
    model = load_source(sly, "sly.yaml")
    with pytest.raises(ModelError) as stop:
        _at_write(model, (1, 2), {"sixes": 6})
    assert str(stop.value) == (f"sly.yaml:{line}:20: error: no box may take the roll 1 2 at step 'write'; "
                               "allow a box for every roll, or say what happens then with 'otherwise: scratch'")


KEEP_RULE = ROOT / "tests/data/examples/keep_rule.yaml"


def test_keep_rule_only_allowed_keeps_and_set_aside_dice_stay():
    from rulebook.interpreter.engine.actions import Keep, Roll, Stop
    state = GameState(load_model(KEEP_RULE), ["a"])
    state.apply(Roll((5, 5, 6)))
    # a 5 may not be set aside before the 6; setting nothing aside is allowed here
    assert sorted(a.dice for a in state.legal_actions() if isinstance(a, Keep)) == [(), (5, 6), (6,)]
    assert Stop() in state.legal_actions()
    state.apply(Keep((6,)))
    state.apply(Roll((2, 3)))
    # the 6 stays aside: keeping nothing is no longer offered
    assert [a.dice for a in state.legal_actions() if isinstance(a, Keep)] == [(6,)]
    state.apply(Keep((6,)))
    state.apply(Roll((4, 5)))
    assert [c.points for c in state.write_choices()] == [4]  # 6, 5 and the cargo 4


ANNOUNCE = ROOT / "tests/data/examples/announce.yaml"


def test_announce_a_box_and_roll_while_a_condition_holds():
    from rulebook.interpreter.engine.actions import Announce, Roll, Stop, Write
    model = load_model(ANNOUNCE)
    state = GameState(model, ["a"])
    state.apply(Roll((2, 5)))
    # Called and Quick take only an announced box; announcing nothing is allowed while Free is open
    assert [str(a) for a in state.legal_actions()] == [
        "announce none", "announce high@called", "announce double@called", "announce high@quick",
        "announce double@quick"]
    called = state.clone()
    called.apply(Announce("double@called"))
    assert called.rolls_left() == 1 and called.step().kind == "keep"
    called.apply(Stop())
    assert [str(a) for a in called.legal_actions()] == ["write double@called"]  # even for 0 points
    quick = state.clone()
    quick.apply(Announce("high@quick"))
    assert quick.rolls_left() == 0 and quick.step().kind == "write"  # the while condition is false
    quick.apply(Write("high@quick"))
    assert quick.sheets[0] == {"high@quick": 7}
    state.apply(Announce(None))
    state.apply(Stop())
    assert {a.box for a in state.legal_actions()} == {"high@free", "double@free"}


COUNTERS = ROOT / "tests/data/examples/counters.yaml"


def test_counters_saved_rolls_and_an_effect_on_the_other_players():
    """Chapters 15 and 16: two rolls a turn plus the saved ones; a pair written in Pair costs every
    other player 3 points at the end."""
    from rulebook.interpreter.engine.actions import parse_action
    model = load_model(COUNTERS)
    assert [c.id for c in model.counters] == ["saved", "pairs_against"]
    state = GameState(model, ["a", "b", "c"])

    def play(*moves):
        for move in moves:
            state.apply(parse_action(move))
    play("roll 3 3")
    assert state.rolls_left() == 1
    play("stop", "write pair")  # a: a pair after one roll; one roll saved, a pair against b and c
    assert state.counter_values == [{"saved": 1, "pairs_against": 0}, {"saved": 0, "pairs_against": 1},
                                    {"saved": 0, "pairs_against": 1}]
    play("roll 1 2", "keep 1", "roll 5", "write chance")  # b: both rolls, nothing saved
    play("roll 4 4", "stop", "write chance")  # c: a pair in Chance costs nobody
    play("roll 2 5")
    assert state.rolls_left() == 2  # a: two rolls plus the one saved
    play("keep 5", "roll 1", "keep 5", "roll 5")
    assert state.step().kind == "write" and state.roll_number == 3
    play("write chance")
    assert state.counter_values[0] == {"saved": 0, "pairs_against": 0}
    play("roll 6 6", "stop", "write pair")  # b: a pair against a and c
    play("roll 1 1", "stop", "write pair")  # c: a pair against a and b
    assert state.is_terminal()
    assert [state.counter_values[p]["pairs_against"] for p in range(3)] == [2, 2, 2]
    assert [state.totals(p)["penalty"] for p in range(3)] == [-6, -6, -6]
    assert [state.totals(p)["total"] for p in range(3)] == [10 + 10 - 6, 6 + 10 - 6, 8 + 10 - 6]


def test_an_effect_on_a_counter_nobody_declared_is_refused_with_its_position(tmp_path):
    from rulebook.interpreter.model.errors import ErrorList
    text = COUNTERS.read_text(encoding="utf-8").replace("- counter: pairs_against", "- counter: pairs_agains")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ErrorList) as info:
        load_model(bad)
    assert "unknown counter 'pairs_agains'" in str(info.value) and "did you mean 'pairs_against'" in str(info.value)
    text = COUNTERS.read_text(encoding="utf-8").replace("times: 3", "times: 2 + counter.saved")
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ErrorList) as info:  # a repeat's bound is a number of the model; its while: may read counters
        load_model(bad)
    assert "cannot depend on a counter" in str(info.value)
