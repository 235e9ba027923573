"""`rulebook replay`: a logged game between computer players replays to every total; damaged logs
and save files are refused with the line where they stop fitting, and are left as they were."""
from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rulebook.tools.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "data" / "yahtzee_2p.moves"


@pytest.fixture
def run(monkeypatch, capsys):
    """`rulebook ARGS…` with empty input: (exit code, stdout, stderr)."""
    def go(*args: str, stdin: str = ""):
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = main(list(args))
        out = capsys.readouterr()
        return code, out.out, out.err
    return go


@pytest.fixture
def log(tmp_path, run) -> Path:
    """The log of `rulebook play --players cpu:random,cpu:greedy --seed 1`."""
    path = tmp_path / "g.jsonl"
    code, out, err = run("play", "--players", "cpu:random,cpu:greedy", "--seed", "1", "--log", str(path), "--lang", "en")
    assert (code, err) == (0, "")
    return path


def final_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if re.match(r"\d+\. ", line)]


def test_a_logged_game_replays_to_every_total(log, run):
    code, played, err = run("play", "--players", "cpu:random,cpu:greedy", "--seed", "1", "--lang", "en")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    header = records[0]
    assert header["seed"] == 1 and header["model"] == "yahtzee" and len(header["model_hash"]) == 16
    assert header["players"] == [{"name": "cpu 1", "kind": "random"}, {"name": "cpu 2", "kind": "greedy"}]
    assert header["options"] == {"joker": "forced", "upper_bonus_threshold": 63, "upper_bonus": 35,
                                 "yahtzee_counts_as_full_house": False}
    moves = [r["move"] for r in records[1:]]
    assert moves[0].startswith("roll ") and sum(m.startswith("write ") for m in moves) == 26
    assert all(r["player"] in (0, 1) for r in records[1:])
    code, out, err = run("replay", str(log), "--json")
    assert (code, err) == (0, "")
    summary = json.loads(out)
    assert summary["players"] == ["cpu 1", "cpu 2"] and summary["finished"] is True
    totals = {t["player"]: t["total"] for t in summary["totals"]}
    assert [f"{r['rank']}. {r['player']}: {r['total']} points" for r in summary["ranking"]] == final_lines(played)
    for t in summary["totals"]:
        assert len(t["boxes"]) == 13 and set(t["bonuses"]) == {"upper_bonus", "yahtzee_bonus"}
        assert t["total"] == sum(t["boxes"].values()) + sum(t["bonuses"].values()) == totals[t["player"]]
    # the same as a table, with the ranking
    code, out, err = run("replay", str(log), "--lang", "en")
    assert code == 0 and final_lines(out) == final_lines(played) and "Grand total" in out and "151 moves" not in err


