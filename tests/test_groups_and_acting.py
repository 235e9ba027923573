"""Dice that differ (groups), who acts on a roll (`by:`, optional writes) and rows crossed left to
right with skips (`order: row`): the examples of docs/writing-a-game.md, pinned by hand."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.engine.acting import actors
from rulebook.interpreter.engine.actions import Roll, Stop, Write
from rulebook.interpreter.model.errors import IllegalActionError, RulebookError
from rulebook.interpreter.model.loader import load_source
from rulebook.interpreter.model.scoring import Scorer
from rulebook.interpreter.engine.state import CHANCE, GameState

ROOT = Path(__file__).resolve().parent.parent
GROUPS = ROOT / "tests/data/examples/dice_groups.yaml"
CROSSING = ROOT / "tests/data/examples/crossing.yaml"


def test_groups_are_read_by_name_and_scored():
    model = load_model(GROUPS)
    assert [(g.id, g.count, g.faces, g.colour) for g in model.dice_groups] == [("white", 2, 6, "white"), ("red", 1, 6, "red")]
    assert model.groups == ((2, 6), (1, 6)) and model.n_dice == 3
    scorer = Scorer.for_model(model)
    assert scorer.points("whites", (2, 5, 1)) == 7
    assert scorer.points("red_double", (1, 1, 6)) == 12
    assert scorer.points("match", (3, 4, 4)) == 10 and scorer.points("match", (3, 5, 4)) == 0
    # the white dice are sorted within their group; the red die keeps its place
    assert scorer.points("red_double", (5, 2, 1)) == 2


def test_a_roll_of_groups_has_the_products_outcomes():
    state = GameState(load_model(GROUPS), ["a"])
    outs = state.chance_outcomes()
    assert len(outs) == 21 * 6  # two white dice as a multiset, then the red die
    assert dict((r.faces, p) for r, p in outs)[(3, 5, 1)] == pytest.approx(2 / 216)
    assert dict((r.faces, p) for r, p in outs)[(4, 4, 4)] == pytest.approx(1 / 216)
    state.apply(Roll((5, 3, 6)))  # given die by die: each group sorted
    assert state.dice == (3, 5, 6)
    saved = GameState.from_json(state.model, json.loads(json.dumps(state.to_json())))
    assert saved.dice == (3, 5, 6) and saved.legal_actions() == state.legal_actions()


def test_a_roll_outside_a_groups_faces_is_refused_in_one_line():
    state = GameState(load_model(GROUPS), ["a"])
    with pytest.raises(IllegalActionError, match="group after group"):
        state.apply(Roll((1, 2)))


def test_an_unknown_group_is_refused():
    text = GROUPS.read_text(encoding="utf-8")
    with pytest.raises(RulebookError, match="unknown group of dice 'blue'"):
        load_source(text.replace("sum(dice.white)", "sum(dice.blue)"), "g.yaml")


def test_the_order_of_who_acts():
    assert actors("active", 2, 4) == (2,)
    assert actors("all", 2, 4) == (2, 3, 0, 1)
    assert actors("others", 2, 4) == (3, 0, 1)
    assert actors("others", 0, 1) == ()


def test_everyone_acts_on_the_active_players_roll_in_seat_order():
    state = GameState(load_model(CROSSING), ["a", "b", "c"])
    state.apply(Roll((3, 4)))  # player a's turn: 7
    asked = []
    while state.current_player() != CHANCE:
        asked.append(state.current_player())
        assert state.legal_actions() == [Stop(), Write("n7")]
        state.apply(Write("n7") if state.current_player() != 1 else Stop())
    assert asked == [0, 1, 2]
    assert [s for s in state.sheets] == [{"n7": 1}, {}, {"n7": 1}]
    state.apply(Roll((1, 2)))  # player b's turn: 3, closed for a and c (left of their 7)
    assert state.player == 1 and state.current_player() == 1
    state.apply(Write("n3"))
    assert state.current_player() == CHANCE  # a and c cannot cross 3: they pass without being asked


def test_a_row_closes_every_box_left_of_a_cross_and_the_kth_cross_scores_k():
    model = load_model(CROSSING)
    state = GameState(model, ["a"])
    for dice, box in (((1, 3), "n4"), ((4, 5), "n9"), ((6, 6), "n12")):
        state.apply(Roll(dice))
        state.apply(Write(box))
    assert state.sheets[0] == {"n4": 1, "n9": 2, "n12": 3}
    assert state.totals(0)["total"] == 6
    state.apply(Roll((3, 4)))  # 7 is left of the 9: closed
    assert state.current_player() == CHANCE
    assert state.sheets[0] == {"n4": 1, "n9": 2, "n12": 3}
    fresh = GameState(model, ["a"])
    fresh.apply(Roll((4, 5)))
    fresh.apply(Write("n9"))
    fresh.apply(Roll((5, 5)))  # 10 is right of the 9: open, and 9's cross is the first
    assert fresh.legal_actions() == [Stop(), Write("n10")]
    fresh.apply(Write("n10"))
    assert fresh.sheets[0] == {"n9": 1, "n10": 2}


def test_a_save_in_the_middle_of_a_shared_step_goes_on_where_it_was():
    state = GameState(load_model(CROSSING), ["a", "b"])
    state.apply(Roll((2, 2)))
    state.apply(Write("n4"))
    data = json.loads(json.dumps(state.to_json()))
    again = GameState.from_json(state.model, data)
    assert again.current_player() == 1 and again.legal_actions() == [Stop(), Write("n4")]
    again.apply(Write("n4"))
    assert again.sheets == [{"n4": 1}, {"n4": 1}] and again.current_player() == CHANCE


@pytest.mark.parametrize("path, reason", [
    (GROUPS, "the solver cannot read dice that differ (groups of dice such as 'white')"),
    (CROSSING, "the solver cannot read a write that other players take or that may be passed (step 'cross')"),
])
def test_the_solver_refuses_in_one_line(path, reason):
    from rulebook.interpreter.solver.abstraction import NotSolvable, turn_shape
    with pytest.raises(NotSolvable) as info:
        turn_shape(load_model(path))
    assert info.value.message == reason


@pytest.mark.parametrize("kind", ["random", "greedy", "strong"])
@pytest.mark.parametrize("path", [GROUPS, CROSSING])
def test_every_bot_plays_full_games(kind, path):
    from rulebook.interpreter.players.registry import make_bot
    model = load_model(path)
    rng = random.Random(7)
    for _ in range(3):
        state = GameState(model, ["a", "b"])
        bots = [make_bot(kind, model, rng) for _ in range(2)]
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply(state.sample_chance(rng))
            else:
                state.apply(bots[state.current_player()].choose(state))
        assert all(t >= 0 for t in state.returns())


def test_simulate_draws_each_group_and_asks_the_player_who_decides():
    """play_one rolls die by die in group order (the red die may be below a white one) and asks
    the bot of the player deciding, not only the active player's."""
    from rulebook.interpreter.play.game import Seat
    from rulebook.interpreter.players.base import best_write_now
    from rulebook.interpreter.play.simulate import play_one

    seen, asked = [], []

    class Recorder:
        def __init__(self, seat):
            self.seat = seat

        def choose(self, state):
            seen.append(state.dice)
            asked.append((self.seat, state.current_player()))
            return best_write_now(state)

    model = load_model(GROUPS)
    for seed in range(20):
        play_one(model, [Seat("a", "greedy")], seed, [Recorder(0)])
    assert any(d[2] < d[0] for d in seen)  # red below both whites: the groups are drawn apart
    asked.clear()
    model = load_model(CROSSING)
    play_one(model, [Seat("a", "greedy"), Seat("b", "greedy")], 1, [Recorder(0), Recorder(1)])
    assert asked and all(seat == player for seat, player in asked) and {s for s, _ in asked} == {0, 1}


