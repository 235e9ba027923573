"""Every reader over every bundled model (issue 23's walk), in en, de and nl: each page and API the browser
uses for a model answers without a 4xx/5xx, and the workshop passes an unchanged copy of the model.

Generic by construction: it walks whatever is in rules/ (bundled_models), so a game added later is walked too.
"""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from rulebook.interpreter.model.loader import bundled_models  # noqa: E402
from rulebook.tools.serve import create_app  # noqa: E402

MODELS = tuple(bundled_models())
LANGS = ("en", "de", "nl")


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("walk")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RULEBOOK_CACHE", str(tmp / "cache"))
        with TestClient(create_app(tmp / "serve.sqlite3", pace=0), base_url="http://localhost") as c:
            yield c


@pytest.mark.parametrize("name", MODELS)
def test_the_browser_gets_every_page_and_api_of_the_model(client, name):
    failed = []
    for lang in LANGS:
        for url in (f"/rules/{name}.{lang}.html", f"/rules/{name}.{lang}.sheet.html",
                    f"/api/games/{name}/steps?lang={lang}"):
            r = client.get(url)
            if r.status_code >= 400:
                failed.append(f"{url}: {r.status_code}")
        steps = client.get(f"/api/games/{name}/steps?lang={lang}")
        if steps.status_code == 200 and lang != "en":  # an example's sentence is whole, in the language
            for step in steps.json()["steps"].values():
                if step["example"] and " would " in step["example"]["choice"]:
                    failed.append(f"{name} {lang} step {step['id']}: {step['example']['choice']}")
    assert failed == []


@pytest.mark.parametrize("name", MODELS)
def test_the_workshop_passes_an_unchanged_copy(client, name):
    r = client.post(f"/workshop/{name}?lang=en", follow_redirects=False)
    assert r.status_code == 303, r.text
    location = r.headers["location"]
    copy_id, token = location.split("/w/")[1].split("?")[0], location.split("#edit=")[1]
    source = bundled_models()[name].read_text(encoding="utf-8")
    r = client.post(f"/api/copies/{copy_id}/check", json={"source": source, "token": token, "lang": "en"})
    assert r.status_code == 200, r.text
    result = r.json()
    assert result["ok"], result.get("errors")


def _sheet_cells(text: str) -> tuple[int, int]:
    """(games, cells of one player in one game) on a blank sheet: each entry square, or each empty cell, of a box row."""
    import html5lib
    doc = html5lib.parse(text, namespaceHTMLElements=False)
    games = len([th for th in doc.iter("th") if th.get("scope") == "colgroup" and (th.text or "").strip()])
    cells = sum(max(1, len(td.findall("span"))) for tr in doc.iter("tr") if tr.get("class") == "box"
                for td in tr.findall("td") if td.get("class") == "cell")
    return games, cells // max(1, games)


@pytest.mark.parametrize("name", MODELS)
def test_the_blank_sheet_has_the_models_cells_per_player_and_game(client, name):
    from rulebook.interpreter.model.loader import load_model
    from rulebook.tools.documents.sheetlayout import sheet_layout
    model = load_model(name)
    cells = sum(len(t.cells) for t in model.targets.values())  # the cells the engine fills
    assert sheet_layout(model).cells == cells
    games, drawn = _sheet_cells(client.get(f"/rules/{name}.de.sheet.html").text)
    assert games >= 1 and drawn == cells, (games, drawn, cells)
    if name in ("yamb", "balut", "yahtzee"):
        assert cells == {"yamb": 60, "balut": 28, "yahtzee": 13}[name]
    from rulebook.tools.documents.words import Words
    page = client.get(f"/rules/{name}.en.html").text  # the material list counts the same cells
    if cells:
        assert f"with {Words('en', 'html').number(cells)} boxes" in page
    else:  # a game scored by counters only (Pig): paper for the scores, no sheet of boxes
        assert "paper to note each player&#39;s score" in page or "paper to note each player's score" in page


# the printed rule book: no English in German and Dutch, no count the engine contradicts ------------------------

import re  # noqa: E402
from collections import Counter  # noqa: E402
from functools import lru_cache  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = tuple(sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests/data/examples").glob("*.yaml")))
EVERY_MODEL = MODELS + EXAMPLES  # every bundled model and every example of the docs, found anew each run
# English words a German or Dutch rule book may print: names players use, and words both languages share
ALLOWED_ENGLISH = {"full", "house", "poker", "joker", "hand", "plus", "minus", "maximum", "villa"}
WORD = re.compile(r"[^\W\d_]{2,}(?:[-'’][^\W\d_]+)*")


def _words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(re.sub(r"%\(\w+\)[sd]|\{[^{}]*\}", " ", text))}


def _path(name: str) -> Path:
    return ROOT / name if name.endswith(".yaml") else bundled_models()[name]


@lru_cache(maxsize=None)
def _vocabulary(lang: str) -> frozenset[str]:
    """The words of `lang` in the catalogs (English: the message ids and every model's English texts)."""
    import yaml
    from babel.messages.pofile import read_po
    catalog = read_po((ROOT / "tools/locales" / ("de" if lang == "en" else lang) / "LC_MESSAGES/rulebook.po").open("rb"))
    out: set[str] = set()
    for m in catalog:
        if m.id:
            texts = m.id if lang == "en" else m.string
            for t in texts if isinstance(texts, tuple) else (texts,):
                out |= _words(t)
    if lang == "en":
        def walk(node):
            if isinstance(node, dict):
                if {"en", "de", "nl"} <= set(node) and isinstance(node["en"], str):
                    out.update(_words(node["en"]))
                for v in node.values():
                    walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)
        for name in EVERY_MODEL:
            walk(yaml.safe_load(_path(name).read_text(encoding="utf-8")))
    return frozenset(out)


