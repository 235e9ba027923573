"""`rulebook serve` as strangers use it, in Debian's headless Chromium (Playwright; never downloads a
browser): quotas, a duplicated move, a player leaving and the computer taking over, rematch,
a 360×640 phone, keyboard-only play and an axe-core check (axe vendored under tests/vendor/).

Each person is a browser context with its own address: the server believes X-Forwarded-For from
loopback (uvicorn's default for a reverse proxy on the same machine), so quotas count per person.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from test_serve_browser import TIMEOUT, expect, free_port, start_server, stop_server, wait_js, wait_turn_or_end  # noqa: F401
from test_serve_browser import browser, errors  # noqa: F401  (fixtures)

EVENT = 600  # s: the bound of a wait for an event, for a broken server only (a busy machine is slow, not wrong)
AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from rulebook.tools.serve.limits import Limits
    port = free_port()
    srv, thread = start_server(tmp_path_factory.mktemp("people") / "tables.sqlite3", port, pace=0,
                               limits=Limits(tables_per_client=3))
    yield f"http://127.0.0.1:{port}"
    stop_server(srv, thread)


class Person:
    count = 0

    def __init__(self, browser, errors, width=1280, height=900, **context):
        Person.count += 1
        self.address = f"10.0.{Person.count // 250}.{Person.count % 250 + 1}"
        self.context = browser.new_context(viewport={"width": width, "height": height},
                                           extra_http_headers={"X-Forwarded-For": self.address}, **context)
        self.errors = errors
        self.page = self.open()

    def open(self):
        page = self.context.new_page()
        page.set_default_timeout(TIMEOUT)
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        page.on("console", lambda m: self.errors.append(f"console: {m.text}") if m.type == "error" else None)
        return page

    def my_turn(self) -> bool:
        return self.page.evaluate("document.body.classList.contains('my-turn')")

    def wait_turn_or_end(self) -> str:
        return wait_turn_or_end(self.page)

    def state(self, table: str) -> dict:
        return self.page.evaluate(f"fetch('/api/tables/{table}').then((r) => r.json())")

    def wait_state(self, table: str, test, timeout: float = EVENT) -> dict:
        """Poll the table's state until test(state) holds (no timing assumption but the bound)."""
        import time
        end = time.monotonic() + timeout
        while not test(s := self.state(table)):
            assert time.monotonic() < end, f"timed out; last state {s}"
            time.sleep(0.05)
        return s

    def new_table(self, model="yacht", mode="computer", lang="en"):
        self.page.goto(f"{self.base}/new/{model}?mode={mode}&lang={lang}")
        self.page.select_option("select[name=pace_ms]", "0")
        self.page.click("button[type=submit]")
        self.page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+"))
        return self.page.url.split("/t/")[1].split("?")[0]

    def write_best(self, may_lose_turn: bool = False) -> bool:
        """Write the roll into the box worth most. may_lose_turn: a timer may hand the turn to the computer
        at any moment (the buttons go before the click lands): then False, not an error."""
        from playwright.sync_api import TimeoutError as Gone
        buttons = self.page.locator("#sheet button.write")
        try:
            buttons.first.wait_for()
            values = [sum(int(x) for x in t.split("+")) for t in buttons.all_inner_texts()]
            if not values:  # the turn passed between the wait and the read
                raise Gone("the write buttons went away")
            buttons.nth(values.index(max(values))).click()
        except Gone:
            if not may_lose_turn:
                raise
            return False
        return True

    def close(self):
        self.context.close()


@pytest.fixture
def people(browser, errors, server):  # noqa: F811
    made = []

    def make(**kw):
        p = Person(browser, errors, **kw)
        p.base = server
        made.append(p)
        return p
    yield make
    for p in made:
        p.close()


