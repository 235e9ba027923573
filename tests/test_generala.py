"""Generala as rules/generala.yaml states it: fixed-point combinations, the served bonus on the first
roll, double generala only after a generala of 50, the wraparound straight and the served win."""
import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.model.errors import ErrorList
from rulebook.interpreter.model.loader import load_source
from rulebook.interpreter.model.scoring import Scorer

MODEL = load_model("generala")
SCORER = Scorer(MODEL)
BOXES = ["ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full", "poker", "generala",
         "double_generala"]


def points(dice, sheet=None, roll_number=2, model=MODEL):
    return {c.box: c.points for c in Scorer(model).choices(dice, sheet or {}, roll_number)}


def ends(dice, roll_number, sheet=None, model=MODEL):
    """Whether writing these dice ends the game: the write's effect notes a served generala, which
    end_if reads."""
    scorer = Scorer(model)
    ctx = scorer.context(dice, sheet or {}, None, roll_number)
    (effect,) = model.step("write").effects
    counters = {"served_generala": effect.amount(ctx) if effect.when(ctx) else 0}
    return model.end_if(scorer.context(dice, sheet or {}, None, roll_number, counters))


def test_check_exits_0(cli):
    code, out, err = cli("check", "rules/generala.yaml")
    assert code == 0 and err == ""
    assert "ok (generala: 11 boxes, 3 options" in out
    code, _, err = cli("check", "generala", "-O", "wraparound_straight=true", "-O", "served_bonus=10",
                       "-O", "served_generala_wins=false")
    assert code == 0 and err == ""


def test_shape_and_defaults():
    assert list(MODEL.boxes) == BOXES
    assert MODEL.flow.times == len(BOXES) == 11
    assert next(s for s in MODEL.flow.walk() if s.id == "rerolls").times == 2
    assert MODEL.option_values == {"wraparound_straight": False, "served_bonus": 5, "served_generala_wins": True}
    assert MODEL.bonuses == ()


@pytest.mark.parametrize("dice, expected", [
    ([4, 4, 4, 2, 6], {"fours": 12, "twos": 2, "sixes": 6, "ones": 0, "poker": 0, "full": 0}),
    ([6, 6, 6, 2, 6], {"sixes": 24, "twos": 2, "poker": 40, "full": 0, "generala": 0}),
    ([1, 2, 3, 4, 5], {"straight": 20, "ones": 1, "fives": 5}),
    ([6, 5, 4, 3, 2], {"straight": 20}),
    ([3, 4, 5, 6, 1], {"straight": 0}),  # only with wraparound_straight
    ([1, 2, 3, 4, 6], {"straight": 0}),
    ([1, 1, 3, 4, 5], {"straight": 0}),
    ([5, 5, 5, 3, 3], {"full": 30, "poker": 0, "fives": 15, "threes": 6}),
    ([2, 2, 2, 2, 6], {"poker": 40, "full": 0, "twos": 8}),
    ([3, 3, 3, 3, 3], {"generala": 50, "poker": 40, "full": 0, "threes": 15, "double_generala": 0}),
])
def test_every_box_not_served(dice, expected):
    p = points(dice, roll_number=2)
    assert len(p) == 11
    assert {k: p[k] for k in expected} == expected


@pytest.mark.parametrize("box, dice, plain, served", [
    ("straight", [2, 3, 4, 5, 6], 20, 25),
    ("full", [3, 3, 6, 6, 6], 30, 35),
    ("poker", [5, 5, 5, 5, 2], 40, 45),
    ("poker", [1, 1, 1, 1, 1], 40, 45),
    ("generala", [4, 4, 4, 4, 4], 50, 50),  # no served bonus: a served generala wins instead
    ("fours", [4, 4, 4, 4, 4], 20, 20),
    ("straight", [1, 2, 3, 4, 6], 0, 0),
])
def test_served_bonus_on_roll_1_only(box, dice, plain, served):
    assert SCORER.points(box, dice, {}, roll_number=1) == served
    assert SCORER.points(box, dice, {}, roll_number=2) == plain
    assert SCORER.points(box, dice, {}, roll_number=3) == plain


