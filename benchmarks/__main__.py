"""`python -m benchmarks [engine|solver|pages|all] [ARGS…]`: run the speed and memory benchmarks.

With no name, all three run one after the other with their defaults. Each prints its figures with
their ratio to the target (or to the baseline measured in the same run).
"""
import sys

from . import bench_engine, bench_pages, bench_solver

BENCHES = {"engine": bench_engine.main, "solver": bench_solver.main, "pages": bench_pages.main}


def main(argv: list[str]) -> int:
    if argv and argv[0] in BENCHES:
        return BENCHES[argv[0]](argv[1:])
    if argv and argv[0] != "all":
        return bench_engine.main(argv)  # engine options given directly, as before
    status = 0
    for name, run in BENCHES.items():
        print(f"== {name}", flush=True)
        status |= run([]) or 0
    return status


raise SystemExit(main(sys.argv[1:]))
