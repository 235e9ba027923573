"""`rulebook play` driven by scripts: a pinned 2-player game, every way to type a move, errors that
name the line, save and resume, --players and --option errors, files never overwritten, and the
German and Dutch screens."""
from __future__ import annotations

import builtins
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.engine.actions import Keep, Stop, Write
from rulebook.interpreter.model.errors import IllegalActionError
from rulebook.interpreter.play.game import Game, Seat, parse_players
from rulebook.tools.commands import play as cmd_play
from rulebook.tools.cli import main
from rulebook.tools.terminal.moves import parse_move
from rulebook.tools.terminal.view import View

DATA = Path(__file__).resolve().parent / "data"
SCRIPT = DATA / "yahtzee_2p.moves"
PLAYERS = ["--players", "Ann:human,Bob:human", "--seed", "7"]
FINAL = ["1. Bob: 161 points", "2. Ann: 59 points"]  # pinned: the script's game


@pytest.fixture
def play(monkeypatch, capsys):
    """Run `rulebook play ARGS…` with `stdin` as its input (not a terminal): (exit code, stdout, stderr)."""
    def run(*args: str, stdin: str = ""):
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = main(["play", *args])
        out = capsys.readouterr()
        return code, out.out, out.err
    return run


def script_lines() -> list[str]:
    return SCRIPT.read_text(encoding="utf-8").splitlines(keepends=True)


def ranking(out: str) -> list[str]:
    return [line for line in out.splitlines() if re.match(r"\d+\. ", line)]


# the pinned game ----------------------------------------------------------------------------------

def test_scripted_two_player_game_ends_with_the_pinned_totals(play, tmp_path):
    code, out, err = play(*PLAYERS, "--log", str(tmp_path / "g.jsonl"), "--lang", "en", stdin=SCRIPT.read_text())
    assert (code, err) == (0, "")
    assert ranking(out) == FINAL
    assert "Ann rolls 1 2 3 4 6" in out and "Ann keeps 1" in out        # keep by face
    assert "Bob rolls all dice again" in out and "Bob stops rolling" in out
    assert "Ann writes 15 points in Chance" in out and "Bob writes 21 points in Chance" in out
    assert "Moves:" in out and "Round 1 of 13" in out                   # help and sheet
    assert "Upper bonus" in out and "(0/63)" in out                     # bonus progress
    # every write the script makes, by id, by English or German name and by number
    writes = [line.split("#")[0].strip() for line in script_lines() if line.strip() and not line.startswith("#")]
    assert {"write chance", "write Chance", "w 4", "fünfer", "dreierpasch", "full house", "write three_of_a_kind"} <= set(writes)
    assert {"pos 1 3", "p 25", "roll", "stop", "k 4 4 4", "keep 1"} <= set(writes)
    # the log replays to the same totals
    code, out, err = play_replay(tmp_path / "g.jsonl")
    assert code == 0
    assert [(t["player"], t["total"]) for t in out["totals"]] == [("Ann", 59), ("Bob", 161)]
    assert out["ranking"][0] == {"rank": 1, "player": "Bob", "total": 161}


def play_replay(log: Path):
    proc = subprocess.run([sys.executable, "-m", "rulebook.interpreter", "replay", str(log), "--json"],
                          capture_output=True, text=True)
    return proc.returncode, json.loads(proc.stdout) if proc.returncode == 0 else proc.stdout, proc.stderr


def test_the_same_game_in_a_subprocess(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "rulebook.interpreter", "play", *PLAYERS, "--lang", "en"],
                          stdin=SCRIPT.open(), capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == ""
    assert ranking(proc.stdout) == FINAL


# moves as people type them ----------------------------------------------------------------------------

@pytest.fixture
def game():
    model = load_model("yahtzee")
    g = Game(model, [Seat("Ann", "human")], 1)
    g.apply(g.roll())
    return g


def at(game, dice):
    from rulebook.interpreter.engine.actions import Roll
    state = game.state.__class__(game.model, ["Ann"])
    state.apply(Roll(dice))
    return state


