"""A plain, hand-written Python Yahtzee: the yardstick for the generic engine.

Written the way a person would write one fast game: scores computed directly from the dice, the
legal keeps of a roll listed once and remembered (`functools.lru_cache`), nothing else precomputed.
Same rules as rules/yahtzee.yaml with its default options (forced Joker, 35-point upper bonus at
63, 100 per further Yahtzee).

Same RNG discipline as the engine: a roll of m dice is drawn with ONE `rng.random()` from the
distribution of its distinct sorted results (bisecting their cumulative weights, as
`random.choices` does), not die by die. The outcome table is built here on its own (itertools and
multinomial weights), not taken from the engine.

The random policy is the engine benchmark's: at every decision a uniformly random legal action —
at a keep, "stop" or any distinct set of dice to keep short of all of them (keeping none rerolls
all), smallest first and then in order of faces; at a write, any box the rules allow, in the
order of the sheet. So from a seed the engine and this file play the very same game
(tests/test_benchmarks.py checks it).
"""
from __future__ import annotations

import random
from bisect import bisect_right
from collections import Counter
from functools import lru_cache
from itertools import accumulate, combinations, combinations_with_replacement
from math import factorial

UPPER = ["ones", "twos", "threes", "fours", "fives", "sixes"]
LOWER = ["three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight",
         "yahtzee", "chance"]
BOXES = UPPER + LOWER
STOP = "stop"


def _weight(faces: tuple[int, ...]) -> int:
    """How many ordered rolls show these sorted faces."""
    w = factorial(len(faces))
    for c in Counter(faces).values():
        w //= factorial(c)
    return w


# for m = 0 … 5 dice: (the sorted results, their cumulative weights, 6**m)
_OUTCOMES = []
for _m in range(6):
    _faces = list(combinations_with_replacement(range(1, 7), _m))
    _OUTCOMES.append((_faces, list(accumulate(_weight(f) for f in _faces)), 6 ** _m))


def roll(rng: random.Random, n: int) -> tuple[int, ...]:
    """n dice, drawn with one rng.random() from the distribution of sorted results."""
    faces, cumulative, total = _OUTCOMES[n]
    return faces[bisect_right(cumulative, rng.random() * total)]


def roll_each_die(rng: random.Random, n: int) -> tuple[int, ...]:
    """n dice rolled one by one (the other discipline, for the benchmark's second comparison)."""
    return tuple(sorted(rng.randint(1, 6) for _ in range(n)))


def longest_run(dice) -> int:
    best = run = 0
    prev = None
    for v in sorted(set(dice)):
        run = run + 1 if prev is not None and v == prev + 1 else 1
        best, prev = max(best, run), v
    return best


def score(box: str, dice, joker: bool) -> int:
    """Points for writing the dice into a box; `joker`: a further Yahtzee played as a Joker."""
    counts = Counter(dice)
    if box in UPPER:
        face = UPPER.index(box) + 1
        return counts[face] * face
    most = max(counts.values())
    if box == "three_of_a_kind":
        return sum(dice) if most >= 3 else 0
    if box == "four_of_a_kind":
        return sum(dice) if most >= 4 else 0
    if box == "full_house":
        return 25 if sorted(counts.values()) == [2, 3] or joker else 0
    if box == "small_straight":
        return 30 if longest_run(dice) >= 4 or joker else 0
    if box == "large_straight":
        return 40 if longest_run(dice) == 5 or joker else 0
    if box == "yahtzee":
        return 50 if most == 5 else 0
    return sum(dice)  # chance


def legal_boxes(dice, sheet: dict[str, int]) -> list[str]:
    """The open boxes the dice may go into (the forced Joker rule for a further Yahtzee)."""
    open_boxes = [b for b in BOXES if b not in sheet]
    if dice.count(dice[0]) == 5 and "yahtzee" in sheet:
        face_box = UPPER[dice[0] - 1]
        if face_box not in sheet:
            return [face_box]
        lower = [b for b in LOWER if b not in sheet]
        return lower if lower else open_boxes
    return open_boxes


@lru_cache(maxsize=None)
def keep_choices(dice: tuple[int, ...]) -> list:
    """Stop, or any distinct set of dice to keep short of all of them (smallest first)."""
    keeps = {combo for k in range(len(dice)) for combo in combinations(dice, k)}
    return [STOP] + sorted(keeps, key=lambda k: (len(k), k))


def play_game(rng: random.Random, roll=roll) -> int:
    """One solitaire game with the random policy; returns the final score."""
    sheet: dict[str, int] = {}
    bonus = 0
    for _ in range(13):
        dice = roll(rng, 5)
        for _ in range(2):
            choice = rng.choice(keep_choices(dice))
            if choice == STOP:
                break
            dice = tuple(sorted(choice + roll(rng, 5 - len(choice))))
        box = rng.choice(legal_boxes(dice, sheet))
        five_alike = dice.count(dice[0]) == 5
        joker = five_alike and "yahtzee" in sheet
        if joker and sheet["yahtzee"] == 50:
            bonus += 100
        sheet[box] = score(box, dice, joker)
    upper = sum(sheet[b] for b in UPPER)
    return sum(sheet.values()) + (35 if upper >= 63 else 0) + bonus
