"""The rule pages in a real browser: Debian's headless Chromium, driven by Playwright for Python.

Never downloads a browser: Playwright launches /usr/bin/chromium (`apt-get install chromium`).
Without it the tests skip on a developer's machine and fail in CI (RULEBOOK_REQUIRE_TOOLS=1).
"""
from __future__ import annotations

import os
import re
import struct

import pytest
from conftest import require_tool

from rulebook.interpreter import bundled_models, load_model
from rulebook.interpreter.model.frozen import LANGUAGES
from rulebook.tools.documents import pages

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
TIMEOUT = 120_000  # ms: the bound of a wait, for a broken page only (a busy machine is slow, not wrong)


@pytest.fixture(scope="module")
def browser():
    require_tool("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # the test extra installs it; in CI its absence is a failure
        if os.environ.get("RULEBOOK_REQUIRE_TOOLS"):
            pytest.fail("playwright is required in CI but not installed")
        pytest.skip("playwright is not installed")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def site_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    pages.write_site(pages.build_site([load_model(n) for n in bundled_models()], LANGUAGES), out)
    return out


@pytest.fixture
def page(browser):
    p = browser.new_page(viewport={"width": 1280, "height": 900})
    p.set_default_timeout(TIMEOUT)
    yield p
    p.close()


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def visible_box(page, selector: str) -> dict:
    """The element is there, visible, scrolled into view and of a real size."""
    el = page.locator(selector).first
    el.scroll_into_view_if_needed()
    assert el.is_visible(), selector
    box = el.bounding_box()
    assert box and box["width"] > 200 and box["height"] > 100, (selector, box)
    return box


@pytest.mark.parametrize("lang", LANGUAGES)
def test_screenshot_shows_the_diagram_and_the_score_table(page, site_dir, lang, tmp_path):
    page.goto((site_dir / f"yahtzee.{lang}.html").as_uri())
    assert page.evaluate("document.documentElement.lang") == lang
    diagram = visible_box(page, "figure.diagram svg")
    # the SVG is drawn at page width, at least 90 % of its own size: readable without zooming
    scale = page.evaluate("(() => { const s = document.querySelector('figure.diagram svg');"
                          " return s.getBoundingClientRect().width / s.viewBox.baseVal.width; })()")
    assert scale > 0.9 * 4 / 3 * 0.9 and diagram["height"] > 300
    table = visible_box(page, "table.sheet")
    assert page.locator("table.sheet >> nth=0").locator("tbody tr").count() == 6
    shot = page.screenshot(path=str(tmp_path / f"yahtzee.{lang}.png"), full_page=True)
    width, height = png_size(shot)
    assert width == 1280 and height > diagram["y"] + diagram["height"] and height > table["y"] + table["height"]
    for selector in ("figure.diagram svg", "table.sheet"):
        part = page.locator(selector).first.screenshot()
        w, h = png_size(part)
        assert w > 200 and h > 100 and len(set(part[64:4096])) > 16  # drawn, not a blank box


def test_every_page_renders_with_its_diagram_and_table(page, site_dir):
    for name, path in bundled_models().items():
        boxes = bool(load_model(str(path)).boxes)  # a game scored by counters alone (Pig) has no box table
        for lang in LANGUAGES:
            page.goto((site_dir / f"{name}.{lang}.html").as_uri())
            visible_box(page, "figure.diagram svg")
            if boxes:
                visible_box(page, "table.sheet")
            else:
                assert page.locator("table.sheet").count() == 0 and page.locator("#sheet h2").is_visible()
            # as wide as the page allows, or (a small game's diagram) at least its own size: never shrunk
            width, own = page.evaluate("(() => { const s = document.querySelector('figure.diagram svg');"
                                       " return [s.getBoundingClientRect().width, s.viewBox.baseVal.width * 4 / 3]; })()")
            assert width > 600 or width >= 0.9 * own, (name, lang, width, own)
            assert page.evaluate("getComputedStyle(document.body).fontFamily")  # the stylesheet applied


def test_language_switcher_goes_to_the_same_game(page, site_dir):
    page.goto((site_dir / "yahtzee.en.html").as_uri())
    page.click("nav.languages a[hreflang=de]")
    assert page.url.endswith("yahtzee.de.html") and page.evaluate("document.documentElement.lang") == "de"
    assert page.locator("h2#turn, #turn h2").first.inner_text() == "Spielablauf"
    page.click("nav.languages a[hreflang=nl]")
    assert page.url.endswith("yahtzee.nl.html")
    assert page.locator("#turn h2").first.inner_text() == "Spelverloop"


def test_print_layout_hides_navigation_and_keeps_the_rules(page, site_dir, tmp_path):
    page.goto((site_dir / "yahtzee.de.html").as_uri())
    page.emulate_media(media="print")
    assert not page.locator("header.site").is_visible()
    assert not page.locator("nav.toc").is_visible()
    assert page.locator("table.sheet").first.is_visible() and page.locator("figure.diagram svg").is_visible()
    assert page.evaluate("getComputedStyle(document.querySelector('thead th')).backgroundColor") == "rgb(255, 255, 255)"
    pdf = page.pdf(format="A4")
    pages_printed = len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf))
    assert pdf.startswith(b"%PDF") and 3 <= pages_printed <= 12, pages_printed

def test_narrow_screen_has_no_horizontal_scroll(browser, site_dir):
    p = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        for lang in LANGUAGES:
            p.goto((site_dir / f"yahtzee.{lang}.html").as_uri())
            overflow = p.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0, (lang, overflow)
    finally:
        p.close()
