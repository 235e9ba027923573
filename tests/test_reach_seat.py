"""The reach:T computer player (`players/reach.py`): its seat name, a hand-checked position where it and the
expected-score player part ways, and its simulated chance against the exact one of its table."""
from __future__ import annotations

import numpy as np
import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.engine.actions import Roll
from rulebook.interpreter.engine.state import GameState
from rulebook.interpreter.model.errors import UsageError
from rulebook.interpreter.play.game import Seat, parse_players
from rulebook.interpreter.players.optimal import OptimalBot
from rulebook.interpreter.players.reach import ReachBot
from rulebook.interpreter.players.registry import is_kind, make_bot
from rulebook.tools.commands.compare import _versus

YACHT_IN_A_TURN = 2_783_176 / 60_466_176  # five of a kind in three rolls, keeping the most of a face (4.6029 %)


@pytest.fixture(scope="module")
def yacht():
    return load_model("yacht")


def test_the_seat_is_named_with_its_target():
    assert parse_players("a:reach:250,reach:150,b:optimal") == [
        Seat("a", "reach:250"), Seat("reach:150", "reach:150"), Seat("b", "optimal")]
    assert parse_players("Ann:REACH:200") == [Seat("Ann", "reach:200")]
    assert is_kind("reach:0") and is_kind("reach:100000") and not is_kind("reach:") and not is_kind("reach:-1")
    assert _versus("reach:250:optimal") == ("reach:250", "optimal") and _versus("win:reach:9") == ("win", "reach:9")
    for bad in ("a:reach:x", "a:reach:100001"):
        with pytest.raises(UsageError) as err:
            parse_players(bad)
        assert "reach:T" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(UsageError):
        _versus("reach:250")


def _two_open(model, before: int) -> GameState:
    """Sixes and Yacht open, `before` points in the other boxes; the turn's first roll is 6 6 6 2 3."""
    state = GameState(model, ["me"])
    sheet = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "full_house": 0, "four_of_a_kind": 0,
             "little_straight": 30, "big_straight": 0, "choice": 25}
    sheet["choice"] += before - sum(sheet.values())
    state = GameState.from_json(model, {**state.to_json(), "sheets": [sheet]})
    state.apply(Roll((6, 6, 6, 2, 3)))
    return state


def test_needing_19_it_gives_up_yacht_where_the_expected_player_takes_the_sixes(yacht):
    """19 points short with 6 6 6 2 3 as the turn's last roll. Sixes (18) leaves 1 to get from Yacht next
    turn: five of a kind, 4.60 %. Yacht crossed out (0) leaves 19 to get from Sixes: four sixes or five,
    each die a six within three rolls with 91/216, so 5 p^4 (1 - p) + p^5 = 10.45 %. The expected-score player
    writes the 18 (18 + 50 × 4.60 % against 0 + about 12.6)."""
    bot = ReachBot(yacht, 119)
    state = _two_open(yacht, 100)
    assert bot.need(state) == 19
    boxes, table = bot.write_table(state)
    roll = bot.space.tt.rolls.index((2, 3, 6, 6, 6))
    p = 91 / 216
    chances = dict(zip(boxes, table[:, roll]))
    assert chances["sixes"] == pytest.approx(YACHT_IN_A_TURN, abs=1e-6)
    assert chances["yacht"] == pytest.approx(5 * p ** 4 * (1 - p) + p ** 5, abs=1e-6)
    assert boxes[int(np.argmax(table[:, roll]))] == "yacht"
    _, values = OptimalBot(yacht).write_table(state)
    assert boxes[int(np.argmax(values[:, roll]))] == "sixes"
    assert bot.reach.start == pytest.approx(bot.reach.chances(np.array([0]), np.array([119]))[0], abs=1e-6)


def test_once_reached_every_write_is_worth_one(yacht):
    bot = ReachBot(yacht, 119)
    state = _two_open(yacht, 130)
    assert bot.need(state) == 0
    _, table = bot.write_table(state)
    assert np.all(table[np.isfinite(table)] == 1.0)


@pytest.mark.slow
def test_the_seat_reaches_200_in_yacht_as_often_as_its_table_says():
    """6,000 seeded games of Yacht: the seat's share of final scores of at least 200 against the table's
    exact 21.81 % (within 3 SE), above the expected-score player's exact 16.68 % (docs/solver.md)."""
    from rulebook.interpreter.play.simulate import run_games
    model = load_model("yacht")
    results = run_games(model, parse_players("a:reach:200"), 6000, 7, jobs=2, engine="game")
    totals = np.array([r.totals[0] for r in results])
    rate = float((totals >= 200).mean())
    se = (rate * (1 - rate) / len(totals)) ** 0.5
    exact = make_bot("reach:200", model, None).reach.start
    assert exact == pytest.approx(0.218063150, abs=1e-7)
    assert abs(rate - exact) <= 3 * se
    assert rate - 3 * se > 0.16675953
