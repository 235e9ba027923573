"""Tables strangers can trust, round two (issue 24), in Debian's headless Chromium (Playwright, never
downloaded): links that grant only what they say, seats that stay yours, a vote that ends a stalled
table, a visitor's own copy in the workshop, and axe-core on every page at 1280 and 360 px.

One browser and one server for the module; every wait is for an event on the page or the server
(`wait_js`, `expect_response`, `wait_for_url`), never a number of seconds.
"""
from __future__ import annotations

import re

import pytest

from test_serve_browser import TIMEOUT, browser, expect, free_port, start_server, stop_server, wait_js  # noqa: F401
from test_serve_people_browser import AXE, Person

PRIVATE = re.compile(r"/t/[A-Za-z0-9_-]+(\?|$)")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("RULEBOOK_CACHE", str(tmp_path_factory.getbasetemp() / "solver-cache-sim"))
    from rulebook.tools.serve import workshop
    mp.setattr(workshop, "COMPARE_GAMES", 10)
    port = free_port()
    srv, thread = start_server(tmp_path_factory.mktemp("trust") / "serve.sqlite3", port, pace=0)
    yield f"http://127.0.0.1:{port}"
    stop_server(srv, thread)
    mp.undo()


@pytest.fixture
def people(browser, server):  # noqa: F811
    made, errors = [], []

    def make(**kw):
        p = Person(browser, errors, **kw)
        p.base = server
        made.append(p)
        return p
    yield make
    for p in made:
        p.close()


def post(page, url: str, body: dict) -> tuple[int, dict]:
    """A JSON POST from the page (its own address, cookies and origin): (status, answer)."""
    return tuple(page.evaluate("""([url, body]) => fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify(body)}).then(async (r) => [r.status, await r.json()])""", [url, body]))


def online_table(ann, names=("Ann", "Bea")) -> str:
    """Ann sets up a private online table of two people with the form; returns its id."""
    page = ann.page
    page.goto(f"{ann.base}/new/yacht?mode=online&lang=en")
    for i, name in enumerate(names, 1):
        page.fill(f"#seats li:nth-child({i}) input[name=name]", name)
    page.select_option("select[name=pace_ms]", "0")
    assert page.locator("input[name=private]").is_checked()
    page.click("button[type=submit]")
    page.wait_for_url(PRIVATE)
    page.locator("#invite-links input").first.wait_for(state="attached")
    return page.url.split("/t/")[1].split("?")[0]


def take_seat(person, url: str) -> None:
    person.page.goto(url)
    person.page.click("button[name=seat]")
    person.page.wait_for_url(PRIVATE)
    wait_js(person.page, "document.getElementById('me').textContent.startsWith('You play')")


