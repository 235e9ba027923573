"""The workshop enforces what it checks (issue 28): a visitor's edits go into their own copy, copies,
plays and comparisons count against per-client quotas, copies have count and size limits with
expiry, comparisons survive a restart and show their uncertainty, waits are said as people say them."""
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
from rulebook.tools.serve.copies import Copies, WorkshopError  # noqa: E402
from rulebook.tools.serve.limits import Limits, Quota, how_long  # noqa: E402
from rulebook.tools.serve.workshop import Workshop  # noqa: E402
from rulebook.tools.serve.workshop_texts import compare_html  # noqa: E402

YACHT = bundled_models()["yacht"].read_text(encoding="utf-8")


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))
    limits = Limits(copies_per_client=3, tables_per_client=1, compares_per_client=1)
    with TestClient(create_app(tmp_path / "serve.sqlite3", pace=0, limits=limits), base_url="http://localhost") as c:
        yield c


def new_copy(client, model="yacht"):
    r = client.post(f"/workshop/{model}?lang=en", follow_redirects=False)
    assert r.status_code == 303, r.text
    location = r.headers["location"]
    return location.split("/w/")[1].split("?")[0], location.split("#edit=")[1]


def test_a_visitors_edits_go_into_their_own_copy_and_copies_count_against_a_quota(client):
    copy_id, token = new_copy(client)
    edited = YACHT.replace("name:", "name:", 1) + "\n# my change\n"
    r = client.post(f"/api/copies/{copy_id}/fork", json={"source": edited, "lang": "de"})
    assert r.status_code == 201, r.text
    mine = r.json()
    assert mine["copy"] != copy_id and mine["token"] != token and mine["url"] == f"/w/{mine['copy']}?lang=de"
    assert client.get(f"/w/{mine['copy']}/download").text == edited
    assert client.get(f"/w/{copy_id}/download").text == YACHT  # the owner's copy is as it was
    # the preview of someone's copy shows for every viewer, as long as the text is the stored one
    r = client.post(f"/api/copies/{copy_id}/check", json={"source": YACHT, "lang": "en"}).json()
    assert r["ok"] and not r["saved"] and r["page"].startswith(f"/w/{copy_id}/page/")
    # three copies an hour from one address; the fourth is refused, said as people say it
    assert client.post("/workshop/yacht?lang=en", follow_redirects=False).status_code == 303
    r = client.post("/workshop/yacht?lang=en", follow_redirects=False)
    assert r.status_code == 429 and "try again in an hour" in r.text
    r = client.post(f"/api/copies/{copy_id}/fork?lang=de", json={"source": edited, "lang": "de"})
    assert r.status_code == 429 and r.json()["error"].endswith("in einer Stunde wieder"), r.json()


def test_playing_a_copy_counts_against_the_table_quota_and_a_refused_copy_is_not_played(client):
    copy_id, token = new_copy(client)
    broken = YACHT + "\nboxes: [oops\n"
    client.post(f"/api/copies/{copy_id}/check", json={"source": broken, "token": token, "lang": "en"})
    r = client.post(f"/api/copies/{copy_id}/play", json={"lang": "en"})
    assert r.status_code == 422 and "cannot be played" in r.json()["error"]
    # an editable (unchecked) copy cannot be opened as a table through the tables API either
    r = client.post("/api/tables", json={"model": f"copy:{copy_id}", "seats": [{"name": "A", "kind": "human"}]})
    assert r.status_code == 404
    client.post(f"/api/copies/{copy_id}/check", json={"source": YACHT, "token": token, "lang": "en"})
    r = client.post(f"/api/copies/{copy_id}/play", json={"lang": "en"})
    assert r.status_code == 201, r.text  # the refused attempts above cost nothing
    assert client.get(r.json()["url"]).status_code == 200
    r = client.post(f"/api/copies/{copy_id}/play", json={"lang": "en"})
    assert r.status_code == 429 and "too many new tables" in r.json()["error"]


def test_a_failed_create_does_not_count_against_the_quota(client):
    for _ in range(3):
        r = client.post("/api/tables", json={"model": "no-such-game", "seats": [{"name": "A", "kind": "human"}]})
        assert r.status_code == 404
    r = client.post("/api/tables", json={"model": "yacht", "seats": [{"name": "A", "kind": "human"}]})
    assert r.status_code == 201, r.text


