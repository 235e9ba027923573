"""The play-to-win computer player (`win`): the moments it reads, a position decided by the score at the
table, and the seat in play, simulate and the web app."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.engine.actions import Keep, Roll, Stop
from rulebook.interpreter.engine.state import GameState
from rulebook.interpreter.players.optimal import OptimalBot
from rulebook.interpreter.players.win import WinBot, beat_chance, normal_cdf
from rulebook.interpreter.solver.moments import remaining_moments
from rulebook.interpreter.solver.solve import solved


@pytest.fixture(scope="module")
def yacht():
    return load_model("yacht")


def test_the_moments_mean_is_the_table_and_the_spread_is_yachts(yacht):
    space, table = solved(yacht)
    mean, var = remaining_moments(space, table.values)
    reached = np.isfinite(table.values)
    assert np.abs(mean[reached] - table.values[reached]).max() < 1e-9
    assert mean[0] == pytest.approx(166.955068, abs=1e-6)
    assert var[0] ** 0.5 == pytest.approx(34.9816, abs=1e-4)  # the optimal player's final score: 166.96 ± 34.98
    assert (var[reached] >= 0).all()


def test_the_normal_curve():
    assert normal_cdf(np.array([0.0]))[0] == pytest.approx(0.5, abs=1e-7)
    assert normal_cdf(np.array([1.959964]))[0] == pytest.approx(0.975, abs=1e-6)
    assert normal_cdf(np.array([-1.0]))[0] == pytest.approx(0.158655, abs=1e-6)
    assert list(beat_chance(np.array([3.0, 0.0, -2.0]), np.zeros(3))) == [1.0, 0.5, 0.0]  # no spread left: certain


def _last_turn(model, behind: int) -> GameState:
    """Two players; the other's sheet is full, ours has Choice open; we trail by `behind` before this
    turn and rolled five fives with two rerolls left."""
    state = GameState(model, ["me", "other"])
    rest = [b for b in model.cells if b != "choice"]
    sheets = [{b: 0 for b in rest}, {b: 0 for b in model.cells}]
    sheets[0]["ones"] = 5
    sheets[1]["ones"] = 5 + behind
    state = GameState.from_json(model, {**state.to_json(), "sheets": sheets})
    state.apply(Roll((5, 5, 5, 5, 5)))
    return state


def test_trailing_it_gambles_where_the_expected_player_stops(yacht):
    """25 in Choice is the most expected points (a die kept at 5 beats its reroll, 4.25). Behind by 26,
    25 loses for sure, so the play-to-win player rerolls; behind by 20, 25 wins for sure, so it stops.
    With nothing left to play for the others, a write's chance to win is exact (0 or 1)."""
    win, optimal = WinBot(yacht), OptimalBot(yacht)
    trailing = _last_turn(yacht, 26)
    assert optimal.choose(trailing) == Stop()
    made = win.choose(trailing)
    assert isinstance(made, Keep) and len(made.dice) < 5
    values = win.keep_values(trailing)
    assert values[made.dice] == max(values.values()) > 0
    boxes, table = win.write_table(trailing)
    assert set(np.unique(table[np.isfinite(table)])) == {0.0, 0.5, 1.0}  # lose, tie (26) or win (27 and more)
    assert win.choose(_last_turn(yacht, 20)) == Stop()


def test_without_an_opponent_it_is_the_optimal_player(cli, tmp_path):
    scores = {}
    for kind in ("optimal", "win"):
        code, out, err = cli("simulate", "yacht", "--players", f"a:{kind}", "--games", "3", "--seed", "5",
                             "--engine", "game", "--json")
        assert code == 0, err
        scores[kind] = json.loads(out)["players"][0]["mean"]
    assert scores["win"] == scores["optimal"]


def test_a_head_to_head_game_and_its_win_rate(cli):
    code, out, err = cli("simulate", "yacht", "--players", "w:win,e:optimal", "--games", "40", "--seed", "3", "--json")
    assert code == 0, err
    players = json.loads(out)["players"]
    assert [p["kind"] for p in players] == ["win", "optimal"]
    rate, se = players[0]["win_rate"], players[0]["win_rate_stderr"]
    assert rate + players[1]["win_rate"] == pytest.approx(1.0)
    assert se == pytest.approx((rate * (1 - rate) / 40) ** 0.5, abs=1e-6)
    for lang, words in {"en": "head to head: wins", "de": "im direkten Vergleich", "nl": "onderling"}.items():
        code, out, err = cli("simulate", "yacht", "--players", "w:win,e:optimal", "--games", "4", "--seed", "3",
                             "--lang", lang)
        assert code == 0 and words in out, (lang, out)


