"""The rules workshop in a real browser (Debian's Chromium driven by Playwright, never downloaded):
tap a step on the rule page, edit a copy of Yahtzee (bonus 35 → 50) and see its page change, make a
syntax error and see it at its line, fix it, play one turn of the copy, and open the comparison."""
from __future__ import annotations

import pytest

from test_serve_browser import Person, TIMEOUT, browser, expect, free_port, start_server, stop_server, wait_js  # noqa: F401


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    # shared with test_compare and test_simulate: a table solved there is read here
    mp.setenv("RULEBOOK_CACHE", str(tmp_path_factory.getbasetemp() / "solver-cache-sim"))
    from rulebook.tools.serve import workshop
    mp.setattr(workshop, "COMPARE_GAMES", 10)  # few simulated games: the test is about the page
    port = free_port()
    srv, thread = start_server(tmp_path_factory.mktemp("workshop-browser") / "serve.sqlite3", port)
    yield f"http://127.0.0.1:{port}"
    stop_server(srv, thread)
    mp.undo()


def frame_text(page, selector: str) -> str:
    return page.frame_locator("#page").locator(selector).inner_text()


def test_workshop_edit_check_play_and_compare(server, browser):
    errors: list[str] = []
    me = Person(browser, errors)
    page = me.page
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    try:
        # the rule page: tap a step of the diagram
        page.goto(f"{server}/rules/yahtzee.en.html")
        wait_js(page, "document.body.classList.contains('steps-ready')")
        page.locator("svg.rule-diagram g[data-step=keep]").click()
        panel = page.locator("#step-panel")
        expect(panel).to_contain_text("Who decides")
        expect(panel).to_contain_text("would keep")

        # "Edit a copy": the workshop with the model's YAML, checked at once
        page.get_by_role("button", name="Edit a copy in the browser").click()
        page.wait_for_url("**/w/**")
        wait_js(page, "document.body.classList.contains('model-ok') && document.getElementById('page').getAttribute('src')")
        page.frame_locator("#page").locator("#bonus-upper_bonus").wait_for()
        assert "35" in frame_text(page, "#bonus-upper_bonus")

        # bonus 35 → 50: select the option's default in the editor and type over it
        line = page.evaluate("""(() => { const cm = window.workshopEditor; let opt = -1;
            for (let i = 0; i < cm.lineCount(); i++) {
              if (cm.getLine(i).startsWith('  upper_bonus:')) opt = i;
              if (opt >= 0 && i > opt && cm.getLine(i).trim() === 'default: 35') return i; }
            return -1; })()""")
        assert line > 0
        page.evaluate(f"""(() => {{ const cm = window.workshopEditor; const ch = cm.getLine({line}).indexOf('35');
            cm.focus(); cm.setSelection({{line: {line}, ch}}, {{line: {line}, ch: ch + 2}}); }})()""")
        page.keyboard.type("50")
        wait_js(page, """(() => { const f = document.getElementById('page').contentDocument;
            const row = f && f.getElementById('bonus-upper_bonus');
            return row && row.textContent.includes('50') && !row.textContent.includes('35'); })()""", 60)

        # a syntax error shows at its line; the copy cannot be played while it is there
        opt = page.evaluate("(() => { const cm = window.workshopEditor; for (let i = 0; i < cm.lineCount(); i++)"
                            " if (cm.getLine(i).startsWith('  upper_bonus:')) return i; })()")
        page.evaluate(f"(() => {{ const cm = window.workshopEditor; cm.focus();"
                      f" cm.setCursor({{line: {opt}, ch: cm.getLine({opt}).length}}); }})()")
        page.keyboard.type(" [oops")
        wait_js(page, "document.getElementById('check').classList.contains('bad') && "
                      "document.querySelector('#messages li.error[data-line]') !== null", 60)
        reported = int(page.locator("#messages li.error").first.get_attribute("data-line"))
        assert abs(reported - (opt + 1)) <= 2
        assert page.locator("#messages li.error").first.inner_text().startswith(f"line {reported}")
        assert "error-line" in page.evaluate(f"window.workshopEditor.lineInfo({reported - 1}).bgClass || ''")
        expect(page.locator("#check")).to_contain_text("mistakes")

        # fixed: the messages go, the check passes again
        for _ in range(len(" [oops")):
            page.keyboard.press("Backspace")
        wait_js(page, "document.body.classList.contains('model-ok') && !document.querySelector('#messages li')", 60)
        assert "50" in frame_text(page, "#bonus-upper_bonus")
        workshop_url = page.url

        # play one turn of the copy
        page.get_by_role("button", name="Play this version").click()
        page.wait_for_url("**/t/**")
        assert me.wait_turn_or_end() == "turn"
        me.write_best()
        assert any(c.isdigit() for c in me.sheet_text())

        # the comparison with the original
        page.goto(workshop_url)
        page.get_by_role("link", name="Compare with the original").click()
        page.wait_for_url("**/compare**")
        wait_js(page, "document.body.classList.contains('compared')", 600)
        table = page.locator("#compare-table")
        text = table.inner_text()
        assert "The original" in text and "Your copy" in text and "Expected score" in text
        assert "254.5877" in text  # the original's exact optimum (the default forced joker)
        assert "Upper bonus: earned" in text
        expect(page.locator(".compare-plot svg")).to_have_count(1)
    finally:
        me.close()
    assert errors == []