def test_moves_by_face_position_and_word(game):
    state = at(game, (2, 2, 3, 4, 6))
    assert parse_move("keep 2 2 4", state, "en") == [Keep((2, 2, 4))]
    assert parse_move("k 224", state, "en") == [Keep((2, 2, 4))]
    assert parse_move("4 2 2", state, "en") == [Keep((2, 2, 4))]
    assert parse_move("pos 1 3", state, "en") == [Keep((2, 3))]
    assert parse_move("p 135", state, "en") == [Keep((2, 3, 6))]
    assert parse_move("roll", state, "en") == [Keep(())]
    assert parse_move("keep none", state, "en") == [Keep(())]
    assert parse_move("stop", state, "en") == [Stop()]
    assert parse_move("keep all", state, "en") == [Stop()]
    assert parse_move("pos 1 2 3 4 5", state, "en") == [Stop()]
    assert parse_move("behalten 2 2", state, "de") == [Keep((2, 2))]
    assert parse_move("würfeln", state, "de") == [Keep(())]
    assert parse_move("houd 6", state, "nl") == [Keep((6,))]
    assert parse_move("write chance", state, "en") == [Stop(), Write("chance")]  # stop rolling, then write
    assert parse_move("help", state, "en") == "help" and parse_move("?", state, "en") == "help"
    assert parse_move("hint", state, "en") == "hint" and parse_move("quit", state, "en") == "quit"


def test_boxes_by_id_name_and_number(game):
    state = at(game, (2, 2, 3, 4, 6))
    state.apply(Stop())
    for text in ["write fours", "fours", "Fours", "w 4", "4", "Vierer", "vieren", "write four of a kind",
                 "Viererpasch", "four-of-a-kind"]:
        box = "fours" if "four" not in text or "kind" not in text else "four_of_a_kind"
        if text in ("Viererpasch",):
            box = "four_of_a_kind"
        assert parse_move(text, state, "en") == [Write(box)], text
    assert parse_move("w 13", state, "en") == [Write("chance")]


@pytest.mark.parametrize("dice, sheet, text, lang, message", [
    ((2, 2, 3, 4, 6), None, "keep 5", "en", "you cannot keep 5: the dice are 2 2 3 4 6"),
    ((2, 2, 3, 4, 6), None, "keep 2 2 2", "en", "you cannot keep 2 2 2"),
    ((2, 2, 3, 4, 6), None, "pos 7", "en", "positions are numbers from 1 to 5"),
    ((2, 2, 3, 4, 6), None, "jump", "en", "cannot read 'jump' here"),
    ((2, 2, 3, 4, 6), None, "", "en", "type a move"),
    ((2, 2, 3, 4, 6), None, "keep 5", "de", "5 kannst du nicht behalten: die Würfel zeigen 2 2 3 4 6"),
    ((2, 2, 3, 4, 6), None, "pos 9", "nl", "posities zijn getallen van 1 tot 5"),
    ((2, 2, 3, 4, 6), "stop", "write fourz", "en", "there is no box 'fourz'; did you mean 'Fours'?"),
    ((2, 2, 3, 4, 6), "stop", "w 99", "en", "there is no box '99'"),
    ((2, 2, 3, 4, 6), "filled", "chance", "en", "Chance is already filled"),
    ((2, 2, 3, 4, 6), "filled", "chance", "de", "das Feld „Chance“ ist schon belegt"),
    ((5, 5, 5, 5, 5), "joker", "chance", "en", "the rules do not let these dice go into Chance now; Joker:"),
    ((5, 5, 5, 5, 5), "joker", "chance", "nl", "volgens de regels mag deze worp nu niet in het vakje ‘Kans’; Joker:"),
])
def test_moves_that_are_not_allowed_say_why(game, dice, sheet, text, lang, message):
    state = at(game, dice)
    if sheet == "filled":
        state.sheets[0]["chance"] = 20
    if sheet == "joker":
        state.sheets[0].update(yahtzee=50)
    if sheet:
        state.apply(Stop())
    with pytest.raises(IllegalActionError) as err:
        parse_move(text, state, lang)
    from rulebook.tools.i18n import error_text
    assert message in error_text(err.value, lang)