def test_served_bonus_option():
    m = load_model("generala", {"served_bonus": "10"})
    assert Scorer(m).points("full", [2, 2, 2, 1, 1], {}, 1) == 40
    assert Scorer(m).points("full", [2, 2, 2, 1, 1], {}, 3) == 30
    assert m.boxes["full"].rule["en"].endswith("30 points, served 40")
    m0 = load_model("generala", {"served_bonus": "0"})
    assert Scorer(m0).points("poker", [2, 2, 2, 2, 1], {}, 1) == 40


def test_double_generala_only_after_generala_50():
    five = [6, 6, 6, 6, 6]
    assert SCORER.points("double_generala", five, {}) == 0
    assert SCORER.points("double_generala", five, {"generala": 0}) == 0  # scratched generala
    assert SCORER.points("double_generala", five, {"generala": 50}) == 100
    assert SCORER.points("double_generala", five, {"generala": 50}, roll_number=1) == 100
    assert SCORER.points("double_generala", [6, 6, 6, 6, 5], {"generala": 50}) == 0
    p = points(five, {"generala": 50})
    assert p["double_generala"] == 100 and "generala" not in p
    # the box may always be scratched
    assert points([1, 2, 4, 5, 6], {"generala": 50})["double_generala"] == 0


def test_wraparound_straight_option():
    m = load_model("generala", {"wraparound_straight": "true"})
    assert Scorer(m).points("straight", [3, 4, 5, 6, 1], {}, 2) == 20
    assert Scorer(m).points("straight", [1, 3, 4, 5, 6], {}, 1) == 25
    assert Scorer(m).points("straight", [1, 2, 3, 4, 5], {}, 2) == 20
    assert Scorer(m).points("straight", [4, 5, 6, 1, 2], {}, 2) == 0
    assert Scorer(m).points("straight", [1, 1, 3, 4, 5], {}, 2) == 0
    assert SCORER.points("straight", [3, 4, 5, 6, 1], {}, 2) == 0


def test_straight_text_follows_the_option():
    plain = MODEL.boxes["straight"].rule
    wrap = load_model("generala", {"wraparound_straight": "true"}).boxes["straight"].rule
    assert plain["en"] == "five dice in a row, 1 to 5 or 2 to 6; 20 points, served 25"
    assert "3 to 6 followed by the 1" in wrap["en"] and "3 bis 6" in wrap["de"] and "3 tot 6" in wrap["nl"]
    assert "3 bis 6" not in plain["de"]


def test_served_generala_ends_the_game():
    assert MODEL.end_if is not None
    assert ends([2, 2, 2, 2, 2], roll_number=1) is True
    assert ends([2, 2, 2, 2, 2], roll_number=2) is False
    assert ends([2, 2, 2, 2, 2], roll_number=3) is False
    assert ends([2, 2, 2, 2, 3], roll_number=1) is False
    assert ends([6, 6, 6, 6, 6], roll_number=1, sheet={"generala": 50}) is True


def test_served_generala_win_can_be_turned_off():
    m = load_model("generala", {"served_generala_wins": "false"})
    assert m.end_if is None  # the option rules the early end out entirely
    assert "wins" not in m.boxes["generala"].rule["en"]
    assert "wins the game at once" in MODEL.boxes["generala"].rule["en"]


def test_totals_have_no_bonus():
    sheet = {"ones": 3, "sixes": 24, "straight": 25, "generala": 50, "double_generala": 100}
    assert SCORER.totals(sheet) == {"numbers": 27, "combinations": 175, "total": 202}


def test_examples_score_their_box():
    for box in MODEL.boxes.values():
        sheet = {"generala": 50} if box.id == "double_generala" else {}
        assert SCORER.points(box.id, box.example, sheet, roll_number=2) > 0, box.id


