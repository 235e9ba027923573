"""A threshold no sheet can reach costs nothing (issue 26): `total(upper) >= 1000000` in a score is
clipped to the most the upper section can hold, so the 4-box, 2-dice model solves in a few hundred
states, under an address-space cap of 500 MB (before: 9.2 GB, then killed), and `play` of it starts
at once against the optimal player (before: it hung)."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CAP = 500 * 2**20


def unreachable_model() -> str:
    t = (ROOT / "tests" / "bad_models" / "base" / "minimal.yaml").read_text(encoding="utf-8")
    t = t.replace("dice: {count: 5, faces: 6}", "dice: {count: 2, faces: 6}")
    t = t.replace("example: [1, 1, 2, 3, 4]", "example: [1, 1]")
    t = t.replace("      - id: pairs", """      - id: twos
        name: {en: Twos, de: Zweier, nl: Tweeën}
        rule: {en: the twos count, de: die Zweier zählen, nl: de tweeën tellen}
        score: 2 * count(2) + (1 if total(upper) >= 1000000 else 0)
        example: [2, 2]
      - id: chance
        name: {en: Chance, de: Chance, nl: Kans}
        rule: {en: all dice, de: alle Würfel, nl: alle stenen}
        score: sum(dice)
        example: [1, 2]
      - id: pairs""", 1)
    t = t.replace("times: 2\n  name: {en: Game", "times: 4\n  name: {en: Game")
    t = t.replace("""          allowed: >-
            not filled(target)
            or value(target) == 0""", "          allowed: not filled(target)")
    assert t.count("1000000") == 1 and "times: 4" in t
    return t


def _env(tmp_path) -> dict:
    # the numpy path: under the cap, numba's compiler (LLVM) runs out of address space before any state
    # is solved (a fixed cost, the same for every model); what is capped here is what the model costs
    return {**os.environ, "RULEBOOK_CACHE": str(tmp_path / "cache"), "RULEBOOK_KERNEL": "numpy"}


def _capped():
    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


def test_an_unreachable_threshold_solves_small_under_an_address_space_cap(tmp_path):
    path = tmp_path / "unreachable.yaml"
    path.write_text(unreachable_model(), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "rulebook.interpreter", "solve", str(path), "--json"],
                         capture_output=True, text=True, timeout=300, preexec_fn=_capped,
                         env=_env(tmp_path))
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["states"] == 224 and abs(data["expected_score"] - 56.20935) < 1e-4


def test_play_of_the_unreachable_threshold_model_starts_at_once_against_the_optimal_player(tmp_path):
    path = tmp_path / "unreachable.yaml"
    path.write_text(unreachable_model(), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "rulebook.interpreter", "play", str(path), "--seed", "3"],
                         input="quit\n", capture_output=True, text=True, timeout=300, preexec_fn=_capped,
                         env=_env(tmp_path))
    assert run.returncode == 0, run.stderr
    assert "plays greedy" not in run.stdout and "Player rolls" in run.stdout
    assert list((tmp_path / "cache").glob("*.npy"))  # its table: solved (224 states) before the first move
