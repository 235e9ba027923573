"""Localized rule pages: a static site with an index and one page per game and language.

Everything a page says about a game comes from its `Model`: names, rules and options from the
model's texts, points of the worked examples from the `Scorer`, how a turn goes from the phase tree
(worded by `describe`, the one definition of step texts shared with the diagrams). The frame around
it (headings, labels, the sentences that carry numbers) is English in the Jinja2 templates and in
`words`/`gamepage`, translated through the gettext catalogs in `locales/` (see `i18n.translator`).

`build_site` is pure: models in, a dict of file name → content out. `write_site` writes that dict.

The pieces: `sitefiles` (the site's shape and file names), `words` (the sentences with numbers),
`gamefacts` (numbers found from the model), `gamepage` (what one game page says); this module
renders the pages with Jinja2 and writes the site.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import jinja2
from markupsafe import Markup

from ...interpreter.model.errors import UsageError
from ...interpreter.model.frozen import LANGUAGES, Model
from ...interpreter.model.scoring import Scorer
from ..i18n import translator
from .sheetlayout import sheet_layout
from .gamefacts import SECONDS_PER_ROLL, playing_time, rolls_per_turn, rounds_of, showcase_roll, zero_writes
from .gamepage import game_context, worked_example
from .sitefiles import FORMATS, Site, check_site, write_tree
from .templatecache import bytecode_cache
from .words import QUOTES, Words, die_svg

__all__ = ["BLANK_SHEET_GAMES", "FORMATS", "LANGUAGE_NAMES", "QUOTES", "SECONDS_PER_ROLL", "STATIC_DIR", "Site",
           "TEMPLATES_DIR", "Words", "build_site", "check_site", "diagram_svg", "die_svg", "environment",
           "game_context", "inline_svg", "markdown_text", "playing_time", "render_game", "render_index",
           "render_sheet", "rolls_per_turn", "rounds_of", "showcase_roll", "worked_example", "write_site",
           "zero_writes"]

HERE = Path(__file__).resolve().parent
TEMPLATES_DIR = HERE / "templates"
STATIC_DIR = HERE / "static"
LANGUAGE_NAMES = {"en": "English", "de": "Deutsch", "nl": "Nederlands"}  # each in its own language


def _switcher(site: Site, lang: str, file_of) -> list[dict]:
    return [{"lang": other, "name": LANGUAGE_NAMES[other], "href": file_of(other), "current": other == lang}
            for other in site.langs]


# rendering -------------------------------------------------------------------------

_MARKDOWN = str.maketrans({"\\": "\\\\", "<": "&lt;", ">": "&gt;", "[": "\\[", "]": "\\]", "|": "\\|"})


def markdown_text(value: Any) -> Any:
    """A value as Markdown shows it literally: no raw HTML (`<script>`), no links or images of its
    own (`[x](javascript:…)`), no table cell breaks. The page's own links are in the templates."""
    return value.translate(_MARKDOWN) if isinstance(value, str) else value


@lru_cache(maxsize=None)
def environment(lang: str, fmt: str) -> jinja2.Environment:
    """A Jinja2 environment whose gettext speaks `lang` (one per language and format, cached)."""
    options = dict(autoescape=fmt == "html", extensions=["jinja2.ext.i18n"], trim_blocks=True, lstrip_blocks=True,
                   keep_trailing_newline=True, undefined=jinja2.StrictUndefined,
                   finalize=None if fmt == "html" else markdown_text)
    setting = repr(sorted((k, getattr(v, "__qualname__", v)) for k, v in options.items()))
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
                             bytecode_cache=bytecode_cache(setting), **options)
    env.install_gettext_translations(translator(lang), newstyle=True)
    return env


def render_game(model: Model, lang: str, site: Site, diagram_svg: str | None = None,
                scorer: Scorer | None = None) -> str:
    env = environment(lang, site.fmt)
    ctx = game_context(model, lang, site, scorer)
    ctx["has_diagram"] = diagram_svg is not None
    ctx["diagram_inline"] = inline_svg(diagram_svg) if diagram_svg is not None and site.fmt == "html" else None
    ctx["languages"] = _switcher(site, lang, lambda other: site.game_file(model, other))
    ctx["home"] = site.index_file(lang)
    return env.get_template(f"game.{site.fmt}.j2").render(ctx)


