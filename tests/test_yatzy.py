"""Scandinavian Yatzy as rules/yatzy.yaml states it: every box, the 50-point bonus at 63, no Joker."""
import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.model.scoring import Scorer

MODEL = load_model("yatzy")
SCORER = Scorer(MODEL)

BOXES = ["ones", "twos", "threes", "fours", "fives", "sixes", "one_pair", "two_pairs", "three_of_a_kind",
         "four_of_a_kind", "small_straight", "large_straight", "full_house", "chance", "yatzy"]


def points(dice, sheet=None):
    return {c.box: c.points for c in SCORER.choices(dice, sheet or {})}


def test_check_exits_0(cli):
    code, out, err = cli("check", "rules/yatzy.yaml")
    assert code == 0 and err == ""
    assert "ok (yatzy: 15 boxes" in out


def test_shape():
    assert list(MODEL.boxes) == BOXES
    assert (MODEL.n_dice, MODEL.faces, MODEL.min_players, MODEL.max_players) == (5, 6, 1, 8)
    assert MODEL.flow.times == 15
    rolls = [s for s in MODEL.flow.walk() if s.kind == "roll"]
    rerolls = next(s for s in MODEL.flow.walk() if s.id == "rerolls")
    assert len(rolls) == 2 and rerolls.times == 2  # three rolls in all
    assert MODEL.end_if is None and MODEL.options == {}


@pytest.mark.parametrize("dice, expected", [
    # upper section: face × count
    ([1, 1, 2, 1, 5], {"ones": 3, "twos": 2, "fives": 5, "sixes": 0}),
    ([6, 6, 1, 6, 3], {"sixes": 18, "threes": 3, "ones": 1}),
    # one pair: the highest pair only
    ([3, 3, 5, 5, 6], {"one_pair": 10, "two_pairs": 16, "three_of_a_kind": 0, "full_house": 0, "chance": 22}),
    ([1, 1, 2, 3, 4], {"one_pair": 2, "two_pairs": 0}),
    ([1, 2, 3, 4, 6], {"one_pair": 0, "two_pairs": 0, "small_straight": 0, "large_straight": 0}),
    ([4, 4, 4, 2, 6], {"one_pair": 8, "three_of_a_kind": 12, "two_pairs": 0, "four_of_a_kind": 0}),
    # two pairs must be of different faces; four alike is not two pairs, a full house is
    ([3, 3, 3, 3, 5], {"two_pairs": 0, "one_pair": 6, "three_of_a_kind": 9, "four_of_a_kind": 12}),
    ([2, 2, 5, 5, 5], {"two_pairs": 14, "one_pair": 10, "three_of_a_kind": 15, "full_house": 19}),
    ([1, 1, 6, 6, 2], {"two_pairs": 14, "one_pair": 12}),
    # three and four of a kind: only the matched dice count
    ([2, 2, 2, 2, 6], {"three_of_a_kind": 6, "four_of_a_kind": 8, "full_house": 0, "yatzy": 0}),
    # straights are fixed: 1-5 = 15, 2-6 = 20
    ([1, 2, 3, 4, 5], {"small_straight": 15, "large_straight": 0, "chance": 15}),
    ([5, 4, 3, 2, 1], {"small_straight": 15}),
    ([2, 3, 4, 5, 6], {"small_straight": 0, "large_straight": 20, "chance": 20}),
    ([1, 3, 4, 5, 6], {"small_straight": 0, "large_straight": 0}),
    ([1, 2, 3, 4, 4], {"small_straight": 0, "large_straight": 0}),
    # full house: dice total, two different faces 3 + 2
    ([6, 6, 6, 5, 5], {"full_house": 28}),
    ([1, 1, 1, 2, 2], {"full_house": 7}),
    ([4, 4, 4, 4, 4], {"full_house": 0, "yatzy": 50, "fours": 20, "one_pair": 8, "two_pairs": 0,
                       "three_of_a_kind": 12, "four_of_a_kind": 16, "chance": 20}),
    # yatzy
    ([1, 1, 1, 1, 1], {"yatzy": 50, "ones": 5}),
    ([6, 6, 6, 6, 5], {"yatzy": 0}),
])
def test_every_box(dice, expected):
    p = points(dice)
    assert len(p) == 15
    assert {k: p[k] for k in expected} == expected


def test_points_api_matches_choices():
    assert SCORER.points("one_pair", [6, 6, 5, 5, 1]) == 12
    assert SCORER.points("two_pairs", [6, 6, 5, 5, 1]) == 22
    assert SCORER.points("large_straight", [6, 2, 5, 3, 4]) == 20


def test_examples_score_their_box():
    for box in MODEL.boxes.values():
        assert box.example is not None
        assert SCORER.points(box.id, box.example) > 0, box.id


def test_upper_bonus_50_at_63():
    sheet = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18}  # exactly 63
    totals = SCORER.totals(sheet)
    assert totals["upper"] == 63 and totals["upper_bonus"] == 50 and totals["total"] == 113
    assert SCORER.totals({**sheet, "ones": 2})["upper_bonus"] == 0  # 62
    assert SCORER.totals({**sheet, "sixes": 30})["upper_bonus"] == 50
    assert SCORER.progress({"fives": 20, "sixes": 24}) == {"upper_bonus": (44, 63)}


def test_lower_boxes_do_not_count_towards_bonus():
    sheet = {"chance": 30, "yatzy": 50, "sixes": 30}
    assert SCORER.totals(sheet) == {"upper": 30, "lower": 80, "upper_bonus": 0, "total": 110}


def test_no_joker_and_no_second_yatzy_bonus():
    filled = {"yatzy": 50, "threes": 9}
    p = points([3] * 5, filled)
    assert len(p) == 13
    assert (p["full_house"], p["small_straight"], p["large_straight"]) == (0, 0, 0)
    assert all(c.bonus == 0 for c in SCORER.choices([3] * 5, filled))
    assert [b.id for b in MODEL.bonuses] == ["upper_bonus"]


def test_any_open_box_may_take_the_dice():
    sheet = {b: 0 for b in BOXES if b != "sixes"}
    assert points([1, 2, 3, 4, 5], sheet) == {"sixes": 0}


def test_german_box_name():
    assert MODEL.boxes["two_pairs"].name["de"] == "Zwei Paare"
