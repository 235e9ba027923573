"""`rulebook serve` in a real browser: Debian's headless Chromium driven by Playwright for Python.

A uvicorn server runs in a background thread on a free loopback port. Never downloads a browser:
Playwright launches /usr/bin/chromium (`apt-get install chromium`); without it these tests skip
on a developer's machine and fail in CI (RULEBOOK_REQUIRE_TOOLS=1).
"""
from __future__ import annotations

import http.client
import re
import socket
import threading
import time

import pytest
from conftest import require_tool

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
TIMEOUT = 120_000  # ms: the bound of a wait for one thing to show up, for a broken page only (a busy machine is slow)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db, port: int, pace: float = 0.01, **app_options):
    """uvicorn with the app in a background thread on 127.0.0.1:port; returns (server, thread)."""
    uvicorn = pytest.importorskip("uvicorn")
    from rulebook.tools.serve import create_app
    from rulebook.tools.serve.server import config
    srv = uvicorn.Server(config(create_app(db, pace=pace, **app_options), "127.0.0.1", port))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    end = time.monotonic() + 300  # a bound for a server that never starts, not a speed target
    while not srv.started:
        assert time.monotonic() < end and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    return srv, thread


def stop_server(srv, thread) -> None:
    srv.should_exit = True
    thread.join(300)
    assert not thread.is_alive(), "the server did not stop"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    srv, thread = start_server(tmp_path_factory.mktemp("serve") / "tables.sqlite3", port)
    yield f"http://127.0.0.1:{port}"
    stop_server(srv, thread)


@pytest.fixture(scope="module")
def browser():
    require_tool("chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def wait_js(page, expression: str, timeout: float = TIMEOUT / 1000):
    """Poll a JavaScript expression until it is true, and return its value (page.evaluate is not bound by
    the page's Content-Security-Policy, which forbids the eval that page.wait_for_function would need)."""
    from playwright.sync_api import Error
    end = time.monotonic() + timeout
    while True:
        try:
            value = page.evaluate(expression)
            if value:
                return value
        except Error as exc:  # the page is navigating or still loading: try again
            if "context was destroyed" not in str(exc) and "null" not in str(exc):
                raise
        assert time.monotonic() < end, f"timed out waiting for {expression}"
        time.sleep(0.02)


def expect(locator):
    """Playwright's retrying assertion, bound by TIMEOUT: what the page's script draws after a load or a
    click is read once it is there, never at the moment of the read (that would test the machine's speed)."""
    from playwright.sync_api import expect as retrying
    retrying.set_options(timeout=TIMEOUT)
    return retrying(locator)


def wait_turn_or_end(page) -> str:
    """Wait for this seat's turn or the game's end, and say which ("turn" or "end"), read in the same
    evaluation that saw it: the turn may pass to a computer before a second look."""
    return wait_js(page, "document.body.classList.contains('my-turn') ? 'turn' : "
                         "(!document.getElementById('ranking').hidden ? 'end' : '')")


class Person:
    """One browser context (its own cookies and localStorage): one person at one screen."""

    def __init__(self, browser, errors):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT)
        self.page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
        self.page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)

    def my_turn(self) -> bool:
        return self.page.evaluate("document.body.classList.contains('my-turn')")

    def wait_turn_or_end(self) -> str:
        return wait_turn_or_end(self.page)

    def write_best(self) -> None:
        """Click the open box that scores the most (writing from a keep step stops rolling first)."""
        buttons = self.page.locator("#sheet button.write")
        buttons.first.wait_for()
        values = [sum(int(x) for x in t.split("+")) for t in buttons.all_inner_texts()]
        before = self.seq()
        buttons.nth(values.index(max(values))).click()
        wait_js(self.page, f"(() => {{ const s = document.querySelector('#log li.ev-write');"
                                    f" return s && Number(s.dataset.seq) > {before}; }})()")

    def seq(self) -> int:
        return self.page.evaluate("(() => { const s = document.querySelector('#log li');"
                                  " return s ? Number(s.dataset.seq) : 0; })()")

    def sheet_text(self) -> str:
        return self.page.locator("#sheet tbody").inner_text()

    def close(self):
        self.context.close()


class Errors(list):
    """What went wrong in the pages, checked at the test's end. A test that asks for a refusal on purpose
    allows its status with `allow`: the browser reports the refused request on its console when it gets to
    it, which may be after the test's last step."""

    def __init__(self):
        super().__init__()
        self.allowed: list[str] = []

    def allow(self, text: str) -> None:
        self.allowed.append(text)

    def unexpected(self) -> list[str]:
        return [e for e in self if not any(a in e for a in self.allowed)]


