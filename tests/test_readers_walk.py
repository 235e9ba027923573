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
