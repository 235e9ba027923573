"""Keeping dice that differ (tests/data/examples/group_keeps.yaml: two white dice and a red one, three
rolls): a keep names each die's group and face, rolling the others throws the groups' dice left, and
every bot, the terminal and the web keep by group; pinned by hand."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.engine.actions import Keep, Roll, Stop, parse_action
from rulebook.interpreter.engine.state import CHANCE, GameState
from rulebook.interpreter.model.errors import IllegalActionError
from rulebook.interpreter.players.registry import make_bot

ROOT = Path(__file__).resolve().parent.parent
KEEPS = ROOT / "tests/data/examples/group_keeps.yaml"


@pytest.fixture(scope="module")
def model():
    return load_model(KEEPS)


def test_a_keep_names_each_dies_group_and_face(model):
    assert parse_action("keep white:3 red:2") == Keep((3, 2), ("white", "red"))
    assert str(Keep((3, 2), ("white", "red"))) == "keep white:3 red:2"
    state = GameState(model, ["a"])
    state.apply(Roll((3, 5, 5)))  # white 3 5, red 5
    assert [str(a) for a in state.legal_actions()] == [
        "stop", "keep none", "keep white:3", "keep white:5", "keep red:5", "keep white:3 white:5",
        "keep white:3 red:5", "keep white:5 red:5"]  # a white 5 and the red 5 are different keeps


def test_rolling_the_others_throws_the_groups_dice_left(model):
    state = GameState(model, ["a"])
    state.apply(Roll((3, 5, 5)))
    state.apply(parse_action("keep red:5 white:3"))  # in any order
    assert state.kept_faces == (3, 5) and state.faces_to_roll() == (6,)
    assert [str(r) for r, _ in state.chance_outcomes()] == [f"roll {k}" for k in range(1, 7)]  # one white die
    state.apply(Roll((1,)))
    assert state.dice == (1, 3, 5)  # the white 1 beside the white 3; the red 5 kept
    state.apply(parse_action("keep white:1"))
    outs = state.chance_outcomes()
    assert state.faces_to_roll() == (6, 6) and len(outs) == 36  # one white, then the red: 36 ordered results
    assert dict((r.faces, p) for r, p in outs)[(2, 6)] == pytest.approx(1 / 36)
    state.apply(Roll((2, 6)))
    assert state.dice == (1, 2, 6) and state.step().id == "write"
    assert {c.box: c.points for c in state.write_choices()} == {"whites": 3, "red_double": 12, "match": 0}


def test_a_wrong_keep_is_refused_in_one_line(model):
    state = GameState(model, ["a"])
    state.apply(Roll((3, 5, 5)))
    for move, says in (("keep red:3", "you cannot keep red:3: the dice are white:3 white:5 red:5"),
                       ("keep blue:5", "you cannot keep blue:5"), ("keep 3", "you cannot keep 3")):
        with pytest.raises(IllegalActionError) as exc:
            state.apply(parse_action(move))
        assert says in str(exc.value) and "\n" not in str(exc.value)


def test_a_save_with_kept_dice_goes_on_where_it_was(model):
    state = GameState(model, ["a"])
    state.apply(Roll((3, 5, 5)))
    state.apply(parse_action("keep white:5 red:5"))
    saved = GameState.from_json(model, json.loads(json.dumps(state.to_json())))
    assert saved.kept_faces == (5, 5) and saved.faces_to_roll() == (6,)
    saved.apply(Roll((2,)))
    assert saved.dice == (2, 5, 5)


def _points(dice):
    """The boxes' points in plain Python: white sum, red double, match."""
    whites, red = dice[:2], dice[2]
    return max(sum(whites), 2 * red, 10 if red in whites else 0)


def test_the_greedy_bot_keeps_by_group_with_the_exact_expectation(model):
    """At the last keep (one roll left) each keep's value is the mean over the rolled dice of the best
    box, counted here die by die; greedy keeps the best. White 1 5, red 5: keeping the white 5 and the
    red 5 (a Match already) and rolling the white 1 gives max(5 + w, 10): 61/6."""
    import itertools
    state = GameState(model, ["a"])
    state.apply(Roll((1, 5, 5)))
    state.apply(parse_action("keep none"))
    state.apply(Roll((1, 5, 5)))
    bot = make_bot("greedy", model, random.Random(1))
    values = bot.keep_values(state)
    by_hand = {}
    for action in state.legal_actions():
        kept = [] if type(action) is Stop else list(zip(action.groups, action.dice))
        if type(action) is Stop:
            by_hand[("stop",)] = _points(state.dice)
            continue
        white = [d for g, d in kept if g == "white"]
        red = [d for g, d in kept if g == "red"]
        rolls = list(itertools.product(range(1, 7), repeat=3 - len(kept)))
        total = 0
        for r in rolls:
            w = sorted(white + list(r[:2 - len(white)]))
            total += _points(w + (red or [r[-1]]))
        by_hand[tuple(kept)] = total / len(rolls)
    assert sorted(values.values()) == pytest.approx(sorted(by_hand.values()))
    assert by_hand[(("white", 5), ("red", 5))] == pytest.approx(61 / 6) == max(by_hand.values())
    assert values[(5, 11)] == pytest.approx(61 / 6)  # codes: white 5 (0 * 6 + 5), red 5 (1 * 6 + 5)
    assert bot.choose(state) == Keep((5, 5), ("white", "red"))