@pytest.fixture
def errors():
    found = Errors()
    yield found
    assert not found.unexpected(), found.unexpected()


@pytest.fixture
def people(browser, errors):
    made = []

    def make():
        made.append(Person(browser, errors))
        return made[-1]
    yield make
    for p in made:
        p.close()


def test_a_whole_game_against_the_computer_to_the_final_ranking(server, people, tmp_path):
    me = people()
    page = me.page
    page.goto(f"{server}/?lang=en")
    page.click("#game-yahtzee a.button.primary")  # "Play": me against a computer
    page.wait_for_url(re.compile(r"/new/yahtzee"))
    page.select_option("select[name=pace_ms]", "0")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+"))
    turns = 0
    while me.wait_turn_or_end() == "turn":
        turns += 1
        assert page.locator("#turn").inner_text().startswith("Your turn")
        if turns % 2:  # keep the first two dice and roll the others again
            dice = page.locator("#dice .die")
            expect(dice).to_have_count(5)
            dice.nth(0).click()
            dice.nth(1).click()
            expect(page.locator("#dice .die.held")).to_have_count(2)
            label = page.locator("#roll").inner_text()
            assert "2 rolls left" in label
            before = me.seq()
            page.click("#roll")
            wait_js(page, f"Number(document.querySelector('#log li').dataset.seq) >= {before} + 2")
            expect(page.locator("#dice .die.held")).to_have_count(2)  # the kept dice stay kept after the roll
            if turns == 1:
                page.screenshot(path=str(tmp_path / "my-turn.png"), full_page=True)
        me.write_best()
        assert turns <= 13
    assert turns == 13
    ranking = page.locator("#ranking")
    expect(ranking).to_be_visible()
    lines = page.locator("#ranking-list li").all_inner_texts()
    assert len(lines) == 2 and lines[0].startswith("1.") and re.match(r"[12]\. ", lines[1])
    assert re.search(r"wins with \d+ points|A tie at \d+ points", page.locator("#winner").inner_text())
    expect(page.locator("#sheet td.filled")).to_have_count(26)
    expect(page.locator("#sheet button.write")).to_have_count(0)
    shot = page.screenshot(path=str(tmp_path / "ranking.png"), full_page=True)
    assert len(shot) > 10_000


def test_two_browsers_play_one_table_and_a_third_watches(server, people):
    ann, bea, eve = people(), people(), people()
    page = ann.page
    page.goto(f"{server}/new/yacht?mode=online&lang=en")
    page.fill("#seats li:nth-child(1) input[name=name]", "Ann")
    page.fill("#seats li:nth-child(2) input[name=name]", "Bea")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+"))
    wait_js(page, "document.body.classList.contains('my-turn')")
    assert "Waiting" not in page.locator("#turn").inner_text()
    join = page.input_value("#invite-1")  # a private table: an invite link for seat 2, a watch link, each its key
    watch = page.input_value("#watch-link")
    assert "/join?seat=1&key=" in join and "/watch?key=" in watch

    # Bea joins from her own browser; Eve watches from a third
    bea.page.goto(join)
    bea.page.click("button[name=seat][value='1']")
    bea.page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$|/t/[A-Za-z0-9_-]+\?"))
    expect(bea.page.locator("#me")).to_contain_text("You play Bea")  # drawn once the table's state arrives
    eve.page.goto(watch)
    expect(eve.page.locator("#me")).to_contain_text("watching")

    def whose_turn(timeout=TIMEOUT / 1000):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for person in (ann, bea):
                if person.my_turn():
                    return person
            if ann.page.locator("#ranking").is_visible():
                return None
            time.sleep(0.03)
        raise AssertionError("nobody's turn and no ranking")

    turns = 0
    while (state := whose_turn()) is not None:
        other = bea if state is ann else ann
        assert not other.my_turn()
        expect(other.page.locator("#controls")).to_be_hidden()
        state.write_best()
        turns += 1
        seq = state.seq()
        # everyone sees the move as it happens
        for person in (other, eve):
            wait_js(person.page, f"Number((document.querySelector('#log li') || {{dataset: {{}}}})"
                                          f".dataset.seq) >= {seq}")
        if turns == 5:  # Bea reloads: her view and her seat come back
            bea.page.reload()
            wait_js(bea.page, f"Number(document.querySelector('#log li').dataset.seq) >= {seq}")
            expect(bea.page.locator("#me")).to_contain_text("You play Bea")
        assert turns <= 24
    assert turns == 24
    for person in (ann, bea, eve):
        wait_js(person.page, "!document.getElementById('ranking').hidden")
    assert ann.sheet_text() == bea.sheet_text() == eve.sheet_text()
    assert ann.page.locator("#ranking-list").inner_text() == eve.page.locator("#ranking-list").inner_text()
    # the spectator never had anything to click
    expect(eve.page.locator("#sheet button.write")).to_have_count(0)
    expect(eve.page.locator("#dice .die:not([disabled])")).to_have_count(0)


