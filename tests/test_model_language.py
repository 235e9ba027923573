"""The model language composes (issue 22): counters at every scope read by every expression, and the
bugs found when mechanisms met. Each test here pins a number or a rule fact of a small model."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.engine.actions import parse_action
from rulebook.interpreter.engine.state import GameState

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


def test_end_if_reads_a_game_counter_and_the_ranking_decides_the_winner(tmp_path):
    """The game ends with the second pair at the table; the player who wrote it has fewer points and
    does not win (before, end_if crowned the writer whatever the totals)."""
    text = SHARED.read_text(encoding="utf-8").replace("flow:\n", "end_if: counter.pairs >= 2\n\nflow:\n", 1)
    path = tmp_path / "race.yaml"
    path.write_text(text, encoding="utf-8")
    state = GameState(load_model(path), ["a", "b"])
    play(state, "roll 3 3", "stop", "write pair", "roll 1 2", "stop", "write chance", "roll 5 6", "stop")
    play(state, "write late")  # a: 10 + (11 + 2)
    assert not state.is_terminal()
    play(state, "roll 1 1", "stop", "write pair")  # b: 3 + 10, the second pair: the game ends
    assert state.is_terminal() and state.game_counters == {"pairs": 2} and state.ended_by == 1
    assert state.ranking() == [(1, "a", 23), (2, "b", 13)]
    assert state.returns() == [23, 13]


def test_equal_final_scores_share_a_rank():
    state = GameState(load_model(SHARED), ["a", "b"])
    for _ in range(3):
        play(state, "roll 1 2", "stop", "write chance" if "chance" not in state.sheets[state.player] else
             ("write late" if "late" not in state.sheets[state.player] else "write pair"))
        play(state, "roll 2 1", "stop", "write chance" if "chance" not in state.sheets[state.player] else
             ("write late" if "late" not in state.sheets[state.player] else "write pair"))
    assert state.is_terminal() and state.ranking() == [(1, "a", 6), (1, "b", 6)]


def test_the_example_plays_with_every_bot(tmp_path):
    for bots in ("a:greedy,b:random", "a:strong,b:greedy"):
        code, out, err = cli("simulate", SHARED, "--players", bots, "--games", "20", "--jobs", "1", "--json")
        assert code == 0, err


def _variant(tmp_path, source: Path, name: str, *replacements) -> Path:
    text = source.read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_rolling_all_dice_after_a_locked_keep_frees_them(tmp_path):
    """Ghost locks: `dice: all` after a `locked` keep rolls the set-aside dice again, so they are no
    longer held (before, the next keep refused every choice: 'keep no dice of the roll ...')."""
    path = _variant(tmp_path, EXAMPLES / "keep_rule.yaml", "ghost.yaml",
                    ("              dice: unkept\n              name: {en: Roll the others",
                     "              dice: all\n              name: {en: Roll the others"))
    state = GameState(load_model(path), ["a"])
    play(state, "roll 1 2 6", "keep 6")
    assert state.held == (6,)
    play(state, "roll 1 2 3")
    assert state.held == ()
    assert {str(a) for a in state.legal_actions()} == {"stop", "keep none"}
    code, out, err = cli("simulate", path, "--players", "a:greedy,b:random", "--games", "30", "--jobs", "1", "--json")
    assert code == 0, err


TWO_WRITES = (("  times: 2\n  name: {en: Game", "  times: 1\n  name: {en: Game"),
              ("""          allowed: (target == sixes and 6 in dice) or (target == pair and dice[0] == dice[1])""",
               """          allowed: target == sixes
          otherwise: scratch
        - id: roll_again
          kind: roll
          dice: all
          name: {en: Roll again, de: Nochmals würfeln, nl: Opnieuw gooien}
        - id: write_pair
          kind: write
          name: {en: Write the pair, de: Den Pasch eintragen, nl: Het paar invullen}
          allowed: target == pair"""))


def test_greedy_and_hint_read_the_write_step_that_is_due(tmp_path):
    """A turn of two writes with rules of their own: at the second, the values are the second's
    (before, the bots read the first write step's rule and found no box)."""
    from rulebook.interpreter.players.registry import GreedyBot
    path = _variant(tmp_path, EXAMPLES / "scratch.yaml", "two_writes.yaml", *TWO_WRITES)
    state = GameState(load_model(path), ["a"])
    play(state, "roll 6 2")
    assert GreedyBot().write_values(state) == {"sixes": 6.0}
    play(state, "write sixes", "roll 3 3")
    assert state.step().id == "write_pair"
    assert GreedyBot().write_values(state) == {"pair": 6.0}
    assert GreedyBot().choose(state) == parse_action("write pair")


def test_greedy_counts_no_points_of_a_section_that_does_not_count(tmp_path):
    """Points written into a `counts: false` section are not part of the total: greedy values them at
    0 (plus any write bonus), so it prefers a box whose points count."""
    from rulebook.interpreter.players.registry import GreedyBot
    path = _variant(tmp_path, EXAMPLES / "scratch.yaml", "uncounted.yaml",
                    ("""      - id: pair
        name: {en: Pair""", """  - id: memo
    name: {en: Memo, de: Notiz, nl: Notitie}
    counts: false
    boxes:
      - id: pair
        name: {en: Pair"""))
    state = GameState(load_model(path), ["a"])
    play(state, "roll 6 6")
    assert state.totals(0)["total"] == 0
    assert GreedyBot().write_values(state) == {"sixes": 12.0, "pair": 0.0}


def test_a_game_for_at_least_two_players_gets_pages_and_compare(tmp_path):
    """Before, pages and compare played it alone ("Chicago is for 2 to 8 players, not 1")."""
    path = _variant(tmp_path, ROOT / "rules/chicago.yaml", "chicago2.yaml",
                    ("players: {min: 1, max: 8}", "players: {min: 2, max: 8}"))
    code, out, err = cli("pages", path, "-o", tmp_path / "site")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "site").glob("chicago.*.html")) == [  # pages and blank sheets
        "chicago.de.html", "chicago.de.sheet.html", "chicago.en.html", "chicago.en.sheet.html",
        "chicago.nl.html", "chicago.nl.sheet.html"]
    code, out, err = cli("compare", path, "--model", ROOT / "rules/chicago.yaml", "--games", "20", "--json")
    assert code == 0, err
    import json
    first, second = json.loads(out)["variants"]
    assert first["exact"] and abs(first["expected_score"] - 7.0) < 1e-9


