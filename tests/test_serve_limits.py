"""`rulebook serve` in front of strangers: quotas, bounded JSON, allowed hosts, slow clients, expiry,
the shared solve queue, exactly-once moves and fair dice (API level; the browser tests are in
test_serve_browser.py)."""
from __future__ import annotations

import asyncio
import hashlib
import socket
import sqlite3
import threading
import time
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from rulebook.tools.serve import create_app  # noqa: E402
from rulebook.tools.serve.limits import Counter, Limits, Quota, host_allowed, loads, NumberError  # noqa: E402
from rulebook.tools.serve.solving import SolveQueue  # noqa: E402

from test_serve_api import act, create, state, wait_for, my_turn, simple_move, db_events  # noqa: E402


@pytest.fixture
def db(tmp_path):
    return tmp_path / "tables.sqlite3"


def serve(db, **kw):
    return TestClient(create_app(db, pace=0, **kw), base_url="http://localhost")


# quotas ------------------------------------------------------------------------------------------

def test_a_quota_counts_per_client_in_a_sliding_window():
    now = [100.0]
    q = Quota(3, 60, clock=lambda: now[0])
    assert [q.hit("a") for _ in range(3)] == [0, 0, 0]
    assert q.hit("a") == 60  # the oldest leaves the window in 60 s
    assert q.hit("b") == 0   # somebody else is not held up
    now[0] += 30
    assert q.hit("a") == 30
    now[0] += 30.5
    assert q.hit("a") == 0


def test_connections_are_counted_and_given_back():
    c = Counter(2)
    assert c.take("a") and c.take("a") and not c.take("a") and c.take("b")
    c.give_back("a")
    assert c.take("a")


def test_too_many_new_tables_get_429_with_retry_after(db):
    with serve(db, limits=Limits(tables_per_client=2)) as c:
        create(c)
        create(c)
        r = c.post("/api/tables", json={"model": "yacht", "seats": [{"name": "a", "kind": "human"}]})
        assert r.status_code == 429, r.text
        assert 3000 < int(r.headers["retry-after"]) <= 3600
        assert "too many new tables" in r.json()["error"] and r.json()["retry_after"] == int(r.headers["retry-after"])
        assert len(c.get("/api/tables").json()) == 2


def test_too_many_moves_get_429_and_change_nothing(db):
    with serve(db, limits=Limits(moves_per_client=3, moves_window=60)) as c:
        t = create(c, seats=(("Ann", "human"), ("Bob", "human")))
        s = state(c, t["table"])
        for _ in range(3):  # refused moves count too: the quota is about requests
            r = c.post(f"/api/tables/{t['table']}/act", json={"seat": 0, "token": t["token"], "action": "dance",
                                                               "seq": s["seq"]})
            assert r.status_code == 422
        r = c.post(f"/api/tables/{t['table']}/act", json={"seat": 0, "token": t["token"], "action": "keep none",
                                                           "seq": s["seq"]})
        assert r.status_code == 429 and "too many moves" in r.json()["error"] and r.headers["retry-after"]
        assert state(c, t["table"]) == s


def test_too_many_live_connections_are_closed(db):
    from starlette.websockets import WebSocketDisconnect
    with serve(db, limits=Limits(sockets_per_client=2)) as c:
        t = create(c)
        url = f"ws://localhost/ws/tables/{t['table']}"
        with c.websocket_connect(url) as a, c.websocket_connect(url) as b:
            assert a.receive_json()["type"] == b.receive_json()["type"] == "hello"
            with pytest.raises(WebSocketDisconnect) as exc:
                with c.websocket_connect(url) as third:
                    third.receive_json()
            assert exc.value.code == 1013
        with c.websocket_connect(url) as again:  # the two were given back
            assert again.receive_json()["type"] == "hello"


def test_the_server_wide_limit_counts_unfinished_tables(db):
    with serve(db, limits=Limits(max_tables=1)) as c:
        create(c)
        r = c.post("/api/tables", json={"model": "yacht", "seats": [{"name": "a", "kind": "human"}]})
        assert r.status_code == 503 and r.headers["retry-after"]


