"""Maxi Yatzy as rules/maxi_yatzy.yaml states it: six dice, twenty boxes, 100 points bonus at 84.

The worked examples are those of the published rules (maxiyatzy.com, "MaxiYatzy regler"): each
roll and the points it scores in its box.
"""
import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.model.scoring import Scorer

MODEL = load_model("maxi_yatzy")
SCORER = Scorer(MODEL)
PLAIN = load_model("maxi_yatzy", {"saved_rolls": "false"})  # three rolls a turn, nothing saved

BOXES = ["ones", "twos", "threes", "fours", "fives", "sixes", "one_pair", "two_pairs", "three_pairs",
         "three_of_a_kind", "four_of_a_kind", "five_of_a_kind", "small_straight", "large_straight",
         "full_straight", "full_house", "villa", "tower", "chance", "maxi_yatzy"]


def points(dice, sheet=None):
    return {c.box: c.points for c in SCORER.choices(dice, sheet or {})}


def test_check_exits_0(cli):
    code, out, err = cli("check", "rules/maxi_yatzy.yaml")
    assert code == 0 and err == ""
    assert "ok (maxi_yatzy: 20 boxes" in out


def test_shape():
    assert list(MODEL.boxes) == BOXES
    assert [s.boxes for s in MODEL.sections] == [tuple(BOXES[:6]), tuple(BOXES[6:])]
    assert (MODEL.n_dice, MODEL.faces) == (6, 6)
    assert MODEL.flow.times == 20  # one box per turn
    rolls = [s for s in MODEL.flow.walk() if s.kind == "roll"]
    # three rolls a turn plus the saved ones: at most 2 + 2 × 19 rerolls in the last turn
    assert len(rolls) == 2 and MODEL.step("rerolls").times == 40
    assert MODEL.step("rerolls").condition is not None and [c.id for c in MODEL.counters] == ["saved_rolls"]
    assert MODEL.end_if is None


@pytest.mark.parametrize("box, dice, expected", [
    # the published examples, box by box
    ("ones", [3, 1, 1, 6, 1, 4], 3),
    ("twos", [2, 5, 4, 3, 2, 6], 4),
    ("threes", [3, 2, 1, 3, 4, 3], 9),
    ("fours", [4, 4, 3, 4, 5, 4], 16),
    ("fives", [5, 1, 2, 5, 5, 4], 15),
    ("sixes", [4, 6, 3, 1, 6, 6], 18),
    ("one_pair", [6, 4, 2, 6, 5, 1], 12),
    ("two_pairs", [2, 1, 3, 3, 5, 5], 16),
    ("three_pairs", [2, 2, 5, 5, 6, 6], 26),
    ("three_of_a_kind", [4, 5, 3, 5, 5, 4], 15),
    ("four_of_a_kind", [2, 4, 2, 2, 5, 2], 8),
    ("five_of_a_kind", [3, 3, 2, 3, 3, 3], 15),
    ("small_straight", [1, 2, 3, 4, 5, 3], 15),
    ("large_straight", [2, 3, 4, 5, 6, 6], 20),
    ("full_straight", [1, 2, 3, 4, 5, 6], 21),
    ("full_house", [3, 4, 4, 6, 6, 6], 26),
    ("villa", [2, 2, 2, 5, 5, 5], 21),
    ("tower", [3, 3, 6, 6, 6, 6], 30),
    ("chance", [3, 4, 2, 6, 5, 4], 24),
    ("maxi_yatzy", [4, 4, 4, 4, 4, 4], 100),
])
def test_published_examples(box, dice, expected):
    assert SCORER.points(box, dice) == expected


