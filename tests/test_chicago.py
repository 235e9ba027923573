"""Chicago (rules/chicago.yaml): eleven rounds aiming at 2, 3, ... 12 with one roll of two dice each.
The natural sheet is one column filled from the top; before issue 22 such a sheet scored 0 in play,
simulate and replay (the engine took a one-column sheet for a sheet without columns)."""
import json
import subprocess
import sys

from rulebook.interpreter import load_model
from rulebook.interpreter.engine.actions import parse_action
from rulebook.interpreter.engine.state import GameState

MODEL = load_model("chicago")


def run(*args):
    p = subprocess.run([sys.executable, "-m", "rulebook.interpreter", *map(str, args)], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def test_the_round_fixes_the_box_and_the_target_scores_only_when_rolled():
    state = GameState(MODEL, ["a", "b"])
    state.apply(parse_action("roll 1 1"))
    assert [str(a) for a in state.legal_actions()] == ["write two@rounds"]  # round 1: only the top box
    state.apply(parse_action("write two@rounds"))
    state.apply(parse_action("roll 3 4"))
    state.apply(parse_action("write two@rounds"))  # b: 7 is not 2
    state.apply(parse_action("roll 1 2"))
    assert [str(a) for a in state.legal_actions()] == ["write three@rounds"]
    state.apply(parse_action("write three@rounds"))
    assert state.totals(0)["total"] == 2 + 3 and state.totals(1)["total"] == 0


def test_a_full_game_totals_the_targets_rolled():
    state = GameState(MODEL, ["a"])
    rolls = {2: "1 1", 3: "1 2", 4: "2 2", 5: "1 4", 6: "3 3", 7: "6 6", 8: "4 4", 9: "3 6", 10: "5 5", 11: "1 1", 12: "6 6"}
    for k in range(2, 13):
        state.apply(parse_action("roll " + rolls[k]))
        (write,) = state.legal_actions()
        state.apply(write)
    assert state.is_terminal()
    assert state.totals(0)["total"] == sum(range(2, 13)) - 7 - 11  # 7 and 11 missed: 59


def test_solve_gives_the_mean_of_two_dice():
    """E = sum over targets k of k * P(sum of two dice = k) = 7 exactly."""
    code, out, err = run("solve", "chicago", "--json")
    assert code == 0, err
    assert abs(json.loads(out)["expected_score"] - 7.0) < 1e-9


def test_simulate_agrees_with_the_solve():
    code, out, err = run("simulate", "chicago", "--players", "a:greedy,b:random", "--games", "3000", "--seed", "4",
                         "--jobs", "1", "--json")
    assert code == 0, err
    data = json.loads(out)
    for p in data["players"]:
        assert abs(p["mean"] - 7.0) < 3 * p["stderr"] + 1e-9 and p["mean"] > 5


def test_play_and_replay_give_the_totals_rolled(tmp_path):
    """Before issue 22 play and replay printed every total of the one-column sheet as 0."""
    log = tmp_path / "c.jsonl"
    code, out, err = run("play", "chicago", "--players", "cpu:random,cpu:greedy", "--seed", "1", "--log", log,
                         "--lang", "en")
    assert code == 0, err
    assert out.rstrip().splitlines()[-2:] == ["1. cpu 2: 11 points", "2. cpu 1: 7 points"]
    code, out, err = run("replay", log, "--json")
    assert code == 0, err
    totals = json.loads(out)["totals"]
    assert [t["total"] for t in totals] == [7, 11]
    assert [sum(t["boxes"].values()) for t in totals] == [7, 11] and totals[0]["boxes"]["seven@rounds"] == 7
