"""Full random-policy games through the generic engine against the hand-written baseline.

    python -m benchmarks [--games N] [--rounds R] [--seed S] [--model MODEL]

Both sides play 1-player games in which every decision is a uniformly random legal action and
every roll comes from a seeded `random.Random`. The engine is driven only through its public API
(`current_player`, `sample_chance`, `legal_actions`, `apply`); it draws a roll from the roll's
outcome distribution with one `rng.random()`, where the baseline rolls die by die as people write
it. Both sides are warmed up first, then timed in CPU
seconds in interleaved rounds; the medians are printed as games per second, with their ratio.
The engine's tables are filled before the timing (`tables(model).precompute()`), as a long run
would fill them anyway.
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

from rulebook.interpreter import load_model
from rulebook.interpreter.actions import Roll
from rulebook.interpreter.state import CHANCE, TERMINAL, GameState, tables

from . import baseline_yahtzee

TARGET = 2.0
WARM_UP = 100  # games per side before the timing


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
    """CPU seconds for one game per seed, and the scores (seeding the generators is not timed)."""
    rngs = [random.Random(seed) for seed in seeds]
    start = time.process_time()
    scores = [play(rng) for rng in rngs]
    return time.process_time() - start, scores


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.strip().splitlines()[0])
    ap.add_argument("--games", "-n", type=int, default=4000, help="games per side (default 4000)")
    ap.add_argument("--rounds", type=int, default=8, help="the games are timed in this many interleaved rounds")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--model", default="yahtzee", help="the engine's model (the baseline is always Yahtzee)")
    args = ap.parse_args(argv)
    model = load_model(args.model)
    sides = {"engine": lambda rng: engine_game(model, rng), "baseline": baseline_yahtzee.play_game}
    tables(model).precompute()  # the engine's tables, filled before the timing (else on first use)
    for play in sides.values():  # and a warm-up for both
        for seed in range(-WARM_UP, 0):
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
