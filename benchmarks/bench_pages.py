"""Rule pages for every bundled model in every language, timed against the 3-second target.

    python -m benchmarks.bench_pages [--repeat N] [--format html|md] [-o DIR]

Times what `rulebook pages` does for all bundled models × en, de, nl: loading the models, drawing
the diagrams (Graphviz), rendering the pages and writing the site. Measures the whole command as a
user runs it (a fresh `rulebook pages` process: start-up, imports, catalogs, templates) and, in
this process, the first (cold) and the best of N runs. The ratio to the target (below 1.0 meets it)
is taken from the slowest of the command's runs.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rulebook.interpreter import bundled_models, load_model
from rulebook.interpreter.model.frozen import LANGUAGES
from rulebook.tools.documents import pages

TARGET = 3.0  # seconds for every bundled model × 3 languages


def run_once(fmt: str, out: Path) -> tuple[float, int]:
    started = time.perf_counter()
    models = [load_model(name) for name in bundled_models()]
    files = pages.build_site(models, LANGUAGES, fmt)
    pages.write_site(files, out)
    return time.perf_counter() - started, len(models)


def run_command(fmt: str, out: Path) -> tuple[float, float]:
    """Wall and CPU time of `rulebook pages` for every bundled model, in a fresh process."""
    exe = shutil.which("rulebook")
    cmd = [exe] if exe else [sys.executable, "-m", "rulebook.tools.cli"]
    cmd += ["pages", *bundled_models(), "--format", fmt, "-o", str(out)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_pages", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best counts (default 3)")
    parser.add_argument("--format", default="html", choices=pages.FORMATS)
    parser.add_argument("-o", "--output", default=None, help="write the site here (default: a temporary folder)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.output or tmp)
        command = [run_command(args.format, out) for _ in range(max(1, args.repeat))]
        times = []
        for _ in range(max(1, args.repeat)):
            seconds, n_models = run_once(args.format, out)
            times.append(seconds)
    n_pages = n_models * len(LANGUAGES)
    worst = max(wall for wall, _ in command)
    print(f"pages: {n_models} models x {len(LANGUAGES)} languages = {n_pages} {args.format} pages")
    print(f"  rulebook pages (fresh process): wall {', '.join(f'{w:.2f}' for w, _ in command)} s; "
          f"cpu {', '.join(f'{c:.2f}' for _, c in command)} s (load average {os.getloadavg()[0]:.1f})")
    print(f"  in process: first {times[0]:.2f} s, best {min(times):.2f} s of {len(times)}")
    print(f"  {worst:.2f} s against the target of {TARGET:.1f} s: ratio {worst / TARGET:.2f}")
    return 0 if worst <= TARGET else 1

if __name__ == "__main__":
    raise SystemExit(main())
