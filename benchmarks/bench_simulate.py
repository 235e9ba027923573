"""`rulebook simulate` speed: bulk play (interpreter/play/bulk.py) against the per-game engine, in one run.

    python -m benchmarks simulate [--games N] [--reference M] [--jobs J] [--model yahtzee]

The default is a million bulk games per bot: issue 26's per-core target is stated for a run of
1,000,000 games (start-up and planning included), and below about 200,000 games the planning of
each worker process, not the play, decides the figure.

For the optimal and the greedy bot, solitaire games are played both ways with `simulate.run_games`,
as the command plays them (`--jobs` worker processes, 2 by default: the machine's 2 cores), with
an empty plan cache at the start of each run (a real run pays for its planning too); the solver's
table is solved or read, and the compiled planner (turnplan.py) loaded, before the timing. Printed: games per second of wall time and per CPU
second (this process and its workers: the per-core figure), the ratio bulk / per-game, and whether the two engines'
means and standard deviations agree within 3 standard errors. The optimal bot's policy tables
(policy.py) are built or read before the timing too. Targets (issue 26): optimal and greedy
>= 100,000 games per CPU second (per core). The machine's load and the anchor's published figures
(other hardware) are printed with the figures.
"""
from __future__ import annotations

import argparse
import resource
import statistics
import time

from rulebook.interpreter.play import bulk
from rulebook.interpreter import load_model
from rulebook.interpreter.play.game import Seat
from rulebook.interpreter.play.simulate import run_games, spread_stderr

from . import machine

TARGETS = {"optimal": 100000.0, "greedy": 100000.0}  # games per CPU second (per core)


def _cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(model, kind: str, games: int, seed: int, jobs: int, engine: str) -> tuple[float, float, list[int]]:
    """(wall seconds, CPU seconds, totals) of one run."""
    bulk._PLANS.clear()  # every run plans from scratch, as a fresh `rulebook simulate` does
    cpu, start = _cpu(), time.perf_counter()
    results = run_games(model, [Seat("cpu", kind)], games, seed, jobs, engine=engine)
    return time.perf_counter() - start, _cpu() - cpu, [r.totals[0] for r in results]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks simulate", description=__doc__.strip().splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000_000, help="bulk games per bot (default 1,000,000)")
    ap.add_argument("--reference", type=int, default=400, help="per-game engine games per bot (default 400)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--model", default="yahtzee")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    before = machine.load()
    model = load_model(args.model)
    from rulebook.interpreter.solver.solve import solved
    solved(model)  # the table, solved or read before any timing
    from rulebook.interpreter.solver.turnplan import compiled
    compiled()  # the compiled planner loaded (or compiled once) before any timing, like the table
    bulk.plans_for(model, "optimal", build_policy=True)  # the policy tables built or read, like the table
    bulk.run_games(model, ["optimal", "greedy"], 10, args.seed)  # the compiled turn loaded before any timing
    print(f"simulate {model.id}: {args.games} bulk games and {args.reference} per-game games per bot, "
          f"--jobs {args.jobs}, from an empty plan cache")
    for kind, target in TARGETS.items():
        b_wall, b_cpu, b_totals = timed(model, kind, args.games, args.seed, args.jobs, "bulk")
        g_wall, g_cpu, g_totals = timed(model, kind, args.reference, args.seed, args.jobs, "game")
        b_rate, g_rate = args.games / b_wall, args.reference / g_wall
        mb, mg = statistics.fmean(b_totals), statistics.fmean(g_totals)
        sb, sg = statistics.stdev(b_totals), statistics.stdev(g_totals)
        se = (sb**2 / len(b_totals) + sg**2 / len(g_totals)) ** 0.5
        se_sd = (spread_stderr(b_totals) ** 2 + spread_stderr(g_totals) ** 2) ** 0.5  # (the tails counted)
        agree = abs(mb - mg) < 3 * se and abs(sb - sg) < 3 * se_sd
        print(f"  {kind:8} bulk     {b_rate:9.0f} games/s wall, {args.games / b_cpu:9.0f} per CPU second   "
              f"mean {mb:7.2f}  sd {sb:6.2f}")
        print(f"  {'':8} per-game {g_rate:9.0f} games/s wall, {args.reference / g_cpu:9.0f} per CPU second   "
              f"mean {mg:7.2f}  sd {sg:6.2f}")
        print(f"  {'':8} ratio bulk/per-game {b_rate / g_rate:6.1f}x wall, {(args.games / b_cpu) / (args.reference / g_cpu):6.1f}x CPU; "
              f"target >= {target:,.0f} games per CPU second: {'met' if args.games / b_cpu >= target else 'NOT met'}; "
              f"same mean and spread within 3 SE: {'yes' if agree else 'NO'}")
    print(f"  {machine.anchor('simulate')}")
    print(f"  {machine.describe(before)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
