"""Yacht as rules/yacht.yaml states it, pinned to every case of Exercism's canonical `yacht` data
(exercism/problem-specifications, exercises/yacht/canonical-data.json)."""
import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.model.scoring import Scorer

MODEL = load_model("yacht")
SCORER = Scorer(MODEL)

# Exercism's category names → the model's box ids.
CATEGORY = {"ones": "ones", "twos": "twos", "threes": "threes", "fours": "fours", "fives": "fives",
            "sixes": "sixes", "full house": "full_house", "four of a kind": "four_of_a_kind",
            "little straight": "little_straight", "big straight": "big_straight", "choice": "choice",
            "yacht": "yacht"}

CANONICAL = [
    ("Yacht", [5, 5, 5, 5, 5], "yacht", 50),
    ("Not Yacht", [1, 3, 3, 2, 5], "yacht", 0),
    ("Ones", [1, 1, 1, 3, 5], "ones", 3),
    ("Ones, out of order", [3, 1, 1, 5, 1], "ones", 3),
    ("No ones", [4, 3, 6, 5, 5], "ones", 0),
    ("Twos", [2, 3, 4, 5, 6], "twos", 2),
    ("Fours", [1, 4, 1, 4, 1], "fours", 8),
    ("Yacht counted as threes", [3, 3, 3, 3, 3], "threes", 15),
    ("Yacht of 3s counted as fives", [3, 3, 3, 3, 3], "fives", 0),
    ("Fives", [1, 5, 3, 5, 3], "fives", 10),
    ("Sixes", [2, 3, 4, 5, 6], "sixes", 6),
    ("Full house two small, three big", [2, 2, 4, 4, 4], "full house", 16),
    ("Full house three small, two big", [5, 3, 3, 5, 3], "full house", 19),
    ("Two pair is not a full house", [2, 2, 4, 4, 5], "full house", 0),
    ("Four of a kind is not a full house", [1, 4, 4, 4, 4], "full house", 0),
    ("Yacht is not a full house", [2, 2, 2, 2, 2], "full house", 0),
    ("Four of a Kind", [6, 6, 4, 6, 6], "four of a kind", 24),
    ("Yacht can be scored as Four of a Kind", [3, 3, 3, 3, 3], "four of a kind", 12),
    ("Full house is not Four of a Kind", [3, 3, 3, 5, 5], "four of a kind", 0),
    ("Little Straight", [3, 5, 4, 1, 2], "little straight", 30),
    ("Little Straight as Big Straight", [1, 2, 3, 4, 5], "big straight", 0),
    ("Four in order but not a little straight", [1, 1, 2, 3, 4], "little straight", 0),
    ("No pairs but not a little straight", [1, 2, 3, 4, 6], "little straight", 0),
    ("Minimum is 1, maximum is 5, but not a little straight", [1, 1, 3, 4, 5], "little straight", 0),
    ("Big Straight", [4, 6, 2, 5, 3], "big straight", 30),
    ("Big Straight as little straight", [6, 5, 4, 3, 2], "little straight", 0),
    ("No pairs but not a big straight", [6, 5, 4, 3, 1], "big straight", 0),
    ("Choice", [3, 3, 5, 6, 6], "choice", 23),
    ("Yacht as choice", [2, 2, 2, 2, 2], "choice", 10),
]

# Cases of older versions of the canonical data, and a few more.
EXTRA = [
    ("Yacht of fours", [4, 4, 4, 4, 4], "yacht", 50),
    ("Four of a Kind, low", [1, 2, 2, 2, 2], "four of a kind", 8),
    ("Little Straight, sorted", [1, 2, 3, 4, 5], "little straight", 30),
    ("Big Straight, sorted", [2, 3, 4, 5, 6], "big straight", 30),
    ("Big Straight as Choice", [2, 3, 4, 5, 6], "choice", 20),
    ("Full House as choice", [1, 1, 1, 6, 6], "choice", 15),
    ("Full house of ones and sixes", [1, 1, 1, 6, 6], "full house", 15),
    ("Four of a kind of sixes and a one", [6, 6, 6, 6, 1], "four of a kind", 24),
]


