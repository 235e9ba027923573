"""`rulebook serve` through its HTTP and WebSocket API (Starlette's TestClient, no browser).

The server is the authority: every refused request gets a clear status and message and leaves the
table exactly as it was; tables survive a restart (a new app on the same SQLite file) and go on
with the same dice.
"""
from __future__ import annotations

import json
import sqlite3
import time
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():  # Starlette 1.x suggests the httpx fork "httpx2"; httpx works the same
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from rulebook.interpreter import bundled_models  # noqa: E402
from rulebook.tools.serve import create_app  # noqa: E402

LANGS = ("en", "de", "nl")


@pytest.fixture
def db(tmp_path):
    return tmp_path / "tables.sqlite3"


def serve(db, **kw):
    """A test client of the app; "localhost" is one of the host names it answers for by default."""
    return TestClient(create_app(db, pace=0, **kw), base_url="http://localhost")


@pytest.fixture
def client(db):
    with serve(db) as c:
        yield c


def create(client, seats=(("Ann", "human"), ("cpu", "greedy")), model="yahtzee", **extra):
    r = client.post("/api/tables", json={"model": model, "seats": [{"name": n, "kind": k} for n, k in seats],
                                         "pace_ms": 0, **extra})
    assert r.status_code == 201, r.text
    return r.json()


def state(client, table):
    r = client.get(f"/api/tables/{table}")
    assert r.status_code == 200, r.text
    return r.json()


def wait_for(client, table, test, timeout=300.0):  # a bound for a broken server only
    """Poll the table until `test(state)` holds (the computer players move in the background)."""
    end = time.monotonic() + timeout
    while True:
        s = state(client, table)
        if test(s):
            return s
        assert time.monotonic() < end, f"timed out; last state {s}"
        time.sleep(0.01)


def my_turn(seat):
    return lambda s: s["terminal"] or (s["player"] == seat and not s["chance"])


def act(client, table, seat, token, action, seq=None):
    """Send a move made in the position `seq` (by default the table's position now)."""
    if seq is None:
        seq = state(client, table)["seq"]
    return client.post(f"/api/tables/{table}/act", json={"seat": seat, "token": token, "action": action, "seq": seq})


def simple_move(s):
    """A legal decision read from the public state: roll everything again, or write the best box."""
    if s["step"]["kind"] == "keep":
        return "keep none" if s["rolls_left"] > 0 else "stop"
    best = max(s["choices"], key=lambda c: c["points"] + c["bonus"])
    return f"write {best['box']}"


def db_events(db, table):
    with sqlite3.connect(db) as con:
        return con.execute("SELECT COUNT(*) FROM events WHERE table_id = ?", (table,)).fetchone()[0]


# pages -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_home_lists_every_game_with_play_rules_and_diagram_links(client, lang):
    r = client.get(f"/?lang={lang}")
    assert r.status_code == 200
    assert f'<html lang="{lang}">' in r.text
    for name in bundled_models():
        assert f'href="/new/{name}?mode=computer&amp;lang={lang}"' in r.text
        assert f'href="/new/{name}?mode=online&amp;lang={lang}"' in r.text
        assert f'href="/rules/{name}/{lang}"' in r.text
        assert f'href="/rules/{name}.{lang}.svg"' in r.text
    assert r.cookies.get("lang") == lang


def test_the_language_comes_from_the_browser_then_sticks(client):
    assert '<html lang="de">' in client.get("/", headers={"Accept-Language": "de-AT,de;q=0.9"}).text
    client.get("/?lang=nl")
    assert '<html lang="nl">' in client.get("/").text


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_of_a_table_renders(client, lang):
    t = create(client, seats=(("Ann", "human"), ("Bob", "human"), ("cpu", "random")))
    for path in ("/new/yahtzee", f"/t/{t['table']}", f"/t/{t['table']}/join", f"/t/{t['table']}/watch"):
        r = client.get(f"{path}?lang={lang}")
        assert r.status_code == 200, (path, r.text)
        assert f'<html lang="{lang}">' in r.text
        assert "Content-Security-Policy" in r.headers
    boot = client.get(f"/t/{t['table']}?lang={lang}").text
    assert '"texts"' in boot and '"sections"' in boot


