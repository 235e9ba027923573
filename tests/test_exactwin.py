"""The exact play-to-win seat (players/exactwin.py, solver/jointtable.py) in Pig to a low goal.

Pinned: the seat's decisions against the hand-written value iteration of test_winchance.py in every
position of Pig to 20 the walk meets; each decision of seeded games against the successors' own
chances (found by applying each move, not through the graph's edge order); seeded win rates against
the exact chances (win against win: the solve's 0.6156; against a greedy player that takes a sure
win: the chances with that player's moves fixed, `jointtable.against`), within 3 standard errors;
and the one-line refusal where the joint states are beyond the limit (Farkle with a low limit)."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from itertools import product
from pathlib import Path

import pytest

from rulebook.interpreter.engine.actions import Roll, RollOn, Stop
from rulebook.interpreter.engine.state import GameState
from rulebook.interpreter.model.loader import load_model
from rulebook.interpreter.play.game import Seat
from rulebook.interpreter.play.simulate import game_seeds, play_one
from rulebook.interpreter.players.exactwin import ExactWinBot
from rulebook.interpreter.players.greedy import GreedyBot
from rulebook.interpreter.players.registry import make_bot, win_is_exact
from rulebook.interpreter.solver.jointtable import against, joint_table

PIG = Path(__file__).resolve().parent.parent / "rules" / "pig.yaml"
GOAL = 20


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rulebook.interpreter", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def pig():
    return load_model(PIG, {"goal": str(GOAL)})


@pytest.fixture(scope="module")
def table(pig):
    return joint_table(pig, 2)


def hand_table(goal: int, tol: float = 1e-14) -> dict:
    """P[i, j, k], the chance to win of the player to move with score i against j and turn total k before
    a roll, in Pig to `goal` with optimal play (test_winchance.by_hand's iteration, the table kept)."""
    P = {(i, j, k): 0.0 for i, j in product(range(goal), repeat=2) for k in range(goal - i)}

    def after(i, j, k):
        return 1.0 if i + k >= goal else max(1.0 - P[j, i + k, 0], P[i, j, k])

    while True:
        change = 0.0
        for (i, j, k), old in P.items():
            new = (1.0 - P[j, i, 0]) / 6 + sum(after(i, j, k + g) for g in range(2, 7)) / 6
            change = max(change, abs(new - old))
            P[i, j, k] = new
        if change < tol:
            return P


def at(pig, mine: int, yours: int, turn: int) -> GameState:
    """Ann to decide with score `mine` against Bob's `yours` and turn total `turn` (>= 2), after a roll."""
    s = GameState(pig, ["Ann", "Bob"])
    s.counter_values[0]["score"], s.counter_values[1]["score"] = mine, yours
    face = 2 if turn < 8 else 6
    s.counter_values[0]["turn"] = turn - face
    s.apply(Roll((face,)))
    assert s.counter_values[0]["turn"] == turn and s.legal_actions() == [Stop(), RollOn()]
    return s


def test_the_seat_is_the_exact_one_where_the_expected_solver_cannot_read_the_game(pig):
    assert win_is_exact(pig)
    assert isinstance(make_bot("win", pig, random.Random(0)), ExactWinBot)


def test_it_holds_where_holding_wins_at_once(pig, table):
    bot = ExactWinBot(pig, 2)
    assert bot.choose(at(pig, 15, 18, 5)) == Stop()  # 15 + 5 = 20
    assert bot.choose(at(pig, 0, 19, 19)) == RollOn()  # 19 is not yet the goal, and Bob is one hold away
    assert table.move_chances(at(pig, 15, 18, 5))[0] == 1.0


def test_every_decision_is_the_hand_written_value_iterations(pig, table):
    """Hold is worth 1 - P(Bob to move, i + k, 0) (1 at the goal), rolling P(i, j, k): the seat takes the
    larger in every position of Ann's the walk met, and its chances are the hand's."""
    P = hand_table(GOAL)
    bot = ExactWinBot(pig, 2)
    met = differ = 0
    for (i, j, k) in P:
        if k < 2:
            continue
        s = at(pig, i, j, k)
        chances = table.move_chances(s)
        if chances is None:
            continue
        met += 1
        hold = 1.0 if i + k >= GOAL else 1.0 - P[j, i + k, 0]
        assert chances == pytest.approx([hold, P[i, j, k]], abs=1e-9)
        if abs(hold - P[i, j, k]) > 1e-9:
            differ += 1
            assert bot.choose(s) == (Stop() if hold > P[i, j, k] else RollOn())
    assert (met, differ) == (2_926, 2_926)


def test_seeded_games_take_the_best_successor_in_every_decision(pig, table):
    """The successors' chances found by applying each move to a copy and finding it in the table."""
    checked = cut = 0
    for seed in game_seeds(5, 6):
        rng = random.Random(seed)
        s = GameState(pig, ["Ann", "Bob"])
        bots = [ExactWinBot(pig, 2), GreedyBot()]
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply(s.sample_chance(rng))
                continue
            p = s.current_player()
            move = bots[p].choose(s)
            if p == 0:
                values = []
                for a in s.legal_actions():
                    after = s.clone()
                    after.apply(a)
                    if after.is_terminal():
                        values.append(1.0 if after.ranking()[0][1] == "Ann" else 0.0)
                    elif table.locate(after) is not None:
                        values.append(float(table.values[table.locate(after), 0]))
                    else:  # past a move that wins at once, which the walk does not follow
                        values.append(-1.0)
                        cut += 1
                best = max(values)
                assert values[s.legal_actions().index(move)] == best
                assert s.legal_actions().index(move) == values.index(best)  # the first of equals
                checked += 1
            s.apply(move)
    assert (checked, cut) == (34, 5)


class SureWins(GreedyBot):
    """The greedy player, but it holds where holding wins at once (as every sensible player does)."""

    def __init__(self, goal: int):
        super().__init__()
        self.goal = goal

    def choose(self, state):
        if Stop() in state.legal_actions():
            c = state.counter_values[state.player]
            if c["score"] + c["turn"] >= self.goal:
                return Stop()
        return super().choose(state)


def test_against_win_the_win_rate_is_the_solves(pig, table):
    games = 1_500
    exact = table.chances[0]
    assert exact == pytest.approx(0.615558549805, abs=1e-10)
    bots = [ExactWinBot(pig, 2), ExactWinBot(pig, 2)]
    seats = [Seat("Ann", "win"), Seat("Bob", "win")]
    won = sum(play_one(pig, seats, seed, bots).ranks[0] == 1 for seed in game_seeds(3, games))
    assert won == 920 and abs(won / games - exact) < 3 * (exact * (1 - exact) / games) ** 0.5


def test_against_greedy_the_win_rate_is_the_exact_chance():
    """Pig to 30 (to 20 the greedy player's moves are the win seat's): the exact chance of the win seat
    against that player, first and second, from the solve with the greedy player's moves fixed."""
    games, goal = 1_000, 30
    pig = load_model(PIG, {"goal": str(goal)})
    table = joint_table(pig, 2)
    assert table.chances[0] == pytest.approx(0.567915, abs=1e-6)
    first = float(against(table, {1: SureWins(goal)})[0, 0])
    second = float(against(table, {0: SureWins(goal)})[0, 1])
    assert (first, second) == pytest.approx((0.662672, 0.538169), abs=1e-6)
    for seat, exact, wins in ((0, first, 655), (1, second, 519)):
        bots = [ExactWinBot(pig, 2), SureWins(goal)][::1 if seat == 0 else -1]
        seats = [Seat("Ann", "win"), Seat("Bob", "greedy")][::1 if seat == 0 else -1]
        won = sum(play_one(pig, seats, seed, bots).ranks[seat] == 1 for seed in game_seeds(4, games))
        se = (exact * (1 - exact) / games) ** 0.5
        assert (seat, won) == (seat, wins) and abs(won / games - exact) < 3 * se


def test_simulate_plays_the_exact_seat(tmp_path):
    done = cli("simulate", str(PIG), "-O", f"goal={GOAL}", "--games", "200", "--players", "a:win,b:greedy", "--json")
    assert done.returncode == 0, done.stderr
    players = json.loads(done.stdout)["players"]
    assert players[0]["kind"] == "win" and players[0]["wins"] == 125


def test_beyond_the_limit_it_refuses_in_one_line():
    done = cli("simulate", "farkle", "--games", "5", "--players", "a:win,b:greedy", "--limit", "joint_states=2000")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "the play-to-win player needs the exact chances of the whole game for 2 players" in lines[0]
    assert "more than 2,000 states" in lines[0] and "--limit joint_states=N" in lines[0], lines


@pytest.mark.parametrize("lang, words", [("de", "der Spieler, der auf Sieg spielt, braucht die genauen Chancen"),
                                          ("nl", "de speler die om te winnen speelt heeft de exacte kansen")])
def test_the_refusal_in_german_and_dutch(lang, words):
    from rulebook.interpreter.solver.abstraction import NotSolvable
    from rulebook.interpreter.players.exactwin import prepare
    from rulebook.tools.i18n import translator
    with pytest.raises(NotSolvable) as refused:
        prepare(load_model("farkle"), 2, max_states=2000)
    line = refused.value.render(translator(lang).gettext, lang)
    assert words in line and "2.000" in line and "joint_states" in line, line