def test_a_quota_reached_gives_429_and_others_can_still_create_tables(people, errors):
    greedy, other = people(), people()
    for _ in range(3):
        greedy.new_table()
    page = greedy.page
    page.goto(f"{greedy.base}/new/yacht?lang=en")
    with page.expect_response(re.compile(r"/api/tables$")) as refused:
        page.click("button[type=submit]")
    r = refused.value
    assert r.status == 429 and int(r.headers["retry-after"]) > 0
    status = page.locator("#status")
    wait_js(page, "document.getElementById('status').classList.contains('bad')")
    expect(status).to_contain_text("too many new tables")
    assert "/new/yacht" in page.url  # still on the form, nothing created
    table = other.new_table()  # somebody else is not held up
    assert other.wait_turn_or_end() == "turn" and table
    errors.allow("status of 429")  # the browser reports the refusal itself


def test_a_duplicated_move_changes_nothing(people, errors):
    me = people()
    table = me.new_table()
    me.wait_turn_or_end()
    page = me.page
    before = me.state(table)
    # a double click on "roll again": the page sends one move and waits for its answer
    page.evaluate("(() => { const b = document.getElementById('roll'); b.click(); b.click(); })()")
    wait_js(page, f"Number(document.querySelector('#log li').dataset.seq) >= {before['seq'] + 2}")
    after = me.state(table)
    assert after["rolls_left"] == before["rolls_left"] - 1 and after["seq"] == before["seq"] + 2
    expect(page.locator("#log li.ev-keep")).to_have_count(1)
    # the same request sent twice over the wire: made once, the repeat refused with the state
    token = page.evaluate("JSON.parse(localStorage.getItem('rulebook.seats'))")[table]["0"]
    body = json.dumps({"seat": 0, "token": token, "action": "keep none", "seq": after["seq"]})
    statuses = page.evaluate(f"""Promise.all([1, 2].map(() => fetch('/api/tables/{table}/act', {{method: 'POST',
        headers: {{'Content-Type': 'application/json'}}, body: {json.dumps(body)}}})
        .then(async (r) => [r.status, (await r.json()).state.seq])))""")
    assert sorted(s for s, _ in statuses) == [200, 409]
    final = me.state(table)
    assert final["seq"] == after["seq"] + 2 and final["rolls_left"] == after["rolls_left"] - 1
    assert all(seq == final["seq"] for _, seq in statuses)  # the 409 carries the state now
    events = page.evaluate(f"fetch('/api/tables/{table}/events').then((r) => r.json())")["events"]
    assert [e["type"] for e in events].count("keep") == 2
    errors.allow("status of 409")


def test_a_player_leaves_mid_game_and_the_computer_takes_over_after_the_timer(people):
    ann, bea = people(), people()
    page = ann.page
    page.goto(f"{ann.base}/new/yacht?mode=online&lang=en")
    page.fill("#seats li:nth-child(1) input[name=name]", "Ann")
    page.fill("#seats li:nth-child(2) input[name=name]", "Bea")
    page.select_option("select[name=turn_seconds]", "30")  # the form's shortest; the test uses 1 s below
    # the same table through the API, with a one-second timer (the form offers 30 s and more)
    created = page.evaluate("""Rulebook.post('/api/tables', {model: 'yacht', turn_seconds: 1, pace_ms: 0,
        seats: [{name: 'Ann', kind: 'human'}, {name: 'Bea', kind: 'human'}]})""")
    table = created["table"]
    page.evaluate(f"Rulebook.remember('{table}', 0, '{created['token']}')")
    page.goto(f"{ann.base}/t/{table}?lang=en")
    bea.page.goto(created["links"]["join"] + "?lang=en")
    bea.page.click("button[name=seat][value='1']")
    bea.page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+(\?|$)"))
    # both are here (the page says which seat it plays over its live connection)
    ann.wait_state(table, lambda s: [p["present"] for p in s["players"]] == [True, True], timeout=EVENT)
    bea.page.close()  # Bea leaves
    ann.wait_state(table, lambda s: not s["players"][1]["present"], timeout=EVENT)
    # nobody moves: after the timer the computer plays Bea's seat (and Ann's, who sat still) to the end.
    # Every wait is for an event (the server's state, the page's drawing); the bound is for a broken
    # server only, never a guess at how fast a busy machine is.
    final = ann.wait_state(table, lambda s: s["terminal"], timeout=EVENT)
    assert final["players"][0]["robot"] and final["players"][1]["robot"]
    events = ann.page.evaluate(f"fetch('/api/tables/{table}/events').then((r) => r.json())")["events"]
    assert any(e["type"] == "write" and e.get("player") == 1 for e in events), events[-3:]
    wait_js(page, "[...document.querySelectorAll('#sheet thead th')].some((th) => "
                  "th.textContent.includes('Bea') && th.querySelector('.robot'))", timeout=EVENT)
    wait_js(page, "document.querySelector('#log li.ev-write.p1') !== null", timeout=EVENT)
    # Ann takes her seat back (the game is over: no timer takes it again)
    wait_js(page, "!document.getElementById('robot').hidden", timeout=EVENT)
    page.click("#take-back")
    wait_js(page, "document.getElementById('robot').hidden", timeout=EVENT)
    assert not ann.state(table)["players"][0]["robot"]
    # Bea comes back: her seat is hers again
    bea.page = bea.open()
    bea.page.goto(f"{bea.base}/t/{table}?lang=en")
    wait_js(page, "[...document.querySelectorAll('#sheet thead th')].some((th) => "
                  "th.textContent.includes('Bea') && th.querySelector('.presence.here'))", timeout=EVENT)
    state = ann.wait_state(table, lambda s: s["players"][1]["present"] and not s["players"][1]["robot"],
                           timeout=EVENT)
    assert state["terminal"]
    wait_js(bea.page, "document.getElementById('me').innerText.includes('You play Bea')", timeout=EVENT)


