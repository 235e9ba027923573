"""The web app's score sheet for sheets with several cells per box, in Debian's headless Chromium:
a sheet of rows × columns (every box once per column, a write offered per box@column) and boxes
used several times (their entries side by side), plus the model's own final score row.
"""
from __future__ import annotations

import re

import pytest

from test_serve_browser import TIMEOUT, expect, free_port, start_server, stop_server, wait_js  # noqa: F401
from test_serve_browser import browser, errors  # noqa: F401  (fixtures)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    srv, thread = start_server(tmp_path_factory.mktemp("sheets") / "tables.sqlite3", port, pace=0)
    yield f"http://127.0.0.1:{port}"
    stop_server(srv, thread)


@pytest.fixture
def page(browser, errors, server):  # noqa: F811
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    page.goto(f"{server}/new/yacht?lang=en")  # a page with the app's script (Rulebook.post)
    yield page
    context.close()


def start_table(page, server: str, model: str) -> str:
    """Ann (this browser) against a greedy computer; returns the table id once it is Ann's turn."""
    created = page.evaluate(f"""Rulebook.post('/api/tables', {{model: '{model}', pace_ms: 0,
        seats: [{{name: 'Ann', kind: 'human'}}, {{name: 'cpu', kind: 'greedy'}}]}})""")
    table = created["table"]
    page.evaluate(f"Rulebook.remember('{table}', 0, '{created['token']}')")
    page.goto(f"{server}/t/{table}?lang=en")
    wait_my_turn(page)
    return table


def wait_my_turn(page) -> None:
    wait_js(page, "document.body.classList.contains('my-turn') && document.querySelector('#sheet button.write') !== null")


def api_state(page, table: str) -> dict:
    return page.evaluate(f"fetch('/api/tables/{table}').then((r) => r.json())")


def test_a_sheet_of_rows_and_columns_offers_a_move_per_box_and_column(page, server):
    table = start_table(page, server, "triple_yahtzee")
    # a header row of column names under each player, and a cell per column in every box row
    columns = page.locator("#sheet thead tr.column-row th.column").all_inner_texts()
    assert columns == ["×1", "×2", "×3"] * 2
    expect(page.locator("#sheet tr.box-row[data-box=ones] td")).to_have_count(6)
    expect(page.locator("#sheet tr.box-row")).to_have_count(13)
    # the moves offered are exactly the server's choices, one button per box@column
    state = api_state(page, table)
    offered = page.eval_on_selector_all("#sheet button.write", "bs => bs.map((b) => b.dataset.box)")
    assert sorted(offered) == sorted(c["box"] for c in state["choices"])
    assert len(offered) == 39 and {o.split("@")[1] for o in offered} == {"single", "double", "triple"}
    # each button sits in its own target's cell
    for target in ("ones@single", "chance@double", "yahtzee@triple"):
        cell = page.locator(f"#sheet td[data-target='{target}'] button.write")
        assert cell.count() == 1 and cell.get_attribute("data-box") == target
    # write Chance in the ×3 column: that cell (and only that one) shows the points
    points = int(page.locator("#sheet td[data-target='chance@triple'] button.write").inner_text())
    assert points == sum(state["dice"])
    page.click("#sheet td[data-target='chance@triple'] button.write")
    wait_js(page, "document.querySelector('#log li.ev-write') !== null")
    assert re.match(r"Ann writes \d+ points? in Chance, ×3", page.locator("#log li.ev-write").last.inner_text())
    mine = page.locator("#sheet tr.box-row[data-box=chance] td").nth(2)  # Ann's ×3 cell
    expect(mine).to_have_text(str(points))
    expect(mine).to_have_class(re.compile(r"\bfilled\b"))
    # Ann's ×1 cell has no entry (it may show what her next roll would score there)
    assert "filled" not in page.locator("#sheet tr.box-row[data-box=chance] td").nth(0).get_attribute("class")
    state = api_state(page, table)
    assert state["sheets"][0] == {"chance@triple": points}
    # the section's raw total in the ×3 column, and the weighted total beside it
    lower = page.locator("#sheet tr.total-row").nth(2).locator("td")  # upper, upper weighted, lower
    expect(lower.nth(2)).to_have_text(str(points))
    expect(page.locator("#sheet tr.total-row.weighted").nth(1).locator("td").nth(0)).to_have_text(str(3 * points))
    # after the computer's turn, Ann's next roll offers the 38 targets still open, none for chance@triple
    wait_my_turn(page)
    offered = page.eval_on_selector_all("#sheet button.write", "bs => bs.map((b) => b.dataset.box)")
    assert "chance@triple" not in offered
    assert sorted(offered) == sorted(c["box"] for c in api_state(page, table)["choices"])


def test_boxes_used_several_times_show_their_entries_and_the_final_score(page, server):
    table = start_table(page, server, "balut")
    expect(page.locator("#sheet thead tr.column-row")).to_have_count(0)
    expect(page.locator("#sheet tr.box-row[data-box=fours] th")).to_have_text("Fours (4 entries)")
    for turn in (1, 2):
        if turn == 2:
            wait_my_turn(page)
        page.click("#sheet td[data-target=fours] >> nth=0 >> button.write")
        wait_js(page, f"document.querySelectorAll('#log li.ev-write.p0').length === {turn}")
    state = api_state(page, table)
    entries = [state["sheets"][0][f"fours#{k}"] for k in (1, 2)]
    assert "fours#3" not in state["sheets"][0]
    cell = page.locator("#sheet td[data-target=fours]").nth(0)
    assert cell.locator(".entry").all_inner_texts() == [str(e) for e in entries]
    assert "partly" in cell.get_attribute("class")
    assert cell.locator(".entries").get_attribute("title") == "2 of 4 entries written"
    # the game's own final score (Balut points) under the grand total, as the server computes it
    wait_my_turn(page)
    final = page.locator("#sheet tr.final-row")
    expect(final.locator("th")).to_have_text("Balut points")
    state = api_state(page, table)
    assert final.locator("td").all_inner_texts() == [str(v) for v in state["finals"]]
    grand = page.locator("#sheet tr.grand-row:not(.final-row) td").all_inner_texts()
    assert grand == [str(t["total"]) for t in state["totals"]]


def test_counters_show_beside_the_sheet_and_saved_rolls_give_more_rolls(page, server):
    """Maxi Yatzy's saved rolls: a turn written after the first roll saves two rolls, shown in the
    counter row, and the next turn offers five rolls in all (four after the first)."""
    table = start_table(page, server, "maxi_yatzy")
    row = page.locator("#sheet tr.counter-row[data-counter=saved_rolls]")
    expect(row.locator("th")).to_have_text("Saved rolls")
    assert row.locator("td").all_inner_texts() == ["0", "0"]
    expect(page.locator("#roll")).to_contain_text("2 rolls left")
    page.click("#sheet td[data-target=chance] >> nth=0 >> button.write")  # stops after the first roll
    wait_js(page, "document.querySelectorAll('#log li.ev-write.p0').length === 1")
    wait_my_turn(page)
    expect(row.locator("td").nth(0)).to_have_text("2")
    state = api_state(page, table)
    assert state["counters"][0] == {"saved_rolls": 2} and state["rolls_left"] == 4
    expect(page.locator("#roll")).to_contain_text("4 rolls left")
