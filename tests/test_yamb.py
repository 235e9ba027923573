"""Yamb as rules/yamb.yaml states it (the four-column sheet of the Serbian Wikipedia article, the
points of iklub.rs's Standard board, plus its Hand column): rows 1–6, Max, Min, Straight (66/56/46
by roll), Full, Poker, Yamb; Down from the top, Up from the bottom, Free, Announce and Hand only after
an announcement; (Max − Min) × Ones instead of Max and Min; 30 for 60 in rows 1–6. Numbers by hand."""
import io
import sys

import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.solver.abstraction import NotSolvable, turn_shape
from rulebook.interpreter.engine.actions import Announce, Keep, Roll, Stop, Write
from rulebook.interpreter.model.errors import IllegalActionError
from rulebook.interpreter.model.scoring import Scorer
from rulebook.interpreter.engine.state import GameState
from rulebook.tools.cli import main

MODEL = load_model("yamb")
SCORER = Scorer(MODEL)
ROWS = ["ones", "twos", "threes", "fours", "fives", "sixes", "maximum", "minimum", "straight", "full", "poker", "yamb"]
COLUMNS = ["down", "free", "up", "announce", "hand"]


def test_check_and_shape(cli):
    code, out, _ = cli("check", "rules/yamb.yaml")
    assert code == 0 and "ok (yamb: 12 boxes" in out
    assert list(MODEL.boxes) == ROWS and [c.id for c in MODEL.columns] == COLUMNS
    assert [c.order for c in MODEL.columns] == ["down", "free", "up", "announced", "announced"]
    assert len(MODEL.cells) == 60 and MODEL.flow.times == 60  # a turn per cell


@pytest.mark.parametrize("box, dice, roll_number, points", [
    ("ones", [1, 1, 1, 4, 6], 1, 3),
    ("sixes", [6, 6, 6, 3, 3], 3, 18),
    ("maximum", [6, 6, 5, 5, 4], 3, 26),
    ("minimum", [1, 1, 2, 2, 3], 3, 9),
    ("straight", [2, 3, 4, 5, 6], 1, 66),  # after the first roll
    ("straight", [1, 2, 3, 4, 5], 2, 56),  # after the second
    ("straight", [1, 2, 3, 4, 5], 3, 46),  # after the third
    ("straight", [1, 2, 3, 4, 6], 1, 0),
    ("full", [2, 2, 5, 5, 5], 3, 49),      # 19 + 30
    ("full", [5, 5, 5, 5, 5], 3, 0),       # five alike is not three and two
    ("poker", [3, 3, 3, 3, 6], 3, 52),     # the four threes + 40
    ("poker", [4, 4, 4, 4, 4], 3, 56),     # four of the five fours + 40
    ("yamb", [4, 4, 4, 4, 4], 3, 70),      # 20 + 50
    ("yamb", [4, 4, 4, 4, 3], 3, 0),
])
def test_rows(box, dice, roll_number, points):
    assert SCORER.points(f"{box}@free", dice, {}, roll_number) == points


def test_a_column_by_hand():
    """Free: rows 1–6 make 70 (bonus 30), (Max 28 − Min 8) × 3 ones = 60, combinations 167: 327.
    Max and Min themselves are not added."""
    free = dict(zip(ROWS, [3, 8, 9, 12, 20, 18, 28, 8, 66, 49, 52, 0]))
    sheet = {f"{row}@free": v for row, v in free.items()}
    totals = SCORER.totals(sheet)
    assert (totals["upper@free"], totals["upper_bonus@free"], totals["middle_score@free"]) == (70, 30, 60)
    assert totals["lower@free"] == 167 and totals["middle@free"] == 36
    assert totals["total"] == 70 + 30 + 60 + 167
    # 59 in rows 1–6 earns no bonus; Max below Min costs points
    sheet.update({"sixes@free": 7, "maximum@free": 10, "minimum@free": 12})
    totals = SCORER.totals(sheet)
    assert (totals["upper_bonus@free"], totals["middle_score@free"]) == (0, -6)


def after_first_roll(dice=(1, 2, 3, 4, 5), sheet=None):
    state = GameState(MODEL, ["a"])
    state.sheets[0].update(sheet or {})
    state.apply(Roll(tuple(sorted(dice))))
    return state


def test_down_from_the_top_up_from_the_bottom_announce_only_when_announced():
    state = after_first_roll()
    state.apply(Announce(None))
    state.apply(Stop())
    writable = {a.box for a in state.legal_actions()}
    assert {t for t in writable if t.endswith("@down")} == {"ones@down"}
    assert {t for t in writable if t.endswith("@up")} == {"yamb@up"}
    assert {t for t in writable if t.endswith("@free")} == {f"{r}@free" for r in ROWS}
    assert not any(t.endswith(("@announce", "@hand")) for t in writable)
    with pytest.raises(IllegalActionError) as info:
        state.apply(Write("ones@announce"))
    assert "after announcing" in str(info.value)


def test_an_announced_box_takes_the_dice_even_for_nothing():
    state = after_first_roll((1, 2, 3, 4, 6))
    state.apply(Announce("yamb@announce"))
    assert state.rolls_left() == 2
    state.apply(Keep((1,)))
    state.apply(Roll((2, 3, 4, 5)))
    state.apply(Stop())
    assert [str(a) for a in state.legal_actions()] == ["write yamb@announce"]
    with pytest.raises(IllegalActionError):
        state.apply(Write("ones@free"))
    state.apply(Write("yamb@announce"))
    assert state.sheets[0] == {"yamb@announce": 0}


def test_the_hand_column_takes_the_first_roll_as_it_is():
    """Announcing a box of Hand ends the rolling: the while condition of the rerolls is false."""
    state = after_first_roll((2, 3, 4, 5, 6))
    state.apply(Announce("straight@hand"))
    assert state.rolls_left() == 0 and state.step().kind == "write"
    state.apply(Write("straight@hand"))
    assert state.sheets[0] == {"straight@hand": 66}


def test_announcing_is_compulsory_when_only_announced_columns_are_open():
    rest = {f"{r}@{c}": 0 for r in ROWS for c in ("down", "free", "up")}
    state = after_first_roll(sheet=rest)
    legal = state.legal_actions()
    assert Announce(None) not in legal and len(legal) == 24  # twelve rows in Announce and in Hand
    with pytest.raises(IllegalActionError):
        state.apply(Announce(None))
    # with a free box left, announcing is up to the player
    del rest["ones@free"]
    assert Announce(None) in after_first_roll(sheet=rest).legal_actions()


def test_the_announcement_is_saved():
    state = after_first_roll()
    state.apply(Announce("fours@announce"))
    data = state.to_json()
    assert data["announced"] == "fours@announce"
    again = GameState.from_json(MODEL, data)
    assert again.announced == "fours@announce" and again.legal_actions() == state.legal_actions()


def test_the_solver_refuses_the_announce_step():
    with pytest.raises(NotSolvable) as info:
        turn_shape(MODEL)
    assert "announce" in str(info.value)


def test_bots_play_a_full_game_and_the_log_replays(tmp_path, monkeypatch, capsys):
    log = tmp_path / "yamb.jsonl"
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "yamb", "--players", "a:greedy,b:strong", "--seed", "5", "--log", str(log), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "announces" in out
    moves = [line for line in log.read_text(encoding="utf-8").splitlines() if '"move": "announce' in line]
    assert moves  # announcements are logged as moves
    assert main(["replay", str(log), "--lang", "en"]) == 0
