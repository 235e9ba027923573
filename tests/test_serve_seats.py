"""People come and go (API level): presence, the turn timer and the computer taking over a seat
(and giving it back), rematch with the same seats, private tables, hints switched off, and the
dice being chosen shown live to everybody."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from rulebook.tools.serve import create_app  # noqa: E402

from test_serve_api import act, create, my_turn, simple_move, state, wait_for  # noqa: E402

WS = "ws://localhost/ws/tables/"


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path / "t.sqlite3", pace=0), base_url="http://localhost") as c:
        yield c


def duel(client, **extra):
    t = create(client, seats=(("Ann", "human"), ("Bob", "human")), model="yacht", **extra)
    bob = client.post(f"/api/tables/{t['table']}/join", json={"seat": 1}).json()["token"]
    return t["table"], t["token"], bob


def test_presence_follows_the_live_connections(client):
    table, ann, bob = duel(client)
    assert [p["present"] for p in state(client, table)["players"]] == [False, False]
    with client.websocket_connect(WS + table) as ws:
        ws.receive_json()
        ws.send_json({"type": "seat", "seat": 0, "token": ann})
        msg = ws.receive_json()
        assert [p["present"] for p in msg["state"]["players"]] == [True, False]
        assert [p["present"] for p in state(client, table)["players"]] == [True, False]
        ws.send_json({"type": "seat", "seat": 1, "token": "forged-token-000"})  # one seat per connection
        with client.websocket_connect(WS + table) as other:
            other.receive_json()
            other.send_json({"type": "seat", "seat": 1, "token": "forged-token-000"})
            assert other.receive_json()["status"] == 403
    assert [p["present"] for p in state(client, table)["players"]] == [False, False]


def test_the_computer_takes_over_when_the_time_is_up_and_gives_the_seat_back(client):
    table, ann, bob = duel(client, turn_seconds=1)
    s = state(client, table)
    assert s["turn_timer"] == 1 and s["turn_ends"] is not None and s["player"] == 0
    # Ann does nothing: after a second the computer plays her turn, and it is Bob's
    s = wait_for(client, table, lambda s: s["player"] == 1 and not s["chance"])
    assert s["players"][0]["robot"] and not s["players"][1]["robot"]
    assert sum(1 for e in client.get(f"/api/tables/{table}/events").json()["events"] if e["type"] == "write") == 1
    # Bob moves in time: his seat stays his
    r = act(client, table, 1, bob, simple_move(s))
    assert r.status_code == 200
    assert not r.json()["state"]["players"][1]["robot"]
    # Ann comes back and takes her seat again
    r = client.post(f"/api/tables/{table}/back", json={"seat": 0, "token": ann})
    assert r.status_code == 200 and not r.json()["state"]["players"][0]["robot"]
    r = client.post(f"/api/tables/{table}/back", json={"seat": 0, "token": bob})
    assert r.status_code == 403


def test_no_timer_by_default_and_reconnecting_gives_the_seat_back(client):
    table, ann, bob = duel(client)
    assert state(client, table)["turn_ends"] is None
    t2, ann2, _ = duel(client, turn_seconds=1)
    wait_for(client, t2, lambda s: s["players"][0]["robot"])
    with client.websocket_connect(WS + t2) as ws:
        ws.receive_json()
        ws.send_json({"type": "seat", "seat": 0, "token": ann2})
        s = wait_for(client, t2, lambda s: not s["players"][0]["robot"])
        assert s["players"][0]["present"]


def test_rematch_with_the_same_seats(client):
    t = create(client, seats=(("Ann", "human"), ("cpu", "greedy")), model="yacht")
    table, token = t["table"], t["token"]
    r = client.post(f"/api/tables/{table}/rematch", json={"seat": 0, "token": token})
    assert r.status_code == 409 and "game is over" in r.json()["error"]
    while not (s := wait_for(client, table, my_turn(0)))["terminal"]:
        assert act(client, table, 0, token, simple_move(s)).status_code == 200
    r = client.post(f"/api/tables/{table}/rematch", json={"seat": 0, "token": token})
    assert r.status_code == 200, r.text
    new = r.json()
    assert new["table"] != table and new["seat"] == 0 and new["token"] != token
    assert [(p["name"], p["kind"]) for p in new["state"]["players"]] == [("Ann", "human"), ("cpu", "greedy")]
    assert state(client, table)["rematch"] == new["table"]
    assert new["state"]["fair"]["commitment"] != s["fair"]["commitment"]  # new dice
    # a second click opens the same rematch seat (with a fresh token for this browser)
    r = client.post(f"/api/tables/{table}/rematch", json={"seat": 0, "token": token})
    assert r.status_code == 200 and r.json()["table"] == new["table"] and r.json()["seat"] == 0
    assert act(client, new["table"], 0, r.json()["token"], "keep none").status_code == 200


def test_private_tables_are_not_listed_and_hints_can_be_off(client):
    t = create(client, private=True, hints=False)
    assert t["table"] not in [x["id"] for x in client.get("/api/tables").json()]
    assert t["table"] not in client.get("/?lang=en").text
    assert client.get(f"/api/tables/{t['table']}").status_code == 404  # invisible without a key
    seen = client.get(f"/api/tables/{t['table']}", params={"seat": 0, "token": t["token"]}).json()
    assert seen["private"] and not seen["hints"]
    assert client.get(t["links"]["watch"].replace("/t/", "/api/tables/").replace("/watch", "")).status_code == 200
    r = client.post(f"/api/tables/{t['table']}/hint", json={"seat": 0, "token": t["token"]})
    assert r.status_code == 403 and "hints are switched off" in r.json()["error"]
    listed = create(client)
    assert listed["table"] in [x["id"] for x in client.get("/api/tables").json()]


def test_the_dice_being_chosen_are_shown_live(client):
    table, ann, bob = duel(client)
    with client.websocket_connect(WS + table) as a, client.websocket_connect(WS + table) as b:
        a.receive_json()
        b.receive_json()
        a.send_json({"type": "seat", "seat": 0, "token": ann})
        b.send_json({"type": "seat", "seat": 1, "token": bob})
        for ws in (a, b):  # the two presence updates
            ws.receive_json()
            ws.receive_json()
        seq = state(client, table)["seq"]
        b.send_json({"type": "select", "dice": [0]})  # not Bob's turn: ignored
        a.send_json({"type": "select", "dice": [4, 1, 1]})
        msg = b.receive_json()
        assert msg == {"type": "select", "seat": 0, "seq": seq, "dice": [1, 4]}
        a.send_json({"type": "select", "dice": [9]})
        assert a.receive_json()["type"] == "select"  # Ann's own first one
        err = a.receive_json()
        assert err["type"] == "error" and err["status"] == 400
