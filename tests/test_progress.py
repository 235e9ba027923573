"""Progress when stderr is not a terminal: plain lines, at most one per tenth of the work."""
from __future__ import annotations

import subprocess
import sys


def test_progress_is_plain_lines_when_stderr_is_not_a_terminal(tmp_path):
    env = {"RULEBOOK_PROGRESS_SECONDS": "0", "RULEBOOK_CACHE": str(tmp_path), "PATH": "/usr/bin:/bin",
           "HOME": str(tmp_path), "RULEBOOK_KEY_FILE": str(tmp_path / "k" / "key")}
    out = subprocess.run([sys.executable, "-m", "rulebook.interpreter", "simulate", "yacht", "--games", "200",
                          "--players", "a:greedy", "--lang", "en", "--engine", "game"],
                         capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert 2 <= len(lines) <= 11, lines
    assert all(line.startswith("200 games: ") and "/200 (" in line for line in lines)
    assert "\x1b" not in out.stderr and lines[-1] == "200 games: 200/200 (100%)"
    quiet = subprocess.run([sys.executable, "-m", "rulebook.interpreter", "simulate", "yacht", "--games", "20",
                            "--players", "a:greedy", "--lang", "en", "--engine", "game"], capture_output=True, text=True,
                           env={**env, "RULEBOOK_PROGRESS": "none"}, timeout=600)
    assert quiet.returncode == 0 and quiet.stderr == ""