def test_a_spectator_link_never_acts_even_with_a_seat_in_the_browser(server, people):
    ann = people()
    page = ann.page
    page.goto(f"{server}/new/yatzy?mode=online&lang=de")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/t/"))
    wait_js(page, "document.body.classList.contains('my-turn')")
    page.goto(page.input_value("#watch-link"))
    page.wait_for_selector("#sheet tbody tr")
    assert not ann.my_turn()
    expect(page.locator("#controls")).to_be_hidden()
    assert page.evaluate("document.documentElement.lang") == "de"


def test_a_forged_token_in_the_browser_is_refused_and_shown(server, people, errors):
    ann, mallory = people(), people()
    ann.page.goto(f"{server}/new/yacht?mode=online&lang=en")
    ann.page.click("button[type=submit]")
    ann.page.wait_for_url(re.compile(r"/t/"))
    wait_js(ann.page, "document.body.classList.contains('my-turn')")
    url = ann.page.url
    table = url.rstrip("/").split("/t/")[1].split("?")[0]
    before = ann.sheet_text()
    # Mallory claims to hold seat 0 with a made-up token: a private table shows her nothing
    mallory.page.goto(f"{url.split('?')[0]}#seat=0&token=forged-token-0000000000")
    wait_js(mallory.page, "document.body.classList.contains('no-access')")
    assert mallory.page.locator("#sheet td").count() == 0 and "private" in mallory.page.locator("#turn").inner_text()
    # and at a public table her move is refused with the reason
    public = ann.page.evaluate("""Rulebook.post('/api/tables', {model: 'yacht', pace_ms: 0,
        seats: [{name: 'Ann', kind: 'human'}, {name: 'Bot', kind: 'greedy'}]})""")["table"]
    mallory.page.goto(f"{server}/t/{public}?lang=en#seat=0&token=forged-token-0000000000")
    wait_js(mallory.page, "document.body.classList.contains('my-turn')")
    mallory.page.locator("#sheet button.write").first.click()
    refused = mallory.page.locator("#refused")
    refused.wait_for()
    expect(refused).to_contain_text("not the token of seat 1")
    assert ann.sheet_text() == before
    assert table in url
    # the browser reports the refused request itself; nothing else may have gone wrong
    errors.allow("status of 403")


@pytest.mark.parametrize("path", ["/static/../../pyproject.toml", "/static/..%2F..%2Fpyproject.toml",
                                  "/rules/../../interpreter/game.py", "/t/../../etc/passwd",
                                  "/api/tables/../../../etc/passwd/act"])
def test_raw_path_traversal_against_the_running_server(server, path):
    host, port = server.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=120)
    conn.request("GET", path)  # sent as written: no client-side clean-up of the dots
    r = conn.getresponse()
    body = r.read().decode("utf-8", "replace")
    assert r.status in (404, 405), (path, r.status)
    assert "[build-system]" not in body and "import " not in body and "root:" not in body
    assert "there is no" in body or "not allowed" in body


def test_the_page_reconnects_after_a_server_restart_and_plays_on(tmp_path, people):
    db, port = tmp_path / "tables.sqlite3", free_port()
    srv, thread = start_server(db, port, pace=0)
    me = people()
    page = me.page
    page.goto(f"http://127.0.0.1:{port}/new/yacht?lang=nl")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/t/"))
    assert me.wait_turn_or_end() == "turn"
    me.write_best()
    assert me.wait_turn_or_end() == "turn"
    before, seq = me.sheet_text(), me.seq()
    stop_server(srv, thread)
    wait_js(page, "!document.getElementById('conn').hidden")
    expect(page.locator("#conn")).to_contain_text("Verbinding verbroken")
    srv, thread = start_server(db, port, pace=0)
    try:
        wait_js(page, "document.getElementById('conn').hidden")
        assert me.sheet_text() == before and me.seq() == seq and me.my_turn()
        me.write_best()  # the same seat token plays on against the restarted server
        assert me.wait_turn_or_end() == "turn"
        expect(me.page.locator("#sheet td.filled")).to_have_count(4)
    finally:
        stop_server(srv, thread)


