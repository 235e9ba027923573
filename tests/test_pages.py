"""`rulebook pages`: every rule fact of the seeds on the page of its language, computed examples,
no English in the German and Dutch pages, valid HTML5, options that change the facts, Markdown.

The seeds are the rule texts in shared/seeds: 000 (English and German rules), 003 (English rules
with the 2 2 4 3 4 example) and 002 (a Dutch page whose failure was English leaking into it).
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

import html5lib
import pytest
import yaml
from babel.messages.pofile import read_po

from rulebook.interpreter import bundled_models, load_model
from rulebook.interpreter.model.frozen import LANGUAGES
from rulebook.interpreter.model.scoring import Scorer
from rulebook.tools.documents import pages
from rulebook.tools.i18n import LOCALES_DIR

# Names and words that are written the same in English, German and Dutch, so they may stand in any
# page. Every other word that only the English pages use is a leak on a German or Dutch page.
SAME_IN_ALL_LANGUAGES = {"rulebook", "yaml", "svg", "yahtzee", "yatzy", "yacht", "generala", "chance", "bonus",
                         "full", "house", "plus"}

SEED_EN = [  # seeds 000 and 003, as the English page words them
    "five dice with the faces 1 to 6",                       # "You have five dice"
    "13 rounds",                                       # "The game consists of 13 rounds"
    "up to three rolls per turn",                            # "a total of three times"
    "All five dice are rolled.",                             # "the initial roll (you must roll all the dice)"
    "This is repeated up to twice",                          # "plus two re-rolls"
    "chooses which dice to keep and rolls the rest again",   # "re-roll any or all of the five dice"
    "or stops rolling",                                      # you may score after any roll
    "writes the dice into an open box",                      # "score the roll in one of the 13 categories"
    "each of the 13 boxes is filled once",             # "You must score once in each category"
    "Each box takes one roll and keeps its points for the rest of the game.",  # "closed out for the rest"
    "the box is crossed out and scores 0",                   # "settle for scoring zero"
    "After 13 rounds, when every box is filled, the game ends",  # "ends once all 13 … scored"
    "the player with the highest total wins",                # "maximize your total score"
    "2 2 4 3 4 in Twos scores 4 points.",                    # seed 003
    "2 2 4 3 4 in Threes scores 3 points.",
    "2 2 4 3 4 in Fours scores 8 points.",
    "3 3 3 5 6 in Three of a kind scores 20 points.",        # seed 000: "20 points for 3 of a Kind"
    "35 points when the upper section totals at least 63",   # the upper bonus
    "100 points for every further Yahtzee once the Yahtzee box holds 50",  # seed 003: Yahtzee bonus
    "a further Yahtzee must go into its upper box if that is open; otherwise into any open lower box, "
    "where full house, small and large straight score their full points",  # seed 003: Joker
    "Grand total = Upper total + Upper bonus + Lower total + Yahtzee bonus",
    "63 = e.g. three dice in every box",                     # seed 003: "63 … three-of-a-kind for each"
    "a large straight also counts as a small one",           # seed 000: "satisfies both"
    "the Joker applies also when the Yahtzee box holds 0, the bonus does not",  # seed 003
    "Chance as the fallback",                                # seed 003: "a turn that will not score well"
    "you may re-roll dice you kept before",                  # seed 001: "re-roll a die … not rolled on the second"
]
SEED_EN_RULES = {  # box → its rule (seed 000/003: "Scoring")
    "Ones": "the ones count", "Threes": "the threes count", "Sixes": "the sixes count",
    "Three of a kind": "at least three dice alike; all dice count",
    "Four of a kind": "at least four dice alike; all dice count",
    "Full house": "three dice alike and two other dice alike; 25 points",
    "Small straight": "four dice in a row: 1-2-3-4, 2-3-4-5 or 3-4-5-6; 30 points",
    "Large straight": "five dice in a row, 1 to 5 or 2 to 6; 40 points (a large straight also counts as a small one)",
    "Yahtzee": "all five dice alike; 50 points",
    "Chance": "any dice; all dice count (Chance as the fallback when a roll fits nowhere else)",
}
SEED_EN_ALL_BOXES = {"Ones": 0, "Twos": 4, "Threes": 3, "Fours": 8, "Fives": 0, "Sixes": 0}  # seed 003

SEED_DE = [  # seed 000, German part
    "fünf Würfel mit den Augenzahlen 1 bis 6",               # "Gespielt wird mit fünf Würfeln"
    "bis zu drei Würfe pro Zug",                             # "bis zu drei Mal hintereinander würfeln"
    "wählt die Würfel, die liegen bleiben, und wirft den Rest neu",  # "zur Seite legen … weiterwürfeln"
    "trägt den Wurf in ein freies Feld ein",                 # "für ein freies Feld … entscheiden"
    "35 Punkte, wenn oben mindestens 63 Punkte stehen",      # "mindestens 63 Punkte … Bonus von 35"
    "Ein Wurf, der die Bedingung eines Feldes nicht erfüllt, darf trotzdem dort eingetragen werden: "
    "Das Feld wird dann gestrichen und zählt 0 Punkte.",     # "dann wird das Feld gestrichen"
    "63 = z. B. drei Würfel in jedem Feld",                  # "(z. B. für jedes Feld drei Würfel)"
    "1-2-3-4, 2-3-4-5 oder 3-4-5-6",                         # the sheet: "Kleine Straße"
    "Summe oben", "Summe unten",                             # the sheet's two sums
    "Kniffel",                                               # what German players call it
    "wenn alle Felder ausgefüllt sind, ist das Spiel zu Ende",  # "Ist der Spielzettel voll …"
    "es gewinnt, wer die höchste Gesamtsumme hat",           # "Es gewinnt der Spieler mit den meisten Punkten"
    "Gesamtsumme = Summe oben + Bonus + Summe unten + Yahtzee-Bonus",  # "Oben + Bonus + Unten"
    "Wer 2 2 4 3 4 ins Feld „Vierer“ einträgt, bekommt 8 Punkte.",
]
SEED_DE_RULES = {  # the score sheet of seed 000 ("Anmerkungen")
    "Einer": "nur Einer zählen", "Zweier": "nur Zweier zählen", "Dreier": "nur Dreier zählen",
    "Vierer": "nur Vierer zählen", "Fünfer": "nur Fünfer zählen", "Sechser": "nur Sechser zählen",
    "Dreierpasch": "mindestens drei gleiche Würfel; alle Augen zählen",
    "Viererpasch": "mindestens vier gleiche Würfel; alle Augen zählen",
    "Full House": "drei gleiche und zwei andere gleiche Würfel; 25 Punkte",
    "Kleine Straße": "vier Würfel in Folge: 1-2-3-4, 2-3-4-5 oder 3-4-5-6; 30 Punkte",
    "Große Straße": "fünf Würfel in Folge, 1 bis 5 oder 2 bis 6; 40 Punkte (eine große Straße zählt auch als kleine)",
    "Yahtzee": "fünf gleiche Würfel; 50 Punkte",
    "Chance": "beliebige Würfel; alle Augen zählen (die Chance als Ausweg, wenn ein Wurf sonst nirgends passt)",
    "Summe oben": "die Punkte der Felder darüber, zusammengezählt; sie zählen zur Gesamtsumme",
    "Summe unten": "die Punkte der Felder darüber, zusammengezählt; sie zählen zur Gesamtsumme",
    "Bonus": "35 Punkte, wenn oben mindestens 63 Punkte stehen (63 = z. B. drei Würfel in jedem Feld)",
}

SEED_NL = [  # seed 002, as it should have read
    "Vijf dobbelstenen, drie worpen, dertien vakjes.",
    "Doel van het spel", "Spelverloop", "Einde van het spel",
    "13 rondes",                                        # "Thirteen rounds"
    "Alle vijf dobbelstenen worden gegooid.",                # "you roll five dice"
    "Dit wordt hooguit twee keer herhaald",                  # "may reroll any of them twice more"
    "elk van de 13 vakjes wordt één keer ingevuld",     # "one of your 13 boxes"
    "35 punten als het bovenste deel samen minstens 63 is",  # "63 or more … earns a 35 bonus"
    "het vakje wordt dan doorgestreept en levert 0 punten op",  # "A box that does not fit scores 0"
    "Totaal boven", "Totaal onder", "Drie gelijke",
    "Na 13 rondes",                                     # "After 13 rounds the highest total wins"
    "wie het hoogste totaal heeft, wint",
    "100 punten voor elke volgende Yahtzee als het Yahtzee-vakje al 50 bevat",  # "Extra Yahtzees … 100"
    "een volgende Yahtzee moet in zijn bovenste vakje als dat nog open is; anders in een open vakje "
    "onderaan, waar full house en de straten hun volle punten tellen",  # the joker
    "Wie beslist: wie aan de beurt is",                      # "door current player"
    "Keuze: dobbelstenen houden en de rest opnieuw gooien, of stoppen",  # "Kies a die to keep … or stop"
    "Keuze: een open vakje, met de punten die het zou opleveren",  # "Kies an open box (with the points …)"
    "Het model als YAML-bestand", "Een kopie bewerken", "Het regeldiagram (SVG)",  # the links
]
SEED_NL_RULES = {  # "ones to sixes score the pips of that face", "full house 25", …
    "Enen": "alleen de enen tellen", "Zessen": "alleen de zessen tellen",
    "Drie gelijke": "minstens drie gelijke stenen; alle ogen tellen",
    "Vier gelijke": "minstens vier gelijke stenen; alle ogen tellen",
    "Full house": "drie gelijke en twee andere gelijke stenen; 25 punten",
    "Kleine straat": "vier stenen op een rij: 1-2-3-4, 2-3-4-5 of 3-4-5-6; 30 punten",
    "Grote straat": "vijf stenen op een rij, 1 tot 5 of 2 tot 6; 40 punten (een grote straat telt ook als kleine)",
    "Yahtzee": "vijf gelijke stenen; 50 punten",
    "Kans": "elke worp; alle ogen tellen (Kans als uitwijk als een worp nergens anders past)",
}


# reading pages --------------------------------------------------------------------------------

def parse_html(text: str):
    """The page as an element tree; html5lib in strict mode raises on any HTML5 parse error."""
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)


TEXT_ATTRIBUTES = ("alt", "title", "aria-label", "placeholder")


def text_nodes(root) -> list[tuple[str, str, bool]]:
    """(text, language, translatable) for every visible text node and text-bearing attribute.

    The language is the nearest `lang` attribute; `translate="no"` marks code (commands, option ids).
    """
    page_lang = root.get("lang")
    out: list[tuple[str, str, bool]] = []

    def add(text, lang, translate):
        text = " ".join((text or "").split())
        if text:
            out.append((text, lang, translate))

    def walk(el, lang, translate, visible):
        lang = el.get("lang", lang)
        translate = translate and el.get("translate") != "no"
        visible = visible and el.tag not in ("script", "style", "template") and el.get("hidden") is None
        if el.tag == "head":
            for child in el:
                if child.tag == "title":
                    add(child.text, lang, translate)
                if child.tag == "meta" and child.get("name") == "description":
                    add(child.get("content"), lang, translate)
            return
        if visible:
            add(el.text, lang, translate)
            for attr in TEXT_ATTRIBUTES:
                add(el.get(attr), lang, translate)
        for child in el:
            walk(child, lang, translate, visible)
            if visible:
                add(child.tail, lang, translate)

    walk(root, page_lang, True, True)
    return out


def svg_texts(svg: str) -> list[str]:
    root = ET.fromstring(svg.encode())
    return [" ".join(t.split()) for el in root.iter() if el.tag.endswith("}text") or el.tag == "text"
            for t in ["".join(el.itertext())] if t.strip()]


def visible_text(root) -> str:
    """All visible text of a page in reading order, whitespace normalized (no-break spaces too)."""
    return " ".join(t for t, _, _ in text_nodes(root)).replace("\u00a0", " ")


def find(root, tag: str, **attrs):
    return [el for el in root.iter(tag) if all(el.get(k.rstrip("_")) == v for k, v in attrs.items())]


def element_text(el) -> str:
    return " ".join("".join(el.itertext()).replace("\u00a0", " ").split())


def sheet_rules(root) -> dict[str, str]:
    """Box (or total or bonus) name → the rule next to it, from the score sheet tables."""
    out = {}
    for table in find(root, "table"):
        if "sheet" not in (table.get("class") or ""):
            continue
        for tr in table.iter("tr"):
            th, tds = tr.find("th"), tr.findall("td")
            if th is not None and tds and th.get("scope") == "row":
                out[element_text(th)] = element_text(tds[0])
    return out


def showcase(root) -> dict[str, int]:
    dl = next(el for el in root.iter("dl") if el.get("class") == "showcase")
    return {element_text(d.find("dt")): int(element_text(d.find("dd"))) for d in dl.findall("div")}


# the site -------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def site(options: tuple = (), fmt: str = "html") -> dict[str, str]:
    """Every bundled model's pages; with options (for Yahtzee), Yahtzee's pages only."""
    names = ("yahtzee",) if options else tuple(bundled_models())
    return pages.build_site([load_model(n, dict(options)) for n in names], LANGUAGES, fmt)


@lru_cache(maxsize=None)
def page(name: str, lang: str, options: tuple = ()):
    return parse_html(site(options)[f"{name}.{lang}.html"])


def normalized(s: str) -> str:
    return " ".join(s.replace("\u00a0", " ").split())


# facts of the seeds ----------------------------------------------------------------------------

@pytest.mark.parametrize("lang, facts, rules", [
    ("en", SEED_EN, SEED_EN_RULES), ("de", SEED_DE, SEED_DE_RULES), ("nl", SEED_NL, SEED_NL_RULES)])
def test_page_states_every_fact_of_its_seed(lang, facts, rules):
    root = page("yahtzee", lang)
    text = visible_text(root)
    missing = [f for f in facts if normalized(f) not in text]
    assert not missing, f"{lang} page lacks: {missing}"
    table = sheet_rules(root)
    wrong = {box: (rule, table.get(box)) for box, rule in rules.items() if table.get(box) != rule}
    assert not wrong, wrong


def test_seed_003_one_roll_in_every_box():
    got = showcase(page("yahtzee", "en"))
    assert {k: got[k] for k in SEED_EN_ALL_BOXES} == SEED_EN_ALL_BOXES
    assert got["Chance"] == 15 and len(got) == 13


def test_nl_page_lists_every_box_of_the_sheet():  # seed 002: "boxes 13 stuks"
    rules = sheet_rules(page("yahtzee", "nl"))
    for name in ["Enen", "Tweeën", "Drieën", "Vieren", "Vijven", "Zessen", "Drie gelijke", "Vier gelijke",
                 "Full house", "Kleine straat", "Grote straat", "Yahtzee", "Kans"]:
        assert name in rules
    assert "dertien vakjes" in visible_text(page("yahtzee", "nl"))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_head_facts_players_components_and_tagline(lang):
    model = load_model("yahtzee")
    root = page("yahtzee", lang)
    assert element_text(find(root, "h1")[0]) == model.name[lang]
    assert element_text(find(root, "p", class_="tagline")[0]) == model.tagline[lang]
    text = visible_text(root)
    assert {"en": "1 to 8 players", "de": "1 bis 8 Spieler", "nl": "1 tot en met 8 spelers"}[lang] in text
    assert {"en": "a score sheet for each player, with 13 boxes", "de": "ein Spielzettel pro Spieler mit 13 Feldern",
            "nl": "een scoreblad per speler, met 13 vakjes"}[lang] in text
    assert model.objective[lang] in text


def test_worked_examples_are_computed_by_the_engine():
    """Every box with an example, in every bundled model and language, shows the Scorer's points
    (for the last roll of a turn; a score that differs on the first roll shows that too)."""
    word = {"en": ("point", "points"), "de": ("Punkt", "Punkte"), "nl": ("punt", "punten")}
    for name in bundled_models():
        model = load_model(name)
        scorer = Scorer(model)
        last = pages.rolls_per_turn(model)
        for lang in LANGUAGES:
            root = parse_html(site()[f"{name}.{lang}.html"])
            for box_id, box in model.boxes.items():
                if not box.example:
                    continue
                td = find(root, "tr", id=f"box-{box_id}")[0].find("td[@class='example']")
                cell = element_text(td)
                drawn = [s for s in td.iter("span") if s.get("class") == "dice"]  # dice drawn with pips
                assert drawn and drawn[0].get("aria-label") == " ".join(map(str, box.example))
                assert len(list(drawn[0].iter("{http://www.w3.org/2000/svg}svg"))) == len(box.example)
                assert box.name[lang] in cell
                n = scorer.points(box_id, box.example, {}, last)
                first = scorer.points(box_id, box.example, {}, 1)
                if "sheet" in box.score.deps and n == 0:
                    continue  # shown with another box filled: see the Generala test
                assert f" {n} {word[lang][n != 1]}." in cell, (name, lang, cell)
                if first != n:
                    assert cell.endswith(f" {first} {word[lang][first != 1]}."), (name, lang, cell)
                else:
                    assert cell.endswith(f" {n} {word[lang][n != 1]}."), (name, lang, cell)


def test_examples_that_depend_on_the_roll_number_or_the_sheet():
    root = parse_html(site()["generala.en.html"])
    cell = lambda box: visible_text(find(root, "tr", id=f"box-{box}")[0].find("td[@class='example']"))  # dice: aria-label
    assert cell("straight") == "2 3 4 5 6 in Straight scores 20 points. On the first roll of a turn: 25 points."
    assert cell("double_generala") == "1 1 1 1 1 in Double generala scores 100 points once Generala holds 50."
    de = parse_html(site()["generala.de.html"])
    text = element_text(find(de, "tr", id="box-double_generala")[0])
    assert "wenn im Feld „Generala“ schon 50 stehen, bekommt 100 Punkte." in text


def test_plural_forms():
    w = {lang: pages.Words(lang, "md") for lang in LANGUAGES}
    assert w["en"].example((1, 2, 3, 4, 5), "Ones", 1) == "1 2 3 4 5 in Ones scores 1\u00a0point."
    assert w["de"].example((1, 2, 3, 4, 5), "Einer", 1).endswith("bekommt 1\u00a0Punkt.")
    assert w["nl"].example((1, 1, 3, 4, 5), "Enen", 2).endswith("krijgt 2\u00a0punten.")
    assert w["de"].example((2, 2, 3, 4, 5), "Einer", 0).endswith("bekommt 0\u00a0Punkte.")
    assert w["en"].rounds(1) == "one round" and w["de"].rounds(1) == "eine Runde" and w["nl"].rounds(12) == "twaalf rondes"
    assert w["de"].dice_needed(1, 6) == "ein Würfel mit den Augenzahlen 1 bis 6"
    assert w["nl"].players(2, 2) == "2 spelers" and w["en"].players(1, 1) == "1 player"


# options change the facts ------------------------------------------------------------------------

def test_bonus_threshold_option_changes_every_page():
    options = (("upper_bonus_threshold", "68"),)
    for lang, fact in [("en", "35 points when the upper section totals at least 68"),
                       ("de", "35 Punkte, wenn oben mindestens 68 Punkte stehen"),
                       ("nl", "35 punten als het bovenste deel samen minstens 68 is")]:
        root = page("yahtzee", lang, options)
        text = visible_text(root)
        assert fact in text and "mindestens 63" not in text and "least 63" not in text and "minstens 63" not in text
        row = next(tr for tr in root.iter("tr") if tr.get("class") == "changed")
        assert element_text(row.findall("td")[-1]) == "68" and element_text(row.findall("td")[-2]) == "63"
        note = element_text(find(root, "div", class_="note")[0])
        assert "68" in note


def test_joker_option_rewords_the_bonus_and_where_the_dice_may_go():
    none = visible_text(page("yahtzee", "en", (("joker", "none"),)))
    assert "no bonus for further Yahtzees" in none and "Any open box may take the dice." in none
    assert "100 points for every further Yahtzee" not in none
    free = visible_text(page("yahtzee", "de", (("joker", "free"),)))
    assert "Joker: Ein weiterer Yahtzee darf in jedes freie Feld" in free
    assert "muss in sein oberes Feld" not in free


def test_cli_writes_the_site_and_applies_options(cli, tmp_path):
    code, out, err = cli("pages", "yahtzee", "yacht", "--lang", "de,nl", "--option", "upper_bonus=40", "-o", str(tmp_path))
    assert code == 0 and err == "" and "wrote 4 pages for 2 games in de, nl" in out
    names = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    assert {"index.html", "index.nl.html", "yahtzee.de.html", "yahtzee.nl.html", "yacht.de.html", "yacht.nl.html",
            "yahtzee.yaml", "yacht.yaml", "static/rulebook.css"} <= names
    assert "40 Punkte, wenn oben" in (tmp_path / "yahtzee.de.html").read_text(encoding="utf-8")
    assert (tmp_path / "yahtzee.yaml").read_text(encoding="utf-8") == bundled_models()["yahtzee"].read_text(encoding="utf-8")


def test_cli_usage_errors_are_one_line(cli, tmp_path):
    for args, message in [
        (("pages", "yahtzee", "--lang", "fr", "-o", str(tmp_path)), "rulebook speaks en, de, nl, not 'fr'"),
        (("pages", "yahtzee", "--option", "jokr=free", "-o", str(tmp_path)), "did you mean 'joker'"),
        (("pages", "yahtzee", "--option", "joker=sometimes", "-o", str(tmp_path)), "choose one of 'forced', 'free', 'none'"),
        (("pages", "yahtze", "-o", str(tmp_path)), "did you mean 'yahtzee'"),
        (("pages", "yahtzee", "rules/yahtzee.yaml", "-o", str(tmp_path)), "two models have the id 'yahtzee'"),
    ]:
        code, out, err = cli(*args)
        assert code == 2 and err.count("\n") == 1 and message in err, (args, err)


# no English in German and Dutch pages ------------------------------------------------------------

WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")


def words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text)}


def _model_texts(lang: str) -> set[str]:
    """Every word the bundled models give in `lang`, in every option's variant."""
    out: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            if set(LANGUAGES) <= set(node) and all(isinstance(node[k], str) for k in LANGUAGES):
                out.update(words(node[lang]))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    for path in bundled_models().values():
        walk(yaml.safe_load(path.read_text(encoding="utf-8")))
    return out


