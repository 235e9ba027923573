"""A plain, hand-written Python Yahtzee: the yardstick for the generic engine.

Written the way a person would write one game: scores computed directly from the dice, the legal
keeps enumerated from the roll, nothing precomputed. Same rules as rules/yahtzee.yaml with its
default options (forced Joker, 35-point upper bonus at 63, 100 per further Yahtzee).

The random policy is the engine benchmark's: at every decision a uniformly random legal action —
at a keep, "stop" or any distinct set of dice to keep (keeping none rerolls all); at a write, any
box the rules allow. Given the engine's order of keeps (`keep_order`) and rolled die by die like
this, the engine plays the very same game from a seed (tests/test_benchmarks.py checks it).
"""
from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

UPPER = ["ones", "twos", "threes", "fours", "fives", "sixes"]
LOWER = ["three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight",
         "yahtzee", "chance"]
BOXES = UPPER + LOWER
STOP = "stop"


def roll(rng: random.Random, n: int) -> list[int]:
    return sorted(rng.randint(1, 6) for _ in range(n))


def longest_run(dice) -> int:
    best = run = 0
    prev = None
    for v in sorted(set(dice)):
        run = run + 1 if prev is not None and v == prev + 1 else 1
        best, prev = max(best, run), v
    return best


def score(box: str, dice: list[int], joker: bool) -> int:
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


def legal_boxes(dice: list[int], sheet: dict[str, int]) -> list[str]:
    """The open boxes the dice may go into (the forced Joker rule for a further Yahtzee)."""
    open_boxes = [b for b in BOXES if b not in sheet]
    if dice.count(dice[0]) == 5 and "yahtzee" in sheet:
        face_box = UPPER[dice[0] - 1]
        if face_box not in sheet:
            return [face_box]
        lower = [b for b in LOWER if b not in sheet]
        return lower if lower else open_boxes
    return open_boxes


def keep_choices(dice: list[int], keep_order=None) -> list:
    """Stop, or any distinct set of dice to keep short of all of them."""
    keeps = {combo for k in range(len(dice)) for combo in combinations(dice, k)}
    return [STOP] + (list(keeps) if keep_order is None else keep_order(keeps))


def play_game(rng: random.Random, keep_order=None) -> int:
    """One solitaire game with the random policy; returns the final score."""
    sheet: dict[str, int] = {}
    bonus = 0
    for _ in range(13):
        dice = roll(rng, 5)
        for _ in range(2):
            choice = rng.choice(keep_choices(dice, keep_order))
            if choice == STOP:
                break
            dice = sorted(list(choice) + roll(rng, 5 - len(choice)))
        box = rng.choice(legal_boxes(dice, sheet))
        five_alike = dice.count(dice[0]) == 5
        joker = five_alike and "yahtzee" in sheet
        if joker and sheet["yahtzee"] == 50:
            bonus += 100
        sheet[box] = score(box, dice, joker)
    upper = sum(sheet[b] for b in UPPER)
    return sum(sheet.values()) + (35 if upper >= 63 else 0) + bonus
