"""`python -m benchmarks cluster [--games N] [--workers W]`: simulate on a Dask LocalCluster against one
local process (docs/research.md): wall time, games per second, CPU seconds of the command and of the
workers, and whether every run printed the very same numbers. Needs the extra [dask]."""
from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

from . import machine


def _cpu_self() -> float:
    import resource as r
    use = r.getrusage(r.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def _children() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks cluster")
    p.add_argument("--games", type=int, default=200_000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--model", default="yahtzee")
    args = p.parse_args(argv)
    from dask.distributed import Client, LocalCluster
    before = machine.load()
    # (its dashboard on a free port: None still starts one on 8787, dask/distributed#8136)
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    client = Client(cluster.scheduler_address)
    cmd = [sys.executable, "-m", "rulebook.interpreter", "simulate", args.model, "--games", str(args.games), "--json"]
    runs = [("local, --jobs 1", ["--jobs", "1"]),
            (f"--scheduler, {args.workers} workers, first run", ["--scheduler", cluster.scheduler_address]),
            (f"--scheduler, {args.workers} workers, again", ["--scheduler", cluster.scheduler_address])]
    outputs = []
    try:
        for name, extra in runs:
            c0, w0, t0 = _children(), sum(client.run(_cpu_self).values()), time.perf_counter()
            done = subprocess.run(cmd + extra, capture_output=True, text=True)
            wall = time.perf_counter() - t0
            command, workers = _children() - c0, sum(client.run(_cpu_self).values()) - w0
            if done.returncode:
                print(done.stderr, file=sys.stderr)
                return 1
            outputs.append(done.stdout)
            print(f"{name}: {wall:.1f} s wall, {args.games / wall:,.0f} games/s; CPU s: command {command:.1f}, "
                  f"workers {workers:.1f}", flush=True)
    finally:
        client.close()
        cluster.close()
    same = all(o == outputs[0] for o in outputs)
    print("the same numbers in every run:", same)
    print(machine.describe(before))
    return 0 if same else 1