def _catalog(lang: str) -> set[str]:
    with (LOCALES_DIR / lang / "LC_MESSAGES" / "rulebook.po").open("rb") as f:
        catalog = read_po(f)
    return {w for m in catalog if m.id for s in (m.string if isinstance(m.string, tuple) else [m.string])
            for w in words(s)}


@lru_cache(maxsize=None)
def english_only_words(lang: str) -> frozenset[str]:
    """Words the English pages use that are not words of `lang` in the models or the catalog."""
    english: set[str] = set()
    for options in [(), (("joker", "free"),), (("joker", "none"),)]:
        for name, text in site(options).items():
            if name.endswith(".en.html"):
                english |= {w for t, _, tr in text_nodes(parse_html(text)) if tr for w in words(t)}
            if name.endswith(".en.svg"):
                english |= {w for t in svg_texts(text) for w in words(t)}
    return frozenset(english - _model_texts(lang) - _catalog(lang) - SAME_IN_ALL_LANGUAGES)


def leaks(root, lang: str) -> list[str]:
    """Text nodes of a `lang` page with English in them (words only the English pages use)."""
    english = english_only_words(lang)
    found = []
    for text, node_lang, translate in text_nodes(root):
        if node_lang != lang or not translate:
            continue
        bad = sorted(words(text) & english)
        if bad:
            found.append(f"{text!r}: {', '.join(bad)}")
    return found