# bounded JSON ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("body, message", [
    ('{"seat": ' + "9" * 5000 + "}", "more than 40 digits"),
    ('{"seat": -' + "9" * 41 + "}", "more than 40 digits"),
    ('{"seat": NaN}', "'NaN' is not a JSON number"),
    ('{"seat": -Infinity}', "'-Infinity' is not a JSON number"),
    ('{"seat": 1e999}', "too large"),
    ('{"seat": 0.' + "1" * 60 + "}", "more than 40 characters"),
])
def test_numbers_beyond_bounds_are_a_400_never_a_crash(db, body, message):
    with serve(db) as c:
        t = create(c)
        for url in ("/api/tables", f"/api/tables/{t['table']}/act", f"/api/tables/{t['table']}/join"):
            r = c.post(url, content=body.encode(), headers={"content-type": "application/json"})
            assert r.status_code == 400, (url, r.text)
            assert message in r.json()["error"] and "Traceback" not in r.text


def test_bounded_loads_reads_ordinary_json():
    assert loads('{"a": [1, -2, 3.5, true, null, "x"]}') == {"a": [1, -2, 3.5, True, None, "x"]}
    with pytest.raises(NumberError):
        loads("1" * 41)


# hosts and slow clients -----------------------------------------------------------------------------

@pytest.mark.parametrize("host, ok", [("localhost", True), ("localhost:8000", True), ("127.0.0.1:80", True),
                                      ("[::1]:8000", True), ("LOCALHOST.", True), ("evil.example", False),
                                      ("localhost.evil.example", False), ("", False), ("127.0.0.2", False)])
def test_host_names_on_the_allow_list(host, ok):
    assert host_allowed(host, ("localhost", "127.0.0.1", "::1")) is ok


def test_another_host_name_is_refused_and_never_in_a_link(db):
    with TestClient(create_app(db, pace=0), base_url="http://evil.example") as c:
        r = c.post("/api/tables", json={"model": "yacht", "seats": [{"name": "a", "kind": "human"}]})
        assert r.status_code == 400 and "host name 'evil.example'" in r.json()["error"]
        assert "--allowed-host" in r.json()["hint"]
        assert c.get("/").status_code == 400
        assert c.get("/", headers={"host": "localhost:8000"}).status_code == 200
    with TestClient(create_app(db, pace=0, allowed_hosts=("dice.example",)), base_url="http://dice.example") as c:
        t = create(c)
        assert t["links"]["join"].startswith("http://dice.example/t/")
        assert c.get("/", headers={"host": "localhost"}).status_code == 400


def test_a_client_that_never_finishes_its_header_is_dropped(db):
    uvicorn = pytest.importorskip("uvicorn")
    from rulebook.tools.serve.server import config
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(config(create_app(db, pace=0), "127.0.0.1", port, header_timeout=2.0, idle_timeout=60))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    try:
        end = time.monotonic() + 300  # a bound for a server that never starts
        while not srv.started:
            assert time.monotonic() < end
            time.sleep(0.02)
        slow = socket.create_connection(("127.0.0.1", port))
        slow.settimeout(30)  # a bound for a broken server only: the deadline is 2 s
        slow.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n")
        for _ in range(3):  # dribbling more header bytes does not reset the deadline
            time.sleep(0.8)
            try:
                slow.sendall(b"X-Slow: 1\r\n")
            except OSError:
                break
        assert slow.recv(100) == b""  # closed by the server, no answer
        slow.close()
        # a client that sends its header in time is answered (it has 2 s: a busy machine may be slow to read it)
        ok = socket.create_connection(("127.0.0.1", port))
        ok.settimeout(30)
        ok.sendall(b"GET /api/games HTTP/1.1\r\nHost: localhost\r\n\r\n")
        assert ok.recv(100).startswith(b"HTTP/1.1 200")
        ok.close()
    finally:
        srv.should_exit = True
        thread.join(15)


# expiry -----------------------------------------------------------------------------------------------

