"""The push-your-luck chapter of docs/writing-a-game.md: its example game behaves as the chapter says."""
from __future__ import annotations

from pathlib import Path

from rulebook.interpreter.engine.actions import Keep, Roll, RollOn, Stop
from rulebook.interpreter.engine.state import GameState
from rulebook.interpreter.model.loader import load_model

EXAMPLE = Path(__file__).resolve().parent / "data" / "examples" / "push_luck.yaml"
DOC = (Path(__file__).resolve().parent.parent / "docs" / "writing-a-game.md").read_text(encoding="utf-8")


def test_the_chapter_shows_the_example():
    assert "Push your luck: turns of no fixed length" in DOC
    assert "<!-- example: tests/data/examples/push_luck.yaml -->" in DOC


def test_sixes_set_aside_then_a_bust_loses_them():
    s = GameState(load_model(EXAMPLE), ["Ann", "Bob"])
    s.apply(Roll((2, 6, 6)))
    assert [str(a) for a in s.legal_actions()] == ["keep 6", "keep 6 6"]
    s.apply(Keep((6, 6)))
    assert s.counter_values[0]["turn"] == 12
    s.apply(RollOn())
    assert s.dice_to_roll() == 1
    s.apply(Roll((2,)))  # a bust: the 12 are lost, Bob's turn
    assert s.player == 1 and s.counter_values[0] == {"turn": 0, "score": 0}


def test_hot_dice_and_banking_from_12():
    s = GameState(load_model(EXAMPLE), ["Ann"])
    s.apply(Roll((6, 6, 6)))
    s.apply(Keep((6, 6, 6)))
    assert s.legal_actions() == [Stop(), RollOn()]
    s.apply(RollOn())
    assert s.dice_to_roll() == 3  # hot dice: all three again
    s.apply(Roll((1, 2, 6)))
    s.apply(Keep((6,)))
    s.apply(Stop())
    assert s.counter_values[0]["score"] == 24


def test_banking_needs_12():
    s = GameState(load_model(EXAMPLE), ["Ann"])
    s.apply(Roll((1, 2, 6)))
    s.apply(Keep((6,)))
    assert s.legal_actions() == [RollOn()]