CODE = re.compile(r"^(rulebook [a-z]+( [\w./=-]+)*|[a-z][a-z0-9_]*)$")


@pytest.mark.parametrize("name", sorted(bundled_models()))
@pytest.mark.parametrize("lang", ["de", "nl"])
def test_no_english_in_german_and_dutch_pages(name, lang):
    root = page(name, lang)
    assert root.get("lang") == lang
    assert not leaks(root, lang), "\n".join(leaks(root, lang))
    for text, node_lang, translate in text_nodes(root):
        if node_lang != lang:  # only the language switcher speaks another language, and says so
            assert text == pages.LANGUAGE_NAMES[node_lang], text
        elif not translate:  # code: commands and option ids, the same in every language
            assert CODE.match(text), text
    svg = site()[f"{name}.{lang}.svg"]
    english = english_only_words(lang)
    assert not [t for t in svg_texts(svg) if words(t) & english], "English in the diagram"


def test_leak_check_catches_seed_002(monkeypatch):
    """The failure of seed 002 (English step texts on the Dutch page) is caught."""
    from rulebook.tools.documents import describe
    real = describe.step_sentence
    monkeypatch.setattr(describe, "step_sentence", lambda step, model, lang: real(step, model, "en"))
    model = load_model("yahtzee")
    root = parse_html(pages.render_game(model, "nl", pages.Site((model,), LANGUAGES)))
    found = leaks(root, "nl")
    assert any("13" in f and "rounds" in f for f in found), found