def test_rule_pages_and_diagrams_are_served(client):
    from conftest import require_tool
    require_tool("dot")
    r = client.get("/rules/yatzy/nl", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/rules/yatzy.nl.html"
    r = client.get("/rules/yatzy/nl")
    assert r.status_code == 200 and '<html lang="nl"' in r.text
    assert client.get("/rules/static/rulebook.css").status_code == 200
    svg = client.get("/rules/yatzy.de.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert "<svg" in svg.text


def test_static_files_are_vendored(client):
    for name, kind in (("table.js", "javascript"), ("serve.css", "text/css"), ("common.js", "javascript")):
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and kind in r.headers["content-type"]
    home = client.get("/").text + client.get("/new/yatzy").text
    assert "http://" not in home.replace("http://testserver", "") and "https://" not in home  # no CDN


# playing -----------------------------------------------------------------------------------------

def test_a_whole_game_against_the_computer_to_the_ranking(client, db):
    t = create(client, seed=11)
    table, seat, token = t["table"], t["seat"], t["token"]
    assert seat == 0 and token
    moves = 0
    while True:
        s = wait_for(client, table, my_turn(seat))
        if s["terminal"]:
            break
        r = act(client, table, seat, token, simple_move(s))
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["ok"] and body["events"][0]["player"] == 0 and body["state"]["seq"] == body["seq"]
        moves += 1
    assert moves >= 13
    ranking = s["ranking"]
    assert [r["name"] for r in ranking] and {r["name"] for r in ranking} == {"Ann", "cpu"}
    assert ranking[0]["total"] >= ranking[1]["total"]
    for r in ranking:
        assert r["total"] == s["totals"][r["seat"]]["total"]
    assert all(len(sheet) == 13 for sheet in s["sheets"])
    events = client.get(f"/api/tables/{table}/events").json()["events"]
    assert [e["seq"] for e in events] == list(range(1, s["seq"] + 1))
    assert db_events(db, table) == s["seq"]
    assert sum(1 for e in events if e["type"] == "write") == 26
    r = act(client, table, seat, token, "stop")
    assert r.status_code == 409 and r.json()["error"] == "the game is over"


def test_every_bundled_game_plays_with_computers_only(client):
    tables = [create(client, seats=(("a", "greedy"), ("b", "random")), model=m)["table"] for m in bundled_models()]
    for table in tables:
        s = wait_for(client, table, lambda s: s["terminal"])
        assert len(s["ranking"]) == 2


def test_two_people_at_one_table_join_link_and_turns(client):
    t = create(client, seats=(("Ann", "human"), ("Bob", "human")))
    table, token0 = t["table"], t["token"]
    s = state(client, table)
    assert s["players"][1]["open"] and not s["players"][0]["open"]
    r = client.post(f"/api/tables/{table}/join", json={"seat": 1, "name": "Bea"})
    assert r.status_code == 200, r.text
    token1 = r.json()["token"]
    assert state(client, table)["players"][1] == {"name": "Bea", "kind": "human", "open": False, "present": False,
                                                  "robot": False, "reserved": False}
    r = client.post(f"/api/tables/{table}/join", json={"seat": 1})
    assert r.status_code == 409 and "taken" in r.json()["error"]
    r = client.post(f"/api/tables/{table}/join", json={"seat": 0})
    assert r.status_code == 409
    # Ann writes, then it is Bea's turn
    assert act(client, table, 0, token0, "stop").status_code == 200
    s = state(client, table)
    r = act(client, table, 0, token0, f"write {s['choices'][0]['box']}")
    assert r.status_code == 200, r.text
    s = r.json()["state"]
    assert s["player"] == 1 and s["step"]["kind"] == "keep" and len(s["dice"]) == 5
    assert act(client, table, 1, token1, "keep none").status_code == 200


def test_the_hint_names_legal_moves(client):
    t = create(client, seed=5)
    s = wait_for(client, t["table"], my_turn(0))
    r = client.post(f"/api/tables/{t['table']}/hint", json={"seat": 0, "token": t["token"]})
    assert r.status_code == 200, r.text
    hint = r.json()
    assert hint["options"] and all(isinstance(o["value"], float) for o in hint["options"])
    r = act(client, t["table"], 0, t["token"], hint["options"][0]["action"])
    assert r.status_code == 200, r.text
    r = client.post(f"/api/tables/{t['table']}/hint", json={"seat": 0, "token": "forged-token-123"})
    assert r.status_code == 403


# refusals: a clear status and message, and nothing changes -------------------------------------------

@pytest.fixture
def duel(client):
    """Ann (seat 0, to move) and Bob (seat 1) and a computer (seat 2)."""
    t = create(client, seats=(("Ann", "human"), ("Bob", "human"), ("cpu", "greedy")))
    bob = client.post(f"/api/tables/{t['table']}/join", json={"seat": 1}).json()["token"]
    return {"table": t["table"], "ann": t["token"], "bob": bob, "seq": state(client, t["table"])["seq"]}


JSON = {"content-type": "application/json"}


def refusals(d):
    table, ann, bob, seq = d["table"], d["ann"], d["bob"], d["seq"]
    url = f"/api/tables/{table}/act"

    def body(**kw):
        return {"json": {"seat": 0, "token": ann, "action": "keep none", "seq": seq, **kw}}

    return [
        ("out of turn", url, {"json": {"seat": 1, "token": bob, "action": "keep none", "seq": seq}}, 409,
         "it is Ann's turn, not Bob's"),
        ("forged token", url, body(token="A" * 24), 403, "not the token of seat 1 (Ann)"),  # seats count from 1 in every message
        ("another seat's token", url, body(token=bob), 403, "not the token of seat 1 (Ann)"),  # seats count from 1 in every message
        ("no token", url, {"json": {"seat": 0, "action": "keep none", "seq": seq}}, 403, "token"),
        ("token not a string", url, body(token=12345), 403, "token"),
        ("a computer's seat", url, body(seat=2), 403, "played by the computer"),
        ("no such seat", url, body(seat=7), 400, "no seat 8 at this table (seats 1 to 3)"),
        ("seat not a number", url, body(seat="0"), 400, "'seat' must be a whole number"),
        ("illegal keep", url, body(action="keep 9 9"), 422, "cannot keep 9 9"),
        ("no such box", url, body(action="write nonsense"), 422, "choose dice to keep or stop, not 'write nonsense'"),
        ("unreadable move", url, body(action="dance"), 422, "cannot read the move 'dance'"),
        ("choosing the dice", url, body(action="roll 6 6 6 6 6"), 422, "the server rolls the dice"),
        ("action not a string", url, body(action=["keep"]), 400, "'action' must be a string"),
        ("malformed JSON", url, {"content": b'{"seat": 0, "token": ', "headers": JSON}, 400, "not valid JSON"),
        ("JSON not an object", url, {"content": b"[0, 1]", "headers": JSON}, 400, "JSON object"),
        ("not UTF-8", url, {"content": b"\xff\xfe{}", "headers": JSON}, 400, "not UTF-8"),
        ("empty body", url, {"content": b"", "headers": JSON}, 400, "empty"),
        ("huge body", url, {"content": b" " * (70 * 1024), "headers": JSON}, 413, "larger than"),
        ("a form post from another site", url, {"content": b'{"seat": 0}', "headers": {"content-type": "text/plain"}},
         415, "application/json, not 'text/plain'"),
        ("unknown table", "/api/tables/NoSuchTable42/act", body(), 404, "no table 'NoSuchTable42'"),
        ("table id with a dot", "/api/tables/x.y.z.w.q/act", body(), 404, "no table"),
        ("join a computer's seat", f"/api/tables/{table}/join", {"json": {"seat": 2}}, 409, "played by the computer"),
        ("join a taken seat", f"/api/tables/{table}/join", {"json": {"seat": 1}}, 409, "taken"),
        ("join a taken seat by another name", f"/api/tables/{table}/join", {"json": {"seat": 1, "name": "Eve"}}, 409,
         "taken"),
        ("hint out of turn", f"/api/tables/{table}/hint", {"json": {"seat": 1, "token": bob}}, 409, "Ann's turn"),
        ("GET on an action", url, None, 405, "GET is not allowed"),
    ]


@pytest.mark.parametrize("index", range(26))
def test_refused_requests_say_why_and_change_nothing(client, db, duel, index):
    name, url, kwargs, status, message = refusals(duel)[index]
    table = duel["table"]
    before = state(client, table)
    before_db = db_events(db, table)
    r = client.get(url) if kwargs is None else client.post(url, **kwargs)
    assert r.status_code == status, (name, r.text)
    body = r.json()
    assert message in body["error"], (name, body)
    assert body["status"] == status
    assert state(client, table) == before, name
    assert db_events(db, table) == before_db


@pytest.mark.parametrize("path", [
    "/static/..%2F..%2F..%2Fetc%2Fpasswd",
    "/static/%2e%2e/%2e%2e/pyproject.toml",
    "/static/../app.py",
    "/static/%2e%2e%2fapp.py",
    "/rules/..%2F..%2Fpyproject.toml",
    "/rules/%2e%2e/%2e%2e/rules/yahtzee.yaml",
    "/rules/....//....//etc/passwd",
    "/t/..%2F..%2Fetc%2Fpasswd",
    "/api/tables/..%2F..%2Fetc%2Fpasswd",
    "/new/..%2F..%2Frules%2Fyahtzee",
    "/new/%2Fetc%2Fpasswd",
])
def test_path_traversal_is_refused(client, path):
    r = client.get(path)
    assert r.status_code == 404, (path, r.status_code)
    assert "root:" not in r.text and "[build-system]" not in r.text and "import " not in r.text
    if path.startswith("/api/"):
        assert r.json()["error"].startswith("there is no")
    else:
        assert "<html" in r.text and "404" in r.text


@pytest.mark.parametrize("spec, status, message", [
    ({"model": "../../etc/passwd", "seats": [{"name": "a", "kind": "human"}]}, 404, "no game"),
    ({"model": "/etc/passwd", "seats": [{"name": "a", "kind": "human"}]}, 404, "no game"),
    ({"model": "rules/yahtzee.yaml", "seats": [{"name": "a", "kind": "human"}]}, 404, "no game"),
    ({"model": "yahtzee", "seats": []}, 400, "'seats'"),
    ({"model": "yahtzee", "seats": [{"name": "a", "kind": "wizard"}]}, 422, "unknown kind"),
    ({"model": "yahtzee", "seats": [{"name": "a", "kind": "human"}] * 9}, 422, "1 to 8 players"),
    ({"model": "yahtzee", "seats": [{"name": "a", "kind": "human"}, {"name": "A", "kind": "greedy"}]}, 422, "two seats"),
    ({"model": "yahtzee", "seats": [{"name": "x" * 30, "kind": "human"}]}, 400, "longer than 24"),
    ({"model": "yahtzee", "seats": [{"name": "   ", "kind": "human"}]}, 400, "empty"),
    ({"model": "yahtzee", "options": {"joker": "sometimes"}, "seats": [{"name": "a", "kind": "human"}]}, 422,
     "cannot be 'sometimes'"),
    ({"model": "yahtzee", "options": {"nope": 1}, "seats": [{"name": "a", "kind": "human"}]}, 422, "unknown option"),
    ({"model": "yahtzee", "seats": [{"name": "a", "kind": "human"}], "pace_ms": 99999}, 400, "pace_ms"),
    ({"model": "yahtzee", "seats": [{"name": "a", "kind": "human"}], "seed": "x"}, 400, "seed"),
    ({"model": "yahtzee", "seats": [{"name": "a", "kind": "human"}], "admin": True}, 400, "unknown field"),
    (["yahtzee"], 400, "JSON object"),
])
def test_bad_new_tables_are_refused(client, spec, status, message):
    before = client.get("/api/tables").json()
    r = client.post("/api/tables", json=spec)
    assert r.status_code == status, r.text
    assert message in r.json()["error"]
    assert client.get("/api/tables").json() == before


def test_unknown_tables_and_pages(client):
    r = client.get("/api/tables/NoSuchTable42")
    assert r.status_code == 404 and r.json() == {"error": "there is no table 'NoSuchTable42'", "status": 404}
    r = client.get("/t/NoSuchTable42")
    assert r.status_code == 404 and "there is no table" in r.text
    r = client.get("/no/such/page")
    assert r.status_code == 404 and "there is no page" in r.text
    r = client.get("/new/chess")
    assert r.status_code == 404 and "there is no game" in r.text
    with client.websocket_connect("ws://localhost/ws/tables/NoSuchTable42") as ws:
        msg = ws.receive_json()
        assert msg["type"] == "error" and msg["status"] == 404
        with pytest.raises(WebSocketDisconnect) as exc:
            ws.receive_json()
        assert exc.value.code == 4404



@pytest.mark.parametrize("lang, words", [("de", "gibt keinen Tisch"), ("nl", "geen tafel")])
def test_the_websocket_speaks_the_pages_language(client, lang, words):
    """Errors on the live stream come in the page's language (?lang=, as the table page connects)."""
    with client.websocket_connect(f"ws://localhost/ws/tables/NoSuchTable42?lang={lang}") as ws:
        msg = ws.receive_json()
        assert msg["type"] == "error" and msg["status"] == 404 and words in msg["error"], msg
    t = create(client, seats=(("Ann", "human"), ("cpu", "greedy")), seed=3)
    with client.websocket_connect(f"ws://localhost/ws/tables/{t['table']}?lang={lang}") as ws:
        assert ws.receive_json()["type"] == "hello"
        ws.send_text("not json")
        msg = ws.receive_json()
        while msg["type"] != "error":
            msg = ws.receive_json()
        assert "JSON" in msg["error"] and "message must be" not in msg["error"], msg

# the live stream ------------------------------------------------------------------------------------

def test_the_websocket_brings_every_event_in_order(client):
    t = create(client, seats=(("Ann", "human"), ("cpu", "greedy")), seed=21)
    table, token = t["table"], t["token"]
    seen = []
    with client.websocket_connect(f"ws://localhost/ws/tables/{table}") as ws:
        hello = ws.receive_json()
        assert hello["type"] == "hello"
        seen += [e["seq"] for e in hello["events"]]
        last = hello["state"]
        for _ in range(3):  # three of Ann's turns, each answered by the computer's
            while not (last["player"] == 0 and not last["chance"]):
                msg = ws.receive_json()
                seen.append(msg["event"]["seq"])
                last = msg["state"] or last
            while last["player"] == 0 and not last["terminal"]:
                r = act(client, table, 0, token, simple_move(last))
                assert r.status_code == 200
                for ev in r.json()["events"]:
                    msg = ws.receive_json()
                    assert msg["event"] == {k: v for k, v in ev.items() if k != "state"}
                    seen.append(msg["event"]["seq"])
                    last = msg["state"] or last
    assert seen == list(range(1, len(seen) + 1))
    assert len(seen) > 20


def test_a_reconnecting_client_catches_up_from_its_last_event(client):
    t = create(client, seats=(("a", "greedy"), ("b", "greedy")), seed=4)
    s = wait_for(client, t["table"], lambda s: s["terminal"])
    with client.websocket_connect(f"ws://localhost/ws/tables/{t['table']}?since=100") as ws:
        hello = ws.receive_json()
        assert [e["seq"] for e in hello["events"]] == list(range(101, s["seq"] + 1))
        assert hello["state"] == s


# restarts ---------------------------------------------------------------------------------------------

def play(client, table, seat, token, moves):
    for _ in range(moves):
        s = wait_for(client, table, my_turn(seat))
        if s["terminal"]:
            return s
        assert act(client, table, seat, token, simple_move(s)).status_code == 200
    return wait_for(client, table, my_turn(seat))


def test_tables_survive_a_restart_with_the_same_dice_to_come(tmp_path):
    straight_db, broken_db = tmp_path / "straight.sqlite3", tmp_path / "restarted.sqlite3"
    with serve(straight_db) as c:
        t = create(c, seed=123)
        final = play(c, t["table"], 0, t["token"], 1000)
    with serve(broken_db) as c:
        t2 = create(c, seed=123)
        middle = play(c, t2["table"], 0, t2["token"], 10)
        bots = create(c, seats=(("a", "greedy"), ("b", "random")), seed=5, pace_ms=20)
    # a new server on the same file: the view is restored, the same token plays on
    with serve(broken_db) as c:
        assert state(c, t2["table"]) == middle
        html = c.get(f"/t/{t2['table']}").text
        assert t2["table"] in html
        r = act(c, t2["table"], 1, t2["token"], "stop")
        assert r.status_code == 403
        end = play(c, t2["table"], 0, t2["token"], 1000)
        # the computers' table went on by itself after the restart
        done = wait_for(c, bots["table"], lambda s: s["terminal"])
        assert len(done["ranking"]) == 2
    assert end["sheets"] == final["sheets"] and end["ranking"] == final["ranking"]
    assert end["seq"] == final["seq"]


def test_a_damaged_row_is_reported_not_fatal(tmp_path):
    db = tmp_path / "t.sqlite3"
    with serve(db) as c:
        t = create(c)
    with sqlite3.connect(db) as con:
        data = json.loads(con.execute("SELECT data FROM tables").fetchone()[0])
        data["state"]["sheets"] = "nonsense"
        con.execute("UPDATE tables SET data = ?", (json.dumps(data),))
    with serve(db) as c:
        r = c.get(f"/api/tables/{t['table']}")
        assert r.status_code == 409 and "cannot be continued" in r.json()["error"]
        assert c.get("/").status_code == 200


# languages ----------------------------------------------------------------------------------------

def test_catalogs_translate_every_text_of_the_web_app():
    """Each message of tools/serve (Python and templates) has a German and a Dutch translation with
    the same placeholders ({name} for the script, %(name)s for the templates)."""
    import re
    from pathlib import Path

    from babel.messages.extract import extract_from_dir
    from babel.messages.pofile import read_po

    from rulebook.tools.i18n import LOCALES_DIR
    root = Path(__file__).resolve().parent.parent
    method_map = [("tools/serve/**.py", "python"), ("tools/serve/templates/**.j2", "jinja2")]
    options = {"tools/serve/templates/**.j2": {"extensions": "jinja2.ext.i18n", "trimmed": "true"}}
    found = {m[2] for m in extract_from_dir(root, method_map, options, keywords={"_": None, "n_": (1, 2),
                                                                                 "ngettext": (1, 2)})}
    assert len(found) > 80
    holes = re.compile(r"\{(\w+)\}|%\((\w+)\)")
    for lang in ("de", "nl"):
        with (LOCALES_DIR / lang / "LC_MESSAGES" / "rulebook.po").open("rb") as f:
            catalog = read_po(f)
        for msgid in found:
            key = msgid if isinstance(msgid, str) else msgid[0]
            message = catalog.get(key)
            assert message is not None and not message.fuzzy, f"{lang}: no translation for {msgid!r}"
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            assert all(strings), f"{lang}: empty translation for {msgid!r}"
            want = set(holes.findall(msgid if isinstance(msgid, str) else msgid[1]))
            assert set(holes.findall(strings[-1])) == want, (lang, msgid, strings)


@pytest.mark.parametrize("lang, words", [("de", ["Spielen", "Online spielen", "Zuschauen", "Regeln"]),
                                         ("nl", ["Spelen", "Online spelen", "Kijken", "Regels"])])
def test_the_home_page_speaks_the_language(client, lang, words):
    text = client.get(f"/?lang={lang}").text
    for w in words:
        assert f">{w}<" in text
    assert ">Play<" not in text and ">Rules<" not in text


# the command ------------------------------------------------------------------------------------------

def test_the_serve_command_checks_its_arguments(cli):
    code, out, err = cli("serve", "--port", "70000")
    assert code == 2 and "--port must be from 0 to 65535" in err
    code, out, err = cli("serve", "--bot-delay", "-1")
    assert code == 2 and "--bot-delay" in err


def test_an_announce_step_at_the_table(client):
    """Yamb: after the first roll the person announces a box (or nothing); the write goes there."""
    t = create(client, model="yamb", seed=3)
    table, token = t["table"], t["token"]
    s = wait_for(client, table, my_turn(0))
    assert s["step"]["kind"] == "announce" and s["announced"] is None
    assert s["announce"][0] is None and "yamb@announce" in s["announce"] and "ones@hand" in s["announce"]
    r = client.post(f"/api/tables/{table}/hint", json={"seat": 0, "token": token})
    assert r.status_code == 200 and all(o["type"] == "announce" for o in r.json()["options"])
    r = act(client, table, 0, token, "announce ones@free")
    assert r.status_code == 422  # Free is written without an announcement
    r = act(client, table, 0, token, "announce yamb@announce")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["events"][0]["type"] == "announce" and body["events"][0]["box"] == "yamb@announce"
    assert body["state"]["announced"] == "yamb@announce" and body["state"]["step"]["kind"] == "keep"
    assert act(client, table, 0, token, "stop").status_code == 200
    s = state(client, table)
    assert [c["box"] for c in s["choices"]] == ["yamb@announce"] and s["can_write"]
    assert act(client, table, 0, token, "write ones@free").status_code == 422
    assert act(client, table, 0, token, "write yamb@announce").status_code == 200
