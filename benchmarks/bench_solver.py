"""Solver speed and memory: the full Yahtzee table, and one optimal decision from a loaded table.

Targets (issue: optimal computer opponents): the whole table in ≤ 10 s with ≤ 2 GB of memory on the
2-core machine; one decision of the optimal bot in ≤ 100 µs. The baseline, measured in the same run,
is the same backward induction done state by state (the within-turn dynamic programming of each
state computed on its own, as a straightforward implementation would), timed on a sample of states
and scaled to the whole table.

Run: python -m benchmarks.bench_solver [--model yahtzee] [--option joker=free]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

TARGET_SECONDS, TARGET_MB, TARGET_DECISION_US = 10.0, 2048, 100.0


def _solve_in_child(model: str, options: list[str]) -> dict:
    """Solve in a fresh process (no cache) so peak memory is the solver's own."""
    code = (
        "import json, resource, sys, time\n"
        "from rulebook.interpreter import load_model\n"
        "from rulebook.interpreter.solver import solve\n"
        "opts = dict(o.split('=', 1) for o in sys.argv[2:])\n"
        "m = load_model(sys.argv[1], opts)\n"
        "t = time.perf_counter(); table = solve(m); s = time.perf_counter() - t\n"
        "print(json.dumps({'seconds': s, 'states': table.states, 'expected': table.expected_score,\n"
        "                  'peak_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))\n")
    out = subprocess.run([sys.executable, "-c", code, model, *options], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _baseline_per_state(model_name: str, options: dict, sample: int = 300) -> float:
    """Seconds per state when every state's turn is computed on its own (no batching)."""
    from rulebook.interpreter import load_model
    from rulebook.interpreter.solver import Space
    space = Space(load_model(model_name, options))
    V = np.zeros((1 << space.n) * space.F)
    masks, feats = space.level(space.n // 2)
    pick = np.random.default_rng(0).choice(len(masks), size=min(sample, len(masks)), replace=False)
    start = time.perf_counter()
    for i in pick:
        W = space.write_values(masks[i:i + 1], feats[i:i + 1], V)
        space.tt.start_value(W, space.rerolls)
    return (time.perf_counter() - start) / len(pick)


def _decision_us(model_name: str, options: dict, decisions: int = 2000) -> tuple[float, float]:
    """Mean µs per optimal decision over many game positions (table already loaded)."""
    from rulebook.interpreter import load_model
    from rulebook.interpreter.actions import Roll
    from rulebook.interpreter.solver import OptimalBot
    from rulebook.interpreter.state import CHANCE, GameState
    model = load_model(model_name, options)
    bot = OptimalBot(model)
    rng = random.Random(5)
    times, first = [], []
    while len(times) < decisions:
        state = GameState(model, ["cpu"])
        while not state.is_terminal() and len(times) < decisions:
            if state.current_player() == CHANCE:
                state.apply(Roll(tuple(sorted(rng.randint(1, model.faces) for _ in range(state.dice_to_roll())))))
                continue
            fresh = state.roll_number == 1 and state.step().kind == "keep"
            t = time.perf_counter()
            action = bot.choose(state)
            dt = time.perf_counter() - t
            times.append(dt)
            if fresh:
                first.append(dt)
            state.apply(action)
    return 1e6 * sum(times) / len(times), 1e6 * sum(first) / max(1, len(first))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_solver")
    ap.add_argument("--model", default="yahtzee")
    ap.add_argument("--option", action="append", default=[])
    args = ap.parse_args(argv)
    options = dict(o.split("=", 1) for o in args.option)
    os.environ.setdefault("RULEBOOK_CACHE", tempfile.mkdtemp(prefix="rulebook-bench-"))
    solved = _solve_in_child(args.model, args.option)
    per_state = _baseline_per_state(args.model, options)
    baseline = per_state * solved["states"]
    print(f"solver: {args.model} {options or ''} expected score {solved['expected']:.4f}, {solved['states']:,} states")
    print(f"  full table     {solved['seconds']:8.2f} s   (target {TARGET_SECONDS:.0f} s: {TARGET_SECONDS / solved['seconds']:.2f}x of target)")
    print(f"  state by state {baseline:8.2f} s   (baseline, {per_state * 1e6:.0f} µs/state × states; batched is {baseline / solved['seconds']:.1f}x faster)")
    print(f"  peak memory    {solved['peak_mb']:8.0f} MB  (target {TARGET_MB} MB: {TARGET_MB / solved['peak_mb']:.2f}x of target)")
    # decisions need the table: solve once more into the cache used by the bot
    from rulebook.interpreter import load_model
    from rulebook.interpreter.solver import load_or_solve
    load_or_solve(load_model(args.model, options))
    mean_us, first_us = _decision_us(args.model, options)
    print(f"  one decision   {mean_us:8.0f} µs  (mean; first decision of a turn, which plans it: {first_us:.0f} µs; "
          f"target {TARGET_DECISION_US:.0f} µs: {TARGET_DECISION_US / mean_us:.2f}x of target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
