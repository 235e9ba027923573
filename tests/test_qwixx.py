"""Qwixx (rules/qwixx.yaml) against the publisher's rules (Nürnberger-Spielkarten-Verlag / Gamewright):
the dice, the rows, who crosses what on a roll, locking, penalties, the end and hand-computed scores."""
from __future__ import annotations

import random

import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.engine.actions import Roll, Stop, Write
from rulebook.interpreter.players.registry import make_bot
from rulebook.interpreter.engine.state import CHANCE, GameState


@pytest.fixture(scope="module")
def qwixx():
    return load_model("qwixx")


def roll(state, white, red, yellow, green, blue):
    assert state.current_player() == CHANCE
    state.apply(Roll(tuple(white) + (red, yellow, green, blue)))


def test_the_dice_and_the_sheet(qwixx):
    assert [(g.id, g.count, g.faces) for g in qwixx.dice_groups] == [
        ("white", 2, 6), ("red", 1, 6), ("yellow", 1, 6), ("green", 1, 6), ("blue", 1, 6)]
    rows = {s.id: [qwixx.boxes[b].name["en"].split()[0] for b in s.boxes] for s in qwixx.sections}
    assert rows["red"] == rows["yellow"] == [str(n) for n in range(2, 13)]
    assert rows["green"] == rows["blue"] == [str(n) for n in range(12, 1, -1)]
    assert all(s.order == "row" for s in qwixx.sections if s.id != "penalties")
    assert qwixx.boxes["penalty"].uses == 4 and (qwixx.min_players, qwixx.max_players) == (2, 5)
    assert len(GameState(qwixx, ["a", "b"]).chance_outcomes()) == 21 * 6 ** 4


def test_everyone_may_cross_the_white_sum_then_the_active_player_a_colour_sum(qwixx):
    state = GameState(qwixx, ["a", "b"])
    roll(state, (3, 4), 5, 1, 6, 2)
    assert state.current_player() == 0
    assert state.legal_actions() == [Stop(), Write("r7"), Write("y7"), Write("g7"), Write("b7")]
    state.apply(Write("r7"))
    assert state.current_player() == 1 and state.legal_actions()[0] == Stop()
    state.apply(Stop())  # b passes
    assert state.current_player() == 0 and state.step().id == "colour"
    # a white die plus the coloured one, in that colour's row; red 8 and 9 are right of the 7
    assert state.legal_actions() == [Stop(), Write("r8"), Write("r9"), Write("y4"), Write("y5"),
                                     Write("g10"), Write("g9"), Write("b6"), Write("b5")]
    state.apply(Write("r9"))
    assert state.sheets == [{"r7": 1, "r9": 2}, {}]
    assert state.current_player() == CHANCE and state.player == 1


def test_an_active_player_who_crosses_nothing_takes_a_penalty(qwixx):
    state = GameState(qwixx, ["a", "b"])
    roll(state, (1, 1), 1, 1, 1, 1)
    state.apply(Stop())  # a does not cross the 2
    state.apply(Write("y2"))  # b does: no penalty for b, who is not the active player
    assert state.step().id == "colour" and state.current_player() == 0
    legal = state.legal_actions()
    assert Stop() not in legal and Write("penalty") in legal
    state.apply(Write("penalty"))
    assert state.sheets[0] == {"penalty#1": -5} and state.totals(0)["total"] == -5
    assert state.sheets[1] == {"y2": 1}


def _cross(state, box, white, colours=(1, 1, 1, 1)):
    """Player a crosses `box` with the white sum on their own turn; b passes; a passes the colour step."""
    roll(state, white, *colours)
    state.apply(Write(box))
    while state.current_player() not in (CHANCE,) and state.step().id == "white":
        state.apply(Stop())
    if state.current_player() != CHANCE and state.step().id == "colour":
        state.apply(Stop())


def _b_turn(state, k):
    """Player b's k-th turn (from 0): b crosses blue 12, 11, 10, … with the white sum; a passes."""
    white = (6, 6 - k)
    box = "b" + str(sum(white))
    roll(state, white, 1, 1, 1, 1)
    while state.current_player() != CHANCE and state.step().id == "white":
        state.apply(Write(box) if state.current_player() == 1 else Stop())
    if state.current_player() != CHANCE:
        state.apply(Stop())


def test_the_last_number_needs_five_crosses_then_locks_the_row_and_counts_twice(qwixx):
    state = GameState(qwixx, ["a", "b"])
    for k, (box, white) in enumerate((("r2", (1, 1)), ("r3", (1, 2)), ("r4", (1, 3)), ("r5", (1, 4)))):
        _cross(state, box, white)
        _b_turn(state, k)
    roll(state, (6, 6), 1, 1, 1, 1)
    assert Write("r12") not in state.legal_actions()  # four crosses only
    assert Write("y12") not in state.legal_actions() and Write("r12") not in state.legal_actions()
    state2 = GameState(qwixx, ["a", "b"])
    for k, (box, white) in enumerate((("r2", (1, 1)), ("r3", (1, 2)), ("r4", (1, 3)), ("r5", (1, 4)), ("r6", (1, 5)))):
        _cross(state2, box, white)
        _b_turn(state2, k)
    roll(state2, (6, 6), 1, 1, 1, 1)
    assert Write("r12") in state2.legal_actions()
    state2.apply(Write("r12"))  # the sixth cross and the lock: 6 + 7 points
    assert state2.sheets[0]["r12"] == 13
    assert state2.totals(0)["total"] == 28  # 7 crosses: 1 + 2 + … + 7
    state2.apply(Stop())  # b
    assert state2.game_counters["red_locked"] == 1
    assert state2.step().id == "colour"
    assert all(not a.box.startswith("r") for a in state2.legal_actions() if isinstance(a, Write))


