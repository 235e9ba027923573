"""Triple Yahtzee as rules/triple_yahtzee.yaml states it: the Yahtzee sheet in three columns counted
×1, ×2 and ×3, an upper bonus per column, the Joker and the Yahtzee bonus across the columns.
Numbers worked out by hand."""
from rulebook.interpreter import load_model
from rulebook.interpreter.model.scoring import Scorer

MODEL = load_model("triple_yahtzee")
SCORER = Scorer(MODEL)
UPPER = ["ones", "twos", "threes", "fours", "fives", "sixes"]
COLUMNS = ["single", "double", "triple"]


def test_check_and_shape(cli):
    code, out, err = cli("check", "rules/triple_yahtzee.yaml")
    assert code == 0 and "ok (triple_yahtzee: 13 boxes" in out
    assert [(c.id, c.multiplier, c.order) for c in MODEL.columns] == [("single", 1, "free"), ("double", 2, "free"),
                                                                     ("triple", 3, "free")]
    assert len(MODEL.targets) == 39 and MODEL.flow.times == 39
    assert "ones@triple" in MODEL.cells


def test_any_open_box_of_any_column():
    assert len(SCORER.choices([1, 2, 3, 4, 6], {})) == 39
    sheet = {"chance@single": 20}
    assert "chance@single" not in {c.box for c in SCORER.choices([1, 2, 3, 4, 6], sheet)}
    assert {c.box: c.points for c in SCORER.choices([1, 2, 3, 4, 6], sheet)}["chance@triple"] == 16


def test_columns_count_once_twice_three_times():
    sheet = {f"ones@{c}": 3 for c in COLUMNS}
    totals = SCORER.totals(sheet)
    assert totals["upper"] == 3 + 6 + 9 and totals["total"] == 18


def test_upper_bonus_per_column_with_its_factor():
    sixty_three = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18}
    sheet = {f"{b}@double": v for b, v in sixty_three.items()}
    sheet |= {f"{b}@single": v for b, v in sixty_three.items() if b != "ones"}  # 60 in the first column
    totals = SCORER.totals(sheet)
    assert (totals["upper_bonus@single"], totals["upper_bonus@double"], totals["upper_bonus@triple"]) == (0, 35, 0)
    assert totals["upper_bonus"] == 70
    assert totals["total"] == 60 + 2 * 63 + 70


def test_joker_needs_all_three_yahtzee_and_face_boxes():
    yahtzees = {f"yahtzee@{c}": 50 for c in COLUMNS}
    sixes = {f"sixes@{c}": 24 for c in COLUMNS}
    points = {c.box: c.points for c in SCORER.choices([6] * 5, yahtzees | sixes)}
    assert (points["full_house@single"], points["small_straight@double"], points["large_straight@triple"]) == (25, 30, 40)
    two_sixes = yahtzees | {"sixes@single": 24, "sixes@double": 24}
    points = {c.box: c.points for c in SCORER.choices([6] * 5, two_sixes)}
    assert points["full_house@single"] == 0 and points["sixes@triple"] == 30


def test_yahtzee_bonus_by_the_column_written_in():
    yahtzees = {f"yahtzee@{c}": 50 for c in COLUMNS}
    bonus = {c.box: c.bonus for c in SCORER.choices([4] * 5, yahtzees)}
    assert (bonus["chance@single"], bonus["chance@double"], bonus["chance@triple"]) == (100, 200, 300)
    scratched = dict(yahtzees, **{"yahtzee@double": 0})
    assert all(c.bonus == 0 for c in SCORER.choices([4] * 5, scratched))


def test_bots_play_a_full_game():
    from rulebook.interpreter.play.game import Game, Seat
    game = Game(MODEL, [Seat("a", "greedy"), Seat("b", "random")], seed=2)
    for _ in game.run_bots():
        pass
    assert game.state.is_terminal() and [len(s) for s in game.state.sheets] == [39, 39]


def test_its_boxes_have_yahtzees_names_in_every_language():
    """The Yahtzee sheet in three columns: every box is called what Yahtzee calls it ("Drie gelijke",
    not an English "Three of a kind" on the Dutch sheet)."""
    yahtzee = load_model("yahtzee")
    for box in MODEL.boxes.values():
        assert box.name == yahtzee.boxes[box.id].name, box.id
    assert MODEL.boxes["three_of_a_kind"].name["nl"] == "Drie gelijke"
