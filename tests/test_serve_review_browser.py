"""The web app's review at the end of a game, in a real browser: a finished table of a random and an
optimal computer player, reviewed move by move with each turn's cost on the sheet, on a 360 px phone,
with no serious axe-core violation (the fixtures of test_serve_browser and test_serve_people_browser)."""
from __future__ import annotations

import pytest
from test_serve_browser import expect, wait_js  # noqa: F401
from test_serve_browser import browser, errors  # noqa: F401  (fixtures)
from test_serve_people_browser import AXE, axe_violations, no_sideways_scroll, people, server  # noqa: F401


@pytest.fixture(scope="module", autouse=True)
def yacht_solved():
    """The optimal player's table on disk before the server is asked (a review never solves in a request)."""
    from rulebook.interpreter import load_model
    from rulebook.interpreter.solver.solve import solved
    solved(load_model("yacht"))


def wait_review(page, table: str, timeout: float = 300) -> dict:
    """The review, once the server has the optimal player's table: until then it answers 409 and starts
    the solve (with an empty cache the game may end before its table is computed). No timing assumption
    but the bound."""
    import time
    end = time.monotonic() + timeout
    while True:
        status, body = page.evaluate(f"""fetch('/api/tables/{table}/review?lang=de')
            .then(async (r) => [r.status, await r.json()])""")
        if status != 409:
            assert status == 200, body
            return body
        assert time.monotonic() < end, body
        page.wait_for_timeout(250)


def test_the_review_at_the_end_of_a_game(people, server, errors):  # noqa: F811
    phone = people(width=360, height=640, is_mobile=True, has_touch=True, bypass_csp=True)
    page = phone.page
    page.goto(server + "/new/yacht?lang=de")
    for _ in range(2):  # the first game waits for the server's table (until then the optimal seat plays greedy)
        made = page.evaluate("""Rulebook.post('/api/tables', {model: 'yacht', pace_ms: 0,
            seats: [{name: 'Rae', kind: 'random'}, {name: 'Opt', kind: 'optimal'}]})""")
        table = made["table"]
        phone.wait_state(table, lambda s: s["terminal"])
        review = wait_review(page, table)
    rae, opt = review["players"]
    assert opt["total_loss"] == 0 and opt["mistakes"] == [] and "nichts verloren" in opt["summary"]
    assert rae["total_loss"] > 20 and len(rae["mistakes"]) == 3 and rae["heading"] == "Die 3 größten Fehler von Rae:"
    costly = {box: t for box, t in review["turns"]["0"].items() if t["shown"]}
    # every decision is in one turn, and the turns' costs add up to the player's loss
    assert sum(t["loss"] for t in review["turns"]["0"].values()) == pytest.approx(rae["total_loss"], abs=1e-4)
    page.goto(f"{server}/t/{table}/watch?lang=de")
    wait_js(page, "!document.getElementById('ranking').hidden")
    expect(page.locator("#review")).to_be_hidden()
    page.click("#review-button")
    wait_js(page, "!document.getElementById('review').hidden")
    expect(page.locator("#sheet .cost")).to_have_count(len(costly))
    for box, t in costly.items():
        assert page.locator(f"#sheet tr[data-box='{box}'] td .cost").first.inner_text() == "−" + t["cost"]
    text = page.locator("#review").inner_text()
    assert rae["summary"] in text and rae["mistakes"][0] in text and opt["summary"] in text
    expect(page.locator("#review-list li")).to_have_count(len(review["decisions"]))
    assert no_sideways_scroll(page)
    found = [v for v in axe_violations(page) if v["impact"] in ("serious", "critical")]
    assert found == []
    errors.allow("409")  # the review asked for before its table was ready


def test_a_game_under_way_is_not_reviewed(people, server, errors):  # noqa: F811
    me = people()
    me.page.goto(server + "/new/yacht?lang=en")
    made = me.page.evaluate("""Rulebook.post('/api/tables', {model: 'yacht', pace_ms: 0,
        seats: [{name: 'Ann', kind: 'human'}, {name: 'Opt', kind: 'optimal'}]})""")
    answer = me.page.evaluate(f"""fetch('/api/tables/{made["table"]}/review?lang=nl')
        .then(async (r) => [r.status, (await r.json()).error])""")
    assert answer[0] == 409 and answer[1]
    errors.allow("409")