def test_the_compiled_plans_choose_as_the_numpy_ones(yacht):
    """The win seat's keep layers by numba (`turnplan.layers`) are numpy's numbers: over whole games
    against the optimal player, every choice and every keep value is the same."""
    from rulebook.interpreter.play.game import Seat
    from rulebook.interpreter.play.simulate import game_seed, play_one

    fast, slow = WinBot(yacht), WinBot(yacht)
    slow.COMPILED_LAYERS = False
    checked = []

    class Both:
        def choose(self, state):
            made = fast.choose(state)
            assert slow.choose(state) == made
            if state.step().kind == "keep":
                assert fast.keep_values(state) == slow.keep_values(state)
            checked.append(made)
            return made

    seats = [Seat("w", "win"), Seat("e", "optimal")]
    totals = [play_one(yacht, seats, game_seed(7, i), [Both(), OptimalBot(yacht)]).totals for i in range(6)]
    assert len(checked) == 215
    assert totals[0] == play_one(yacht, seats, game_seed(7, 0), [slow, OptimalBot(yacht)]).totals


def test_bulk_plans_are_the_win_players(yacht):
    """`solver/winplan.py` plans a position as `WinBot` does: over the win player's turns of a few games
    against the optimal one, the box of every roll and the value of every keep in every layer."""
    from rulebook.interpreter.play import bulk
    from rulebook.interpreter.play.game import Seat
    from rulebook.interpreter.play.simulate import game_seed, play_one
    from rulebook.interpreter.solver import winplan
    from rulebook.interpreter.solver.writetable import encode

    plans, mean, var = bulk.moments_of(yacht)
    bot, space = WinBot(yacht), plans.space
    seen = []

    class Recording:
        def choose(self, state):
            if state.roll_number == 1 and state.step().kind == "keep":
                seen.append(state.clone())
            return bot.choose(state)

    seats = [Seat("w", "win"), Seat("e", "optimal")]
    for i in range(3):
        play_one(yacht, seats, game_seed(9, i), [Recording(), OptimalBot(yacht)])
    assert len(seen) == 36
    for state in seen:
        mask, fvals = encode(space, state.sheets[0])
        idx = np.array([bot._state_index(state.sheets[0])])
        rivals = np.array(bot.opponents(state))
        box, keepv, status = winplan.plan(plans.planner.kplan, mean, var, np.array([mask]), np.array([fvals]), idx,
                                          np.array([bot._points(state, 0)]), rivals[None, :, 0], rivals[None, :, 1])
        assert status == 0
        boxes, table = bot.write_table(state)
        assert [space.boxes.index(boxes[int(np.argmax(table[:, r]))]) for r in range(table.shape[1])] == box[0].tolist()
        layers = bot._plan(state)
        for j in range(1, len(layers)):
            # the same sums in another order (numba may fuse multiply-adds by the host's CPU): equal to 1e-12,
            # not to the last bit (a fresh machine gave 1.1e-16)
            assert np.allclose(layers[j][0][:, 0], keepv[0, j - 1, :-1], rtol=0, atol=1e-12)


def test_the_win_seat_in_bulk(yacht):
    """Bulk play takes one win seat: the same games from one seed however many jobs, and it wins about
    half of them against the optimal player (seated first here)."""
    from rulebook.interpreter.play.game import Seat
    from rulebook.interpreter.play.simulate import run_games

    seats = [Seat("e", "optimal"), Seat("w", "win")]
    one = run_games(yacht, seats, 600, seed=4, jobs=1, engine="bulk")
    two = run_games(yacht, seats, 600, seed=4, jobs=2, engine="bulk")
    assert [r.totals for r in one] == [r.totals for r in two]
    wins = sum(r.ranks[1] == 1 and r.ranks[0] != 1 for r in one)
    assert [r.totals for r in one][:3] == [[187, 177], [129, 133], [178, 95]]
    assert wins == 307  # alone; and 600 - 307 - ties for the optimal player


def test_the_bulk_win_seat_sees_each_opponent_after_the_turns_played(yacht, monkeypatch):
    """Seated first, the win seat's first turn sees the opponent's empty sheet (the optimal mean 166.96 and
    its spread) and its last turn an opponent with one turn left; seated second, its last turn sees the
    opponent's final total with no spread left."""
    from rulebook.interpreter.play import bulk
    from rulebook.interpreter.solver import winplan

    seen = []
    real = winplan.plan

    def spy(kp, mean, var, masks, feats, states, points, rmean, rvar):
        seen.append((points.copy(), rmean.copy(), rvar.copy()))
        return real(kp, mean, var, masks, feats, states, points, rmean, rvar)

    monkeypatch.setattr(winplan, "plan", spy)
    first = bulk.play_block(yacht, ["win", "optimal"], 50, 5, 0)
    assert len(seen) == 12
    assert np.allclose(seen[0][1], 166.955068) and np.allclose(seen[0][2], 34.9816**2, atol=0.01)
    assert (seen[-1][2] > 0).all() and (seen[0][0] == 0).all()
    seen.clear()
    second = bulk.play_block(yacht, ["optimal", "win"], 50, 5, 0)
    totals = second[0].points.sum(axis=1)
    assert (seen[-1][2] == 0).all() and np.array_equal(seen[-1][1][:, 0], totals)
    mine, before = second[1].points, seen[-1][0]  # its points before its last turn: all but one box's
    assert all((mine[g] == mine[g].sum() - before[g]).any() for g in range(50))
    assert first[0].points.shape == (50, 12)