def test_copies_have_a_count_and_a_size_limit_and_expire(tmp_path):
    copies = Copies(tmp_path / "c.sqlite3", max_copies=2, max_bytes=3 * len(YACHT), kept=3600)
    a, _ = copies.create("yacht", YACHT)
    copies.create("yacht", YACHT)
    with pytest.raises(WorkshopError) as exc:
        copies.create("yacht", YACHT)
    assert exc.value.status == 503 and "too many copies" in exc.value.message
    assert copies.expire(now=copies.get(a)["updated"] + 3601) == 2
    copies.create("yacht", YACHT + "x" * len(YACHT))
    with pytest.raises(WorkshopError):  # 3 × the text in all: the next one does not fit
        copies.create("yacht", YACHT + "y" * len(YACHT))
    copies.close()


def test_a_comparison_survives_a_restart(tmp_path):
    copies = Copies(tmp_path / "c.sqlite3")
    copy_id, _ = copies.create("yacht", YACHT, editable=False, ok=True, model_id="yacht")
    copies.save_compare(copy_id, {"variants": [], "boxes": {}})
    copies.close()
    again = Workshop(tmp_path / "c.sqlite3")  # a new server on the same file
    job = again.compare_job(again.copies.get(copy_id))
    assert job["state"] == "done" and job["result"] == {"variants": [], "boxes": {}}
    assert again.compare_running(copy_id)
    again.copies.close()


def test_the_comparison_shows_the_uncertainty_of_an_estimate():
    variant = {"label": "copy", "player": "greedy", "exact": False, "expected_score": 180.0, "stdev": 30.0,
               "games": 100, "skill": {"greedy": 180.0, "random": 50.0, "best_minus_greedy": 0.0},
               "first_player": None, "turns": 12.0, "rolls": 30.0, "zero_rate": {}, "bonus_rate": {},
               "name": {"en": "Yacht", "de": "Yacht", "nl": "Yacht"}, "totals": [180] * 100, "seed": 1}
    html = compare_html({"variants": [variant], "boxes": {}, "bonuses": {}}, "en")
    assert "180.0 ± 5.9" in html and "95%" in html  # 1.96 × 30 / √100


def test_waits_are_said_as_people_say_them():
    assert how_long(3599, "en") == "in an hour"
    assert how_long(3599, "de") == "in einer Stunde"
    assert how_long(3599, "nl") == "over een uur"
    assert how_long(40, "en") == "in 40 seconds"
    assert how_long(1, "en") == "in 1 second"
    assert how_long(150, "de") == "in 2 Minuten" or how_long(150, "de") == "in 3 Minuten"
    assert how_long(7300, "nl") == "over 2 uur"
    q = Quota(1, 60, clock=lambda: 0.0)
    assert q.hit("a") == 0 and q.hit("a") > 0
    q.give_back("a")
    assert q.hit("a") == 0


def test_the_german_stale_move_message_is_said_once():
    from rulebook.tools.i18n import translator
    de = translator("de").gettext("this move was made at position {seq}, but the table is at {now} now; nothing was changed")
    assert de == "dieser Zug wurde in Stellung {seq} gemacht, aber der Tisch ist jetzt bei {now}; nichts wurde geändert"


def test_the_page_cache_keeps_a_bounded_number_of_answers_for_a_bounded_time(tmp_path, monkeypatch):
    """Issue 28: the page cache grew 6.4 MB per check. Now at most PAGE_CACHE_ENTRIES answers of
    PAGE_CACHE_BYTES together, each for PAGE_CACHE_SECONDS; a stale answer is asked for again."""
    import asyncio
    import json

    from rulebook.tools.serve import workshop as ws
    shop = Workshop(tmp_path / "c.sqlite3")
    asked = []

    class FakeSandbox:
        async def run(self, job):
            asked.append(job["source"])
            return {"ok": True, "page": "x" * 1_000_000}  # an answer of about 1 MB
    shop._sandbox = FakeSandbox()
    clock = [1000.0]
    monkeypatch.setattr(ws.time, "monotonic", lambda: clock[0])

    async def checks():
        for i in range(ws.PAGE_CACHE_ENTRIES + 20):
            await shop.check(f"text {i}", "en")
    asyncio.run(checks())
    kept = shop._pages
    assert len(kept) <= ws.PAGE_CACHE_ENTRIES and sum(v[1] for v in kept.values()) <= ws.PAGE_CACHE_BYTES
    size = len(json.dumps({"ok": True, "page": "x" * 1_000_000}))
    assert len(kept) == ws.PAGE_CACHE_BYTES // size == 33  # as many 1 MB answers as 32 MiB hold
    last = f"text {ws.PAGE_CACHE_ENTRIES + 19}"
    asyncio.run(shop.check(last, "en"))
    assert asked.count(last) == 1  # a recent answer comes from the cache
    clock[0] += ws.PAGE_CACHE_SECONDS + 1
    asyncio.run(shop.check(last, "en"))
    assert asked.count(last) == 2  # a stale one is asked for again
    assert len(shop._pages) == 1  # and the stale ones are gone
