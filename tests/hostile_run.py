"""Run a batch of hostile cases in this process (started by tests/test_hostile_corpus.py under a memory cap).

    python tests/hostile_run.py CASES.json INPUTS RUNROOT

For each case: a fresh run folder (inputs linked in, decoys beside them), every command line of the
case through `rulebook.tools.cli.main` with its stdin, timers as hang guards, and one JSON line
per command on stdout: exit code, any traceback, control characters leaked into the output, and
files created, changed or removed anywhere but the named outputs.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hostile import setup_run_folder  # noqa: E402

# Hang guards: the CPU seconds one command may use (a busy machine does not make a command use more),
# and the wall seconds for one that waits without working (on a pipe or a lock).
HANG_SECONDS = int(os.environ.get("HOSTILE_HANG_SECONDS", "60"))
HANG_WALL_SECONDS = 10 * HANG_SECONDS
CONTROL = set(chr(c) for c in range(32) if chr(c) not in "\n\t\r") | {"\x7f"} | set(chr(c) for c in range(0x80, 0xa0))


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def snapshot(*roots: Path) -> dict[str, tuple]:
    """Every file and folder under the roots (links not followed) with its type, size and mtime."""
    out = {}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            for name in dirnames + filenames:
                p = Path(dirpath) / name
                st = p.lstat()
                out[str(p)] = (st.st_mode >> 12, st.st_size, st.st_mtime_ns)
    return out


def prime(case: dict, run: Path, root: Path) -> dict[str, str]:
    """A cache folder of the case's own: a copy of one filled by real runs (hostile_two.PRIME, once per
    batch: numba compiles there), planted with the case's recipe; the environment its commands run in."""
    import shutil
    import hostile_two
    from hostile import MINIMAL
    primed = root / "primed.cache"
    if not primed.exists():
        where = root / "priming"
        where.mkdir()
        (where / "model.yaml").write_text(MINIMAL, encoding="utf-8")
        primed.mkdir(mode=0o700)
        env = {**os.environ, "RULEBOOK_CACHE": str(primed)}
        for argv in hostile_two.PRIME:
            argv = [a.replace("{elsewhere}", str(where / "site")) for a in argv]
            subprocess.run([sys.executable, "-m", "rulebook.interpreter", *argv], cwd=where, env=env,
                           capture_output=True, stdin=subprocess.DEVNULL, timeout=900)  # setup, not a hang guard
    cache = root / (run.name + ".cache")
    shutil.copytree(primed, cache, symlinks=True)
    cache.chmod(0o700)
    hostile_two.plant(case["cache"], cache, run)
    return {**os.environ, "RULEBOOK_CACHE": str(cache)}


def _cap_cpu() -> None:
    import resource
    resource.setrlimit(resource.RLIMIT_CPU, (HANG_SECONDS, HANG_SECONDS + 5))  # SIGXCPU ends it


def run_fresh(argv: list[str], run: Path, env: dict, stdin: str) -> tuple[int | None, str, str, bool]:
    """One command in a new process (what a new run meets in the cache): (code, stdout, stderr, hang)."""
    try:
        proc = subprocess.run([sys.executable, "-m", "rulebook.interpreter", *argv], cwd=run, env=env, input=stdin,
                              capture_output=True, text=True, timeout=HANG_WALL_SECONDS, preexec_fn=_cap_cpu)
    except subprocess.TimeoutExpired:
        return None, "", "", True
    if proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return None, proc.stdout, proc.stderr, True
    return proc.returncode, proc.stdout, proc.stderr, False


