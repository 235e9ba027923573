"""The play-to-win seat's speed: `win` against `optimal`, two players, in bulk (interpreter/play/winbulk.py).

    python -m benchmarks win [--games N] [--model yahtzee] [--seed S]

Half of the games with `win` seated first, half second, one process (`--jobs 1`), the solver's table
read and the moments of the points still to come worked out before the timing (29 CPU s for
Yahtzee, once per process). Printed: CPU and wall seconds, games per CPU second, the load, and
`win`'s share of the games won (a tie counts half) ± its standard error. Target (issue 25): 100,000
Yahtzee games in well under 20 CPU minutes (here: at most 300 CPU seconds, start-up excluded).
"""
from __future__ import annotations

import argparse
import resource
import time

from rulebook.interpreter import load_model
from rulebook.interpreter.play import bulk
from rulebook.interpreter.play.game import Seat
from rulebook.interpreter.play.simulate import run_games

from . import machine

TARGET = 300.0  # CPU seconds for 100,000 games (scaled to --games)


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks win", description=__doc__.strip().splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--model", default="yahtzee")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    before = machine.load()
    model = load_model(args.model)
    bulk.moments_of(model)  # the table and the moments, before the timing
    bulk.run_games(model, ["win", "optimal"], 10, args.seed)  # the compiled planners loaded
    cpu, start, won = _cpu(), time.perf_counter(), 0.0
    halves = ((args.games + 1) // 2, args.games // 2)
    for me, n in enumerate(halves):
        seats = [Seat("w", "win"), Seat("e", "optimal")][:: 1 if me == 0 else -1]
        for r in run_games(model, seats, n, args.seed + me, jobs=1, engine="bulk"):
            won += 1.0 if r.ranks[me] < r.ranks[1 - me] else 0.5 if r.ranks[me] == r.ranks[1 - me] else 0.0
    cpu, wall = _cpu() - cpu, time.perf_counter() - start
    rate = won / args.games
    target = TARGET * args.games / 100_000
    print(f"win against optimal, {model.id}: {args.games} games (half seated first), {cpu:.1f} CPU s, {wall:.1f} s wall, "
          f"{args.games / cpu:.0f} games per CPU second; win {rate:.4f} ± {(rate * (1 - rate) / args.games) ** 0.5:.4f}")
    print(f"  target <= {target:.0f} CPU s: {'met' if cpu <= target else 'NOT met'} ({cpu / target:.2f} of it); "
          f"load {before} -> {machine.load()}")
    return 0 if cpu <= target else 1
