"""The benchmark's two sides play the same game: the engine, rolled die by die like the hand-written
Yahtzee and given its order of keeps, reaches the very same final score from every seed."""
from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import baseline_yahtzee  # noqa: E402
from benchmarks.bench_engine import ENGINE_KEEP_ORDER, engine_game, roll_each_die  # noqa: E402
from rulebook.interpreter import load_model  # noqa: E402


def test_engine_and_hand_written_yahtzee_play_the_same_games(monkeypatch):
    jokers = []
    legal_boxes = baseline_yahtzee.legal_boxes

    def counting(dice, sheet):  # a further Yahtzee: the Joker rules apply
        if dice.count(dice[0]) == 5 and "yahtzee" in sheet:
            jokers.append(sheet["yahtzee"])
        return legal_boxes(dice, sheet)

    monkeypatch.setattr(baseline_yahtzee, "legal_boxes", counting)
    model = load_model("yahtzee")
    seeds = range(2000)
    engine = [engine_game(model, random.Random(seed), roll_each_die) for seed in seeds]
    hand = [baseline_yahtzee.play_game(random.Random(seed), ENGINE_KEEP_ORDER) for seed in seeds]
    assert engine == hand
    assert len(jokers) >= 3  # the forced Joker was among them


def test_the_benchmark_runs_and_prints_the_ratio():
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--games", "40", "--rounds", "2"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "games/s" in proc.stdout and "ratio engine/baseline" in proc.stdout
    assert "plays the baseline's games exactly: yes" in proc.stdout