def test_catalogs_translate_every_page_text():
    """Each message of the templates and of the pages' Python (words.py, gamepage.py) has a German and a Dutch
    translation with the same placeholders."""
    from babel.messages.extract import extract_from_dir
    root = Path(pages.__file__).resolve().parents[2]
    method_map = [("tools/documents/words.py", "python"), ("tools/documents/gamepage.py", "python"),
                  ("tools/documents/templates/**.j2", "jinja2")]
    options = {"tools/documents/templates/**.j2": {"extensions": "jinja2.ext.i18n", "trimmed": "true"}}
    found = {m[2] if isinstance(m[2], str) else m[2][0]
             for m in extract_from_dir(root, method_map, options, keywords={"_": None, "n_": (1, 2)})}
    found.discard("")
    assert len(found) > 50
    for lang in ("de", "nl"):
        with (LOCALES_DIR / lang / "LC_MESSAGES" / "rulebook.po").open("rb") as f:
            catalog = read_po(f)
        for msgid in found:
            message = catalog.get(msgid)
            assert message is not None and not message.fuzzy, f"{lang}: no translation for {msgid!r}"
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            assert all(strings), f"{lang}: empty translation for {msgid!r}"
            want = set(re.findall(r"%\((\w+)\)", message.id[-1] if isinstance(message.id, tuple) else message.id))
            assert set(re.findall(r"%\((\w+)\)", strings[-1])) == want, (lang, msgid)