def test_write_rule_names_the_served_bonus():
    write = next(s for s in MODEL.flow.walk() if s.kind == "write")
    assert "5 more" in write.rule["en"] and "5 Punkte mehr" in write.rule["de"]


# by_option with a true/false option (the loader reads the cases "true" and "false") ------------

_MINI = """
rulebook: 1
id: mini
name: {en: M, de: M, nl: M}
players: {min: 1, max: 2}
dice: {count: 2, faces: 6}
options:
  flag: {name: {en: F, de: F, nl: F}, default: false}
  points: {name: {en: P, de: P, nl: P}, default: 3}
sections:
  - id: s
    name: {en: S, de: S, nl: S}
    boxes:
      - id: b
        name: {en: B, de: B, nl: B}
        score: sum(dice)
        rule: RULE
flow:
  id: game
  kind: repeat
  times: 1
  name: {en: G, de: G, nl: G}
  steps:
    - id: turn
      kind: each_player
      name: {en: T, de: T, nl: T}
      steps:
        - {id: roll, kind: roll, dice: all, name: {en: R, de: R, nl: R}}
        - {id: write, kind: write, name: {en: W, de: W, nl: W}}
"""


def _mini(rule: str, options=None):
    return load_source(_MINI.replace("RULE", rule), "mini.yaml", options)


def test_by_option_with_a_true_false_option():
    rule = ('{by_option: flag, cases: {"true": {en: yes, de: ja, nl: ja}, '
            '"false": {en: no, de: nein, nl: nee}}}')
    assert _mini(rule).boxes["b"].rule == {"en": "no", "de": "nein", "nl": "nee"}
    assert _mini(rule, {"flag": "true"}).boxes["b"].rule == {"en": "yes", "de": "ja", "nl": "ja"}


def test_by_option_true_false_needs_both_cases_and_no_number_options():
    with pytest.raises(ErrorList, match="no text for flag=false"):
        _mini('{by_option: flag, cases: {"true": {en: yes, de: ja, nl: ja}}}')
    with pytest.raises(ErrorList, match="has no value 'maybe'"):
        _mini('{by_option: flag, cases: {"true": {en: y, de: j, nl: j}, "false": {en: n, de: n, nl: n}, '
              'maybe: {en: m, de: m, nl: m}}}')
    with pytest.raises(ErrorList, match="cannot vary by the number option 'points'"):
        _mini('{by_option: points, cases: {"3": {en: y, de: j, nl: j}}}')


# `and`/`or` with a side the options make constant fold to a constant ------------------------------

def _score(expression: str, options=None):
    source = _MINI.replace("RULE", "{en: r, de: r, nl: r}").replace("score: sum(dice)", f"score: {expression}")
    return load_source(source, "mini.yaml", options).boxes["b"].score


def test_and_or_fold_when_an_option_decides():
    from rulebook.interpreter.model.dsl.compiler import Context
    assert _score("5 if option.flag and sum(dice) > 3 else 0").deps == frozenset()
    assert _score("5 if sum(dice) > 3 and option.flag else 0")(Context()) == 0
    assert _score("5 if option.flag and sum(dice) > 3 else 0", {"flag": "true"}).deps == {"dice"}
    assert _score("5 if option.flag or sum(dice) > 3 else 0", {"flag": "true"}).deps == frozenset()
    assert _score("5 if option.flag or sum(dice) > 3 else 0", {"flag": "true"})(Context()) == 5
    assert _score("5 if option.flag or sum(dice) > 3 else 0").deps == {"dice"}


def test_end_if_that_options_make_false_is_dropped():
    source = _MINI.replace("RULE", "{en: r, de: r, nl: r}") + "end_if: option.flag and sum(dice) == 12\n"
    assert load_source(source, "mini.yaml").end_if is None
    assert load_source(source, "mini.yaml", {"flag": "true"}).end_if.deps == {"dice"}
