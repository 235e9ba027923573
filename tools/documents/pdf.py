"""The rule book as PDF: each game page and its blank score sheet, printed by Chromium.

Chromium is the one the system has (Debian's `/usr/bin/chromium`, or `RULEBOOK_CHROMIUM`), driven
through Playwright; nothing is downloaded. Without either, printing stops with one line saying
what to install.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ...interpreter.model.errors import UsageError
from .pages import Site, write_site

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_path() -> str | None:
    """The Chromium to print with: RULEBOOK_CHROMIUM, else the first on PATH (None without one)."""
    explicit = os.environ.get("RULEBOOK_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).is_file() else None
    return next((p for p in map(shutil.which, CHROMIUM_CANDIDATES) if p), None)


def print_pdfs(files: dict[str, str], site: Site, outdir: Path) -> list[Path]:
    """Write `MODEL.LANG.pdf` (the rules) and `MODEL.LANG.sheet.pdf` (the blank sheet) per game and language."""
    chromium = chromium_path()
    if chromium is None:
        raise UsageError("printing PDFs needs Chromium, which is not installed",
                         "install it, e.g. apt-get install chromium (or set RULEBOOK_CHROMIUM)")
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise UsageError("printing PDFs needs the Python package playwright",
                         "pip install playwright (the browser itself comes from your system)") from None
    jobs: list[tuple[str, str]] = []
    for model in site.models:
        for lang in site.langs:
            jobs.append((site.game_file(model, lang), f"{model.id}.{lang}.pdf"))
            jobs.append((site.sheet_file(model, lang), f"{model.id}.{lang}.sheet.pdf"))
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError("cannot write the pages to {outdir}: {reason}", outdir=outdir, reason=exc.strerror or exc) from None
    written = []
    with tempfile.TemporaryDirectory(prefix="rulebook-pdf-") as tmp:
        write_site(files, Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, args=ARGS)
                try:
                    page = browser.new_page()
                    for html_name, pdf_name in jobs:
                        page.goto((Path(tmp) / html_name).as_uri())
                        page.emulate_media(media="print")
                        target = outdir / pdf_name
                        page.pdf(path=str(target), format="A4", print_background=True, prefer_css_page_size=True)
                        written.append(target)
                finally:
                    browser.close()
        except PlaywrightError as exc:
            raise UsageError("Chromium could not print the pages: {reason}",
                             reason=str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)) from None
    return written