def _doubles(tmp_path) -> Path:
    """A turn whose writes vary: a write, then a keep, repeated while the dice show a double."""
    text = (EXAMPLES / "scratch.yaml").read_text(encoding="utf-8")
    start = text.index("        - id: write\n")
    body = text[start:].replace("\n        ", "\n            ")
    body = "            " + body.lstrip()
    text = text[:start] + """        - id: doubles
          kind: repeat
          times: 3
          while: roll_number == 1 or dice[0] == dice[1]
          name: {en: Doubles go on, de: Pasch geht weiter, nl: Dubbel gaat door}
          steps:
""" + body.rstrip("\n") + """
            - id: keep
              kind: keep
              name: {en: Keep, de: Behalten, nl: Houden}
            - id: reroll
              kind: roll
              dice: unkept
              name: {en: Roll the others, de: Die anderen werfen, nl: Gooi de andere}
"""
    path = tmp_path / "doubles.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_variable_turn_checks_and_plays_with_every_bot(tmp_path):
    """Before: check counted the most writes (4 for 2 entries) and refused; the greedy bot failed at
    the keep after the turn's last write; a player with a full sheet was asked to write."""
    path = EXAMPLES / "doubles.yaml"
    assert path.read_text(encoding="utf-8").split("rulebook: 1", 1)[1].replace("id: doubles", "id: scratch", 1) \
        .replace("{en: Doubles, de: Pasche, nl: Dubbels}", "{en: Scratch, de: Streichen, nl: Schrappen}", 1) == \
        _doubles(tmp_path).read_text(encoding="utf-8").split("rulebook: 1", 1)[1]
    code, out, err = cli("check", path)
    assert code == 0, err
    state = GameState(load_model(path), ["a", "b"])
    play(state, "roll 3 3", "write pair")
    assert state.step().id == "keep" and state.sheets[0] == {"pair": 6}
    play(state, "keep 3", "roll 3")  # a double again: a second write in the same turn
    assert state.step().id == "write" and state.player == 0
    play(state, "write sixes", "keep 3", "roll 3")  # a's sheet is full: the turn ends at its next write
    assert state.player == 1 and state.sheets[0] == {"pair": 6, "sixes": 0}
    for bots in ("a:greedy,b:random", "a:strong,b:greedy,c:random"):
        code, out, err = cli("simulate", path, "--players", bots, "--games", "30", "--jobs", "1", "--json")
        assert code == 0, err
    code, out, err = cli("pages", path, "-o", tmp_path / "site", "--lang", "en")
    assert code == 0, err
    assert "when every box is filled" not in (tmp_path / "site/doubles.en.html").read_text(encoding="utf-8")