@pytest.mark.parametrize("dice, expected", [
    # pairs must be of different faces; the highest count
    ([6, 6, 5, 5, 1, 1], {"one_pair": 12, "two_pairs": 22, "three_pairs": 24, "full_house": 0}),
    ([4, 4, 4, 4, 1, 1], {"two_pairs": 10, "three_pairs": 0, "tower": 18, "full_house": 14, "villa": 0}),
    ([2, 2, 2, 2, 2, 2], {"one_pair": 4, "two_pairs": 0, "three_pairs": 0, "full_house": 0, "villa": 0,
                          "tower": 0, "five_of_a_kind": 10, "maxi_yatzy": 100, "twos": 12}),
    # a villa is also a full house: the higher triple and the lower pair, 3 × 5 + 2 × 2
    ([2, 2, 2, 5, 5, 5], {"full_house": 19, "three_of_a_kind": 15, "two_pairs": 14, "villa": 21}),
    # five alike and one other: no full house (the pair must be of another face)
    ([6, 6, 6, 6, 6, 1], {"full_house": 0, "five_of_a_kind": 30, "four_of_a_kind": 24, "tower": 0}),
    # the straights need their five faces; the sixth die is free, the full straight needs all six
    ([1, 2, 3, 4, 5, 5], {"small_straight": 15, "large_straight": 0, "full_straight": 0}),
    ([1, 2, 3, 4, 5, 6], {"small_straight": 15, "large_straight": 20, "full_straight": 21}),
    ([1, 2, 3, 4, 6, 6], {"small_straight": 0, "large_straight": 0}),
    ([1, 2, 3, 4, 6, 6], {"one_pair": 12, "chance": 22, "sixes": 12}),
])
def test_more_rolls(dice, expected):
    p = points(dice)
    assert len(p) == 20
    assert {k: p[k] for k in expected} == expected


def test_upper_bonus_at_84():
    four_each = {"ones": 4, "twos": 8, "threes": 12, "fours": 16, "fives": 20, "sixes": 24}  # 84
    assert SCORER.totals(four_each)["upper_bonus"] == 100
    assert SCORER.totals(four_each)["total"] == 184
    short = dict(four_each, ones=3)  # 83
    assert SCORER.totals(short)["upper_bonus"] == 0


def test_examples_score_their_box():
    for box in MODEL.boxes.values():
        assert SCORER.points(box.id, box.example) > 0, box.id


def test_a_bot_game_fills_all_twenty_boxes():
    from rulebook.interpreter.play.game import Game, Seat
    game = Game(MODEL, [Seat("a", "greedy"), Seat("b", "greedy")], seed=3)
    for _ in game.run_bots():
        pass
    assert game.state.is_terminal()
    assert [len(sheet) for sheet in game.state.sheets] == [20, 20]


@pytest.mark.slow
def test_the_exact_optimum_without_saved_rolls():
    """The whole table of the game without saved rolls: 57,507,840 states (20 boxes × the upper total
    capped at 84), about 2 minutes of two idle cores with the compiled kernel (`rulebook solve
    maxi_yatzy -O saved_rolls=false --max-states 60000000`). The optimal player agrees: `rulebook
    simulate maxi_yatzy -O saved_rolls=false --players a:optimal
    --games 20000 --seed 12` averages 393.80 ± 0.54 (1.4 standard errors below)."""
    from rulebook.interpreter.solver.solve import Limits, solve
    table = solve(PLAIN, limits=Limits(max_states=60_000_000, memory=4 * 2**30, jobs=2))
    assert table.states == 57_507_840
    assert table.expected_score == pytest.approx(394.557507, abs=1e-6)


# saved rolls (the published rule: "Unused rolls are saved to the following turns") -------------

def test_without_saved_rolls_the_model_is_the_plain_three_rolls_a_turn_game():
    from rulebook.interpreter.solver.abstraction import turn_shape
    assert PLAIN.counters == () and PLAIN.step("rerolls").times == 2 and PLAIN.step("rerolls").condition is None
    assert PLAIN.step("write").effects == ()
    assert turn_shape(PLAIN) == 2  # the solver reads it as before: roll, (keep, roll) × 2, write
    plain_scorer = Scorer(PLAIN)
    for box in PLAIN.boxes.values():  # the same scores as with saved rolls
        assert plain_scorer.points(box.id, box.example) == SCORER.points(box.id, box.example)


def test_the_solver_refuses_saved_rolls_with_its_reason():
    from rulebook.interpreter.solver.abstraction import NotSolvable, turn_shape
    with pytest.raises(NotSolvable) as info:
        turn_shape(MODEL)
    assert "counters such as 'saved_rolls'" in str(info.value) and info.value.pos.line > 0


