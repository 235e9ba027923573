"""Solver speed and memory: the full Yahtzee table, and one optimal decision from a loaded table.

Targets: the whole Yahtzee table in ≤ 1.5 s on 2 cores (Yatzy ≤ 4 s) with ≤ 2 GB of memory; one
decision of the optimal bot in ≤ 100 µs. The baseline, measured in the same run, is the same
backward induction done state by state (the within-turn dynamic programming of each state computed
on its own, as a straightforward implementation would), timed on a sample of states and scaled to
the whole table, and printed as a ratio. The time target is judged on CPU seconds (the solving
process and its workers) divided by the cores used: what idle cores would take, which a machine
shared with other work cannot show in wall time. The machine's load is printed with the figures.

The first `rulebook solve` in a new cache against one with the kernel cached is printed as a ratio
(issue 26: at most 2x wall): with the kernel the install compiled ahead of time (interpreter/solver/
shipped.py), if this install has one, and with the kernel numba compiles at use (RULEBOOK_KERNEL=jit).

Run: python -m benchmarks.bench_solver [--model yahtzee] [--option joker=free] [--jobs 2] [--kernel numpy|jit]
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

from . import machine

TARGET_SECONDS = {"yahtzee": 1.5, "yatzy": 4.0}
QUIET_BASELINE: dict[str, float] = {}  # the 54 s reference is not this state-by-state baseline
TARGET_MB, TARGET_DECISION_US, TARGET_STRONG_US = 2048, 100.0, 5000.0


def _solve_in_child(model: str, options: list[str], jobs: int = 1, kernel: str | None = None) -> dict:
    """Solve in a fresh process (no table cache) so peak memory is the solver's own.

    CPU seconds are split: before the solve (interpreter start, imports, model) and the solve itself
    (compiling or loading the kernel included; the main process and its workers)."""
    code = (
        "import json, resource, sys, time\n"
        "def cpu():\n"
        "    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime\n"
        "from rulebook.interpreter import load_model\nfrom rulebook.interpreter.solver import kernel\n"
        "from rulebook.interpreter.solver.solve import solve, Limits\n"
        "opts = dict(o.split('=', 1) for o in sys.argv[3:])\n"
        "m = load_model(sys.argv[1], opts)\n"
        "c0 = cpu(); t = time.perf_counter(); name = kernel.name(); k = time.perf_counter() - t; ck = cpu() - c0\n"
        "table = solve(m, limits=Limits(jobs=int(sys.argv[2]))); s = time.perf_counter() - t\n"
        "print(json.dumps({'seconds': s, 'kernel_seconds': k, 'kernel': name, 'states': table.states,\n"
        "                  'expected': table.expected_score, 'setup_cpu': c0, 'kernel_cpu': ck, 'cpu': cpu(),\n"
        "                  'peak_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))\n")
    env = dict(os.environ)
    if kernel:
        env["RULEBOOK_KERNEL"] = kernel
    out = subprocess.run([sys.executable, "-c", code, model, str(jobs), *options], capture_output=True, text=True,
                         check=True, env=env)
    return json.loads(out.stdout)


def _cli_solves(model: str, options: list[str], jobs: int, kernel: str | None = None) -> dict[str, dict]:
    """`rulebook solve MODEL` as a user runs it, in a new empty cache folder (mode 700): the first solve
    (the kernel the install compiled, or numba's compiled in the background while the model loads), a
    warm one (the kernel cached, the table not) and one with the table cached. Each: wall seconds, CPU seconds of the command and its
    children (the background compile and the workers included), and the load before and after."""
    env = dict(os.environ, RULEBOOK_CACHE=tempfile.mkdtemp(prefix="rulebook-first-"))
    os.chmod(env["RULEBOOK_CACHE"], 0o700)
    if kernel:
        env["RULEBOOK_KERNEL"] = kernel
    cmd = [sys.executable, "-m", "rulebook.interpreter", "solve", model, "--jobs", str(jobs),
           *(x for o in options for x in ("-O", o))]
    out = {}
    for label in ("first", "warm", "cached"):
        if label == "warm":  # the table goes, numba's compiled kernel stays
            for f in os.listdir(env["RULEBOOK_CACHE"]):
                if f.startswith(f"{model}-") and f.endswith((".npy", ".json")):
                    os.unlink(os.path.join(env["RULEBOOK_CACHE"], f))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        load0, t = os.getloadavg()[0], time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        out[label] = {"wall": wall, "cpu": cpu, "load": (load0, os.getloadavg()[0])}
    return out


def _baseline_per_state(model_name: str, options: dict, sample: int = 300) -> float:
    """Seconds per state when every state's turn is computed on its own (no batching)."""
    from rulebook.interpreter import load_model
    from rulebook.interpreter.solver.space import Space
    space = Space(load_model(model_name, options))
    V = np.zeros((1 << space.n) * space.F)
    masks, feats = space.level(space.n // 2)
    pick = np.random.default_rng(0).choice(len(masks), size=min(sample, len(masks)), replace=False)
    start = time.perf_counter()
    for i in pick:
        W = space.write_values(masks[i:i + 1], feats[i:i + 1], V)
        space.tt.start_value(W, space.rerolls)
    return (time.perf_counter() - start) / len(pick)


def _decision_us(model_name: str, options: dict, decisions: int = 2000,
                 kind: str = "optimal") -> tuple[float, float, float]:
    """Mean µs per optimal decision over many game positions (table already loaded)."""
    from rulebook.interpreter import load_model
    from rulebook.interpreter.engine.actions import Roll
    from rulebook.interpreter.players.optimal import OptimalBot
    from rulebook.interpreter.engine.state import CHANCE, GameState
    model = load_model(model_name, options)
    if kind == "strong":
        from rulebook.interpreter.players.strong import StrongBot
        bot = StrongBot(model)
    else:
        bot = OptimalBot(model)
    rng = random.Random(5)
    warm = GameState(model, ["cpu"])  # the first decision compiles (or loads) the planner: timed on its own
    warm.apply(Roll(tuple(sorted(rng.randint(1, model.faces) for _ in range(warm.dice_to_roll())))))
    t = time.process_time()
    bot.choose(warm)
    very_first = time.process_time() - t
    times, first = [], []
    while len(times) < decisions:
        state = GameState(model, ["cpu"])
        while not state.is_terminal() and len(times) < decisions:
            if state.current_player() == CHANCE:
                state.apply(Roll(tuple(sorted(rng.randint(1, model.faces) for _ in range(state.dice_to_roll())))))
                continue
            fresh = state.roll_number == 1 and state.step().kind == "keep"
            t = time.process_time()  # CPU time: other processes on a busy machine do not count
            action = bot.choose(state)
            dt = time.process_time() - t
            times.append(dt)
            if fresh:
                first.append(dt)
            state.apply(action)
    return 1e6 * sum(times) / len(times), 1e6 * sum(first) / max(1, len(first)), very_first


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_solver")
    ap.add_argument("--model", default="yahtzee")
    ap.add_argument("--option", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--kernel", choices=("numba", "numpy", "jit"),
                    help="the solver's kernel (default: numba if installed, the one compiled at install if there is one; "
                         "jit: numba compiles it at use)")
    ap.add_argument("--strong-only", action="store_true",
                    help="only time the strong bot's decisions (for models whose exact table is out of reach)")
    args = ap.parse_args(argv)
    options = dict(o.split("=", 1) for o in args.option)
    os.environ.setdefault("RULEBOOK_CACHE", tempfile.mkdtemp(prefix="rulebook-bench-"))
    if args.strong_only:
        print(f"machine load (1, 5, 15 min): {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
        mean_us, first_us, _ = _decision_us(args.model, options, 1000, "strong")
        print(f"strong bot: {args.model} {options or ''}")
        print(f"  one decision   {mean_us:8.0f} µs CPU (mean; first decision of a turn, which plans it: {first_us:.0f} µs; "
              f"target {TARGET_STRONG_US:.0f} µs: {TARGET_STRONG_US / mean_us:.2f}x of target)")
        return 0
    print(f"machine load (1, 5, 15 min): {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    # the first solve compiles the kernel into the (fresh) cache (unless the install compiled it); the others load it
    from rulebook.interpreter.solver import shipped
    ahead = args.kernel in (None, "numba") and shipped.shipped_here()
    first = _solve_in_child(args.model, args.option, args.jobs, args.kernel)
    runs = {jobs: _solve_in_child(args.model, args.option, jobs, args.kernel) for jobs in sorted({1, args.jobs})}
    solved = runs[args.jobs]
    per_state = _baseline_per_state(args.model, options)
    baseline = per_state * solved["states"]
    target = TARGET_SECONDS.get(args.model)
    print(f"solver: {args.model} {options or ''} expected score {solved['expected']:.4f}, {solved['states']:,} states, "
          f"{solved['kernel']} kernel")
    for label, jobs, run in [("first solve", args.jobs, first)] + [("full table", j, r) for j, r in runs.items()]:
        line = (f"  {label:<14} {run['seconds']:8.2f} s   on {jobs} core{'s' * (jobs > 1)} (kernel "
                f"{'compiled' if label == 'first solve' and not ahead else 'loaded'} in {run['kernel_seconds']:.2f} s of it): "
                f"{baseline / run['seconds']:.1f}x the baseline")
        if target and args.model in QUIET_BASELINE:
            need = QUIET_BASELINE[args.model] / target
            line += f" (target {target} s ≈ {need:.0f}x: {baseline / run['seconds'] / need:.2f} of target)"
        if target:
            # on a busy machine the wall time says little: what idle cores would take for the solve is
            # the kernel's compiling or loading (one core) plus the rest of its CPU seconds spread over
            # the cores; the process's start (interpreter, imports, model) is shown beside it
            rest = run["cpu"] - run["setup_cpu"] - run["kernel_cpu"]
            quiet = run["kernel_cpu"] + rest / jobs
            line += (f"; CPU {run['kernel_cpu']:.2f} s kernel + {rest:.2f} s solve (+ {run['setup_cpu']:.2f} s "
                     f"process start), so ≈ {quiet:.2f} s on {jobs} idle core{'s' * (jobs > 1)} "
                     f"(target {target} s: {target / quiet:.2f} of target; {quiet + run['setup_cpu']:.2f} s with the start)")
        print(line)
    print(f"  state by state {baseline:8.2f} s   (baseline, {per_state * 1e6:.0f} µs/state × states)")
    kernels = [(None, "kernel compiled at install"), ("jit", "kernel compiled at use")] if ahead else [(args.kernel, "")]
    cli = {name: _cli_solves(args.model, args.option, args.jobs, name) for name, _ in kernels}
    for name, how in kernels:
        for label, what in (("first", "in a new cache"), ("warm", "kernel cached, table not"), ("cached", "table cached")):
            run = cli[name][label]
            print(f"  rulebook solve {args.model}{' (' + how + ')' if how else ''}, {what}: {run['wall']:.2f} s wall, "
                  f"{run['cpu']:.2f} s CPU (load {run['load'][0]:.2f} -> {run['load'][1]:.2f})")
    warm = cli[kernels[-1][0]]["warm"]  # the reference: a solve whose kernel numba compiled before, into the cache
    for name, how in kernels:
        first = cli[name]["first"]
        wall_ratio, cpu_ratio = first["wall"] / warm["wall"], first["cpu"] / warm["cpu"]
        print(f"  first solve in a new cache{' (' + how + ')' if how else ''} / a solve with numba's kernel cached: "
              f"{wall_ratio:.1f}x wall, {cpu_ratio:.1f}x CPU (target <= 2x wall, issue 26: "
              f"{'met' if wall_ratio <= 2 else 'NOT met'}{'' if name is None and ahead else '; wall needs a free core for the background compile'})")
    print(f"  {machine.anchor('table')}")
    print(f"  peak memory    {solved['peak_mb']:8.0f} MB  (the main process; each worker holds a chunk)   (target {TARGET_MB} MB: {TARGET_MB / solved['peak_mb']:.2f}x of target)")
    print(f"machine load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    # decisions need the table: solve once more into the cache used by the bot
    from rulebook.interpreter import load_model
    from rulebook.interpreter.solver.solve import load_or_solve
    load_or_solve(load_model(args.model, options))
    mean_us, first_us, very_first = _decision_us(args.model, options)
    print(f"  one decision   {mean_us:8.0f} µs  (mean; first decision of a turn, which plans it: {first_us:.0f} µs; "
          f"target {TARGET_DECISION_US:.0f} µs: {TARGET_DECISION_US / mean_us:.2f}x of target; the very first, "
          f"which compiles or loads the planner, {very_first:.2f} s CPU, not in the mean)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
