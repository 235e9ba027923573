"""Balut as rules/balut.yaml states it: seven rows filled four times each, ranked on Balut points
(per row and for the grand total), the total breaking ties. The numbers are worked out by hand
from the published rules."""
import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.engine.actions import Write
from rulebook.interpreter.model.scoring import Scorer
from rulebook.interpreter.engine.state import GameState

MODEL = load_model("balut")
SCORER = Scorer(MODEL)
ROWS = ["fours", "fives", "sixes", "straight", "full_house", "choice", "balut"]


def sheet(**rows):
    """A sheet from each row's entries: sheet(fours=[12, 16]) → {'fours#1': 12, 'fours#2': 16}."""
    return {f"{row}#{k}": v for row, entries in rows.items() for k, v in enumerate(entries, 1)}


def test_check_and_shape(cli):
    code, out, err = cli("check", "rules/balut.yaml")
    assert code == 0 and "ok (balut: 7 boxes" in out
    assert list(MODEL.boxes) == ROWS and all(b.uses == 4 for b in MODEL.boxes.values())
    assert len(MODEL.cells) == 28 and MODEL.cells[:2] == ("fours#1", "fours#2")
    assert MODEL.flow.times == 28  # a turn per entry
    assert MODEL.ranking is not None and [n["en"] for n, _ in MODEL.ranking.tie_breaks] == ["total"]


@pytest.mark.parametrize("box, dice, expected", [
    ("fours", [4, 4, 4, 2, 6], 12),
    ("sixes", [6, 6, 6, 6, 1], 24),
    ("straight", [1, 2, 3, 4, 5], 15),
    ("straight", [2, 3, 4, 5, 6], 20),
    ("straight", [1, 2, 3, 4, 6], 0),
    ("full_house", [3, 3, 6, 6, 6], 24),
    ("full_house", [6, 6, 6, 6, 6], 0),  # five alike is not a full house
    ("choice", [2, 4, 5, 6, 6], 23),
    ("balut", [3, 3, 3, 3, 3], 35),  # 20 + 15
    ("balut", [6, 6, 6, 6, 6], 50),
    ("balut", [6, 6, 6, 6, 5], 0),
])
def test_entries(box, dice, expected):
    assert SCORER.points(box, dice) == expected


def test_a_row_takes_four_entries_then_closes():
    partial = sheet(fours=[12, 16, 8])
    assert {c.box for c in SCORER.choices([4, 4, 1, 2, 3], partial)} == set(ROWS)
    full = sheet(fours=[12, 16, 8, 4])
    assert "fours" not in {c.box for c in SCORER.choices([4, 4, 1, 2, 3], full)}
    assert SCORER.totals(full)["rows"] == 40


GOOD = sheet(fours=[16, 16, 12, 8], fives=[20, 15, 15, 15], sixes=[24, 18, 18, 18],
             straight=[15, 20, 20, 15], full_house=[28, 26, 17, 19], choice=[25, 26, 27, 22],
             balut=[35, 0, 50, 0])
# rows: fours 52 (2), fives 65 (2), sixes 78 (2), four straights (4), four full houses (3),
# choice 100 (2), two Baluts (4): 19 points; total 52+65+78+70+90+100+85 = 540 → 3 points


def test_balut_points_by_hand():
    assert SCORER.totals(GOOD)["total"] == 540
    assert SCORER.final_score(GOOD) == (22, 540)


def test_each_mark_is_exact():
    short = dict(GOOD, **{"fours#4": 7})  # fours 51: no points; total 539: still 3 points
    assert SCORER.final_score(short) == (20, 539)
    scratched = dict(GOOD, **{"straight#2": 0})  # one straight missing: the row earns nothing
    assert SCORER.final_score(scratched) == (18, 520)


@pytest.mark.parametrize("total, points", [(0, -2), (299, -2), (300, -1), (349, -1), (350, 0), (399, 0),
                                           (400, 1), (450, 2), (500, 3), (550, 4), (600, 5), (649, 5), (650, 6)])
def test_points_for_the_total(total, points):
    # all in Choice (below 100 per entry this earns no row points unless it reaches 100)
    entries = [total // 4 + (1 if k < total % 4 else 0) for k in range(4)]
    row = 2 if total >= 100 else 0
    assert SCORER.final_score(sheet(choice=entries)) == (points + row, total)


def test_ranking_uses_points_then_total():
    state = GameState(MODEL, ["a", "b", "c"])
    state.sheets = [GOOD, dict(GOOD, **{"choice#4": 23}), sheet(choice=[30, 30, 30, 30])]
    # a and b: 22 points each; b's total is one higher. c: choice 120 (2) and total 120 (-2) = 0
    assert state.ranking() == [(1, "b", 22), (2, "a", 22), (3, "c", 0)]
    assert state.returns() == [22, 22, 0]


def test_a_write_fills_the_next_entry_of_a_row():
    state = GameState(MODEL, ["a"])
    state.apply(state.legal_actions()[0])  # the first roll
    while state.step().kind != "write":
        state.apply(state.legal_actions()[0])
    state.apply(Write("choice"))
    assert list(state.sheets[0]) == ["choice#1"] and state.last_cell == "choice#1"


def test_bots_play_a_full_game():
    from rulebook.interpreter.play.game import Game, Seat
    game = Game(MODEL, [Seat("a", "greedy"), Seat("b", "random")], seed=5)
    for _ in game.run_bots():
        pass
    assert game.state.is_terminal() and [len(s) for s in game.state.sheets] == [28, 28]