def test_rematch_with_the_same_seats(people):
    me = people()
    table = me.new_table()
    turns = 0
    while me.wait_turn_or_end() == "turn":
        me.write_best()
        wait_js(me.page, "!document.body.classList.contains('my-turn') || "
                         "!document.getElementById('ranking').hidden || "
                         f"document.querySelectorAll('#sheet td.filled').length > {2 * turns}")
        turns += 1
        assert turns <= 12
    page = me.page
    expect(page.locator("#rematch")).to_be_visible()
    page.click("#rematch")
    page.wait_for_url(re.compile(r"/t/(?!" + table + r")[A-Za-z0-9_-]+"))
    assert me.wait_turn_or_end() == "turn"
    names = page.locator("#sheet thead .pname").all_inner_texts()
    old = me.state(table)
    assert names == [p["name"] for p in old["players"]] and old["rematch"] in page.url
    expect(page.locator("#sheet td.filled")).to_have_count(0)


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_every_page_fits_a_360_by_640_phone(people, server, errors):
    host = people()
    host.page.goto(server + "/new/yacht")
    eight = host.page.evaluate("""Rulebook.post('/api/tables', {model: 'yahtzee', pace_ms: 0,
        seats: ['Annemarie', 'Bartholomew', 'Cassandra', 'Dominique', 'Evangeline', 'Fitzgerald',
                'Gwendolyn', 'Heathcliff'].map((name) => ({name, kind: 'human'}))})""")
    host.page.evaluate(f"Rulebook.remember('{eight['table']}', 0, '{eight['token']}')")
    phone = people(width=360, height=640, is_mobile=True, has_touch=True)
    pages = ["/", "/?lang=de", "/new/yahtzee?mode=computer&lang=en", "/new/yahtzee?mode=online&lang=nl",
             "/new/generala?lang=de", "/watch/yacht?lang=en", f"/t/{eight['table']}?lang=en",
             f"/t/{eight['table']}/join?lang=de", f"/t/{eight['table']}/watch?lang=nl", "/t/NoSuchTable42",
             "/no/such/page"]
    for path in pages:
        phone.page.goto(server + path)
        phone.page.wait_for_load_state("load")
        assert no_sideways_scroll(phone.page), path
    # the host's own view of the 8-player sheet with buttons to write in
    host.context.close()
    mine = people(width=360, height=640, is_mobile=True, has_touch=True)
    mine.page.goto(server + "/new/yacht")
    mine.page.evaluate(f"Rulebook.remember('{eight['table']}', 0, '{eight['token']}')")
    mine.page.goto(f"{server}/t/{eight['table']}?lang=de")
    assert mine.wait_turn_or_end() == "turn"
    assert mine.page.locator("#sheet button.write").count() > 0
    assert no_sideways_scroll(mine.page)
    # the 8-player sheet itself fits: it does not scroll sideways inside its box either
    assert mine.page.evaluate("(() => { const w = document.querySelector('.sheet-wrap');"
                              " return w.scrollWidth <= w.clientWidth; })()")
    errors.allow("status of 404")  # the two error pages asked for on purpose