def test_a_watch_link_grants_watching_only_and_a_new_invite_link_revokes_the_old(people):
    ann, wanda, bea = people(), people(), people()
    table = online_table(ann)
    page = ann.page
    watch = page.locator("#watch-link").input_value()
    old = page.locator("#invite-1").input_value()
    assert "key=" in watch and "key=" in old and watch.split("key=")[1] != old.split("key=")[1]
    assert "/join" not in watch and table in watch
    # a new invite link for seat 2: the old one stops working
    page.click("button[data-revoke='1']")
    wait_js(page, f"document.getElementById('invite-1').value !== {old!r}")
    new = page.locator("#invite-1").input_value()
    with bea.page.expect_response(lambda r: "/join" in r.url) as answer:
        bea.page.goto(old)
    assert answer.value.status == 404
    # the watch link: the table, watched, and nothing else
    wanda.page.goto(watch)
    wait_js(wanda.page, "document.getElementById('me').textContent === 'You are watching this table.'")
    expect(wanda.page.locator("#invite-links input")).to_have_count(0)
    key = watch.split("key=")[1]
    for body in ({"seat": 1}, {"seat": 1, "key": key}, {"seat": 0, "key": key}):
        status, answer = post(wanda.page, f"/api/tables/{table}/join", body)
        assert status == 403, answer
    with wanda.page.expect_response(lambda r: "/join" in r.url) as answer:
        wanda.page.goto(f"{ann.base}/t/{table}/join?seat=1&key={key}")
    assert answer.value.status == 404
    with wanda.page.expect_response(lambda r: r.url.endswith(f"/t/{table}")) as answer:
        wanda.page.goto(f"{ann.base}/t/{table}")  # the table id alone shows nothing of a private table
    wait_js(wanda.page, "document.body.classList.contains('no-access')")
    expect(wanda.page.locator("#sheet td")).to_have_count(0)
    wanda.page.goto(watch)  # back to watching
    # the new invite link takes the seat, once
    take_seat(bea, new)
    status, _ = post(wanda.page, f"/api/tables/{table}/join", {"seat": 1, "key": new.split("key=")[1]})
    assert status in (403, 409)
    # the game ends (Bea leaves, Ann votes to end it); the rematch seat is kept for Bea
    bea.page.close()
    wait_js(page, "!document.getElementById('votes').hidden")
    page.click("button[data-vote=end]")
    wait_js(page, "!document.getElementById('ranking').hidden")
    page.click("#rematch")
    page.wait_for_url(re.compile(r"/t/(?!" + table + r")[A-Za-z0-9_-]+"))
    rematch = page.url.split("/t/")[1].split("?")[0]
    wait_js(wanda.page, "document.getElementById('rematch').textContent === 'Watch the rematch'")
    for body in ({"seat": 1}, {"seat": 1, "key": key}):
        status, answer = post(wanda.page, f"/api/tables/{rematch}/join", body)
        assert status == 403 and "kept for its player" in answer["error"], answer
    wanda.page.click("#rematch")  # spectators watch the rematch, with the same watch key
    wanda.page.wait_for_url(re.compile(rf"/t/{rematch}/watch"))
    wait_js(wanda.page, "document.getElementById('me').textContent === 'You are watching this table.'")


def test_a_table_without_a_timer_is_finished_by_a_vote_of_the_others(people):
    ann, bea = people(), people()
    table = online_table(ann)
    take_seat(bea, ann.page.locator("#invite-1").input_value())
    page = ann.page
    wait_js(page, "document.querySelectorAll('#sheet thead .presence.here').length === 2")
    expect(page.locator("#votes")).to_be_hidden()  # everybody is here: nothing to vote on
    bea.page.close()  # Bea leaves, and the table has no timer
    wait_js(page, "!document.getElementById('votes').hidden")
    expect(page.locator("#votes")).to_contain_text("Bea is away")
    page.click("button[data-vote=end]")
    wait_js(page, "!document.getElementById('ranking').hidden")
    state = page.evaluate(
        f"fetch('/api/tables/{table}?seat=0&token=' + encodeURIComponent(JSON.parse(localStorage.getItem("
        f"'rulebook.seats'))['{table}']['0'])).then((r) => r.json())")
    assert state["terminal"] and state["ended"] and [r["name"] for r in state["ranking"]] != []
    status, answer = post(page, f"/api/tables/{table}/act", {"seat": 0, "token": "x" * 24, "action": "keep none",
                                                             "seq": state["seq"]})
    assert status == 403


def test_a_move_after_the_timer_takes_the_seat_back_and_the_log_names_the_computer(people):
    ann = people()
    page = ann.page
    page.goto(f"{ann.base}/new/yacht?lang=en")
    created = page.evaluate("""Rulebook.post('/api/tables', {model: 'yacht', turn_seconds: 3, pace_ms: 3000,
        seats: [{name: 'Ann', kind: 'human'}, {name: 'Bot', kind: 'greedy'}]})""")
    table = created["table"]
    page.evaluate(f"Rulebook.remember('{table}', 0, '{created['token']}')")
    page.goto(f"{ann.base}/t/{table}?lang=en")
    # Ann sits still: her time runs out, and the computer makes a move for her, named as its own
    wait_js(page, "document.querySelector('#log li.by-computer.p0') !== null", timeout=300)
    text = page.locator("#log li.by-computer.p0").first.inner_text()
    assert text.startswith("The computer, for Ann,"), text
    # Ann plays a move: it is credited to her, the seat is hers at once, and the welcome note counts the
    # computer's moves for her. (On a busy machine the computer may make more than one move before her
    # click arrives, at its pace, and may even write before her click lands, which then finds the turn gone:
    # she clicks again on her next turn. The test counts the computer's moves instead of assuming how many.)
    own_write = "document.querySelector('#log li.ev-write.p0:not(.by-computer)') !== null"
    for _ in range(12):  # Yacht has 12 turns: each is one more chance for her click to land first
        assert ann.wait_turn_or_end() == "turn"
        ann.write_best(may_lose_turn=True)  # (the computer may write for her first: her next turn, then)
        if page.evaluate(own_write):
            break
    wait_js(page, own_write)
    assert page.locator("#log li.ev-write.p0:not(.by-computer)").first.inner_text().startswith("Ann writes")
    wait_js(page, "!document.getElementById('returned').hidden")
    events = page.evaluate(f"fetch('/api/tables/{table}/events').then((r) => r.json())")["events"]
    mine = [e for e in events if e["player"] == 0]
    own = next(i for i, e in enumerate(mine) if e["type"] == "write" and not e.get("robot"))
    decisions = [e for e in mine[:own + 1] if e["type"] != "roll"]
    first_own = next(i for i, e in enumerate(decisions) if not e.get("robot"))
    by_computer = decisions[:first_own]
    assert by_computer and all(e.get("robot") for e in by_computer)
    assert not any(e.get("robot") for e in decisions[first_own:])  # from her first click on, the seat is hers
    n = len(by_computer)
    expect(page.locator("#returned")).to_contain_text(f"the computer made {n} move{'' if n == 1 else 's'} for you")


