"""`tools/documents/describe.py`: the one definition of each step kind, in words, in three languages."""
import re
import subprocess
from pathlib import Path

import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.model.errors import UsageError
from rulebook.interpreter.model.loader import bundled_models
from rulebook.interpreter.model.schemacheck import schema
from rulebook.interpreter.model.frozen import LANGUAGES
from rulebook.tools.documents.describe import (ROLE_STYLES, STEP_KINDS, bound_text, choice_text, edge_text, end_text,
                                     kind_of, number_words, phrase, step_label, step_sentence, times_words,
                                     who_text)

ROOT = Path(__file__).resolve().parent.parent
YAHTZEE = (ROOT / "rules" / "yahtzee.yaml").read_text(encoding="utf-8")


def edited(tmp_path, *replacements, name="edited.yaml", examples=True):
    """A copy of the bundled Yahtzee model with text replaced (each replacement must apply)."""
    text = YAHTZEE if examples else re.sub(r"\n *example: .*", "", YAHTZEE)
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_model(path)


@pytest.mark.parametrize("n, en, de, nl", [
    (0, "zero", "null", "nul"),
    (1, "one", "eins", "één"),
    (2, "two", "zwei", "twee"),
    (5, "five", "fünf", "vijf"),
    (12, "twelve", "zwölf", "twaalf"),
    (13, "thirteen", "dreizehn", "dertien"),
    (17, "seventeen", "siebzehn", "zeventien"),
    (20, "twenty", "zwanzig", "twintig"),
    (21, "twenty-one", "einundzwanzig", "eenentwintig"),
    (22, "twenty-two", "zweiundzwanzig", "tweeëntwintig"),
    (23, "twenty-three", "dreiundzwanzig", "drieëntwintig"),
    (34, "thirty-four", "vierunddreißig", "vierendertig"),
    (100, "one hundred", "einhundert", "honderd"),
    (101, "one hundred and one", "einhunderteins", "honderdeen"),
    (250, "two hundred and fifty", "zweihundertfünfzig", "tweehonderdvijftig"),
    (1000, "one thousand", "eintausend", "duizend"),
])
def test_number_words(n, en, de, nl):
    assert (number_words(n, "en"), number_words(n, "de"), number_words(n, "nl")) == (en, de, nl)


def test_times_words():
    assert [times_words(n, "en") for n in (1, 2, 3, 13)] == ["once", "twice", "three times", "13 times"]
    assert [times_words(n, "de") for n in (1, 2, 3, 21)] == ["einmal", "zweimal", "dreimal", "21-mal"]
    assert [times_words(n, "nl") for n in (1, 2, 3)] == ["één keer", "twee keer", "drie keer"]


def test_unknown_language_is_a_usage_error(yahtzee):
    with pytest.raises(UsageError, match="--lang must be one of en, de, nl"):
        number_words(3, "fr")
    with pytest.raises(UsageError):
        bound_text(yahtzee.flow, yahtzee, "fr")


def test_every_kind_of_the_schema_is_defined_once_with_a_role_and_a_look():
    kinds = set(schema()["$defs"]["step"]["properties"]["kind"]["enum"])
    assert kinds | {"end"} == set(STEP_KINDS)
    assert {k: STEP_KINDS[k].role for k in STEP_KINDS} == {
        "repeat": "loop", "each_player": "loop", "roll": "chance", "keep": "decision", "announce": "decision", "write": "decision",
        "bank": "decision",
        "end": "end"}
    for kind in STEP_KINDS.values():
        assert kind.style is ROLE_STYLES[kind.role]
        # every language says the same parts: no language is missing a template
        parts = {lang: set(kind.templates[lang]) for lang in LANGUAGES}
        assert parts["en"] == parts["de"] == parts["nl"], kind.kind
    # one look per role, different for chance, decision and loop
    looks = {(ROLE_STYLES[r].shape, ROLE_STYLES[r].fillcolor) for r in ("loop", "chance", "decision", "end")}
    assert len(looks) == 4


def test_kind_of(yahtzee):
    assert kind_of(yahtzee.flow) is STEP_KINDS["repeat"]
    assert [kind_of(s).role for s in yahtzee.flow.walk()] == [
        "loop", "loop", "chance", "loop", "decision", "chance", "decision"]