def test_replay_from_a_subprocess_prints_no_traceback(log):
    proc = subprocess.run([sys.executable, "-m", "rulebook.interpreter", "replay", str(log)],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == "" and "Yahtzee" in proc.stdout
    bad = log.with_name("bad.jsonl")
    bad.write_text(log.read_text().replace('"move": "write', '"move": "wrote', 1))
    proc = subprocess.run([sys.executable, "-m", "rulebook.interpreter", "replay", str(bad)],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert re.match(rf"{re.escape(str(bad))}:\d+:1: error: cannot read the move 'wrote ", proc.stderr)


def damage(log: Path, n: int, change) -> tuple[Path, int]:
    """A copy of the log with line n (1-based) changed by `change`; returns the file and that line number."""
    lines = log.read_text().splitlines()
    lines[n - 1] = change(lines[n - 1])
    out = log.with_name(f"damaged{len(list(log.parent.glob('damaged*')))}.jsonl")
    out.write_text("\n".join(lines) + "\n")
    return out, n


def first(log: Path, word: str) -> int:
    return next(n for n, line in enumerate(log.read_text().splitlines(), 1) if f'"move": "{word}' in line)


def test_damaged_logs_name_their_line(log, run, tmp_path):
    cases = [
        (damage(log, 5, lambda s: s[:10]), r":5:\d+: error: not valid JSON"),
        (damage(log, 1, lambda s: '{"hello": 1}'), r":1:1: error: not a rulebook log \(the first line must be its header\)"),
        (damage(log, 1, lambda s: s.replace('"model_hash": "', '"model_hash": "0')),
         r":1:1: error: the model .*yahtzee.yaml has changed since this game was played"),
        (damage(log, 1, lambda s: s.replace('"joker": "forced"', '"joker": "sometimes"')),
         r":1:1: error: the game's model cannot be loaded: option 'joker' cannot be 'sometimes'"),
        (damage(log, 1, lambda s: s.replace('"kind": "greedy"', '"kind": "wizard"')), r":1:1: error: unknown player kind 'wizard'"),
        (damage(log, first(log, "keep"), lambda s: re.sub(r'"keep [^"]*"', '"keep 9 9"', s)),
         rf":{first(log, 'keep')}:1: error: you cannot keep 9 9: the dice are "),
        (damage(log, 2, lambda s: s.replace('"roll ', '"roll 7 ')), r":2:1: error: a roll of 5 dice with faces 1 to 6 is due"),
        (damage(log, 3, lambda s: s.replace('"player": 0', '"player": 1')), r":3:1: error: it is cpu 1's move \(player 0\), not player 1's"),
        (damage(log, first(log, "write"), lambda s: re.sub(r'"points": \d+', '"points": 999', s)),
         rf":{first(log, 'write')}:1: error: the log says 999 points in \w+, the model gives \d+"),
        (damage(log, 4, lambda s: '["a list"]'), r":4:1: error: a log line is an object with a 'move'"),
    ]
    extra = log.with_name("longer.jsonl")
    extra.write_text(log.read_text() + '{"player": 0, "move": "roll 1 2 3 4 5"}\n')
    n = len(log.read_text().splitlines()) + 1
    cases.append(((extra, n), rf":{n}:1: error: the game was already over"))
    empty = log.with_name("empty.jsonl")
    empty.write_text("")
    cases.append(((empty, 1), r":1:1: error: the log is empty"))
    for (path, _), pattern in cases:
        before = path.read_bytes()
        code, out, err = run("replay", str(path))
        assert code == 2 and out == "", (path, err)
        assert err.count("\n") == 1 and re.match(re.escape(str(path)) + pattern, err), err
        assert path.read_bytes() == before  # left as it was
    code, out, err = run("replay", str(tmp_path / "missing.jsonl"))
    assert code == 2 and err == f"rulebook: error: no such log file: {tmp_path / 'missing.jsonl'}\n"


def test_a_changed_model_file_is_noticed(run, tmp_path):
    model = tmp_path / "mygame.yaml"
    shutil.copy(ROOT / "rules" / "yahtzee.yaml", model)
    log = tmp_path / "g.jsonl"
    code, out, err = run("play", str(model), "--players", "a:random", "--seed", "3", "--log", str(log))
    assert code == 0
    assert run("replay", str(log), "--json")[0] == 0
    model.write_text(model.read_text().replace("score: sum(dice)\n", "score: sum(dice) + 1\n"))
    code, out, err = run("replay", str(log))
    assert code == 2 and err.startswith(f"{log}:1:1: error: the model ") and "has changed since this game was played" in err


@pytest.fixture
def save(tmp_path, run) -> Path:
    """A game saved mid-way (the input ended)."""
    path = tmp_path / "game.json"
    lines = SCRIPT.read_text().splitlines(keepends=True)
    code, out, err = run("play", "--players", "Ann:human,Bob:human", "--seed", "7", "--save", str(path),
                         stdin="".join(lines[:30]))
    assert code == 2 and "the position is saved in" in err
    return path


def edit(save: Path, change) -> Path:
    data = json.loads(save.read_text())
    change(data)
    out = save.with_name(f"edited{len(list(save.parent.glob('edited*')))}.json")
    out.write_text(json.dumps(data))
    return out


def test_damaged_save_files_are_refused_and_left_alone(save, run):
    def put(path: Path, text: str) -> Path:
        out = save.with_name(path)
        out.write_text(text)
        return out

    cases = [
        (put("cut.json", save.read_text()[:100]), r":1:\d+: error: the save file is not valid JSON"),
        (put("list.json", "[1, 2]"), r":1:1: error: not a rulebook save file"),
        (edit(save, lambda d: d.update(rulebook=2)), r":1:1: error: not a rulebook save file"),
        (edit(save, lambda d: d.update(rng=[3, [1, 2], None])), r":1:1: error: the saved dice generator is damaged"),
        (edit(save, lambda d: d["state"]["sheets"][0].update(nope=3)),
         r":1:1: error: the saved game does not fit the model yahtzee: there is no box 'nope'"),
        (edit(save, lambda d: d["state"].update(stack=[["game", 0, 0], ["round", 42, 0]])),
         r":1:1: error: the saved game does not fit the model yahtzee: the saved position is not a step of the model"),
        (edit(save, lambda d: d.update(model_hash="feedface")), r":1:1: error: the model .* has changed since"),
        (edit(save, lambda d: d.update(players=[{"name": "Ann"}])), r":1:1: error: the header's players are damaged"),
        (edit(save, lambda d: d.update(seed="x")), r":1:1: error: the save file has no seed"),
    ]
    for path, pattern in cases:
        before = path.read_bytes()
        code, out, err = run("play", "--resume", str(path), stdin="stop\n")
        assert code == 2, (path, err)
        assert err.count("\n") == 1 and re.match(re.escape(str(path)) + pattern, err), err
        assert path.read_bytes() == before  # not overwritten
    code, out, err = run("play", "--resume", str(save.with_name("nothing.json")))
    assert code == 2 and err == f"rulebook: error: no such save file: {save.with_name('nothing.json')}\n"


def test_the_undamaged_save_resumes(save, run):
    rest = SCRIPT.read_text().splitlines(keepends=True)[30:]
    code, out, err = run("play", "--resume", str(save), "--lang", "en", stdin="".join(rest))
    assert (code, err) == (0, "") and final_lines(out) == ["1. Bob: 161 points", "2. Ann: 59 points"]


def test_a_save_file_is_not_a_log(save, run):
    code, out, err = run("replay", str(save))
    assert code == 2 and err == f"{save}:1:1: error: this is a save file, not a log; continue it with rulebook play --resume\n"