def inline_svg(svg: str) -> Markup:
    """A graphviz SVG ready to sit in a page: no XML prolog, as wide as the page (its own width at most)."""
    import re
    start = svg.find("<svg")
    svg = svg[start:] if start >= 0 else svg
    width = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    if width:
        # its own width as the width; the stylesheet's max-width: 100% narrows it to the page (no style
        # attribute: a served page's Content-Security-Policy allows the stylesheet only)
        svg = svg.replace(width.group(0), f'<svg class="flow" width="{float(width.group(1)) * 4 / 3:.0f}"', 1)
    svg = re.sub(r"<!--.*?-->\n?", "", svg, flags=re.S)
    return Markup(svg)


BLANK_SHEET_GAMES = 6  # columns on the printed sheet (seed 000 has three; six fill an A4 page)


def render_sheet(model: Model, lang: str, site: Site, scorer: Scorer | None = None) -> str:
    """The blank score sheet to print: every box, total and bonus, one column per game, the rule as a note."""
    env = environment(lang, site.fmt)
    ctx = game_context(model, lang, site, scorer)
    layout = sheet_layout(model)
    # one block of the sheet's columns per game; as many games as fit the page beside each other
    most = max((row.entries for sec in layout.sections for row in sec.rows), default=1)
    width = len(layout.columns) * max(1, most // 2)  # a game's width in plain columns (two entries take one)
    ctx["games"] = list(range(1, max(1, BLANK_SHEET_GAMES // width) + 1))
    ctx["columns"] = [c.name[lang] if c.name else None for c in layout.columns]
    entries = {row.box: row.entries for sec in layout.sections for row in sec.rows}
    for section in ctx["sections"]:
        for row in section["rows"]:
            row["entries"] = entries.get(row["id"], 1)
    ctx["rules_file"] = site.game_file(model, lang)
    ctx["languages"] = _switcher(site, lang, lambda other: site.sheet_file(model, other))
    ctx["home"] = site.index_file(lang)
    return env.get_template("sheet.html.j2").render(ctx)


def render_index(site: Site, lang: str) -> str:
    env = environment(lang, site.fmt)
    games = [{"name": m.name[lang], "tagline": m.tagline[lang] if m.tagline else None,
              "href": site.game_file(m, lang),
              "players": Words(lang, site.fmt).players(m.min_players, m.max_players)} for m in site.models]
    ctx = {"lang": lang, "games": games, "home": site.index_file(lang),
           "languages": _switcher(site, lang, site.index_file)}
    return env.get_template(f"index.{site.fmt}.j2").render(ctx)


def diagram_svg(model: Model, lang: str) -> str | None:
    """The rule diagram (the phase tree) as SVG text in `lang`, drawn by tools/diagram.py."""
    import graphviz

    from . import diagram
    try:
        return diagram.render_svg(model, lang, "flow")
    except graphviz.ExecutableNotFound:
        raise UsageError("the pages embed the rule diagram, which needs Graphviz's dot",
                         "install it, e.g. apt-get install graphviz") from None


def build_site(models: Iterable[Model], langs: Iterable[str] = LANGUAGES, fmt: str = "html") -> dict[str, str]:
    """Every file of the site: file name (relative, '/' separated) → text."""
    site = check_site(models, langs, fmt)
    files: dict[str, str] = {}
    for lang in site.langs:
        files[site.index_file(lang)] = render_index(site, lang)
    # Graphviz runs as a separate process per diagram: draw them side by side
    jobs = [(i, lang) for i in range(len(site.models)) for lang in site.langs]
    with ThreadPoolExecutor(max_workers=min(len(jobs), os.cpu_count() or 1)) as pool:
        svgs = dict(zip(jobs, pool.map(lambda job: diagram_svg(site.models[job[0]], job[1]), jobs)))
    for i, model in enumerate(site.models):
        files[site.model_file(model)] = model.source
        scorer = Scorer(model)  # one per model: building one tabulates the scores
        for lang in site.langs:
            svg = svgs[i, lang]
            if svg is not None:
                files[site.diagram_file(model, lang)] = svg
            files[site.game_file(model, lang)] = render_game(model, lang, site, svg, scorer)
            if fmt == "html":
                files[site.sheet_file(model, lang)] = render_sheet(model, lang, site, scorer)
    if fmt == "html":
        for path in sorted(STATIC_DIR.iterdir()):
            if path.is_file():
                files[f"static/{path.name}"] = path.read_text(encoding="utf-8")
    return files


def write_site(files: dict[str, str], outdir: Path) -> list[Path]:
    """Write the files under `outdir` (created if needed; no link planted there is followed,
    `sitefiles.write_tree`); returns the paths written."""
    return write_tree(outdir, files)