@pytest.mark.parametrize("description, dice, category, expected", CANONICAL, ids=[c[0] for c in CANONICAL])
def test_exercism_canonical(description, dice, category, expected):
    assert SCORER.points(CATEGORY[category], dice) == expected


@pytest.mark.parametrize("description, dice, category, expected", EXTRA, ids=[c[0] for c in EXTRA])
def test_more_cases(description, dice, category, expected):
    assert SCORER.points(CATEGORY[category], dice) == expected


def test_all_canonical_cases_are_pinned():
    assert len(CANONICAL) == 29  # every case of the current canonical data
    assert {c[2] for c in CANONICAL} == set(CATEGORY)


def test_check_exits_0(cli):
    code, out, err = cli("check", "rules/yacht.yaml")
    assert code == 0 and err == ""
    assert "ok (yacht: 12 boxes, 1 options" in out


def test_shape_and_no_bonus():
    assert list(MODEL.boxes) == list(CATEGORY.values())
    assert MODEL.bonuses == () and MODEL.end_if is None
    assert MODEL.flow.times == 12
    assert next(s for s in MODEL.flow.walk() if s.id == "rerolls").times == 2
    sheet = {"ones": 5, "twos": 10, "threes": 15, "fours": 20, "fives": 25, "sixes": 30}
    assert SCORER.totals(sheet) == {"numbers": 105, "combinations": 0, "total": 105}


def test_choices_show_every_open_category():
    p = {c.box: c.points for c in SCORER.choices([3, 3, 3, 3, 3], {"yacht": 50})}
    assert p == {"ones": 0, "twos": 0, "threes": 15, "fours": 0, "fives": 0, "sixes": 0, "full_house": 0,
                 "four_of_a_kind": 12, "little_straight": 0, "big_straight": 0, "choice": 15}
    assert all(c.bonus == 0 for c in SCORER.choices([3] * 5, {"yacht": 50}))


def test_examples_score_their_box():
    for box in MODEL.boxes.values():
        assert SCORER.points(box.id, box.example) > 0, box.id


# the house-rule variant yacht_toll: an effect on other players ------------------------------

def test_the_published_game_has_no_toll_counter_or_effect():
    from rulebook.interpreter.solver.abstraction import turn_shape
    model = load_model("yacht")
    assert model.counters == () and [b.id for b in model.bonuses] == [] and model.step("write").effects == ()
    assert turn_shape(model) == 2


def test_a_yacht_costs_every_other_player_the_toll():
    from rulebook.interpreter.engine.actions import parse_action
    from rulebook.interpreter.engine.state import GameState
    model = load_model("yacht", {"yacht_toll": "10"})
    state = GameState(model, ["Ann", "Bob", "Cy"])

    def play(*moves):
        for move in moves:
            state.apply(parse_action(move))
    play("roll 6 6 6 6 6", "stop", "write yacht")  # Ann: a Yacht, 50
    assert state.counter_values == [{"yachts_against": 0}, {"yachts_against": 1}, {"yachts_against": 1}]
    play("roll 2 2 2 2 2", "stop", "write choice")  # Bob: five alike, but not written as a Yacht
    play("roll 1 2 3 4 6", "stop", "write yacht")  # Cy: a Yacht box crossed out (0) costs nothing
    assert state.counter_values == [{"yachts_against": 0}, {"yachts_against": 1}, {"yachts_against": 1}]
    totals = [state.totals(p) for p in range(3)]
    assert [t["yacht_toll"] for t in totals] == [0, -10, -10]
    assert [t["total"] for t in totals] == [50, 10 - 10, 0 - 10]


def test_the_toll_is_said_on_the_pages_and_refused_by_the_solver():
    from rulebook.interpreter.solver.abstraction import NotSolvable, turn_shape
    from rulebook.tools.documents.describe import step_sentence
    model = load_model("yacht", {"yacht_toll": "15"})
    assert "costs every other player 15 points" in step_sentence(model.step("write"), model, "en")
    assert "jeden anderen Spieler 15 Punkte" in step_sentence(model.step("write"), model, "de")
    assert "elke andere speler 15 punten" in step_sentence(model.step("write"), model, "nl")
    with pytest.raises(NotSolvable):
        turn_shape(model)
