"""The glossaries (rules/glossary/LANG.yaml): one word per concept in every German and Dutch
output (every bundled model's texts, the catalogs, the move words), and the names players use
accepted where people type ("Kniffel", "Grosse Strasse", "Carré")."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from babel.messages.pofile import read_po

from rulebook.interpreter import load_model
from rulebook.interpreter.engine.actions import Roll, Stop, Write
from rulebook.interpreter.engine.state import GameState
from rulebook.interpreter.model.loader import bundled_models
from rulebook.tools.glossary import glossary, typed
from rulebook.tools.terminal.moves import parse_move

ROOT = Path(__file__).resolve().parents[1]


def texts(value, lang: str, inside: bool = False):
    """Every string of a model's YAML written in `lang`."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from texts(v, lang, inside or k == lang)
    elif isinstance(value, list):
        for v in value:
            yield from texts(v, lang, inside)
    elif isinstance(value, str) and inside:
        yield value


def outputs(lang: str) -> list[tuple[str, str]]:
    """(where, text) for everything rulebook says in `lang`: the models, the catalog, the move words."""
    found = []
    for name in bundled_models():
        data = yaml.safe_load((ROOT / "rules" / f"{name}.yaml").read_text(encoding="utf-8"))
        found += [(f"rules/{name}.yaml", t) for t in texts(data, lang)]
    with (ROOT / "tools" / "locales" / lang / "LC_MESSAGES" / "rulebook.po").open("rb") as f:
        for m in read_po(f, locale=lang):
            for s in (m.string if isinstance(m.string, (list, tuple)) else [m.string]):
                if m.id and s:
                    found.append((f"catalog: {m.id if isinstance(m.id, str) else m.id[0]}", s))
    found += [("move words", w) for words in glossary(lang).moves.values() for w in words]
    return found


def uses(text: str, phrase: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text, re.I) is not None


@pytest.mark.parametrize("lang", ["de", "nl"])
def test_no_output_uses_a_synonym_the_glossary_avoids(lang):
    said = outputs(lang)
    assert len(said) > 1500
    wrong = [(where, phrase, text) for c in glossary(lang).concepts for phrase in c.avoid
             for where, text in said if uses(text, phrase)]
    assert wrong == []


@pytest.mark.parametrize("lang", ["de", "nl"])
def test_every_word_of_the_glossary_is_said_somewhere(lang):
    """A glossary that names words nobody says has gone stale."""
    said = outputs(lang)
    assert [c.word for c in glossary(lang).concepts if not any(uses(t, c.word) for _, t in said)] == []


@pytest.mark.parametrize("lang", ["de", "nl"])
def test_models_name_their_things_by_the_glossarys_word(lang):
    """The names players use are typed, never a model's name: Balut's Choice is 'Chance' in German
    like Yahtzee's, Yatzy's three alike 'Dreierpasch', Triple Yahtzee's 'Drie gelijke'."""
    also = {typed(a): c.word for c in glossary(lang).concepts for a in c.also if typed(a) != typed(c.word)}
    wrong = []
    for name in bundled_models():
        m = load_model(name)
        things = [*m.boxes.values(), *m.sections, *m.bonuses, *m.columns, *m.flow.walk()]
        wrong += [(name, t.name[lang], also[typed(t.name[lang])]) for t in things
                  if t.name and typed(t.name[lang]) in also]
    assert wrong == []


@pytest.mark.parametrize("lang", ["de", "nl"])
def test_the_same_box_has_the_same_name_in_every_model(lang):
    """A box that English calls alike is called alike in German and Dutch too (one word per thing)."""
    names: dict[str, set[str]] = {}
    for name in bundled_models():
        for box in load_model(name).boxes.values():
            names.setdefault(box.name["en"], set()).add(box.name[lang])
    names.pop("Choice", None)  # (Balut's and Yacht's "Choice" is the glossary's Chance: checked above)
    assert {en: n for en, n in names.items() if len(n) > 1} == {}


def at_write(model: str) -> GameState:
    state = GameState(load_model(model), ["Ann"])
    state.apply(Roll((6, 6, 6, 6, 6)))
    state.apply(Stop())
    return state


@pytest.mark.parametrize("model, lang, typed_name, box", [
    ("yahtzee", "de", "Kniffel", "yahtzee"),
    ("yahtzee", "de", "schreibe kniffel", "yahtzee"),
    ("yahtzee", "en", "Kniffel", "yahtzee"),  # a name players use is known in every language
    ("yahtzee", "de", "Grosse Strasse", "large_straight"),
    ("yahtzee", "de", "grosse straße", "large_straight"),
    ("yahtzee", "de", "Fuenfer", "fives"),
    ("yahtzee", "nl", "Carré", "four_of_a_kind"),
    ("yahtzee", "nl", "carre", "four_of_a_kind"),
    ("yatzy", "de", "Drilling", "three_of_a_kind"),
    ("yacht", "de", "Freie Wahl", "choice"),
    ("yacht", "en", "Yahtzee", "yacht"),
    ("triple_yahtzee", "de", "Kniffel, ×2", "yahtzee@double"),
])
def test_the_names_players_use_are_accepted_where_they_type(model, lang, typed_name, box):
    state = at_write(model)
    assert box in state.model.targets
    assert parse_move(typed_name, state, lang) == [Write(box)]