def test_two_players_may_lock_a_row_on_the_same_white_sum(qwixx):
    state = GameState(qwixx, ["a", "b"])
    # both players cross red 2 to 6 on white sums, a on their own turns, b beside them
    for white in ((1, 1), (1, 2), (1, 3), (1, 4), (1, 5)):
        roll(state, white, 1, 1, 1, 1)
        box = "r" + str(sum(white))
        while state.current_player() != CHANCE and state.step().id == "white":
            state.apply(Write(box))
        if state.current_player() != CHANCE:  # a's colour step after crossing: pass
            state.apply(Stop())
        _b_turn(state, sum(white) - 2)  # b crosses blue 12, 11, …; a passes
    roll(state, (6, 6), 1, 1, 1, 1)  # a's turn: 12, and both lock red at once
    state.apply(Write("r12"))
    assert state.current_player() == 1 and Write("r12") in state.legal_actions()
    state.apply(Write("r12"))
    assert state.sheets[0]["r12"] == state.sheets[1]["r12"] == 13
    assert state.game_counters["red_locked"] == 1 and not state.is_terminal()


def test_the_fourth_penalty_ends_the_game_and_the_ranking_decides(qwixx):
    state = GameState(qwixx, ["a", "b"])
    for turn in range(8):  # a always takes a penalty; b crosses a white sum when it can
        roll(state, (2, 3), 1, 1, 1, 1)
        while state.current_player() != CHANCE and not state.is_terminal() and state.step().id == "white":
            p = state.current_player()
            options = [a for a in state.legal_actions() if isinstance(a, Write)]
            state.apply(options[0] if p == 1 and options else Stop())
        if not state.is_terminal() and state.current_player() != CHANCE:
            state.apply(Write("penalty") if state.player == 0 or Write("penalty") in state.legal_actions() else Stop())
        if state.is_terminal():
            break
    assert state.is_terminal() and state.sheets[0].get("penalty#4") == -5
    assert state.totals(0)["total"] == -20
    assert state.ranking()[0][1] == "b"  # who ended the game does not win for it


def test_two_locked_rows_end_the_game(qwixx):
    state = GameState(qwixx, ["a", "b"])
    state.game_counters["red_locked"] = 1
    roll(state, (1, 1), 1, 1, 1, 1)
    # a has five green crosses already (a sheet as the game would leave it): the green 2 locks
    state.sheets[0].update({"g12": 1, "g11": 2, "g10": 3, "g9": 4, "g8": 5})
    state._options = None
    state.apply(Write("g2"))
    state.apply(Stop())  # b
    assert state.is_terminal()
    assert state.totals(0)["total"] == 1 + 2 + 3 + 4 + 5 + 13


@pytest.mark.parametrize("kind", ["random", "greedy", "strong"])
def test_every_bot_plays_full_games(qwixx, kind):
    rng = random.Random(11)
    for players in (2, 5):
        state = GameState(qwixx, [f"p{i}" for i in range(players)])
        bots = [make_bot(kind, qwixx, rng) for _ in range(players)]
        while not state.is_terminal():
            state.apply(state.sample_chance(rng) if state.is_chance_node() else bots[state.current_player()].choose(state))
        ended = state.game_counters and (sum(state.game_counters.values()) >= 2
                                         or any("penalty#4" in s for s in state.sheets))
        assert ended


def test_the_solver_refuses_in_one_line(qwixx):
    from rulebook.interpreter.solver.abstraction import NotSolvable, turn_shape
    with pytest.raises(NotSolvable) as info:
        turn_shape(qwixx)
    assert info.value.message == "the solver cannot read dice that differ (groups of dice such as 'white')"


def test_strong_counts_the_boxes_a_cross_closes_and_beats_greedy(qwixx):
    """greedy takes every cross it can (skipping boxes for good); strong charges a point for each box
    a cross closes. 40 three-player games, seeds 0-39, strong in the first seat."""
    from rulebook.interpreter.play.game import Seat
    from rulebook.interpreter.play.simulate import play_one
    seats = [Seat("s", "strong"), Seat("g1", "greedy"), Seat("g2", "greedy")]
    bots = [make_bot(s.kind, qwixx, random.Random(0)) for s in seats]
    results = [play_one(qwixx, seats, seed, bots) for seed in range(40)]
    strong = sum(r.totals[0] for r in results) / 40
    greedy = sum(r.totals[1] + r.totals[2] for r in results) / 80
    wins = sum(r.ranks[0] == 1 for r in results)
    assert strong > greedy + 15 and wins >= 25, (strong, greedy, wins)


def test_a_logged_game_replays_to_its_totals(cli, tmp_path):
    """Before: replay read a roll's faces sorted across the groups (a white die became the red one) and
    expected the active player at a step every player takes, so no Qwixx log replayed."""
    import json
    log = tmp_path / "q.jsonl"
    code, out, err = cli("play", "qwixx", "--players", "cpu:greedy,cpu:random", "--seed", "3", "--log", str(log),
                         "--lang", "en")
    assert code == 0, err
    final = [line for line in out.splitlines() if line[:2] in ("1.", "2.")]
    assert len(final) == 2
    moves = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    assert moves[0]["move"] == "roll 1 5 5 5 2 2" and moves[2]["player"] == 1  # b crosses on a's roll
    code, out, err = cli("replay", str(log), "--lang", "en")
    assert code == 0, err
    assert [line for line in out.splitlines() if line[:2] in ("1.", "2.")] == final