@pytest.mark.parametrize("kind", ["random", "greedy", "strong"])
def test_every_bot_plays_full_games(model, kind):
    rng = random.Random(5)
    for _ in range(3):
        state = GameState(model, ["a", "b"])
        bots = [make_bot(kind, model, rng), make_bot("random", model, rng)]
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply(state.sample_chance(rng))
            else:
                state.apply(bots[state.current_player()].choose(state))
        assert all(len(s) == 3 for s in state.sheets)


def test_the_terminal_keeps_by_group_face_or_place(model):
    from rulebook.tools.terminal.moves import parse_move
    state = GameState(model, ["a"])
    state.apply(Roll((3, 5, 5)))
    assert parse_move("keep white:5 red:5", state, "en") == [Keep((5, 5), ("white", "red"))]
    assert parse_move("keep white 3 5", state, "en") == [Keep((3, 5), ("white", "white"))]
    assert parse_move("keep roter 5", state, "de") == [Keep((5,), ("red",))]
    assert parse_move("pos 2 3", state, "en") == [Keep((5, 5), ("white", "red"))]
    assert parse_move("pos 1 2 3", state, "en") == [Stop()]
    with pytest.raises(IllegalActionError) as exc:
        parse_move("keep green:5", state, "en")
    assert "cannot read 'keep green:5' here; keep dice by group and face, as in 'keep white:1 red:1'" in str(exc.value)


def test_the_solver_refuses_in_one_line(cli):
    code, out, err = cli("solve", str(KEEPS))
    assert code == 2 and "the solver cannot read dice that differ" in err and err.count("\n") == 1


def test_simulate_and_replay(cli, tmp_path):
    code, out, err = cli("simulate", str(KEEPS), "--players", "a:greedy,b:random", "--games", "40", "--seed", "3",
                         "--jobs", "1", "--json")
    assert code == 0, err
    greedy, rand = json.loads(out)["players"]
    assert greedy["mean"] > rand["mean"]
    log = tmp_path / "g.jsonl"
    code, out, err = cli("play", str(KEEPS), "--players", "cpu:greedy,cpu:random", "--seed", "2", "--log", str(log),
                         "--lang", "en")
    assert code == 0, err
    assert any(json.loads(line)["move"].startswith("keep ") and ":" in json.loads(line)["move"]
               for line in log.read_text().splitlines()[1:])
    final = [line for line in out.splitlines() if line[:2] in ("1.", "2.")]
    code, out2, err = cli("replay", str(log), "--lang", "en")
    assert code == 0, err
    assert [line for line in out2.splitlines() if line[:2] in ("1.", "2.")] == final


def test_an_effect_reads_the_dice_set_aside_as_faces(tmp_path):
    """Inside the engine kept dice of groups are codes; what an expression reads are faces (a white 5 and
    the red 5 set aside add 10, not the codes' 5 + 11)."""
    text = KEEPS.read_text(encoding="utf-8").replace("""              can_stop: true
""", """              can_stop: true
              locked: true
              effects:
                - counter: aside_sum
                  add: sum(aside)
                  rule: {en: set aside, de: beiseite, nl: apart}
""", 1).replace("sections:", """counters:
  - id: aside_sum
    name: {en: Set aside, de: Beiseite, nl: Apart}
    per: player
    min: 0

sections:""", 1).replace("score: sum(dice.white)", "score: sum(dice.white) + 0 * counter.aside_sum", 1)
    path = tmp_path / "aside.yaml"
    path.write_text(text, encoding="utf-8")
    model = load_model(path)
    state = GameState(model, ["a"])
    state.apply(Roll((1, 5, 5)))
    state.apply(parse_action("keep white:5 red:5"))
    assert state.counter_values[0]["aside_sum"] == 10
    state.apply(Roll((2,)))
    assert state.dice == (2, 5, 5) and state.kept_faces == ()
    with pytest.raises(IllegalActionError, match="set aside and stay aside"):
        state.apply(parse_action("keep white:2"))
