"""Every bundled game's table on a 360 × 640 phone, in Debian's headless Chromium: no word of the
score sheet broken across lines or cut off, no sideways scroll of the page or the sheet, and every
player's columns within reach (a sheet too wide shows one player at a time, chosen by buttons).

The broken words are found in the page itself: each word of the sheet is a DOM range whose client
rectangles are its pieces on screen, so a word set on two lines has two. A screenshot of each table
is saved (in RULEBOOK_SCREENSHOTS if set, else in the test's own folder).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from test_serve_browser import TIMEOUT, expect, free_port, start_server, stop_server, wait_js  # noqa: F401
from test_serve_browser import browser, errors  # noqa: F401  (fixtures)

from rulebook.interpreter import load_model
from rulebook.interpreter.model.loader import bundled_models

PHONE = {"width": 360, "height": 640}

# every word of the sheet and its player buttons that is set on more than one line, or an element
# whose text is wider than its box (cut off, or sticking out)
BROKEN = """(() => {
  const bad = [];
  const roots = [document.getElementById('sheet'), document.getElementById('sheet-players')].filter(Boolean);
  for (const root of roots) {
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      if (!node.parentElement.getClientRects().length) continue;  // not shown
      for (const m of node.textContent.matchAll(/\\S+/g)) {
        const r = document.createRange();
        r.setStart(node, m.index);
        r.setEnd(node, m.index + m[0].length);
        const pieces = [...r.getClientRects()].filter((x) => x.width > 0 && x.height > 0);
        if (pieces.length > 1) bad.push('broken: ' + m[0] + ' in ' + pieces.length + ' pieces');
      }
    }
    for (const e of root.querySelectorAll('th, td, span, button')) {
      if (e.getClientRects().length && e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0)
        bad.push('cut off: ' + e.textContent.trim());
    }
  }
  return bad;
})()"""
WIDTHS = """(() => { const w = document.querySelector('.sheet-wrap'), d = document.documentElement;
  return {page: d.scrollWidth, screen: d.clientWidth, sheet: w.scrollWidth, wrap: w.clientWidth}; })()"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    srv, thread = start_server(tmp_path_factory.mktemp("narrow") / "tables.sqlite3", port, pace=0)
    yield f"http://127.0.0.1:{port}"
    stop_server(srv, thread)


@pytest.fixture(scope="module")
def phone(browser):  # noqa: F811
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True)
    yield context
    context.close()


def shots(tmp_path: Path) -> Path:
    where = Path(os.environ.get("RULEBOOK_SCREENSHOTS") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    return where


def open_table(phone, server: str, model: str, lang: str, errors) -> tuple:  # noqa: F811
    page = phone.new_page()
    page.set_default_timeout(TIMEOUT)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    page.goto(f"{server}/new/{model}?lang={lang}")
    m = load_model(model)
    seats = [{"name": "Annemarie", "kind": "human"}] + [{"name": n, "kind": "greedy"} for n in ("Computer", "Bea")]
    seats = seats[:max(m.min_players, min(m.max_players, 3))]
    created = page.evaluate("(seats) => Rulebook.post('/api/tables', {model: '%s', pace_ms: 0, seats})" % model, seats)
    page.evaluate(f"Rulebook.remember('{created['table']}', 0, '{created['token']}')")
    page.goto(f"{server}/t/{created['table']}?lang={lang}")
    wait_js(page, "document.querySelectorAll('#sheet tbody tr').length > 0")
    return page, [s["name"] for s in seats]


def check_phone_sheet(page, names: list[str]) -> list[str]:
    """The sheet as a phone shows it: no broken word, nothing sideways; returns whose columns were seen."""
    widths = page.evaluate(WIDTHS)
    assert widths["page"] <= widths["screen"], widths  # no sideways scroll of the page
    assert widths["sheet"] <= widths["wrap"], widths  # nor of the sheet
    assert page.evaluate(BROKEN) == []
    seen = []
    tabs = page.locator("#sheet-players button")
    if page.locator("#sheet-players").is_visible():
        assert tabs.all_inner_texts() == names
        for i, name in enumerate(names):  # each player's columns, one after another
            tabs.nth(i).click()
            wait_js(page, f"document.querySelector('#sheet thead .pname').textContent === {name!r}")
            expect(page.locator("#sheet thead th.player")).to_have_count(1)
            widths = page.evaluate(WIDTHS)
            assert widths["page"] <= widths["screen"] and widths["sheet"] <= widths["wrap"], (name, widths)
            assert page.evaluate(BROKEN) == [], name
            seen.append(name)
    else:
        seen = page.locator("#sheet thead .pname").all_inner_texts()
    return seen


@pytest.mark.parametrize("model, lang", [("triple_yahtzee", "en"), ("triple_yahtzee", "nl"), ("yamb", "de"),
                                         ("yamb", "nl"), ("yamb", "en")])
def test_the_column_games_on_a_phone(phone, server, errors, tmp_path, model, lang):  # noqa: F811
    page, names = open_table(phone, server, model, lang, errors)
    page.screenshot(path=str(shots(tmp_path) / f"phone-{model}-{lang}.png"), full_page=True)
    assert check_phone_sheet(page, names) == names
    if model == "yamb":  # three players' five columns do not fit side by side: one player at a time
        expect(page.locator("#sheet-players")).to_be_visible()
    page.close()


@pytest.mark.slow  # about 5 s a game
@pytest.mark.parametrize("model", sorted(set(bundled_models()) - {"triple_yahtzee", "yamb"}))
def test_every_other_bundled_game_on_a_phone(phone, server, errors, tmp_path, model):  # noqa: F811
    page, names = open_table(phone, server, model, "de", errors)
    page.screenshot(path=str(shots(tmp_path) / f"phone-{model}-de.png"), full_page=True)
    assert check_phone_sheet(page, names) == names
    page.close()