def test_an_announce_step_in_the_browser(server, people, tmp_path):
    """Yamb: after the first roll the page offers a button per box that may be announced; with two
    columns that take announcements each button names the box and its column in a sentence, so no
    two read alike. The announcement shows in the log and the prompt, and the write goes there."""
    me = people()
    page = me.page
    page.goto(f"{server}/new/yamb?lang=en")
    page.select_option("select[name=pace_ms]", "0")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+"))
    assert me.wait_turn_or_end() == "turn"
    buttons = page.locator("#announce button")
    buttons.first.wait_for()
    labels = buttons.all_inner_texts()
    assert labels[0] == "Announce nothing" and len(labels) == 1 + 12 * 2  # twelve rows in two columns
    assert len(set(labels)) == len(labels), labels
    assert "Announce Yamb in the Announce column" in labels and "Announce Ones in the Hand column" in labels
    expect(page.locator("#prompt")).to_contain_text("Announce the box")
    before = me.seq()
    page.locator("#announce button", has_text="Announce Ones in the Hand column").click()
    wait_js(page, f"Number(document.querySelector('#log li').dataset.seq) > {before}")
    expect(page.locator("#log")).to_contain_text("announces Ones in the Hand column")
    page.screenshot(path=str(tmp_path / "announced.png"), full_page=True)
    expect(page.locator("#prompt")).to_contain_text("You announced Ones in the Hand column")
    expect(page.locator("#announce")).to_be_hidden()
    me.write_best()  # the only box offered is the announced one
    expect(page.locator("#log")).to_contain_text("in Ones, Hand")


def test_announce_buttons_in_german_and_dutch_are_sentences_of_their_own(server, people):
    for lang, nothing, ones_hand in (("de", "Nichts ansagen", "Einer in der Spalte Hand ansagen"),
                                     ("nl", "Niets aankondigen", "Enen aankondigen in de kolom Hand")):
        me = people()
        page = me.page
        page.goto(f"{server}/new/yamb?lang={lang}")
        page.select_option("select[name=pace_ms]", "0")
        page.click("button[type=submit]")
        page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+"))
        assert me.wait_turn_or_end() == "turn"
        buttons = page.locator("#announce button")
        buttons.first.wait_for()
        labels = buttons.all_inner_texts()
        assert labels[0] == nothing and ones_hand in labels and len(set(labels)) == len(labels) == 25, labels


def test_a_bank_step_in_the_browser(server, people):
    """Pig: at the bank step the page offers Bank and Roll on; rolling on and banking show in the log,
    and a bank adds the turn total to the player's score."""
    me = people()
    page = me.page
    page.goto(f"{server}/new/pig?lang=en")
    created = page.evaluate("""Rulebook.post('/api/tables', {model: 'pig', pace_ms: 0, seed: 4,
        seats: [{name: 'Ann', kind: 'human'}, {name: 'Bot', kind: 'greedy'}]})""")
    page.evaluate(f"Rulebook.remember('{created['table']}', 0, '{created['token']}')")
    page.goto(f"{server}/t/{created['table']}?lang=en")
    rolled_on = banked = False
    while not banked:
        assert me.wait_turn_or_end() == "turn"
        page.locator("#bank").wait_for()
        expect(page.locator("#roll")).to_have_text("Roll on")
        expect(page.locator("#bank")).to_have_text("Bank")
        expect(page.locator("#prompt")).to_contain_text("Bank your turn total")
        before = me.seq()
        (page.locator("#bank") if rolled_on else page.locator("#roll")).click()
        wait_js(page, f"Number(document.querySelector('#log li').dataset.seq) > {before}")
        log = page.locator("#log").inner_text()
        if not rolled_on:
            assert "Ann rolls on" in log
            rolled_on = True
        else:
            assert "Ann stops rolling" in log
            banked = True
    state = page.evaluate(f"fetch('/api/tables/{created['table']}').then((r) => r.json())")
    assert state["counters"][0] and max(state["counters"][0].values()) > 0  # the banked points are Ann's