def test_interactive_play_re_prompts_after_a_bad_move(monkeypatch, capsys, game):
    answers = iter(["keep 9 9", "stop", "write chance", "quit"])
    prompts = []
    monkeypatch.setattr(builtins, "input", lambda prompt: prompts.append(prompt) or next(answers))
    dice = game.state.dice
    assert cmd_play._loop(game, View("en"), True, "en") == 0
    out = capsys.readouterr().out
    assert "you cannot keep 9 9" in out
    assert game.state.sheets[0] == {"chance": sum(dice)}
    assert prompts[0] == "Ann, your move (help for help): " and len(prompts) == 4


# errors in scripts -------------------------------------------------------------------------------------

def test_an_illegal_move_names_its_line_and_exits_2(play):
    lines = script_lines()
    bad = [*lines[:6], "keep 6 6 6  # Ann has no three sixes\n", *lines[6:]]
    code, out, err = play(*PLAYERS, stdin="".join(bad))
    assert code == 2
    assert err == "stdin:7:1: error: you cannot keep 6 6 6: the dice are 1 1 2 2 4\n"


def test_an_unreadable_move_names_its_line(play):
    code, out, err = play(*PLAYERS, stdin="help\n\n# a comment\njump\n")
    assert code == 2 and err.startswith("stdin:4:1: error: cannot read 'jump' here; keep dice with") and err.count("\n") == 1


def test_end_of_input_mid_game_exits_2(play):
    code, out, err = play(*PLAYERS, stdin="".join(script_lines()[:10]))
    assert code == 2
    assert err == "stdin:11:1: error: the input ended before the game did\n"


def test_save_at_end_of_input_then_resume_finishes_the_same_game(play, tmp_path):
    save = tmp_path / "game.json"
    lines = script_lines()
    cut = 47  # mid-game, in Ann's turn
    code, out, err = play(*PLAYERS, "--save", str(save), stdin="".join(lines[:cut]))
    assert code == 2
    assert err == f"stdin:{cut + 1}:1: error: the input ended before the game did; the position is saved in {save}\n"
    saved = json.loads(save.read_text())
    assert saved["state"]["sheets"][0] and not saved["state"]["sheets"][0].keys() >= {"three_of_a_kind"}
    code, out, err = play("--resume", str(save), "--log", str(tmp_path / "rest.jsonl"), stdin="".join(lines[cut:]))
    assert (code, err) == (0, "")
    assert ranking(out) == FINAL
    # the log begun on resume starts from the saved position and replays to the same end
    code, summary, _ = play_replay(tmp_path / "rest.jsonl")
    assert code == 0 and [t["total"] for t in summary["totals"]] == [59, 161]
    # resuming a finished game shows its end
    code, out, err = play("--resume", str(save), stdin="")
    assert code == 0 and ranking(out) == FINAL


def test_quit_saves_and_stops(play, tmp_path):
    save = tmp_path / "game.json"
    code, out, err = play(*PLAYERS, "--save", str(save), stdin="".join(script_lines()[:8]) + "quit\n")
    # (the terminal may wrap a long path anywhere, even inside a name: compare without white space)
    assert (code, err) == (0, "") and "".join(f"Saved in {save}.".split()) in "".join(out.split())
    code, out, err = play("--resume", str(save), stdin="".join(script_lines()[8:]))
    assert code == 0 and ranking(out) == FINAL


