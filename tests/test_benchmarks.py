"""The engine benchmark's two sides play the same games: the engine and the independent hand-written
Yahtzee, with the same RNG discipline, reach the very same final score from every seed."""
from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import baseline_yahtzee, machine  # noqa: E402
from benchmarks.bench_engine import engine_game, roll_each_die  # noqa: E402
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
    # one rng.random() per roll on both sides
    assert [engine_game(model, random.Random(s)) for s in seeds] == [baseline_yahtzee.play_game(random.Random(s)) for s in seeds]
    assert len(jokers) >= 3  # the forced Joker was among them
    # die by die on both sides
    few = range(300)
    assert ([engine_game(model, random.Random(s), roll_each_die) for s in few]
            == [baseline_yahtzee.play_game(random.Random(s), baseline_yahtzee.roll_each_die) for s in few])


def test_the_baseline_draws_rolls_with_the_engines_distribution():
    from rulebook.interpreter.engine.state import GameState
    state = GameState(load_model("yahtzee"), ["p"])
    for m in range(6):
        faces, cumulative, total = baseline_yahtzee._OUTCOMES[m]
        assert total == 6 ** m and cumulative[-1] == total
    engine = [(r.faces, p) for r, p in state.chance_outcomes()]
    faces, cumulative, total = baseline_yahtzee._OUTCOMES[5]
    weights = [c - p for c, p in zip(cumulative, [0] + cumulative[:-1])]
    assert [(f, w / total) for f, w in zip(faces, weights)] == engine


def test_a_loaded_machine_is_never_called_quiet(monkeypatch):
    monkeypatch.setattr(machine.os, "cpu_count", lambda: 2)
    assert not machine.is_quiet((1.5, 1.0, 1.0))
    assert machine.is_quiet((0.1, 1.0, 1.0))
    assert not machine.is_quiet((float("nan"),) * 3)
    monkeypatch.setattr(machine.os, "getloadavg", lambda: (3.0, 2.0, 1.0))
    assert "BUSY" in machine.describe() and not machine.describe().endswith(": quiet")
    monkeypatch.setattr(machine.os, "getloadavg", lambda: (0.2, 0.2, 0.2))
    assert machine.describe().endswith(": quiet")
    assert "BUSY" in machine.describe(before=(1.9, 1.0, 1.0))  # busy at the start: not quiet


def test_the_benchmark_runs_and_prints_the_ratio_and_the_load():
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "engine", "--games", "40", "--rounds", "2"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "games/s" in proc.stdout and "ratio engine/baseline" in proc.stdout
    assert "plays the baseline's games exactly: yes" in proc.stdout
    assert "rolled die by die on both sides" in proc.stdout and "(same games: yes)" in proc.stdout
    assert "load average" in proc.stdout and "API floor (no rules)" in proc.stdout


def test_the_positions_spike_plays_the_baseline_games():
    """benchmarks/spike_positions.py measures a design on the engine's own tables: it must keep playing
    exactly the baseline's games (its Joker writes included), or its figure means nothing."""
    from benchmarks.spike_positions import Flow, spike_game
    flow = Flow(load_model("yahtzee"))
    seeds = range(1000)
    assert [spike_game(flow, random.Random(s)) for s in seeds] == [baseline_yahtzee.play_game(random.Random(s)) for s in seeds]