# HTML5 and the site's structure ------------------------------------------------------------------

def test_every_page_is_valid_html5_with_working_links():
    files = site()
    for name, text in files.items():
        if not name.endswith(".html"):
            continue
        root = parse_html(text)  # raises on any parse error
        assert text.startswith("<!DOCTYPE html>") and root.get("lang") in LANGUAGES
        ids = [el.get("id") for el in root.iter() if el.get("id")]
        assert len(ids) == len(set(ids)), f"{name}: duplicate ids"
        for img in root.iter("img"):
            assert img.get("alt") and img.get("src") in files, name
        for a in root.iter("a"):
            href = a.get("href")
            target, _, anchor = href.partition("#")
            assert not target or target in files, f"{name}: broken link {href}"
            if anchor:
                assert anchor in (ids if not target else [el.get("id") for el in parse_html(files[target]).iter()])
        for link in root.iter("link"):
            assert link.get("href") in files


@pytest.mark.parametrize("lang", LANGUAGES)
def test_language_switcher_links_the_same_game(lang):
    root = page("yahtzee", lang)
    nav = next(el for el in root.iter("nav") if el.get("class") == "languages")
    links = {a.get("hreflang"): a.get("href") for a in nav.iter("a")}
    assert links == {other: f"yahtzee.{other}.html" for other in LANGUAGES if other != lang}
    current = [el for el in nav.iter("span") if el.get("aria-current") == "page"]
    assert [el.get("lang") for el in current] == [lang]


