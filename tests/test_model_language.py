"""The model language composes (issue 22): counters at every scope read by every expression, and the
bugs found when mechanisms met. Each test here pins a number or a rule fact of a small model."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.actions import parse_action
from rulebook.interpreter.state import GameState

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "tests/data/examples"
SHARED = EXAMPLES / "shared_counter.yaml"


def cli(*args, cwd=None):
    p = subprocess.run([sys.executable, "-m", "rulebook.interpreter", *map(str, args)], capture_output=True,
                       text=True, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def play(state, *moves):
    for move in moves:
        state.apply(parse_action(move))


def test_a_game_counter_is_read_by_a_box_score_and_a_write_rule():
    """Pair Race: every pair written in Pair counts for the table; Late scores 2 more per pair; two
    pairs close Pair for everyone (scratched elsewhere if nothing else is open)."""
    model = load_model(SHARED)
    assert [(c.id, c.per) for c in model.counters] == [("pairs", "game")]
    state = GameState(model, ["a", "b"])
    play(state, "roll 3 3", "stop")
    assert {c.box: c.points for c in state.write_choices()} == {"pair": 10, "late": 6, "chance": 6}
    play(state, "write pair")
    assert state.game_counters == {"pairs": 1}
    play(state, "roll 4 5", "stop")
    assert {c.box: c.points for c in state.write_choices()} == {"pair": 0, "late": 11, "chance": 9}
    play(state, "write chance")
    play(state, "roll 2 3", "stop", "write late")  # a: 5 + 2 * 1
    play(state, "roll 6 6", "stop", "write pair")  # b: the second pair closes Pair
    assert state.game_counters == {"pairs": 2} and state.sheets[0]["late"] == 7
    play(state, "roll 1 1", "stop")
    assert {c.box: c.points for c in state.write_choices()} == {"chance": 2}  # a's Pair is closed
    play(state, "write chance", "roll 1 2", "stop", "write late")  # b: 3 + 2 * 2
    assert state.is_terminal()
    assert [state.totals(p)["total"] for p in range(2)] == [10 + 7 + 2, 9 + 10 + 7]


def test_end_if_reads_a_game_counter(tmp_path):
    text = SHARED.read_text(encoding="utf-8").replace("flow:\n", "end_if: counter.pairs >= 2\n\nflow:\n", 1)
    path = tmp_path / "race.yaml"
    path.write_text(text, encoding="utf-8")
    state = GameState(load_model(path), ["a", "b"])
    play(state, "roll 3 3", "stop", "write pair", "roll 4 5", "stop", "write chance", "roll 2 3", "stop")
    assert not state.is_terminal()
    play(state, "write late", "roll 6 6", "stop", "write pair")
    assert state.is_terminal() and state.game_counters == {"pairs": 2}


def test_the_example_plays_with_every_bot(tmp_path):
    for bots in ("a:greedy,b:random", "a:strong,b:greedy"):
        code, out, err = cli("simulate", SHARED, "--players", bots, "--games", "20", "--jobs", "1", "--json")
        assert code == 0, err
