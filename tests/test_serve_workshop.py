"""The rules workshop through its HTTP API: copies, checks as you type, playing a copy, tap a step,
and hostile copies refused with their reason while the server goes on serving others."""
from __future__ import annotations

import json
import threading
import time
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from rulebook.interpreter.model.loader import bundled_models  # noqa: E402
from rulebook.tools.serve import create_app  # noqa: E402

YAHTZEE = bundled_models()["yahtzee"].read_text(encoding="utf-8")


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))
    with TestClient(create_app(tmp_path / "serve.sqlite3", pace=0), base_url="http://localhost") as c:
        yield c


def new_copy(client, model="yahtzee"):
    r = client.post(f"/workshop/{model}?lang=en", follow_redirects=False)
    assert r.status_code == 303, r.text
    location = r.headers["location"]
    copy_id = location.split("/w/")[1].split("?")[0]
    return copy_id, location.split("#edit=")[1]


def check(client, copy_id, source, token=None, lang="en"):
    r = client.post(f"/api/copies/{copy_id}/check", json={"source": source, "token": token, "lang": lang})
    assert r.status_code == 200, r.text
    return r.json()


def bonus_50(source: str) -> str:
    """The upper bonus's points, 35 → 50, as a designer would type it."""
    at = source.index("  upper_bonus:\n")
    head, tail = source[:at], source[at:]
    assert "default: 35" in tail
    return head + tail.replace("default: 35", "default: 50", 1)


def test_edit_a_copy_check_save_page_and_download(client):
    copy_id, token = new_copy(client)
    page = client.get(f"/w/{copy_id}?lang=de")
    assert page.status_code == 200 and "Diese Fassung spielen" in page.text and "upper_bonus" in page.text
    result = check(client, copy_id, bonus_50(YAHTZEE), token)
    assert result["ok"] and result["saved"] and result["errors"] == []
    assert result["diagram"].lstrip().startswith(("<?xml", "<svg", "<!--"))
    steps = result["steps"]
    assert steps["keep"]["role"] == "decision" and steps["keep"]["who"] and steps["keep"]["choice"]
    assert steps["write"]["example"]["choice"].startswith("The greedy bot would write them into")
    rules = client.get(result["page"])
    assert rules.status_code == 200 and "script-src 'none'" in rules.headers["content-security-policy"]
    bonus_row = rules.text[rules.text.index('id="bonus-upper_bonus"'):][:400]
    assert "50" in bonus_row and "35" not in bonus_row
    original = client.get("/rules/yahtzee.en.html").text
    assert "35" in original[original.index('id="bonus-upper_bonus"'):][:400]
    download = client.get(f"/w/{copy_id}/download")
    assert "attachment" in download.headers["content-disposition"] and download.text == bonus_50(YAHTZEE)


def test_someone_elses_copy_is_checked_but_not_saved(client):
    copy_id, token = new_copy(client)
    result = check(client, copy_id, YAHTZEE.replace("default: 35", "default: 40"), token="not-the-token")
    assert result["ok"] and not result["saved"]
    assert client.get(f"/w/{copy_id}/download").text == YAHTZEE
    # a copy of one's own from it: a new id, a new token, the same text
    r = client.post(f"/workshop/copy:{copy_id}", follow_redirects=False)
    assert r.status_code == 303 and "#edit=" in r.headers["location"] and copy_id not in r.headers["location"]


def test_mistakes_are_reported_at_their_line_and_a_failing_copy_cannot_be_played(client):
    copy_id, token = new_copy(client)
    lines = YAHTZEE.splitlines(keepends=True)
    n = next(i for i, line in enumerate(lines) if line.startswith("  upper_bonus:"))
    broken = "".join(lines[:n] + ["  upper_bonus: [oops\n"] + lines[n + 1:])
    result = check(client, copy_id, broken, token)
    assert not result["ok"] and result["saved"]
    first = result["errors"][0]
    assert first["line"] is not None and abs(first["line"] - (n + 1)) <= 2
    assert first["text"].startswith(f"copy.yaml:{first['line']}:") and "error:" in first["text"]
    r = client.post(f"/api/copies/{copy_id}/play", json={"lang": "en"})
    assert r.status_code == 422 and "cannot be played until it passes the check" in r.json()["error"]
    # the same text, checked by `rulebook check`, gives the same message
    from rulebook.interpreter.model.errors import ErrorList, RulebookError
    from rulebook.interpreter.model.loader import load_source
    with pytest.raises(RulebookError) as exc:
        load_source(broken, "copy.yaml")
    cli_lines = [str(e) for e in exc.value.errors] if isinstance(exc.value, ErrorList) else [str(exc.value)]
    assert [e["text"] for e in result["errors"]] == cli_lines

    # fixed: it plays, with the text as it was when "play" was pressed (a frozen copy)
    assert check(client, copy_id, bonus_50(YAHTZEE), token)["ok"]
    r = client.post(f"/api/copies/{copy_id}/play", json={"lang": "en"})
    assert r.status_code == 201, r.text
    play = r.json()
    state = client.get(f"/api/tables/{play['table']}").json()
    assert state["players"][0]["name"] == "Player 1" and state["dice"]  # not "You": "You play You."
    r = client.post(f"/api/tables/{play['table']}/act",
                    json={"seat": play["seat"], "token": play["token"], "action": "stop", "seq": state["seq"]})
    assert r.status_code == 200, r.text
    # editing the copy afterwards does not change the game being played
    assert check(client, copy_id, YAHTZEE, token)["ok"]
    assert client.get(f"/t/{play['table']}").status_code == 200