# command-line errors ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["--players", ""], "--players has an empty entry"),
    (["--players", "Ann:human,,Bob:human"], "--players has an empty entry"),
    (["--players", "Ann:wizard"], "unknown player kind 'wizard' in --players"),
    (["--players", "Ann:randon"], "did you mean 'random'?"),
    (["--players", ":greedy"], "a player in --players needs a name"),
    (["--players", ",".join(f"p{i}:random" for i in range(9))], "is for 1 to 8 players, not 9"),
    (["--option", "nope=1"], "nope"),
    (["--option", "joker"], "--option needs NAME=VALUE"),
    (["--option", "joker=sometimes"], "sometimes"),
    (["--lang", "fr"], "--lang must be one of en, de, nl"),
    (["nosuchgame"], "nosuchgame"),
    (["--resume", "x.json", "--players", "a:random"], "--resume continues a saved game as it was"),
])
def test_bad_command_lines_are_one_line_and_exit_2(play, args, message):
    code, out, err = play(*args, stdin="")
    assert code == 2, err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_players_sharing_a_name_are_numbered():
    assert [s.name for s in parse_players("cpu:random,cpu:greedy")] == ["cpu 1", "cpu 2"]
    assert [(s.name, s.kind) for s in parse_players("Ann, random ,Bob:Greedy")] == [
        ("Ann", "human"), ("random", "random"), ("Bob", "greedy")]


@pytest.mark.parametrize("flag", ["--log", "--save"])
def test_an_existing_file_is_never_overwritten(play, tmp_path, flag):
    target = tmp_path / "precious.txt"
    target.write_text("do not touch\n")
    code, out, err = play(*PLAYERS, flag, str(target), stdin=SCRIPT.read_text())
    assert code == 2 and f"{flag} {target} exists already" in err and "nothing was overwritten" in err
    assert target.read_text() == "do not touch\n"


def test_resume_refuses_an_existing_log(play, tmp_path):
    save, log = tmp_path / "s.json", tmp_path / "old.jsonl"
    play(*PLAYERS, "--save", str(save), stdin="".join(script_lines()[:8]))
    log.write_text("keep\n")
    code, out, err = play("--resume", str(save), "--log", str(log), stdin="")
    assert code == 2 and "exists already" in err and log.read_text() == "keep\n"


# other languages ------------------------------------------------------------------------------------------

ENGLISH_UI = {"rolls", "keeps", "writes", "points", "point", "stops", "rolling", "Total", "Grand", "total", "Box",
              "Dice", "turn", "Round", "round", "Game", "Moves", "these", "faces", "other", "dice", "into", "sheet",
              "your", "move", "left", "again", "positions", "keep", "roll", "write", "the", "of", "and", "box",
              "section", "Upper", "Lower", "upper", "lower", "Ones", "Twos", "Fours", "Sixes", "kind", "Small",
              "Large", "straight", "wins", "stop"}
DUTCH_TOO = {"stop", "kind", "of"}  # the Dutch model calls two boxes "Three/Four of a kind"


@pytest.mark.parametrize("lang", ["de", "nl"])
def test_german_and_dutch_screens_have_no_english(play, lang):
    code, out, err = play(*PLAYERS, "--lang", lang, stdin=SCRIPT.read_text())
    assert (code, err) == (0, "")
    words = set(re.findall(r"[A-Za-zÄÖÜäöüßëé]+", out))
    leaks = words & (ENGLISH_UI - (DUTCH_TOO if lang == "nl" else set()))
    assert not leaks, leaks
    points = {"de": "Punkte", "nl": "punten"}[lang]
    assert ranking(out) == [f"1. Bob: 161 {points}", f"2. Ann: 59 {points}"]


def test_the_language_comes_from_the_locale(play, monkeypatch):
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    code, out, err = play(*PLAYERS, stdin=SCRIPT.read_text())
    assert code == 0 and "1. Bob: 161 Punkte" in out


def test_every_play_and_replay_text_is_translated():
    from babel.messages.extract import extract_from_file
    from babel.messages.pofile import read_po
    from rulebook.tools.i18n import LOCALES_DIR
    tools = Path(__file__).resolve().parents[1] / "tools"
    ids = {m[1] for name in ("terminal/view.py", "commands/play.py", "commands/replay.py", "terminal/moves.py", "terminal/hint.py")
           for m in extract_from_file("python", tools / name)}
    ids = {i if isinstance(i, str) else i[0] for i in ids}
    assert len(ids) > 30  # the error templates moves.py raises are checked in test_errors_i18n.py
    for lang in ("de", "nl"):
        with (LOCALES_DIR / lang / "LC_MESSAGES" / "rulebook.po").open("rb") as f:
            catalog = read_po(f)
        missing = sorted(i for i in ids if i not in catalog or not all(
            catalog[i].string if isinstance(catalog[i].string, tuple) else [catalog[i].string]))
        assert missing == [], (lang, missing)