def test_every_reader_names_the_groups():
    """The pages list each group, the web app gets each group's colour, the diagram names them, in
    each language."""
    from rulebook.tools.documents.diagram import flow_diagram
    from rulebook.tools.serve.views import model_info
    model = load_model(GROUPS)
    info = model_info(model, "de")
    assert info["groups"] == [{"id": "white", "name": "Weiße Würfel", "count": 2, "faces": 6, "colour": "white"},
                              {"id": "red", "name": "Roter Würfel", "count": 1, "faces": 6, "colour": "red"}]
    for lang, name in (("en", "White dice"), ("de", "Weiße Würfel"), ("nl", "Witte stenen")):
        assert f"2 × {name}" in flow_diagram(model, lang).source
    from rulebook.interpreter import load_model as load
    assert model_info(load("yahtzee"), "en")["groups"] == []


@pytest.mark.parametrize("lang, says", [("en", "error: 'by' belongs to a write step, not a keep step"),
                                        ("de", "Fehler: 'by' gehört zu einem Schritt der Art write, nicht keep"),
                                        ("nl", "'by'")])
def test_who_acts_is_said_on_writes_only(cli, tmp_path, lang, says):
    """A keep is the active player's: the dice are theirs, one set on the table (several players act on
    one roll by writing it: `by` on a write step). check refuses `by` elsewhere in one line."""
    text = (ROOT / "tests/data/examples/group_keeps.yaml").read_text(encoding="utf-8")
    path = tmp_path / "by.yaml"
    path.write_text(text.replace("              can_stop: true\n", "              can_stop: true\n              by: all\n", 1),
                    encoding="utf-8")
    code, out, err = cli("--lang", lang, "check", str(path))
    assert code == 2 and says in err and err.count("\n") == 1 and "by.yaml:" in err
