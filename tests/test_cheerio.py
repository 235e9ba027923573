"""Cheerio (rules/cheerio.yaml) as the Diagram Group's "The Way to Play" gives it: eleven combinations, three
throws, no bonus. Rule facts, hand-computed scores, every bot kind, and the optimum (141.954513, the figure a
user's hand-written model gave in issue 22) counted again here by a plain solver that shares no code with
the interpreter's."""
from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from math import factorial

import numpy as np
import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.engine.actions import parse_action
from rulebook.interpreter.engine.state import CHANCE, GameState
from rulebook.interpreter.model.scoring import Scorer
from rulebook.interpreter.players.registry import make_bot

MODEL = load_model("cheerio")
SCORER = Scorer(MODEL)
OPTIMUM = 141.954513

CASES = [
    ([1, 1, 1, 3, 5], "ones", 3),
    ([2, 3, 2, 5, 6], "twos", 4),
    ([3, 3, 3, 4, 3], "threes", 12),
    ([6, 6, 6, 6, 6], "sixes", 30),
    ([1, 2, 3, 4, 6], "sixes", 6),
    ([3, 5, 4, 1, 2], "little_straight", 20),
    ([2, 3, 4, 5, 6], "little_straight", 0),
    ([4, 6, 2, 5, 3], "big_straight", 25),
    ([1, 2, 3, 4, 5], "big_straight", 0),
    ([1, 1, 1, 2, 2], "full_house", 7),  # the rules' own examples: 7, 8 and at most 28
    ([2, 2, 2, 1, 1], "full_house", 8),
    ([6, 6, 6, 5, 5], "full_house", 28),
    ([4, 4, 4, 4, 4], "full_house", 0),  # five alike are not three plus two
    ([2, 2, 4, 4, 5], "full_house", 0),
    ([3, 3, 5, 6, 6], "big_hand", 23),
    ([1, 1, 1, 1, 1], "big_hand", 5),
    ([5, 5, 5, 5, 5], "cheerio", 50),
    ([5, 5, 5, 5, 4], "cheerio", 0),
]


@pytest.mark.parametrize("dice, box, points", CASES)
def test_hand_computed_scores(dice, box, points):
    assert SCORER.points(box, dice) == points


def test_the_rule_facts():
    assert list(MODEL.boxes) == ["ones", "twos", "threes", "fours", "fives", "sixes", "little_straight",
                                 "big_straight", "full_house", "big_hand", "cheerio"]  # eleven combinations
    assert (MODEL.n_dice, MODEL.faces, MODEL.min_players, MODEL.max_players) == (5, 6, 1, 12)
    assert MODEL.bonuses == () and MODEL.end_if is None and MODEL.counters == ()
    assert MODEL.flow.times == 11 and MODEL.step("rethrows").times == 2  # three throws a turn
    best = {b: max(SCORER.points(b, list(r)) for r in itertools.combinations_with_replacement(range(1, 7), 5))
            for b in MODEL.boxes}
    assert best == {"ones": 5, "twos": 10, "threes": 15, "fours": 20, "fives": 25, "sixes": 30,
                    "little_straight": 20, "big_straight": 25, "full_house": 28, "big_hand": 30, "cheerio": 50}


def test_a_full_game_by_hand():
    state = GameState(MODEL, ["Ann"])
    throws = [("5 5 5 5 5", "cheerio"), ("1 2 3 4 5", "little_straight"), ("2 3 4 5 6", "big_straight"),
              ("6 6 6 5 5", "full_house"), ("6 6 6 6 5", "sixes"), ("5 5 5 1 2", "fives"),
              ("4 4 4 1 1", "fours"), ("3 3 1 1 2", "threes"), ("2 2 2 2 1", "twos"), ("1 1 6 6 6", "ones"),
              ("6 6 5 5 4", "big_hand")]
    for dice, box in throws:
        state.apply(parse_action("roll " + dice))
        state.apply(parse_action("stop"))
        state.apply(parse_action("write " + box))
    assert state.is_terminal()
    assert state.totals(0) == {"numbers": 2 + 8 + 6 + 12 + 15 + 24, "combinations": 50 + 20 + 25 + 28 + 26,
                               "total": 67 + 149}


@pytest.mark.parametrize("kind", ["random", "greedy", "strong", "optimal"])
def test_every_bot_kind_plays_a_full_game(kind):
    rng = random.Random(7)
    state = GameState(MODEL, ["a", "b"])
    bots = [make_bot(kind, MODEL, rng), make_bot("greedy", MODEL, rng)]
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply(state.sample_chance(rng))
        else:
            state.apply(bots[state.current_player()].choose(state))
    assert all(len(s) == 11 for s in state.sheets)
    assert 0 <= state.totals(0)["total"] <= 5 + 10 + 15 + 20 + 25 + 30 + 20 + 25 + 28 + 30 + 50


def _plain_optimum(scores) -> float:
    """Expected total of optimal solitaire play, by a solver of its own: states are the used combinations,
    a turn is three throws with any dice kept between them."""
    rolls = sorted(set(itertools.combinations_with_replacement(range(1, 7), 5)))
    at = {r: i for i, r in enumerate(rolls)}

    def chance(ms):
        n = factorial(len(ms))
        for v in Counter(ms).values():
            n //= factorial(v)
        return n / 6 ** len(ms)

    keeps = sorted({k for r in rolls for n in range(6) for k in itertools.combinations(r, n)})
    kat = {k: i for i, k in enumerate(keeps)}
    move = np.zeros((len(keeps), len(rolls)))
    for k in keeps:
        for rest in itertools.combinations_with_replacement(range(1, 7), 5 - len(k)):
            move[kat[k], at[tuple(sorted(k + rest))]] += chance(rest)
    subsets = [sorted({kat[k] for n in range(6) for k in itertools.combinations(r, n)}) for r in rolls]
    width = max(map(len, subsets))
    pick = np.array([s + [s[0]] * (width - len(s)) for s in subsets])
    first = np.array([chance(r) for r in rolls])
    table = np.array([[f(r) for r in rolls] for f in scores], dtype=float)
    n = len(scores)
    future = np.zeros(1 << n)
    for used in range((1 << n) - 2, -1, -1):
        value = np.max([table[b] + future[used | 1 << b] for b in range(n) if not used >> b & 1], axis=0)
        for _ in range(2):
            value = (move @ value)[pick].max(axis=1)
        future[used] = first @ value
    return float(future[0])


def test_the_optimum_is_counted_again_independently():
    def face(k):
        return lambda r: k * r.count(k)
    scores = [face(k) for k in range(1, 7)] + [
        lambda r: 20 if r == (1, 2, 3, 4, 5) else 0,
        lambda r: 25 if r == (2, 3, 4, 5, 6) else 0,
        lambda r: sum(r) if sorted(Counter(r).values()) == [2, 3] else 0,
        sum,
        lambda r: 50 if len(set(r)) == 1 else 0]
    assert round(_plain_optimum(scores), 6) == OPTIMUM


def test_solve_gives_the_optimum(cli):
    code, out, err = cli("solve", "cheerio", "--json")
    assert code == 0, err
    assert json.loads(out)["expected_score"] == OPTIMUM


def test_check_exits_0(cli):
    code, out, err = cli("check", "rules/cheerio.yaml")
    assert code == 0 and "ok (cheerio: 11 boxes, 0 options, 1-12 players)" in out