def test_index_lists_every_game_in_each_language():
    files = site()
    for lang in LANGUAGES:
        root = parse_html(files["index.html" if lang == "en" else f"index.{lang}.html"])
        hrefs = [a.get("href") for a in find(root, "ul", class_="games")[0].iter("a")]
        assert hrefs == [f"{name}.{lang}.html" for name in bundled_models()]


def test_page_has_diagram_edit_howto_and_print_stylesheet():
    root = page("yahtzee", "en")
    figure = find(root, "figure", class_="diagram")[0]
    assert [a.get("href") for a in figure.iter("a") if a.get("href") == "yahtzee.en.svg"]
    svg = figure.find(".//{http://www.w3.org/2000/svg}svg")
    # the whole flow at its own width, narrowed to the page by the stylesheet (no style attribute,
    # which a served page's Content-Security-Policy would block): not a thumbnail beside the list
    assert svg.get("width").isdigit() and int(svg.get("width")) > 400 and svg.get("style") is None
    css = (Path(pages.__file__).parent / "static" / "rulebook.css").read_text(encoding="utf-8")
    assert ".diagram svg.flow { max-width: 100%; height: auto;" in css


def test_every_step_of_the_list_links_to_its_node_in_the_diagram():
    model = load_model("yahtzee")
    for lang in LANGUAGES:
        root = page("yahtzee", lang)
        ids = {g.get("id") for g in root.iter("{http://www.w3.org/2000/svg}g")}
        links = [a.get("href") for li in find(root, "li") if "step" in (li.get("class") or "").split()
                 for a in li.find("p").iter("a")]
        assert sorted(links) == sorted(f"#node-{s.id}" for s in model.flow.walk())
        assert all(link[1:] in ids for link in links)
        titles = [element_text(t) for t in root.iter("{http://www.w3.org/2000/svg}title")]
        assert model.flow.name[lang] in titles and not any("step_" in t or "cluster_" in t for t in titles)
    assert "rulebook new yahtzee my-yahtzee.yaml" in [element_text(c) for c in root.iter("code")]
    assert [a.get("href") for a in root.iter("a") if a.get("href") == "yahtzee.yaml"]
    css = site()["static/rulebook.css"]
    assert "@media print" in css


