"""Ctrl-C and SIGTERM end a run cleanly: one line, no worker tracebacks; a solve resumes."""
from __future__ import annotations

import os
import signal
import subprocess
import sys


def _run_and_signal(args, sig, tmp_path, wait_for: str):
    env = {**os.environ, "RULEBOOK_CACHE": str(tmp_path / "cache"), "RULEBOOK_KEY_FILE": str(tmp_path / "key"),
           "RULEBOOK_PROGRESS_SECONDS": "0", "RULEBOOK_PROGRESS": "lines"}
    # Ctrl-C reaches a program whose SIGINT is not ignored: a shell starts a background job (`cmd &`) with
    # SIGINT ignored, and a test run started that way would hand that on (a fresh clone's CI run waited 600 s)
    proc = subprocess.Popen([sys.executable, "-m", "rulebook.interpreter", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = []
    for line in proc.stderr:  # an event: the run reports progress, so its workers are at work
        seen.append(line)
        if wait_for in line:
            break
    os.killpg(proc.pid, sig)  # the whole group, as a terminal's Ctrl-C does
    out, err = proc.communicate(timeout=600)
    return proc.returncode, "".join(seen) + err


def test_ctrl_c_during_a_simulation_with_workers_prints_one_line(tmp_path):
    code, err = _run_and_signal(["simulate", "yacht", "--games", "200000", "--jobs", "2", "--engine", "game",
                                 "--players", "a:greedy", "--lang", "en"], signal.SIGINT, tmp_path, "games: ")
    assert code == 130 and "Traceback" not in err and err.rstrip().endswith("rulebook: interrupted"), err[-2000:]


def test_sigterm_during_a_simulation_ends_cleanly(tmp_path):
    code, err = _run_and_signal(["simulate", "yacht", "--games", "200000", "--jobs", "2", "--engine", "game",
                                 "--players", "a:greedy", "--lang", "en"], signal.SIGTERM, tmp_path, "games: ")
    assert code == 130 and "Traceback" not in err, err[-2000:]


def test_a_sigtermed_solve_leaves_a_checkpoint_and_no_headerless_table(tmp_path):
    args = ["solve", "generala", "-O", "served_generala_wins=false", "--jobs", "1", "--lang", "en"]
    code, err = _run_and_signal(args, signal.SIGTERM, tmp_path, "%)")
    assert "Traceback" not in err, err[-2000:]
    cache = tmp_path / "cache"
    tables = [p for p in cache.glob("generala-*.npy") if ".partial" not in p.name]
    assert all(p.with_suffix(".json").exists() for p in tables)  # a table is there whole, or not at all
    if code != 0:  # stopped before the end: the next run goes on from the checkpoint
        assert list(cache.glob("generala-*.partial.json")), err
        env = {**os.environ, "RULEBOOK_CACHE": str(cache), "RULEBOOK_KEY_FILE": str(tmp_path / "key")}
        again = subprocess.run([sys.executable, "-m", "rulebook.interpreter", *args, "--json"], capture_output=True,
                               text=True, env=env, timeout=900)
        assert again.returncode == 0, again.stderr
        assert '"expected_score": 159.618' in again.stdout


def test_leaving_a_pool_on_an_interrupt_never_waits_for_the_queue_lock():
    """A worker that a signal kills while it holds the task queue's lock leaves the lock taken for good;
    `Pool.terminate()` then waits for it for ever (a fresh clone's CI run hung so). The quiet pool kills
    its workers instead of waiting: leaving it still ends at once."""
    import threading

    from rulebook.interpreter.model.workers import pool

    done = threading.Event()

    def interrupted_run():
        try:
            with pool(1) as p:
                lock = p._inqueue._rlock
                while lock.acquire(block=False):  # until the idle worker waits for a task, holding the lock
                    lock.release()
                os.kill(p._pool[0].pid, signal.SIGKILL)  # a worker killed inside get(): the lock stays taken
                p._pool[0].join()
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            done.set()
    worker = threading.Thread(target=interrupted_run, daemon=True)
    worker.start()
    assert done.wait(60), "leaving the pool waited for the queue's lock"
    workers = [w for w in __import__("multiprocessing").active_children()]
    assert all(w.exitcode is not None for w in workers if w.name.startswith("ForkPoolWorker"))
