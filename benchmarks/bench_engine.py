"""Full random-policy games through the generic engine against the hand-written baseline.

    python -m benchmarks [--games N] [--seed S] [--model MODEL]

Both sides play 1-player games in which every decision is a uniformly random legal action and
every roll comes from a seeded `random.Random`; the engine is driven only through its public API
(`legal_actions`, `apply`, `dice_to_roll`). Prints games per second for each and their ratio.
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

from rulebook.interpreter import load_model
from rulebook.interpreter.actions import Roll
from rulebook.interpreter.state import CHANCE, TERMINAL, GameState

from . import baseline_yahtzee

TARGET = 2.0


def engine_game(model, rng: random.Random, roll=None) -> int:
    """One solitaire game of `model` through the engine; returns the final total.

    Rolls come from the engine's `sample_chance` (one draw per roll from the exact outcome
    distribution), or from `roll(rng, state)` if given.
    """
    state = GameState(model, ["p"])
    while True:
        player = state.current_player()
        if player == CHANCE:
            state.apply(state.sample_chance(rng) if roll is None else roll(rng, state))
        elif player == TERMINAL:
            return state.returns()[0]
        else:
            state.apply(rng.choice(state.legal_actions()))


def ENGINE_KEEP_ORDER(keeps):
    """The engine lists keeps smallest first, then in order of faces."""
    return sorted(keeps, key=lambda k: (len(k), k))


def roll_each_die(rng: random.Random, state: GameState) -> Roll:
    """Roll die by die as the baseline does, so a seed plays the same game on both sides."""
    return Roll(tuple(sorted(rng.randint(1, state.model.faces) for _ in range(state.dice_to_roll()))))


def time_games(play, seeds: range) -> tuple[float, list[int]]:
    """CPU seconds for one game per seed, and the scores."""
    scores = []
    start = time.process_time()
    for seed in seeds:
        scores.append(play(random.Random(seed)))
    return time.process_time() - start, scores


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.strip().splitlines()[0])
    ap.add_argument("--games", "-n", type=int, default=2000, help="games per side (default 2000)")
    ap.add_argument("--rounds", type=int, default=5, help="the games are timed in this many interleaved rounds")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--model", default="yahtzee", help="the engine's model (the baseline is always Yahtzee)")
    args = ap.parse_args(argv)
    model = load_model(args.model)
    sides = {"engine": lambda rng: engine_game(model, rng), "baseline": baseline_yahtzee.play_game}
    for play in sides.values():  # warm up (tables, caches) outside the timing
        for seed in range(-20, 0):
            play(random.Random(seed))
    # CPU time, in interleaved rounds, median per side: robust on a busy machine
    per_round = max(1, args.games // max(1, args.rounds))
    rates: dict[str, list[float]] = {k: [] for k in sides}
    scores: dict[str, list[int]] = {k: [] for k in sides}
    for r in range(max(1, args.rounds)):
        seeds = range(args.seed + r * per_round, args.seed + (r + 1) * per_round)
        order = list(sides) if r % 2 == 0 else list(sides)[::-1]
        for side in order:
            seconds, got = time_games(sides[side], seeds)
            rates[side].append(len(seeds) / max(seconds, 1e-9))
            scores[side] += got
    e_rate, b_rate = statistics.median(rates["engine"]), statistics.median(rates["baseline"])
    ratio = e_rate / b_rate
    total = per_round * max(1, args.rounds)
    print(f"{total} random-policy 1-player games per side, seeds {args.seed}…{args.seed + total - 1}, "
          f"{max(1, args.rounds)} rounds (median games per CPU second)")
    print(f"  engine ({model.id}):{' ' * max(1, 14 - len(model.id))}{e_rate:9.0f} games/s   mean score {statistics.mean(scores['engine']):.1f}")
    print(f"  hand-written baseline: {b_rate:9.0f} games/s   mean score {statistics.mean(scores['baseline']):.1f}")
    print(f"  ratio engine/baseline: {ratio:9.2f}x  (target >= {TARGET:.0f}x: {'met' if ratio >= TARGET else 'NOT met'})")
    if model.id == "yahtzee":
        n = min(total, 200)
        same = ([engine_game(model, random.Random(args.seed + i), roll_each_die) for i in range(n)]
                == [baseline_yahtzee.play_game(random.Random(args.seed + i), ENGINE_KEEP_ORDER) for i in range(n)])
        print(f"  rolled die by die, the engine plays the baseline's games exactly: {'yes' if same else 'NO'} ({n} games)")
    return 0