def test_abandoned_and_finished_tables_expire_and_the_file_shrinks(db):
    hour = 3600
    with serve(db, limits=Limits(abandoned_after=48 * hour, finished_kept=2 * hour)) as c:
        done = create(c, seats=(("a", "greedy"), ("b", "greedy")))
        wait_for(c, done["table"], lambda s: s["terminal"])
        waiting = [create(c)["table"] for _ in range(20)]
        t = c.app.state.tables
        run = c.portal.call
        assert run(t.sweep, time.time() + 1 * hour) == 0
        assert run(t.sweep, time.time() + 3 * hour) == 1  # the finished one
        assert c.get(f"/api/tables/{done['table']}").status_code == 404
        assert db_events(db, done["table"]) == 0
        assert c.get(f"/api/tables/{waiting[0]}").status_code == 200
        size = db.stat().st_size
        assert run(t.sweep, time.time() + 49 * hour) == 20
        assert c.get(f"/api/tables/{waiting[0]}").status_code == 404
        assert c.get("/api/tables").json() == []
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM tables").fetchone()[0] == 0
        assert con.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0
        assert con.execute("PRAGMA freelist_count").fetchone()[0] < 5
    assert db.stat().st_size < size


def test_a_restart_reads_only_the_tables_the_server_must_move(db):
    with serve(db) as c:
        people = [create(c)["table"] for _ in range(5)]  # each waits for its person
        bots = create(c, seats=(("a", "greedy"), ("b", "random")), pace_ms=50)["table"]
    with serve(db) as c:
        t = c.app.state.tables
        wait_for(c, bots, lambda s: s["terminal"])  # went on by itself
        assert not set(people) & set(t._tables)
        assert state(c, people[0])["player"] == 0  # read when asked for


# the shared solve queue ----------------------------------------------------------------------------

def test_a_variant_is_solved_once_and_the_queue_is_bounded(yahtzee, tmp_path, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))  # nothing solved here
    release = threading.Event()
    calls = []

    def fake_solve(name, options):
        calls.append((name, dict(options)))
        release.wait(30)
        return True

    async def run():
        q = SolveQueue(workers=1, waiting=1, solve=fake_solve)
        told = []
        a = q.want(yahtzee, "yahtzee", {"x": "1"}, lambda: told.append("a1"))
        b = q.want(yahtzee, "yahtzee", {"x": "1"}, lambda: told.append("a2"))  # the same variant: no new solve
        c = q.want(yahtzee, "yahtzee", {"x": "2"}, lambda: told.append("b"))
        d = q.want(yahtzee, "yahtzee", {"x": "3"}, lambda: told.append("c"))  # 1 running + 1 waiting: full
        assert (a, b, c, d) == ("queued", "queued", "queued", "refused")
        release.set()
        for _ in range(500):
            if len(told) == 3:
                break
            await asyncio.sleep(0.01)
        q.close()
        return told

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        told = asyncio.run(run())
    assert sorted(told) == ["a1", "a2", "b"]
    assert [c[1] for c in calls] == [{"x": "1"}, {"x": "2"}]


def test_an_optimal_seat_plays_greedily_until_solved_and_the_page_never_waits(db, tmp_path, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))  # nothing solved here
    release = threading.Event()
    queue = SolveQueue(workers=1, waiting=0, solve=lambda name, options: release.wait(60))
    try:
        with serve(db, solves=queue) as c:
            t = create(c, seats=(("a", "optimal"), ("b", "greedy")))
            assert t["state"]["stand_in"] == [0]
            s = wait_for(c, t["table"], lambda s: s["terminal"])
            assert len(s["ranking"]) == 2
            assert queue.pending() == 1
            r = c.post("/api/tables", json={"model": "yacht", "seats": [{"name": "o", "kind": "optimal"}]})
            assert r.status_code == 201 and r.json()["state"]["stand_in"] == [0]  # the queue is full: greedy
    finally:
        release.set()


def test_a_strong_seat_plays_greedily_until_its_player_is_ready(db, tmp_path, monkeypatch):
    """The strong player's parts are solved off the event loop, once per variant; the seat plays
    greedily until then and the page never waits."""
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))
    with serve(db) as c:
        t = create(c, seats=(("Ann", "human"), ("s", "strong")), model="yacht")
        assert t["state"]["stand_in"] == [1]
        assert wait_for(c, t["table"], lambda s: not s["stand_in"])["stand_in"] == []
        r = c.post("/api/tables", json={"model": "yacht", "seats": [{"name": "x", "kind": "cheater"}]})
        assert r.status_code == 422 and "strong" in r.json()["error"] + r.json().get("hint", "")


