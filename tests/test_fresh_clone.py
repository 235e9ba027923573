"""A fresh clone passes `make test`: no test needs `rulebook` on PATH, and the slow set is apart."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# a command line that starts with the installed script: ["rulebook", ...], "rulebook ..." in a shell
FROM_PATH = re.compile(r"""\[\s*["']rulebook["']\s*,|which\(\s*["']rulebook["']\s*\)|shell=True""")


def test_no_test_runs_rulebook_from_path():
    hits = [f"{p.name}:{n}" for p in sorted((ROOT / "tests").glob("*.py")) if p.name != Path(__file__).name
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if FROM_PATH.search(line)]
    assert hits == []


def test_make_test_leaves_out_the_slow_set_and_ci_runs_both():
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert '-m pytest -q -m "not slow"' in make and "-m pytest -q -m slow" in make
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert ci.index("make test") < ci.index("make test-slow")