def test_markdown_pages():
    files = site(fmt="md")
    text = files["yahtzee.nl.md"]
    assert text.startswith("# Yahtzee\n") and "## Spelverloop" in text
    assert "Wie 2 2 4 3 4 in het vakje ‘Vieren’ invult, krijgt 8\u00a0punten." in text
    assert "![Regeldiagram van Yahtzee" in text and "(yahtzee.nl.svg)" in text
    assert "<span" not in text and "&lt;" not in text
    assert "| **Enen** | alleen de enen tellen |" in text
    assert "index.md" in files and "static/rulebook.css" not in files


def test_build_site_is_pure_and_deterministic():
    a = pages.build_site([load_model("yahtzee")], ["nl"])
    b = pages.build_site([load_model("yahtzee")], ["nl"])
    assert a == b and set(a) == {"index.html", "yahtzee.nl.html", "yahtzee.nl.svg", "yahtzee.yaml", "static/rulebook.css",
                                  "yahtzee.nl.sheet.html"}


def test_every_bundled_page_is_built(tmp_path):
    """Every model × language gets its page and diagram (the 3 s budget lives in benchmarks/bench_pages.py)."""
    files = pages.build_site([load_model(n) for n in bundled_models()], LANGUAGES)
    pages.write_site(files, tmp_path)
    for name in bundled_models():
        for lang in LANGUAGES:
            assert (tmp_path / f"{name}.{lang}.html").stat().st_size > 5000
            assert (tmp_path / f"{name}.{lang}.svg").read_text(encoding="utf-8").lstrip().startswith(("<?xml", "<svg"))


