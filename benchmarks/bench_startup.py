"""Start-up: `rulebook --help`, `score` and `check` against `python -c "import numpy"`, in one run.

    python -m benchmarks startup [--repeat N]

Each command runs as a user runs it, in a fresh process (the installed `rulebook` script, or
`python -m rulebook.tools.cli`), interleaved with the yardstick so both see the same machine.
Targets: `--help` and `score` at most 1.2x the yardstick, `check` of one model at most 2x.
Both wall-clock and CPU time (user + system of the child) are measured; medians and ranges are
printed with the machine's load. CPU time is the steadier of the two on a busy machine.

The children run with compiled bytecode, as an installed package has it (numpy's is compiled when it
is installed): PYTHONDONTWRITEBYTECODE is dropped for them and their bytecode goes to a temporary
folder (PYTHONPYCACHEPREFIX), never into the source tree. Without bytecode every run would compile
rulebook's sources again (~50 ms), which no installed copy does.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from . import machine

TARGETS = {"--help": 1.2, "score": 1.2, "check": 2.0}


def _rulebook() -> list[str]:
    exe = shutil.which("rulebook")
    return [exe] if exe else [sys.executable, "-m", "rulebook.tools.cli"]


COMMANDS = {
    "import numpy": [sys.executable, "-c", "import numpy"],
    "--help": _rulebook() + ["--help"],
    "score": _rulebook() + ["score", "yahtzee", "--dice", "2,2,4,3,4", "--sheet", '{"chance": 20}'],
    "check": _rulebook() + ["check", "yahtzee"],
}


_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
_ENV["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="rulebook-bench-pyc-")


def run(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of the command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks startup", description=__doc__.strip().splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9, help="runs of each command, interleaved (default 9)")
    args = ap.parse_args(argv)
    before = machine.load()
    for cmd in COMMANDS.values():  # warm-up: caches (parser, validated models) and the file system
        run(cmd)
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in COMMANDS}
    for _ in range(max(1, args.repeat)):
        for name, cmd in COMMANDS.items():
            times[name].append(run(cmd))
    base_wall = statistics.median(w for w, _ in times["import numpy"])
    base_cpu = statistics.median(c for _, c in times["import numpy"])
    print(f"start-up, {max(1, args.repeat)} interleaved runs each (median, range), fresh processes "
          f"with compiled bytecode (as installed), caches warm")
    yardstick = 'python -c "import numpy"'
    print(f"  {yardstick:28} wall {base_wall * 1000:6.0f} ms "
          f"({min(w for w, _ in times['import numpy']) * 1000:.0f}-{max(w for w, _ in times['import numpy']) * 1000:.0f})"
          f"   cpu {base_cpu * 1000:6.0f} ms   (the yardstick)")
    status = 0
    for name, target in TARGETS.items():
        walls, cpus = [w for w, _ in times[name]], [c for _, c in times[name]]
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        r_wall, r_cpu = wall / base_wall, cpu / base_cpu
        met = r_wall <= target and r_cpu <= target
        status |= not met
        print(f"  {'rulebook ' + name:28} wall {wall * 1000:6.0f} ms ({min(walls) * 1000:.0f}-{max(walls) * 1000:.0f})"
              f"   cpu {cpu * 1000:6.0f} ms   ratio wall {r_wall:.2f}x, cpu {r_cpu:.2f}x "
              f"(target <= {target}x: {'met' if met else 'NOT met'})")
    print(f"  {machine.describe(before)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