def run_case(case: dict, inputs: Path, root: Path, home: Path) -> list[dict]:
    from rulebook.interpreter.model.limits import DEFAULT, set_limits
    from rulebook.tools.cli import main
    run = root / case["name"].replace("/", "_")
    run.mkdir(parents=True)
    setup_run_folder(run, inputs)
    env = prime(case, run, root) if case.get("cache") else None
    allowed = {str(run / o) for o in case["outputs"]}
    watch = (run, home)
    results = []
    for argv in case["commands"]:
        before = snapshot(*watch)
        set_limits(DEFAULT)
        out, err = io.StringIO(), io.StringIO()
        record = {"case": case["name"], "kind": case["kind"], "argv": [a[:80] for a in argv]}
        old_stdin, old_cwd = sys.stdin, os.getcwd()
        sys.stdin = io.StringIO(case["stdin"])
        os.chdir(run)
        if env is None:
            signal.setitimer(signal.ITIMER_PROF, HANG_SECONDS)
            signal.alarm(HANG_WALL_SECONDS)
        started, cpu = time.perf_counter(), time.process_time()
        try:
            if env is not None:
                code, o, e, hang = run_fresh(list(argv), run, env, case["stdin"])
                out.write(o)
                err.write(e)
                if hang:
                    record["hang"] = True
            else:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    try:
                        code = main(list(argv))
                    except SystemExit as exc:
                        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        except Hang:
            code, record["hang"] = None, True
        except BaseException:  # noqa: BLE001 - the point of the corpus
            code, record["traceback"] = None, traceback.format_exc()[-3000:]
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.alarm(0)
            sys.stdin = old_stdin
            os.chdir(old_cwd)
        record["code"] = code
        record["seconds"] = round(time.perf_counter() - started, 2)
        record["cpu"] = round(time.process_time() - cpu, 2)
        text = out.getvalue() + err.getvalue()
        if "Traceback (most recent call last)" in text:
            record["traceback"] = text[-3000:]
        believed = [text[max(m.start() - 60, 0):m.end() + 10] for m in (re.search(p, text) for p in case.get("forbidden", []))
                    if m]
        if believed:
            record["believed"] = believed
        leaked = sorted({f"U+{ord(c):04X}" for c in text if c in CONTROL})
        if leaked:
            record["leaked"] = leaked
        record["stderr"] = err.getvalue()[:3000]
        record["longest_line"] = max((len(line) for line in text.splitlines()), default=0)
        injected = _injected(run, case["outputs"])
        if injected:
            record["injected"] = injected
        after = snapshot(*watch)
        changed = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p)
                         and not any(p == a or p.startswith(a + os.sep) for a in allowed))
        if changed:
            record["writes"] = changed[:10]
        for out_name in case["outputs"]:  # the named outputs are removed, so the next command starts clean
            target = run / out_name
            if target.is_dir() and not target.is_symlink():
                import shutil
                shutil.rmtree(target)
            elif target.exists() or target.is_symlink():
                target.unlink()
        results.append(record)
        print(json.dumps(record), flush=True)
    return results


# what an output must never carry from a model: an SVG event-handler attribute, a Markdown link whose
# bracket is not escaped (an even number of backslashes before it) to script
_MD_LINK = re.compile(r"(?<!\\)(?:\\\\)*\]\(\s*javascript:", re.IGNORECASE)


def _svg_handlers(text: str) -> bool:
    import xml.etree.ElementTree as ET
    try:
        root = ET.fromstring(text)
    except ET.ParseError:
        return True  # an SVG that does not parse: its escaping broke
    return any(name.lower().startswith("on") for el in root.iter() for name in el.attrib)


def _injected(run: Path, outputs: list[str]) -> list[str]:
    """The named outputs (files, or the files of a folder) that carry injected markup."""
    found = []
    for name in outputs:
        target = run / name
        files = [target] if target.is_file() and not target.is_symlink() else \
            [p for p in target.rglob("*") if p.is_file() and not p.is_symlink()] if target.is_dir() else []
        for f in files:
            text = f.read_text(encoding="utf-8", errors="replace") if f.suffix in (".svg", ".md") else ""
            if (f.suffix == ".svg" and _svg_handlers(text)) or (f.suffix == ".md" and _MD_LINK.search(text)):
                found.append(str(f.relative_to(run)))
    return found


def main_() -> None:
    cases_file, inputs, root = (Path(a) for a in sys.argv[1:4])
    home = Path(os.environ["HOME"])
    signal.signal(signal.SIGALRM, _alarm)
    signal.signal(signal.SIGPROF, _alarm)
    for case in json.loads(cases_file.read_text()):
        print(json.dumps({"start": case["name"]}), flush=True)
        run_case(case, inputs, root, home)


if __name__ == "__main__":
    main_()
