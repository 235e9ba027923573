"""The computer's turn in an 80×24 terminal (issue 28): `rulebook play` waits for Enter before the
computers' moves would scroll out of view, instead of printing their whole turn and the board at once.
No timing: the terminal's size comes from LINES/COLUMNS, the keys from a fake `input`."""
from __future__ import annotations

import builtins
import io
import sys

import pytest

from rulebook.tools.cli import main

MARK = "<<typed>>"


def play(monkeypatch, capsys, lines: int, moves: list[str], players: str = "Ann:human,cpu:greedy",
         model: str = "yahtzee") -> tuple[list[str], list[str]]:
    """Play interactively in a terminal of 80 × `lines`; (every prompt shown, the output's lines with
    a MARK line wherever the player typed or pressed Enter)."""
    monkeypatch.setenv("LINES", str(lines))
    monkeypatch.setenv("COLUMNS", "80")
    fake_stdin = io.StringIO("")
    fake_stdin.isatty = lambda: True  # type: ignore[method-assign]
    monkeypatch.setattr(sys, "stdin", fake_stdin)
    prompts, keys = [], iter(moves)

    def fake_input(prompt: str = "") -> str:
        prompts.append(prompt)
        print(prompt)
        print(MARK)
        if "Enter" in prompt:
            return ""
        return next(keys)
    monkeypatch.setattr(builtins, "input", fake_input)
    code = main(["--lang", "en", "play", model, "--players", players, "--seed", "4"])
    assert code == 0
    return prompts, capsys.readouterr().out.splitlines()


def computer_lines_in_view(out: list[str], lines: int, computer: str = "cpu") -> list[str]:
    """The computer's moves that scrolled out of a terminal of `lines` lines before the player typed:
    those followed by `lines` or more lines (the prompt's included) before the next MARK."""
    lost = []
    for k, line in enumerate(out):
        if line.startswith(f"{computer} "):
            rest = out[k + 1:]
            until = rest.index(MARK) if MARK in rest else len(rest)
            if until >= lines:
                lost.append(line)
    return lost


TURNS = ["stop", "write 1", "stop", "write 2", "stop", "write 3", "quit"]


def test_in_80x24_the_computers_turn_waits_for_enter_before_the_board(monkeypatch, capsys):
    prompts, out = play(monkeypatch, capsys, 24, TURNS)
    waits = [p for p in prompts if p == "— press Enter to see the board —"]
    assert len(waits) == 3  # after each of the computer's three turns
    assert sum(1 for line in out if line.startswith("cpu writes")) == 3
    assert computer_lines_in_view(out, 24) == []


def test_without_the_wait_the_computers_turn_would_scroll_away(monkeypatch, capsys):
    from rulebook.tools.terminal.view import View
    monkeypatch.setattr(View, "fit", lambda self, draw: None)  # the old behaviour: the board right away
    _, out = play(monkeypatch, capsys, 24, TURNS)
    assert len(computer_lines_in_view(out, 24)) >= 6  # the proof that the test sees the problem


def test_a_tall_terminal_does_not_wait(monkeypatch, capsys):
    prompts, out = play(monkeypatch, capsys, 80, TURNS)
    assert not [p for p in prompts if "Enter" in p]
    assert computer_lines_in_view(out, 80) == []


@pytest.mark.parametrize("lines", [12, 24])
def test_many_computers_wait_for_enter_every_screenful(monkeypatch, capsys, lines):
    prompts, out = play(monkeypatch, capsys, lines, ["stop", "write 1", "quit"],
                        players="Ann:human,cpu:random,cpu2:random,cpu3:random,cpu4:random,cpu5:random")
    assert "— press Enter for more —" in prompts or lines == 24
    for name in ("cpu", "cpu2", "cpu3", "cpu4", "cpu5"):
        assert computer_lines_in_view(out, lines, name) == []