LOOP_BOUNDS = {
    "en": ("13 rounds", "each player in turn", "up to twice, until no rolls are left"),
    "de": ("13 Runden", "jeder Spieler reihum", "bis zu zweimal, bis keine Würfe mehr übrig sind"),
    "nl": ("13 rondes", "elke speler om de beurt", "hooguit twee keer, tot er geen worpen meer over zijn"),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_loop_bounds_come_from_the_structure(yahtzee, lang):
    game, turn, rerolls = (yahtzee.step(i) for i in ("game", "round", "rerolls"))
    assert (bound_text(game, yahtzee, lang), bound_text(turn, yahtzee, lang),
            bound_text(rerolls, yahtzee, lang)) == LOOP_BOUNDS[lang]
    for step in ("first_roll", "keep", "write"):
        assert bound_text(yahtzee.step(step), yahtzee, lang) == ""


WHO_AND_CHOICE = {
    "en": {"first_roll": ("chance", "all five dice"),
           "reroll": ("chance", "the dice that were not kept"),
           "keep": ("the current player", "keep any dice and roll the rest again, or stop"),
           "write": ("the current player", "an open box, with the points it would score")},
    "de": {"first_roll": ("der Zufall", "alle fünf Würfel"),
           "reroll": ("der Zufall", "die Würfel, die nicht behalten wurden"),
           "keep": ("wer am Zug ist", "beliebige Würfel behalten und den Rest neu werfen, oder aufhören"),
           "write": ("wer am Zug ist", "ein freies Feld, mit den Punkten, die es bringen würde")},
    "nl": {"first_roll": ("het toeval", "alle vijf dobbelstenen"),
           "reroll": ("het toeval", "de dobbelstenen die niet zijn gehouden"),
           "keep": ("wie aan de beurt is", "dobbelstenen houden en de rest opnieuw gooien, of stoppen"),
           "write": ("wie aan de beurt is", "een open vakje, met de punten die het zou opleveren")},
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_who_decides_and_what_can_be_chosen(yahtzee, lang):
    for step_id, expected in WHO_AND_CHOICE[lang].items():
        step = yahtzee.step(step_id)
        assert (who_text(step, yahtzee, lang), choice_text(step, yahtzee, lang)) == expected
    assert who_text(yahtzee.flow, yahtzee, lang) == choice_text(yahtzee.flow, yahtzee, lang) == ""


SENTENCES = {
    "en": ["The game is played over 13 rounds; in every round each player has one turn.",
           "The players take turns, one after another.",
           "All five dice are rolled.",
           "This is repeated up to twice, until no rolls are left; the player may also stop earlier.",
           "The current player chooses which dice to keep and rolls the rest again, or stops rolling.",
           "The dice that were not kept are rolled again.",
           "The current player writes the dice into an open box and scores what they are worth there; "
           "each of the 13 boxes is filled once."],
    "de": ["Gespielt wird über 13 Runden; in jeder Runde ist jeder Spieler einmal am Zug.",
           "Die Spieler sind nacheinander am Zug.",
           "Alle fünf Würfel werden geworfen.",
           "Das wird bis zu zweimal wiederholt, bis keine Würfe mehr übrig sind; man darf auch früher aufhören.",
           "Wer am Zug ist, wählt die Würfel, die liegen bleiben, und wirft den Rest neu – oder hört auf zu würfeln.",
           "Die Würfel, die nicht behalten wurden, werden neu geworfen.",
           "Wer am Zug ist, trägt den Wurf in ein freies Feld ein und bekommt die Punkte, die er dort wert ist; "
           "jedes der 13 Felder wird einmal ausgefüllt."],
    "nl": ["Er worden 13 rondes gespeeld; in elke ronde is elke speler één keer aan de beurt.",
           "De spelers spelen om de beurt.",
           "Alle vijf dobbelstenen worden gegooid.",
           "Dit wordt hooguit twee keer herhaald, tot er geen worpen meer over zijn; je mag ook eerder stoppen.",
           "Wie aan de beurt is, kiest welke dobbelstenen blijven liggen en gooit de rest opnieuw, of stopt met gooien.",
           "De dobbelstenen die niet zijn gehouden, worden opnieuw gegooid.",
           "Wie aan de beurt is, schrijft de worp in een open vakje en krijgt de punten die hij daar waard is; "
           "elk van de 13 vakjes wordt één keer ingevuld."],
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_step_sentences(yahtzee, lang):
    assert [step_sentence(s, yahtzee, lang) for s in yahtzee.flow.walk()] == SENTENCES[lang]


ENDS = {
    "en": "After 13 rounds, when every box is filled, the game ends; the player with the highest total "
          "wins (all boxes plus bonuses).",
    "de": "Nach 13 Runden, wenn alle Felder ausgefüllt sind, ist das Spiel zu Ende; es gewinnt, wer die "
          "höchste Gesamtsumme hat (alle Felder und Boni).",
    "nl": "Na 13 rondes, als alle vakjes zijn ingevuld, is het spel afgelopen; wie het hoogste totaal heeft, "
          "wint (alle vakjes plus bonussen).",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_end_text(yahtzee, lang):
    assert end_text(yahtzee, lang) == ENDS[lang]


def test_texts_follow_the_model_numbers_plurals_and_options(tmp_path):
    # 21 rounds fill 12 boxes and a Chance used 9 times (a flow must give exactly the writes the sheet needs)
    m = edited(tmp_path, ("times: 13", "times: 21"), ("times: 2\n", "times: 1\n"), ("can_stop: true", "can_stop: false"),
               ("winner: highest_total", "winner: lowest_total"), ("count: 5, faces: 6", "count: 2, faces: 6"),
               ("        score: sum(dice)\n", "        score: sum(dice)\n        uses: 9\n"), examples=False)
    rerolls = m.step("rerolls")
    assert [bound_text(m.flow, m, lang) for lang in LANGUAGES] == [
        "21 rounds", "21 Runden", "21 rondes"]
    assert [bound_text(rerolls, m, lang) for lang in LANGUAGES] == [
        "once, until no rolls are left", "einmal, bis keine Würfe mehr übrig sind",
        "één keer, tot er geen worpen meer over zijn"]
    assert [choice_text(m.step("keep"), m, lang) for lang in LANGUAGES] == [
        "keep any dice and roll the rest again", "beliebige Würfel behalten und den Rest neu werfen",
        "dobbelstenen houden en de rest opnieuw gooien"]
    assert [step_sentence(m.step("first_roll"), m, lang) for lang in LANGUAGES] == [
        "Both dice are rolled.", "Beide Würfel werden geworfen.", "Beide dobbelstenen worden gegooid."]
    assert end_text(m, "en").startswith("After 21 rounds, when every box is filled, the game ends; "
                                        "the player with the lowest total")
    assert [step_sentence(m.step("write"), m, lang).split("; ")[-1] for lang in LANGUAGES] == [
        "each box takes as many entries as the sheet shows.",
        "jedes Feld nimmt so viele Einträge auf, wie der Spielzettel zeigt.",
        "elk vakje krijgt zoveel invullingen als het scoreblad aangeeft."]
    assert "es gewinnt, wer die niedrigste Gesamtsumme hat" in end_text(m, "de")
    assert "wie het laagste totaal heeft, wint" in end_text(m, "nl")
    assert [edge_text(m.step("keep"), m, lang, "stop") for lang in LANGUAGES] == ["", "", ""]


def test_up_to_once_and_solo_games(tmp_path):
    m = edited(tmp_path, ("times: 2\n", "times: 1\n"), ("players: {min: 1, max: 8}", "players: {min: 1, max: 1}"))
    assert [bound_text(m.step("rerolls"), m, lang).split(",")[0] for lang in LANGUAGES] == [
        "at most once", "höchstens einmal", "hooguit één keer"]
    assert [who_text(m.step("write"), m, lang) for lang in LANGUAGES] == ["the player", "wer spielt", "wie speelt"]
    assert [bound_text(m.step("round"), m, lang) for lang in LANGUAGES] == ["one turn", "ein Zug", "één beurt"]
    assert end_text(m, "en").endswith("the aim is the highest total (all boxes plus bonuses).")
    assert edge_text(m.step("round"), m, "en", "back") == ""  # no "next player" when playing alone


def test_until_no_rolls_left_needs_a_roll_of_the_unkept_dice(tmp_path):
    m = edited(tmp_path, ("dice: unkept", "dice: all"))
    assert [bound_text(m.step("rerolls"), m, lang) for lang in LANGUAGES] == ["up to twice", "bis zu zweimal",
                                                                              "hooguit twee keer"]
    assert choice_text(m.step("keep"), m, "en") == "the dice to keep, or stop"


def test_diagram_parts_and_arrows(yahtzee):
    assert step_label(yahtzee.flow, yahtzee, "nl") == "↻ Spel: 13 rondes"
    assert step_label(yahtzee.step("keep"), yahtzee, "de").startswith("wer am Zug ist, wählt:\n")
    assert [edge_text(yahtzee.step("rerolls"), yahtzee, lang, "back") for lang in LANGUAGES] == [
        "again", "noch einmal", "nog een keer"]
    assert [edge_text(yahtzee.flow, yahtzee, lang, "exit") for lang in LANGUAGES] == [
        "after 13 rounds", "nach 13 Runden", "na 13 rondes"]
    with pytest.raises(ValueError):
        edge_text(yahtzee.flow, yahtzee, "en", "sideways")
    assert phrase("section_total", "de", section="Oberer Block") == "Summe Oberer Block"


@pytest.mark.parametrize("name", sorted(bundled_models()))
def test_every_bundled_model_is_described_in_every_language(name):
    m = load_model(name)
    for lang in LANGUAGES:
        texts = [end_text(m, lang)] + [f(s, m, lang) for s in m.flow.walk()
                                       for f in (bound_text, who_text, choice_text, step_sentence, step_label)]
        for text in texts:
            assert "{" not in text and "}" not in text and "  " not in text, text
        for s in m.flow.walk():
            sentence = step_sentence(s, m, lang)
            assert sentence[:1].isupper() and sentence.endswith("."), sentence


def test_describe_names_no_game():
    found = subprocess.run(["grep", "-niE", "yahtzee|yatzy|yacht|generala|balut|yamb|captain|joker|full.?house|straight",
                            "tools/documents/describe.py", "tools/documents/stepkinds.py", "tools/documents/steptexts.py",
                            "tools/documents/numbers.py", "tools/documents/wording.py", "tools/documents/diagram.py",
                            "tools/commands/diagram.py"],
                           cwd=ROOT, capture_output=True, text=True)
    assert found.stdout == ""
