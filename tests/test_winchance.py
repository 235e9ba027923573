"""The exact chance to win (solver/joint.py, solver/winchance.py): `solve MODEL --objective win`.

Pinned against a plain value iteration written out here over Pig's (my score, your score, turn total),
for one die and for a variant with two dice (a 1 on either loses the turn), and against Neller and
Presser's 53.06 % for Pig to 100 (slow)."""
from __future__ import annotations

import io
import json
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from rulebook.interpreter.model.loader import load_source
from rulebook.interpreter.solver.abstraction import NotSolvable
from rulebook.interpreter.solver.winchance import win_chances
from rulebook.tools.cli import main

PIG = Path(__file__).resolve().parent.parent / "rules" / "pig.yaml"
TWO_DICE = {"dice: {count: 1, faces: 6}": "dice: {count: 2, faces: 6}", "bust: dice[0] == 1": "bust: 1 in dice",
            "add: dice[0]": "add: sum(dice)"}


def cli(*args: str) -> subprocess.CompletedProcess:
    """`rulebook ARGS…` in this process (exit code, stdout, stderr as a subprocess's): the win kernel
    compiled once here is not compiled or loaded again in a new process for each command."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def by_hand(goal: int, gains: dict[int, float], bust: float, tol: float = 1e-14) -> float:
    """P(the first player wins) in Pig to `goal` with optimal play: P[i, j, k] for the player to move with
    score i against j and turn total k, before a roll; after a roll they hold (and win at i + k >= goal)
    or roll on. Gauss-Seidel until no value moves by `tol`."""
    P = {(i, j, k): 0.0 for i, j in product(range(goal), repeat=2) for k in range(goal - i)}

    def after(i, j, k):
        return 1.0 if i + k >= goal else max(1.0 - P[j, i + k, 0], P[i, j, k])

    while True:
        change = 0.0
        for (i, j, k), old in P.items():
            new = bust * (1.0 - P[j, i, 0]) + sum(p * after(i, j, k + g) for g, p in gains.items())
            change = max(change, abs(new - old))
            P[i, j, k] = new
        if change < tol:
            return P[0, 0, 0]


def variant(**changes) -> str:
    text = PIG.read_text(encoding="utf-8")
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    return text


def test_pig_to_20_is_the_hand_written_value_iteration():
    done = cli("solve", "pig", "--objective", "win", "-O", "goal=20", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    hand = by_hand(20, {g: 1 / 6 for g in range(2, 7)}, 1 / 6)
    assert hand == pytest.approx(0.615558549805, abs=1e-11)
    assert out["win_probability"] == pytest.approx(hand, abs=1e-10)
    assert sum(out["chances"]) == pytest.approx(1.0, abs=1e-10)
    assert out["states"] == 16_684 and out["transitions"] == 55_404 and out["largest_change"] < 1e-12


def test_two_dice_is_the_hand_written_value_iteration():
    """Not Pig's one die: two dice, a 1 on either loses the turn, else their sum is added (goal 20)."""
    model = load_source(variant(**TWO_DICE), "two-dice-pig.yaml", {"goal": 20})
    got = win_chances(model, 2)
    sums: dict[int, Fraction] = {}
    for a, b in product(range(2, 7), repeat=2):
        sums[a + b] = sums.get(a + b, 0) + Fraction(1, 36)
    hand = by_hand(20, {g: float(p) for g, p in sums.items()}, 11 / 36)
    assert got.chances[0] == pytest.approx(hand, abs=1e-10)
    assert got.chances[0] == pytest.approx(0.602858, abs=1e-6)


def test_three_players_share_the_win():
    model = load_source(variant(), "pig.yaml", {"goal": 10})
    got = win_chances(model, 3)
    assert sum(got.chances) == pytest.approx(1.0, abs=1e-10)
    assert got.chances[0] > got.chances[1] > got.chances[2]


def test_too_many_states_are_refused_in_one_line_with_the_number():
    done = cli("solve", "pig", "--objective", "win", "-O", "goal=20", "--max-states", "1000")
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "more than 1,000 of them" in done.stderr
    done = cli("solve", "yahtzee", "--objective", "win", "--lang", "de")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "67.108.864" in done.stderr and "Gewinnchance" in done.stderr
    done = cli("solve", "farkle", "--objective", "win", "-O", "goal=500", "--max-states", "20000")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "more than 20,000 of them" in done.stderr  # its turn total has no end: the walk passes any limit
    with pytest.raises(NotSolvable):
        win_chances(load_source(variant(), "pig.yaml", {"goal": 20}), 2, max_states=1000)


def test_human_output_speaks_the_language():
    done = cli("solve", "pig", "--objective", "win", "-O", "goal=10", "--lang", "nl")
    assert done.returncode == 0, done.stderr
    assert "Winkans van de eerste van 2 spelers" in done.stdout and "%" in done.stdout


@pytest.mark.slow
def test_pig_to_100_first_player_wins_53_06_percent():
    """Neller and Presser (2004): with optimal play the first player wins 53.06 %."""
    done = cli("solve", "pig", "--objective", "win", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert round(out["win_probability"], 4) == 0.5306
    assert out["largest_change"] < 1e-12