def test_a_visitors_edits_go_into_their_own_copy_and_they_play_that_text(people, server):
    owner, visitor = people(), people()
    owner.page.goto(f"{server}/?lang=en")
    owner.page.locator("#game-yacht form.edit-copy button").click()
    owner.page.wait_for_url(re.compile(r"/w/"))
    theirs = owner.page.url.split("/w/")[1].split("?")[0]
    page = visitor.page
    page.goto(f"{server}/w/{theirs}?lang=en")
    wait_js(page, "document.body.classList.contains('model-ok') && document.getElementById('page').getAttribute('src')")
    assert not page.locator("#frozen-note").is_hidden()
    line = page.evaluate("""(() => { const cm = window.workshopEditor;
        for (let i = 0; i < cm.lineCount(); i++) if (cm.getLine(i).includes('{en: Ones,')) return i; return -1; })()""")
    assert line > 0
    page.evaluate(f"""(() => {{ const cm = window.workshopEditor; const ch = cm.getLine({line}).indexOf('Ones');
        cm.focus(); cm.setSelection({{line: {line}, ch}}, {{line: {line}, ch: ch + 4}}); }})()""")
    page.keyboard.type("Aces")
    page.wait_for_url(re.compile(r"/w/(?!" + theirs + r")[A-Za-z0-9_-]+"))
    mine = page.url.split("/w/")[1].split("?")[0]
    wait_js(page, "document.getElementById('check').textContent.includes('Saved.')", 60)
    expect(page.locator("#play-status")).to_contain_text("your own copy")
    assert "Aces" in page.evaluate(f"fetch('/w/{mine}/download').then((r) => r.text())")
    assert "Aces" not in page.evaluate(f"fetch('/w/{theirs}/download').then((r) => r.text())")
    page.get_by_role("button", name="Play this version").click()
    page.wait_for_url(re.compile(r"/t/"))
    wait_js(page, "document.querySelector('#sheet tr[data-box=ones] th') !== null")
    expect(page.locator("#sheet tr[data-box=ones] th")).to_have_text("Aces")
    expect(page.locator("h1.game-name")).to_have_text("Copy of Yacht")
    expect(page.locator("#me")).to_have_text("You play Player 1.")
    assert re.search(r"/w/[A-Za-z0-9_-]+/page/rules\.en\.html$", page.locator("#rules-link").get_attribute("href"))
    assert page.locator("#back-to-workshop").get_attribute("href") == f"/w/{mine}?lang=en"
    rules = page.evaluate(f"fetch(document.getElementById('rules-link').href).then((r) => r.text())")
    assert "Aces" in rules