def test_tap_a_step_on_the_served_rule_page(client, tmp_path):
    text = client.get("/rules/yacht.de.html").text
    assert 'action="/workshop/yacht?lang=de"' in text and "Eine Kopie im Browser bearbeiten" in text
    assert 'src="/static/steps.js" data-model="yacht" data-lang="de"' in text and 'id="step-panel"' in text
    data = client.get("/api/games/yacht/steps?lang=de").json()
    keep = data["steps"]["keep"]
    assert keep["role"] == "decision" and keep["who"] and keep["choice"]
    assert keep["example"]["choice"].startswith("Der gierige Bot würde") and not keep["example"]["optimal"]
    assert data["steps"]["first_roll"]["role"] == "chance" and data["steps"]["first_roll"]["example"] is None
    # once the optimal table is on disk (never solved for a page), the solver answers
    from rulebook.interpreter import load_model
    from rulebook.interpreter.solver.solve import load_or_solve
    load_or_solve(load_model("yacht"))
    data = client.get("/api/games/yacht/steps?lang=en").json()
    assert data["steps"]["keep"]["example"]["optimal"]
    assert data["steps"]["keep"]["example"]["choice"].startswith("The solver would")


# hostile copies ------------------------------------------------------------------------------------------

ALIAS_BOMB = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10))


def endless_expression() -> str:
    """A valid model whose one score squares a number forty times: it never finishes."""
    defines = "define:\n  d0: dice[0] + dice[1]\n" + "".join(f"  d{i}: d{i - 1} * d{i - 1}\n" for i in range(1, 40))
    source = bundled_models()["yacht"].read_text(encoding="utf-8")
    return source.replace("sections:\n", defines + "\nsections:\n", 1).replace(
        "score: count(1) * 1", "score: d39 * 0 + count(1)", 1)


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    from test_serve_browser import free_port, start_server, stop_server
    port = free_port()
    srv, thread = start_server(tmp_path_factory.mktemp("workshop") / "serve.sqlite3", port)
    yield f"http://127.0.0.1:{port}"
    stop_server(srv, thread)


def test_a_ten_megabyte_copy_is_refused_before_parsing(live_server):
    import httpx
    with httpx.Client(base_url=live_server, timeout=300, follow_redirects=False) as http:
        copy_id = http.post("/workshop/yacht").headers["location"].split("/w/")[1].split("?")[0]
        big = "# padding\n" * (1024 * 1024)
        r = http.post(f"/api/copies/{copy_id}/check", content=json.dumps({"source": big}),
                      headers={"content-type": "application/json"})
        assert r.status_code == 413 and "at most 256 KB" in r.json()["error"]


@pytest.mark.parametrize("source, reason", [
    (ALIAS_BOMB, r"aliases|longer than|computing time|memory"),
    # refused by the sandbox's limits, or (since the loader has budgets of its own) by those
    (endless_expression(), r"longer than|computing time|memory|deep|large|digits|limit"),
])
def test_hostile_copies_are_refused_with_a_reason_while_others_are_served(live_server, source, reason):
    import re

    import httpx
    with httpx.Client(base_url=live_server, timeout=300, follow_redirects=False) as http:
        copy_id = http.post("/workshop/yacht").headers["location"].split("/w/")[1].split("?")[0]
        answer = {}

        def hostile():
            answer["r"] = http.post(f"/api/copies/{copy_id}/check", json={"source": source})
        worker = threading.Thread(target=hostile)
        worker.start()
        # meanwhile the server answers others: pages, and a sound copy's check
        served = []
        while True:
            served.append(http.get("/api/games").status_code)
            sound = http.post(f"/api/copies/{copy_id}/check",
                              json={"source": bundled_models()["yacht"].read_text(encoding="utf-8")})
            served.append(sound.status_code if sound.json()["ok"] else sound.json())
            if not worker.is_alive() or len(served) >= 6:
                break
            time.sleep(0.05)
        worker.join(120)
        assert not worker.is_alive()
        assert served and all(s == 200 for s in served), served
        result = answer["r"].json()
        assert answer["r"].status_code == 200 and not result["ok"]
        assert re.search(reason, result["errors"][0]["message"]), result


def test_the_sandbox_stops_a_job_that_outlasts_its_time_and_says_so():
    """The outer guard, whatever the loader's own budgets catch first: a worker past its time is killed."""
    import asyncio

    from rulebook.tools.serve.sandbox import Refused, Sandbox

    async def run():
        box = Sandbox(wall=0.01, warm=False)
        try:
            with pytest.raises(Refused, match="took longer than"):
                await box.run({"source": YAHTZEE, "render": True})
            assert box._spare is None
        finally:
            await box.close()
    asyncio.run(run())