def test_check_reads_a_write_rule_only_on_sheets_a_game_can_reach(tmp_path):
    """Chicago's column is filled from the top, so no game leaves only its top box open; a write rule
    refusing a roll there is sound (before, check refused it: 'when only two@rounds is open')."""
    path = _variant(tmp_path, ROOT / "rules/chicago.yaml", "ruled.yaml",
                    ("          name: {en: Write the round's box",
                     "          allowed: target != two or sum(dice) == 2 or not filled(three)\n"
                     "          name: {en: Write the round's box"))
    code, out, err = cli("check", path)
    assert code == 0, err
    bottom = _variant(tmp_path, ROOT / "rules/chicago.yaml", "ruled2.yaml",
                      ("          name: {en: Write the round's box",
                       "          allowed: target != twelve or sum(dice) > 2 or not filled(eleven)\n"
                       "          name: {en: Write the round's box"))
    code, out, err = cli("check", bottom)
    assert code == 2 and "only 'twelve@rounds' is open" in err


def test_end_if_on_the_sheet_crowns_no_one_who_ends_the_game(tmp_path):
    """Wrong winners (issue 22): "the game ends when someone fills Pair" made the player who filled it the
    winner whatever the totals. The ranking decides: a (12) wins over b (2), who ended the game."""
    path = _variant(tmp_path, EXAMPLES / "scratch.yaml", "ends.yaml", ("flow:\n", "end_if: filled(pair)\n\nflow:\n"))
    state = GameState(load_model(path), ["a", "b"])
    play(state, "roll 6 6", "write sixes", "roll 1 1", "write pair")
    assert state.is_terminal() and state.sheets == [{"sixes": 12}, {"pair": 2}]
    assert state.ranking() == [(1, "a", 12), (2, "b", 2)]
    assert state.returns() == [12, 2]


def test_hint_reads_the_write_step_that_is_due(tmp_path):
    """`hint` at the second of two writes named the first's boxes (issue 22); and it counted the points of
    a `counts: false` section as real ones (the next test)."""
    from rulebook.tools.terminal.hint import hint_lines
    from rulebook.tools.terminal.view import View
    state = GameState(load_model(_variant(tmp_path, EXAMPLES / "scratch.yaml", "two_writes.yaml", *TWO_WRITES)), ["a"])
    play(state, "roll 6 2", "write sixes", "roll 3 3")
    assert [line.split()[0] for line in hint_lines(state, View("en"))[1:]] == ["Pair"]


def test_hint_counts_no_points_of_a_section_that_does_not_count(tmp_path):
    from rulebook.tools.terminal.hint import hint_lines
    from rulebook.tools.terminal.view import View
    uncounted = _variant(tmp_path, EXAMPLES / "scratch.yaml", "uncounted.yaml",
                         ("      - id: pair\n        name: {en: Pair",
                          "  - id: memo\n    name: {en: Memo, de: Notiz, nl: Notitie}\n    counts: false\n"
                          "    boxes:\n      - id: pair\n        name: {en: Pair"))
    state = GameState(load_model(uncounted), ["a"])
    play(state, "roll 6 6")
    lines = hint_lines(state, View("en"))
    assert lines[1].split()[0] == "Sixes" and lines[1].split()[-1] == "12.00"
    assert lines[2].split() == ["Pair", "0.00"]
