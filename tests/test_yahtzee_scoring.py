"""Yahtzee's scoring as the model states it: the seeds' examples, every box, bonuses and Jokers."""
import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.model.scoring import Scorer


def points(model, dice, sheet=None):
    return {c.box: c.points for c in Scorer(model).choices(dice, sheet or {})}


def bonus(model, dice, sheet):
    return {c.box: c.bonus for c in Scorer(model).choices(dice, sheet)}


def test_seed_003_example_2_2_4_3_4(yahtzee):
    p = points(yahtzee, [2, 2, 4, 3, 4])
    assert (p["twos"], p["threes"], p["fours"]) == (4, 3, 8)
    assert p["ones"] == p["fives"] == p["sixes"] == 0
    assert p["chance"] == 15


@pytest.mark.parametrize("dice, expected", [
    ([3, 3, 3, 5, 6], {"three_of_a_kind": 20, "four_of_a_kind": 0, "full_house": 0, "chance": 20}),
    ([2, 2, 2, 2, 6], {"three_of_a_kind": 14, "four_of_a_kind": 14, "yahtzee": 0}),
    ([2, 2, 5, 5, 5], {"full_house": 25, "three_of_a_kind": 19, "small_straight": 0}),
    ([1, 3, 4, 5, 6], {"small_straight": 30, "large_straight": 0}),
    ([1, 2, 3, 4, 6], {"small_straight": 30, "large_straight": 0}),
    ([2, 3, 4, 5, 6], {"small_straight": 30, "large_straight": 40}),
    ([1, 2, 3, 4, 5], {"small_straight": 30, "large_straight": 40}),
    ([1, 2, 3, 5, 6], {"small_straight": 0, "large_straight": 0}),
    ([4, 4, 4, 4, 4], {"yahtzee": 50, "fours": 20, "four_of_a_kind": 20, "full_house": 0, "chance": 20}),
    ([6, 6, 1, 6, 6], {"sixes": 24, "ones": 1, "four_of_a_kind": 25}),
])
def test_every_box(yahtzee, dice, expected):
    p = points(yahtzee, dice)
    assert {k: p[k] for k in expected} == expected


def test_upper_bonus_threshold_and_option():
    sheet = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18}  # 63
    m = load_model("yahtzee")
    assert Scorer(m).totals(sheet)["upper_bonus"] == 35
    assert Scorer(m).totals({**sheet, "sixes": 12})["upper_bonus"] == 0
    assert Scorer(m).totals(sheet)["total"] == 98
    m68 = load_model("yahtzee", {"upper_bonus_threshold": "68"})
    assert Scorer(m68).totals(sheet)["upper_bonus"] == 0
    assert Scorer(m68).totals({**sheet, "sixes": 24})["upper_bonus"] == 35
    assert Scorer(m).progress({"ones": 3, "sixes": 18}) == {"upper_bonus": (21, 63)}


class TestJokerForced:
    model = load_model("yahtzee", {"joker": "forced"})

    def test_upper_box_open_must_take_it(self):
        assert points(self.model, [3] * 5, {"yahtzee": 50}) == {"threes": 15}
        assert bonus(self.model, [3] * 5, {"yahtzee": 50}) == {"threes": 100}

    def test_upper_filled_any_lower_with_full_points(self):
        p = points(self.model, [3] * 5, {"yahtzee": 50, "threes": 9})
        assert p == {"three_of_a_kind": 15, "four_of_a_kind": 15, "full_house": 25,
                     "small_straight": 30, "large_straight": 40, "chance": 15}

    def test_lower_full_then_zero_in_upper(self):
        lower = {b: 0 for b in ["three_of_a_kind", "four_of_a_kind", "full_house", "small_straight",
                                "large_straight", "chance"]}
        p = points(self.model, [3] * 5, {"yahtzee": 50, "threes": 9, **lower})
        assert p == {"ones": 0, "twos": 0, "fours": 0, "fives": 0, "sixes": 0}

    def test_yahtzee_scratched_joker_without_bonus(self):
        assert bonus(self.model, [5] * 5, {"yahtzee": 0, "fives": 20})["full_house"] == 0
        assert points(self.model, [5] * 5, {"yahtzee": 0, "fives": 20})["full_house"] == 25

    def test_first_yahtzee_is_no_joker(self):
        p = points(self.model, [5] * 5)
        assert p["yahtzee"] == 50 and p["full_house"] == 0 and len(p) == 13


class TestJokerFree:
    model = load_model("yahtzee", {"joker": "free"})

    def test_any_open_box_and_bonus(self):
        p = points(self.model, [3] * 5, {"yahtzee": 50})
        assert len(p) == 12 and p["threes"] == 15
        assert p["full_house"] == 0 and p["large_straight"] == 0  # upper box still open
        assert set(bonus(self.model, [3] * 5, {"yahtzee": 50}).values()) == {100}

    def test_fixed_points_once_upper_box_filled(self):
        p = points(self.model, [3] * 5, {"yahtzee": 50, "threes": 9})
        assert (p["full_house"], p["small_straight"], p["large_straight"]) == (25, 30, 40)


class TestJokerNone:
    model = load_model("yahtzee", {"joker": "none"})

    def test_no_joker_no_bonus(self):
        p = points(self.model, [3] * 5, {"yahtzee": 50, "threes": 9})
        assert (p["full_house"], p["small_straight"], p["large_straight"]) == (0, 0, 0)
        assert set(bonus(self.model, [3] * 5, {"yahtzee": 50}).values()) == {0}


def test_yahtzee_as_full_house_house_rule():
    m = load_model("yahtzee", {"yahtzee_counts_as_full_house": "true"})
    assert points(m, [2] * 5)["full_house"] == 25
    assert points(load_model("yahtzee"), [2] * 5)["full_house"] == 0


def test_write_bonus_accumulates_in_totals(yahtzee):
    totals = Scorer(yahtzee).totals({"yahtzee": 50, "threes": 15}, {"yahtzee_bonus": 200})
    assert totals["yahtzee_bonus"] == 200 and totals["total"] == 265
