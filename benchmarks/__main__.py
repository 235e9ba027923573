"""`python -m benchmarks [engine|simulate|decision|startup|solver|pages|cluster|win|all] [ARGS…]`: the speed and memory benchmarks.

With no name, all run one after the other with their defaults. Each prints its figures with
their ratio to the target (or to the baseline measured in the same run).
"""
import sys

import importlib

BENCHES = {name: f"bench_{name}" for name in ("engine", "simulate", "decision", "startup", "solver", "pages", "cluster", "win")}


def _run(name: str, argv: list[str]) -> int:
    return importlib.import_module(f".{BENCHES[name]}", __package__).main(argv) or 0


def main(argv: list[str]) -> int:
    if argv and argv[0] in BENCHES:
        return _run(argv[0], argv[1:])
    if argv and argv[0] != "all":
        return _run("engine", argv)  # engine options given directly, as before
    status = 0
    for name in BENCHES:
        print(f"== {name}", flush=True)
        status |= _run(name, [])
    return status


raise SystemExit(main(sys.argv[1:]))
