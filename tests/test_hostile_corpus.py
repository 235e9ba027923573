"""Every command over a corpus of hostile inputs (tests/hostile.py), in subprocesses under a memory
cap and a time limit: no traceback, no hang, no write outside the named output, exit code 0 or 2.

The cases are split into batches, one test each (`make test` runs them on its two pytest-xdist
workers); each batch is one Python process with its address space capped (RLIMIT_AS), so a model
that would allocate gigabytes fails with MemoryError (a traceback: a failure) instead of taking the
machine. Time limits are hang guards only.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hostile import corpus  # noqa: E402

MEMORY_CAP = 3 * 2**30  # bytes of address space per batch process (numpy and the interpreter need ~1 GB)
BATCHES = 12
BATCH_TIMEOUT = 1800  # seconds: a hang guard for a whole batch, not a speed target
RUNNER = Path(__file__).resolve().parent / "hostile_run.py"


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


@pytest.fixture(scope="session")
def hostile(tmp_path_factory):
    """(the folder, the cases, the batches): the inputs written once per test process."""
    base = tmp_path_factory.mktemp("hostile")
    cases = corpus(base / "inputs")
    plain = [c for c in cases if not c.cache]
    batches = [plain[i::BATCHES] for i in range(BATCHES)]
    batches[0] += [c for c in cases if c.cache]  # one batch fills a cache for them all (numba compiles once)
    return base, cases, batches


def run_batch(base: Path, batch: list, i: int):
    """Batch `i` in a process of its own under the memory cap: (its stdout, stderr, exit code)."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PYTHONHASHSEED": "0", "RULEBOOK_CACHE": str(base / "cache"), "COLUMNS": "100", "TERM": "dumb",
           "RULEBOOK_KEY_FILE": str(base / "key" / "cache.key")}  # the cache key: outside the watched folders
    root, home = base / f"run{i}", base / f"home{i}"
    root.mkdir()
    home.mkdir()
    case_file = base / f"cases{i}.json"
    case_file.write_text(json.dumps([asdict(c) for c in batch]))
    batch_env = {**env, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
                 "XDG_DATA_HOME": str(home / ".local" / "share"), "XDG_CONFIG_HOME": str(home / ".config")}
    try:
        proc = subprocess.run([sys.executable, str(RUNNER), str(case_file), str(base / "inputs"), str(root)],
                              capture_output=True, text=True, env=batch_env, timeout=BATCH_TIMEOUT,
                              preexec_fn=_cap_memory, stdin=subprocess.DEVNULL)
        return proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return out, "timeout", None


def test_the_corpus_is_large_and_varied(hostile):
    _, cases, batches = hostile
    kinds = Counter(c.kind for c in cases)
    assert len(cases) >= 200, len(cases)
    assert len(kinds) >= 15, kinds
    assert sum(len(c.commands) for c in cases) >= 800
    assert sorted(c.name for b in batches for c in b) == sorted(c.name for c in cases)  # each case in one batch


@pytest.mark.parametrize("i", range(BATCHES))
def test_every_command_on_every_hostile_input_ends_in_one_line(hostile, i):
    base, _, batches = hostile
    batch = batches[i]
    problems = []
    out, err, rc = run_batch(base, batch, i)
    records = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    started = [r["start"] for r in records if "start" in r]
    finished = [r for r in records if "argv" in r]
    seen = len(finished)
    if rc != 0:
        last = started[-1] if started else "?"
        problems.append(f"batch ended with {rc} (case {last} last started): {err[-1500:]}")
    for r in finished:
        what = f"{r['case']}: rulebook {' '.join(r['argv'])}"
        if r.get("traceback"):
            problems.append(f"{what}: traceback\n{r['traceback']}")
        elif r.get("hang"):
            problems.append(f"{what}: still running after the hang guard")
        elif r["code"] not in (0, 2):
            problems.append(f"{what}: exit code {r['code']}: {r['stderr']}")
        if r.get("writes"):
            problems.append(f"{what}: wrote outside its named output: {r['writes']}")
        if r.get("believed"):
            problems.append(f"{what}: a forged cache was believed: {r['believed']} in its output")
        if r.get("injected"):
            problems.append(f"{what}: markup from the model reached {r['injected']}")
        if r.get("longest_line", 0) > 2000:
            problems.append(f"{what}: a line of {r['longest_line']:,} characters (an input echoed whole)")
        if r.get("leaked"):
            problems.append(f"{what}: control characters {r['leaked']} reached the output")
        lines = r["stderr"].splitlines()[:-1] if len(r["stderr"]) >= 3000 else r["stderr"].splitlines()
        if r["code"] == 2 and not all(": error: " in line or line.startswith(("usage: ", "rulebook: note: "))
                                      for line in lines):
            problems.append(f"{what}: the refusal is not one error line per problem: {r['stderr'][:300]!r}")
    assert seen == sum(len(c.commands) for c in batch), "some commands never ran"
    assert not problems, f"{len(problems)} problems:\n" + "\n\n".join(problems[:40])
