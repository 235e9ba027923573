"""The terminal's words for moves that cannot be made now, and for announcements: whole sentences in
each language (no glued "Ones, Hand announces"), and the names people use typed as moves."""
from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from rich.console import Console

from rulebook.interpreter import load_model
from rulebook.interpreter.engine.actions import Announce, Keep, Roll, Stop
from rulebook.interpreter.engine.state import GameState
from rulebook.interpreter.model.errors import IllegalActionError
from rulebook.tools.i18n import translator
from rulebook.tools.terminal.moves import parse_move
from rulebook.tools.terminal.view import View

YAMB = load_model("yamb")
YAHTZEE = load_model("yahtzee")


def refused(text: str, state: GameState, lang: str) -> str:
    with pytest.raises(IllegalActionError) as info:
        parse_move(text, state, lang)
    return info.value.msg.render(translator(lang).gettext, lang)


def at_write(model):
    state = GameState(model, ["Ann"])
    state.apply(Roll((1, 2, 3, 4, 6)))
    state.apply(Keep(()))
    state.apply(Roll((1, 2, 3, 4, 6)))
    state.apply(Keep(()))
    state.apply(Roll((1, 2, 3, 4, 6)))
    assert state.step().kind == "write" and state.rolls_left() == 0
    return state


@pytest.mark.parametrize("lang, text, said", [
    ("en", "roll", "no rolls are left this turn: write the dice into a box"),
    ("de", "würfeln", "in diesem Zug ist kein Wurf mehr übrig: trag den Wurf in ein Feld ein"),
    ("nl", "gooi", "je hebt deze beurt geen worp meer over: schrijf de worp in een vakje"),
])
def test_rolling_with_no_rolls_left_says_so(lang, text, said):
    assert refused(text, at_write(YAHTZEE), lang) == said


def test_rolling_before_announcing_says_to_announce_first():
    state = GameState(YAMB, ["Ann"])
    state.apply(Roll((1, 2, 3, 4, 6)))
    assert state.step().kind == "announce"
    assert refused("würfeln", state, "de") == "sag zuerst ein Feld an (oder nichts); dann wird weitergewürfelt"
    assert refused("keep 1 2", state, "en") == "announce a box (or nothing) first; then the dice roll on"


@pytest.mark.parametrize("lang, line, prompt", [
    ("en", "Ann announces Ones in the Hand column", "You announced Ones in the Hand column: write the dice there."),
    ("de", "Ann sagt Einer in der Spalte Hand an", "Du hast Einer in der Spalte Hand angesagt: trag den Wurf dort ein."),
    ("nl", "Ann kondigt Enen aan in de kolom Hand", "Je hebt Enen aangekondigd in de kolom Hand: schrijf de worp daar."),
])
def test_an_announcement_names_box_and_column_in_one_sentence(lang, line, prompt):
    state = GameState(YAMB, ["Ann"])
    state.apply(Roll((1, 1, 1, 4, 6)))
    state.apply(Announce("ones@hand"))
    out = io.StringIO()
    view = View(lang, Console(file=out, width=200, color_system=None, highlight=False, markup=False))
    assert view.describe(SimpleNamespace(action=Announce("ones@hand"), player=0, points=0, bonus=0), state) == line
    while state.step().kind != "write":
        state.apply(Stop() if state.step().kind == "keep" else Roll((1, 1, 1, 4, 6)))
    view.board(state)
    assert prompt in out.getvalue()


def test_the_dutch_prompt_asks_for_a_turn_not_a_chess_move():
    assert translator("nl").gettext("{player}, your move (help for help): ") == "{player}, jouw beurt (help voor hulp): "