@lru_cache(maxsize=None)
def _model(name: str):
    from rulebook.interpreter.model.loader import load_model
    return load_model(_path(name))


def _names(model) -> set[str]:
    """A game's own names in every language, and its id: names, not English."""
    out = _words(model.id.replace("_", " "))
    for lang in LANGS:
        out |= _words(model.name[lang]) | {w for n in model.also_known_as.get(lang, ()) for w in _words(n)}
    return out


def _printed_texts(text: str, lang: str) -> list[str]:
    """The texts of a page in its own language: no code, no script, no language switcher."""
    import html5lib
    doc = html5lib.parse(text, namespaceHTMLElements=False)
    skip = {id(x) for el in doc.iter() if el.tag in ("script", "style", "code", "pre")
            or el.get("lang") not in (None, lang) or el.get("translate") == "no" for x in el.iter()}
    return [t for el in doc.iter() if id(el) not in skip for t in (el.text, el.tail) if t and t.strip()]


def test_the_allowlist_stays_short():
    assert len(ALLOWED_ENGLISH) <= 10


@pytest.mark.parametrize("name", EVERY_MODEL)
def test_no_english_word_in_the_german_and_dutch_pages(name):
    assert _english_in_pages(_model(name)) == []


def test_the_english_check_finds_english_step_texts(monkeypatch):
    from rulebook.tools.documents import describe
    real = describe.step_sentence
    monkeypatch.setattr(describe, "step_sentence", lambda step, model, lang: real(step, model, "en"))
    found = _english_in_pages(_model("yamb"))
    assert any(f.startswith("de: rolled") for f in found) and any(f.startswith("nl: rolled") for f in found)


def _english_in_pages(model) -> list[str]:
    from rulebook.tools.documents import pages
    names = set().union(*(_names(_model(n)) for n in MODELS)) | _names(model)
    english = _vocabulary("en")
    found = []
    for lang in ("de", "nl"):
        site, md = pages.Site((model,), LANGS), pages.Site((model,), LANGS, "md")
        own = _vocabulary(lang)
        texts = _printed_texts(pages.render_game(model, lang, site), lang) \
            + _printed_texts(pages.render_sheet(model, lang, site), lang) + [re.sub(r"\[(English|Deutsch|Nederlands)\]\([^)]*\)", "", pages.render_game(model, lang, md))]
        for t in texts:
            bad = sorted((_words(t) & english) - own - names - ALLOWED_ENGLISH)
            for word in bad:
                at = t.lower().find(word)
                found.append(f"{lang}: {word} in {t[max(0, at - 60):at + 40].strip()!r}")
    return found


def _turn_rolls(model, seed: int = 0) -> list[int]:
    """The rolls of each turn of a seeded greedy game, as the engine plays it."""
    from rulebook.interpreter.engine.actions import Roll
    from rulebook.interpreter.play.game import Game, Seat
    players = max(model.min_players, min(2, model.max_players))
    game = Game(model, [Seat(f"P{i + 1}", "greedy") for i in range(players)], seed)
    rolls: Counter = Counter()
    while True:
        turn = (game.state.round(), game.state.player)
        event = game.advance()
        if event is None:
            return list(rolls.values())
        rolls[turn] += isinstance(event.action, Roll)


@pytest.mark.parametrize("name", EVERY_MODEL)
def test_the_counts_a_page_states_are_the_engines(name):
    """Cells, rounds and rolls a turn on the page of every language, as the engine plays them."""
    from rulebook.tools.documents import pages
    from rulebook.tools.documents.gamefacts import rounds_of, turn_rolls
    from rulebook.tools.documents.sheetlayout import sheet_layout
    from rulebook.tools.documents.words import Words
    model = _model(name)
    cells = sum(len(t.cells) for t in model.targets.values())
    assert sheet_layout(model).cells == cells
    rolls, played = turn_rolls(model), _turn_rolls(model)
    if rolls.most is None:
        assert max(played) >= 1
    elif rolls.counters:  # more in later turns: the first turn keeps to the count
        assert played[0] <= rolls.most
    else:
        assert max(played) <= rolls.most, (played, rolls)
    if rounds_of(model) is not None and model.end_if is None:
        assert len(played) == rounds_of(model) * max(model.min_players, min(2, model.max_players))
    for lang in LANGS:
        w = Words(lang, "md")
        text = pages.render_game(model, lang, pages.Site((model,), LANGS, "md"))
        if cells:  # a game scored by counters only asks for paper, not a sheet of boxes
            assert str(w.sheet_needed(cells)) in text
        counters = [c.name[lang] for c in model.counters if c.id in rolls.counters]
        assert str(w.rolls_per_turn(rolls.most, counters)) in text
        if rolls.most is None:
            assert str(w.rolls_per_turn(None)) in text


@pytest.mark.slow
@pytest.mark.parametrize("name", EVERY_MODEL)
def test_the_playing_time_is_within_the_spread_of_simulated_games(name):
    from rulebook.tools.documents.gamefacts import SECONDS_PER_ROLL, playing_time
    model = _model(name)
    players = max(model.min_players, min(2, model.max_players))
    minutes = [sum(_turn_rolls(model, seed)) * SECONDS_PER_ROLL / 60 for seed in range(1, 6)]
    stated = playing_time(model, players)
    assert min(minutes) - 5 <= stated <= max(minutes) + 5, (stated, minutes)