# exactly-once moves -------------------------------------------------------------------------------------

def test_a_move_sent_twice_is_carried_out_once(db):
    with serve(db) as c:
        t = create(c, seats=(("Ann", "human"), ("Bob", "human")))
        table, token = t["table"], t["token"]
        s = state(c, table)
        body = {"seat": 0, "token": token, "action": "keep none", "seq": s["seq"]}
        first = c.post(f"/api/tables/{table}/act", json=body)
        assert first.status_code == 200
        after = state(c, table)
        assert after["rolls_left"] == s["rolls_left"] - 1
        stored = db_events(db, table)
        again = c.post(f"/api/tables/{table}/act", json=body)
        assert again.status_code == 409
        assert "nothing was changed" in again.json()["error"]
        assert again.json()["state"] == after and again.json()["seq"] == after["seq"]
        assert state(c, table) == after and db_events(db, table) == stored
        r = c.post(f"/api/tables/{table}/act", json={k: v for k, v in body.items() if k != "seq"})
        assert r.status_code == 400 and "'seq'" in r.json()["error"]
        assert state(c, table) == after


# fair dice -------------------------------------------------------------------------------------------------

def test_a_seed_is_only_for_practice(db):
    with serve(db) as c:
        r = c.post("/api/tables", json={"model": "yacht", "seed": 7, "seats": [{"name": "a", "kind": "human"},
                                                                              {"name": "b", "kind": "human"}]})
        assert r.status_code == 422 and "only for practice" in r.json()["error"]
        t = create(c, model="yacht", seed=7)
        assert t["state"]["fair"]["practice"] is True


def test_the_seed_is_committed_at_the_start_and_shown_at_the_end(db):
    with serve(db) as c:
        t = create(c, seats=(("a", "greedy"), ("b", "random")), model="yacht")
        fair = t["state"]["fair"]
        assert fair["seed"] is None and not fair["practice"] and len(fair["commitment"]) == 64
        s = wait_for(c, t["table"], lambda s: s["terminal"])
        seed = s["fair"]["seed"]
        assert hashlib.sha256(seed.encode()).hexdigest() == fair["commitment"]
        assert int(seed) >= 0 and s["fair"]["commitment"] == fair["commitment"]
        other = create(c, seats=(("a", "greedy"), ("b", "random")), model="yacht")
        assert other["state"]["fair"]["commitment"] != fair["commitment"]


def test_the_serve_command_checks_its_limits(cli):
    code, out, err = cli("serve", "--tables-per-hour", "0")
    assert code == 2 and "--tables-per-hour must be at least 1" in err
    code, out, err = cli("serve", "--turn-timer", "-5")
    assert code == 2 and "--turn-timer must be at least 0" in err


def test_refusals_speak_the_askers_language(db):
    with serve(db, limits=Limits(tables_per_client=1)) as c:
        t = create(c)
        body = {"model": "yacht", "seats": [{"name": "a", "kind": "human"}]}
        r = c.post("/api/tables", json=body, headers={"Accept-Language": "de-DE,de;q=0.9"})
        assert r.status_code == 429
        assert r.json()["error"] == "zu viele neue Tische von deiner Adresse; versuch es in einer Stunde wieder"
        s = state(c, t["table"])
        r = c.post(f"/api/tables/{t['table']}/act?lang=nl",
                   json={"seat": 0, "token": t["token"], "action": "keep none", "seq": s["seq"] - 1})
        assert r.status_code == 409 and r.json()["error"].startswith(f"deze zet is gedaan in stand {s['seq'] - 1}")
        assert "er is geen tafel &#39;NoSuchTable42&#39;" in c.get("/t/NoSuchTable42?lang=nl").text
        assert c.get("/api/tables/NoSuchTable42").json()["error"] == "er is geen tafel 'NoSuchTable42'"  # the cookie
        r = c.get("/api/tables/NoSuchTable42?lang=en")
        assert r.json()["error"] == "there is no table 'NoSuchTable42'"