def play(state, *moves):
    from rulebook.interpreter.engine.actions import parse_action
    for move in moves:
        state.apply(parse_action(move))


def test_unused_rolls_are_saved_and_spent_in_later_turns():
    """Ann writes after her first roll (2 rolls saved), then uses all five of her next turn (3 + 2:
    nothing left); Bob takes his three every turn and saves nothing."""
    from rulebook.interpreter.engine.state import GameState
    state = GameState(MODEL, ["Ann", "Bob"])
    play(state, "roll 1 2 3 4 5 6")
    assert state.rolls_left() == 2
    play(state, "stop", "write chance")
    assert state.counter_values == [{"saved_rolls": 2}, {"saved_rolls": 0}]
    play(state, "roll 1 1 2 3 5 6", "keep 1 1", "roll 2 2 3 4", "keep 1 1", "roll 4 5 6 6")
    assert state.step().kind == "write"  # Bob's three rolls are used up
    play(state, "write ones")
    assert state.counter_values[1] == {"saved_rolls": 0}
    play(state, "roll 2 2 3 4 5 6")
    assert state.rolls_left() == 4  # Ann: three rolls plus the two she saved
    for _ in range(4):
        assert state.step().kind == "keep"
        play(state, "keep 2 2", "roll 1 1 1 1")
    assert state.step().kind == "write" and state.roll_number == 5 and state.rolls_left() == 0
    play(state, "write twos")
    assert state.counter_values[0] == {"saved_rolls": 0} and state.sheets[0] == {"chance": 21, "twos": 4}


def test_saved_rolls_add_up_over_turns_and_a_partly_used_store_keeps_the_rest():
    from rulebook.interpreter.engine.state import GameState
    state = GameState(MODEL, ["Ann"])
    play(state, "roll 1 2 3 4 5 6", "stop", "write chance")  # 2 saved
    play(state, "roll 1 1 1 1 1 1", "stop", "write ones")  # 2 + 2 = 4 saved
    assert state.counter_values == [{"saved_rolls": 4}]
    play(state, "roll 6 6 6 6 6 5")
    assert state.rolls_left() == 6
    play(state, "keep 6 6 6 6 6", "roll 4", "keep 6 6 6 6 6", "roll 3", "keep 6 6 6 6 6", "roll 6")
    play(state, "stop", "write maxi_yatzy")  # four rolls made of 3 + 4: three left
    assert state.counter_values == [{"saved_rolls": 3}] and state.sheets[0]["maxi_yatzy"] == 100


def test_counters_survive_a_save_and_a_bad_save_is_refused():
    from rulebook.interpreter.model.errors import SaveFileError
    from rulebook.interpreter.engine.state import GameState
    state = GameState(MODEL, ["Ann", "Bob"])
    play(state, "roll 1 2 3 4 5 6", "stop", "write chance", "roll 1 2 3 4 5 6")
    data = state.to_json()
    assert data["counters"] == [{"saved_rolls": 2}, {"saved_rolls": 0}]
    again = GameState.from_json(MODEL, data)
    assert again.counter_values == state.counter_values and again.rolls_left() == state.rolls_left() == 2
    data["counters"][0]["saved_rolls"] = -1  # below the counter's min
    with pytest.raises(SaveFileError, match="counters"):
        GameState.from_json(MODEL, data)


def test_bot_games_with_saved_rolls_fill_the_sheet_and_score_by_the_same_boxes():
    from rulebook.interpreter.play.game import Game, Seat
    game = Game(MODEL, [Seat("a", "greedy"), Seat("b", "random")], seed=11)
    for _ in game.run_bots():
        pass
    state = game.state
    assert state.is_terminal() and all(len(s) == 20 for s in state.sheets)
    for p in range(2):
        assert state.totals(p)["total"] == sum(state.sheets[p].values()) + state.totals(p)["upper_bonus"]
        assert state.counter_values[p]["saved_rolls"] >= 0