def axe_serious(page) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("""axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})
        .then((r) => r.violations.map((v) => ({id: v.id, impact: v.impact, nodes: v.nodes.length,
                                              target: v.nodes[0] && v.nodes[0].target.join(' ')})))""")
    return [v for v in found if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("width", [1280, 360])
def test_axe_finds_nothing_serious_on_any_page(people, server, width):
    me = people(width=width, height=900 if width > 400 else 740, bypass_csp=True)
    page = me.page
    yahtzee = me.new_table(model="yahtzee")
    assert me.wait_turn_or_end() == "turn"
    yamb = me.new_table(model="yamb")
    assert me.wait_turn_or_end() == "turn"
    page.goto(f"{server}/?lang=en")
    page.locator("#game-yacht form.edit-copy button").click()
    page.wait_for_url(re.compile(r"/w/"))
    copy = page.url.split("/w/")[1].split("?")[0]
    open_table = page.evaluate("""Rulebook.post('/api/tables', {model: 'yacht', claim: false,
        seats: [{name: 'A', kind: 'human'}, {name: 'B', kind: 'greedy'}]})""")["table"]
    pages = {"home": "/?lang=en", "new table": "/new/yahtzee?mode=online&lang=de", "join": f"/t/{open_table}/join?lang=nl",
             "table in play (Yahtzee)": f"/t/{yahtzee}?lang=en", "table in play (Yamb)": f"/t/{yamb}?lang=de",
             "watch": f"/t/{yahtzee}/watch?lang=en", "watch list": "/watch/yacht?lang=en",
             "rule page": "/rules/yahtzee.en.html", "workshop": f"/w/{copy}?lang=en", "compare": f"/w/{copy}/compare?lang=en"}
    found = {}
    for name, path in pages.items():
        page.goto(server + path)
        if name.startswith("table"):
            wait_js(page, "document.body.classList.contains('my-turn')")
        if name == "workshop":
            wait_js(page, "document.body.classList.contains('model-ok')", 60)
        found[name] = axe_serious(page)
        if width < 400:
            assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), name
    assert found == {name: [] for name in pages}, found


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two CSS colours 'rgb(r, g, b)'."""
    def lum(c: str) -> float:
        parts = [int(x) / 255 for x in re.findall(r"\d+", c)[:3]]
        lin = [p / 12.92 if p <= 0.03928 else ((p + 0.055) / 1.055) ** 2.4 for p in parts]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_keyboard_leaves_the_editor_sees_held_dice_keeps_focus_after_a_hint_and_turns_shortcuts_off(people, server):
    me = people()
    page = me.page
    # the editor: Tab indents; Esc, then Tab, leaves it (documented under it)
    page.goto(f"{server}/?lang=en")
    page.locator("#game-yacht form.edit-copy button").click()
    page.wait_for_url(re.compile(r"/w/"))
    expect(page.locator("#editor-help")).to_contain_text("Esc, then Tab")
    page.locator(".CodeMirror-code").click()
    inside = "document.activeElement.closest('.CodeMirror') !== null"
    page.keyboard.press("Tab")
    assert page.evaluate(inside)
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(inside)
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert not page.evaluate(inside)
    # the dice: a held die that has the focus shows a ring of at least 3:1 against the felt
    table = me.new_table()
    assert me.wait_turn_or_end() == "turn"
    page.focus("#dice .die[data-index='0']")
    page.keyboard.press("Space")
    expect(page.locator("#dice .die.held")).to_have_count(1)
    ring = page.evaluate("(() => { const s = getComputedStyle(document.activeElement);"
                         " return [s.outlineStyle, s.outlineColor, s.outlineWidth]; })()")
    felt = "rgb(31, 111, 74)"  # --felt
    assert ring[0] == "solid" and float(ring[2].rstrip("px")) >= 2 and contrast(ring[1], felt) >= 3, ring
    # shortcuts can be turned off: then "1" does nothing
    page.locator("#shortcuts summary").click()
    page.uncheck("#shortcuts-on")
    page.focus("#roll")
    page.keyboard.press("2")
    expect(page.locator("#dice .die.held")).to_have_count(1)
    page.check("#shortcuts-on")
    page.focus("#roll")
    page.keyboard.press("2")
    expect(page.locator("#dice .die.held")).to_have_count(2)
    # a hint is said in a live region; after "Do it" the focus stays on the page's controls
    assert page.locator("#hint").get_attribute("aria-live") == "polite"
    seq = me.state(table)["seq"]
    page.click("#hint-button")
    page.locator("#hint button").first.click()
    wait_js(page, f"Number(document.querySelector('#log li').dataset.seq) > {seq}")
    wait_js(page, "document.activeElement && document.activeElement !== document.body")
