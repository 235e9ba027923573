"""Every message of the web app in the asker's language: error pages for pages that do not exist
or methods not allowed, refusals of a new table, the words for a server that does not answer (not
the browser's "Failed to fetch"), the comparison chart's axis titles and its numbers, `/rules/`."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from rulebook.tools.serve import create_app  # noqa: E402
from rulebook.tools.serve.workshop_texts import compare_html  # noqa: E402


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path / "tables.sqlite3", pace=0), base_url="http://localhost") as c:
        yield c


@pytest.mark.parametrize("lang, missing, method, players, name, offline", [
    ("en", "there is no page '/no/such'", "PUT is not allowed here", "this game is for 1 to 6 players, not 7",
     "the name of seat 1 is empty", "The server did not answer; check the connection and try again."),
    ("de", "es gibt keine Seite '/no/such'", "PUT ist hier nicht erlaubt",
     "dieses Spiel ist für 1 bis 6 Spieler, nicht für 7", "der Name auf Platz 1 ist leer",
     "Der Server hat nicht geantwortet; prüfe die Verbindung und versuche es noch einmal."),
    ("nl", "er is geen pagina '/no/such'", "PUT is hier niet toegestaan",
     "dit spel is voor 1 tot 6 spelers, niet voor 7", "de naam van plaats 1 is leeg",
     "De server antwoordde niet; controleer de verbinding en probeer het opnieuw."),
])
def test_refusals_in_the_askers_language(client, lang, missing, method, players, name, offline):
    r = client.get(f"/no/such?lang={lang}")
    assert r.status_code == 404 and missing in r.text.replace("&#39;", "'")
    r = client.put(f"/api/tables?lang={lang}")
    assert r.status_code == 405 and r.json()["error"] == method
    seats = [{"name": f"p{i}", "kind": "greedy"} for i in range(7)]
    r = client.post(f"/api/tables?lang={lang}", json={"model": "yamb", "seats": seats})
    assert r.status_code == 422 and r.json()["error"] == players
    r = client.post(f"/api/tables?lang={lang}", json={"model": "yamb", "seats": [{"name": " ", "kind": "human"}]})
    assert r.status_code == 400 and r.json()["error"] == name
    assert f'data-offline="{offline}"' in client.get(f"/?lang={lang}").text


def test_the_page_script_says_a_silent_server_in_the_pages_words():
    from pathlib import Path
    import rulebook.tools.serve as serve
    script = (Path(serve.__file__).parent / "static" / "common.js").read_text(encoding="utf-8")
    assert "document.body.dataset.offline" in script


@pytest.mark.parametrize("lang, y, x, mean", [("en", "share of games", "final score", "180.5"),
                                              ("de", "Anteil der Spiele", "Endpunktzahl", "180,5"),
                                              ("nl", "aandeel van de spellen", "eindscore", "180,5")])
def test_the_comparison_chart_speaks_the_pages_language(lang, y, x, mean):
    variant = {"label": "copy", "player": "greedy", "exact": True, "expected_score": 180.5, "stdev": 30.0,
               "games": 100, "skill": {"greedy": 180.5, "random": 50.0, "best_minus_greedy": 0.0},
               "first_player": None, "turns": 12.0, "rolls": 30.0, "zero_rate": {}, "bonus_rate": {},
               "name": {"en": "Yacht", "de": "Yacht", "nl": "Yacht"}, "totals": [180] * 100, "seed": 1}
    html = compare_html({"variants": [variant], "boxes": {}, "bonuses": {}}, lang)
    assert f">{y}</text>" in html and f">{x}</text>" in html
    assert mean in html


@pytest.mark.slow  # builds every rule page (about 30 s)
def test_the_rule_index_comes_in_the_chosen_language(client):
    from conftest import require_tool
    require_tool("dot")
    for lang in ("de", "nl", "en"):
        r = client.get(f"/rules/?lang={lang}")
        assert r.status_code == 200 and f'<html lang="{lang}"' in r.text