def test_a_resumed_game_goes_on_writing_its_log_when_named_again(play, tmp_path):
    save, log = tmp_path / "s.json", tmp_path / "g.jsonl"
    lines = script_lines()
    code, _, _ = play(*PLAYERS, "--log", str(log), "--save", str(save), stdin="".join(lines[:40]))
    assert code == 2
    code, out, err = play("--resume", str(save), "--log", str(log), stdin="".join(lines[40:]))
    assert (code, err) == (0, "") and ranking(out) == FINAL
    code, summary, _ = play_replay(log)
    assert code == 0 and [t["total"] for t in summary["totals"]] == [59, 161]


def test_a_save_file_never_names_a_file_to_write(play, tmp_path):
    """A save's `log` entry is only a name: resuming without --log writes nothing but the save."""
    save, victim = tmp_path / "s.json", tmp_path / "victim.txt"
    victim.write_text("precious\n")
    play(*PLAYERS, "--save", str(save), stdin="".join(script_lines()[:8]))
    data = json.loads(save.read_text())
    data["log"] = str(victim)
    save.write_text(json.dumps(data))
    code, out, err = play("--resume", str(save), stdin="".join(script_lines()[8:]))
    assert code == 0 and victim.read_text() == "precious\n"
    assert "".join(f"log {victim} is not continued".split()) in "".join(out.split())  # a long path may wrap anywhere


def test_a_save_without_model_hash_is_refused(play, tmp_path):
    save = tmp_path / "s.json"
    play(*PLAYERS, "--save", str(save), stdin="".join(script_lines()[:8]))
    data = json.loads(save.read_text())
    del data["model_hash"]
    save.write_text(json.dumps(data))
    code, out, err = play("--resume", str(save), stdin="")
    assert code == 2 and err == f"{save}:1:1: error: the header has no model_hash, so its model cannot be checked; only files written by rulebook play are read\n"


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_a_save_naming_a_device_or_fifo_as_model_is_refused_unread(play, tmp_path, target):
    import os
    save = tmp_path / "s.json"
    play(*PLAYERS, "--save", str(save), stdin="".join(script_lines()[:8]))
    if target == "fifo":
        target = str(tmp_path / "fifo")
        os.mkfifo(target)
    data = json.loads(save.read_text())
    data["model_path"], data["model"] = target, target
    save.write_text(json.dumps(data))
    code, out, err = play("--resume", str(save), stdin="")
    assert code == 2 and "is not a model file" in err and err.count("\n") == 1  # refused by its name, unread


def test_the_default_computer_is_greedy_with_a_line_saying_why_where_the_solve_is_past_the_limits(play, monkeypatch,
                                                                                                   tmp_path):
    # issue 26: Maxi Yatzy without saved rolls has 57,507,840 states, past the 4,000,000 a model file may
    # have; play's default computer no longer waits (or fails): it is the greedy one, and says why
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))
    code, out, err = play("maxi_yatzy", "-O", "saved_rolls=false", "--seed", "1", stdin="quit\n")
    text = " ".join(out.split())
    assert code == 0, err
    assert text.startswith("The computer plays greedy (the best points of each turn): the optimal player would "
                           "first have to study the game, 57,507,840 states, about ")
    assert "451.4 MB of memory" in text and "Player rolls" in text
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").glob("maxi_yatzy*.npy"))  # nothing solved


def test_the_default_computer_is_optimal_where_the_table_is_cached(monkeypatch):
    said = []
    model = load_model("yacht")
    from rulebook.interpreter.solver.solve import solved
    solved(model)  # (cached in the test run's cache folder)
    assert cmd_play.default_players(model, "de", said.append) == "Spieler:human,Computer:optimal" and said == []