def test_a_whole_turn_by_keyboard_alone_with_focus_kept(people):
    me = people()
    table = me.new_table()
    page = me.page
    assert me.wait_turn_or_end() == "turn"
    start = me.state(table)["seq"]
    kb = page.keyboard
    # Tab reaches the dice; Space chooses the focused one
    for _ in range(40):
        kb.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('die')"):
            break
    assert page.evaluate("document.activeElement.dataset.index") == "0"
    kb.press("Space")
    expect(page.locator("#dice .die.held")).to_have_count(1)
    assert page.evaluate("document.activeElement.dataset.focus") == "die-0"  # focus stays on the die
    kb.press("2")  # the shortcut for die 2
    expect(page.locator("#dice .die.held")).to_have_count(2)
    kb.press("r")  # roll the others again
    wait_js(page, f"Number(document.querySelector('#log li').dataset.seq) >= {start + 2}")
    wait_js(page, "document.activeElement && document.activeElement !== document.body")
    expect(page.locator("#dice .die.held")).to_have_count(2)  # the kept dice stay chosen, in their places
    # Tab to "roll again" and press it with Enter
    page.focus("#roll")
    kb.press("Enter")
    wait_js(page, f"Number(document.querySelector('#log li').dataset.seq) >= {start + 4}")
    wait_js(page, "document.activeElement && document.activeElement !== document.body")
    # W goes to the boxes; Tab moves between them; Enter writes
    kb.press("w")
    assert page.evaluate("document.activeElement.classList.contains('write')")
    label = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert re.match(r".+: write \d+ points?$", label), label
    kb.press("Tab")
    assert page.evaluate("document.activeElement.classList.contains('write')")
    box = page.evaluate("document.activeElement.dataset.box")
    kb.press("Enter")
    wait_js(page, f"document.querySelector('#sheet tr[data-box=\"{box}\"] td.filled') !== null")
    wait_js(page, "document.activeElement && document.activeElement !== document.body")
    assert me.state(table)["sheets"][0].get(box) is not None
    assert page.locator("#log").get_attribute("aria-live") == "polite"


def axe_violations(page) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    return page.evaluate("""axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa']}})
        .then((r) => r.violations.map((v) => ({id: v.id, impact: v.impact, nodes: v.nodes.length,
                                              target: v.nodes[0] && v.nodes[0].target.join(' ')})))""")


def test_axe_finds_no_serious_violations(people, server, browser, errors):  # noqa: F811
    assert AXE.exists() and (AXE.parent / "LICENSE").exists()
    me = people(bypass_csp=True)  # axe is added as a script tag; the app's own pages keep their CSP
    table = me.new_table(model="yahtzee")
    assert me.wait_turn_or_end() == "turn"
    me.page.locator("#dice .die").first.click()
    pages = {"table (my turn)": None, "home": "/?lang=en", "new table": "/new/yahtzee?mode=online&lang=de",
             "join": f"/t/{table}/join?lang=nl", "watch": f"/t/{table}/watch?lang=en", "error": "/t/NoSuchTable42"}
    found = {}
    for name, path in pages.items():
        if path:
            me.page.goto(server + path)
        found[name] = [v for v in axe_violations(me.page) if v["impact"] in ("serious", "critical")]
    assert found == {name: [] for name in pages}, found
    errors.allow("status of 404")  # the error page, asked for on purpose