def test_facts_follow_the_model_text():
    """Change the model and the page changes with it: names, examples and their points, rounds."""
    from rulebook.interpreter.model.loader import load_source
    source = bundled_models()["yahtzee"].read_text(encoding="utf-8")
    source = source.replace("name: {en: Fours, de: Vierer, nl: Vieren}", "name: {en: Quads, de: Vierer, nl: Vieren}")
    source = source.replace("score: count(4) * 4\n        example: [2, 2, 4, 3, 4]",
                            "score: count(4) * 4\n        example: [4, 4, 4, 4, 1]")
    source = source.replace("times: 13", "times: 14")  # a round more, for a Chance used twice
    source = source.replace("        score: sum(dice)\n", "        score: sum(dice)\n        uses: 2\n")
    model = load_source(source, "edited.yaml")
    root = parse_html(pages.render_game(model, "en", pages.Site((model,), ("en",))))
    text = visible_text(root)
    assert "4 4 4 4 1 in Quads scores 16 points." in text and "in Fours" not in text
    assert "14 rounds" in text and "13 rounds" not in text


def test_translator():
    from rulebook.interpreter.model.errors import UsageError
    from rulebook.tools.i18n import translator
    assert translator("en").gettext("Scoring") == "Scoring"
    assert translator("de").gettext("Scoring") == "Wertung"
    assert translator("nl").ngettext("%(count)s round", "%(count)s rounds", 1) == "één ronde"
    with pytest.raises(UsageError):
        translator("fr")
