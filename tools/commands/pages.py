"""Write localized rule pages: an index and one page per game and language (HTML or Markdown)."""
from __future__ import annotations

import time
from pathlib import Path

from ...interpreter.model.errors import UsageError
from ...interpreter.model.loader import load_model, load_source
from ...interpreter.model.frozen import LANGUAGES
from .options import add_option_argument, parse_options
from .outputs import output_folder


def add_arguments(p) -> None:
    p.add_argument("models", nargs="+", metavar="MODEL", help="model files or bundled models' names")
    p.add_argument("--lang", default=",".join(LANGUAGES), help="comma-separated languages (default: en,de,nl)")
    p.add_argument("--format", default="html", choices=("html", "md", "pdf"),
                   help="html (default), md, or pdf (a printed rule book and blank score sheet per game and "
                        "language, by the system's Chromium)")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="the folder to write the site to")
    p.add_argument("--force", action="store_true", help="write into a folder that holds other files too")
    add_option_argument(p)


def load_models(names: list[str], options: dict[str, str]):
    """Each model with the options it knows; an option no model knows is an error."""
    from ...interpreter.model.loader import read_model
    models = []
    used: set[str] = set()
    for name in names:
        source, file, data = read_model(name)  # each file read (within the budget) and parsed once
        known = _option_names(data)
        mine = {k: v for k, v in options.items() if k in known}
        used |= mine.keys()
        models.append(load_source(source, file, mine, data=data))
    unknown = [k for k in options if k not in used]
    if unknown:
        load_model(names[0], {unknown[0]: options[unknown[0]]})  # raises the usual one-line error
        raise UsageError("unknown option '{option}'", option=unknown[0])
    return models


def site_names(models, langs: list[str], fmt: str) -> set[str]:
    """The top-level names a site of these models writes (so a folder holding only these is ours)."""
    names = {"static", f"index.{fmt}"} | {f"index.{lang}.{fmt}" for lang in langs}
    for m in models:
        names.add(f"{m.id}.yaml")
        for lang in langs:
            names |= {f"{m.id}.{lang}.{fmt}", f"{m.id}.{lang}.svg", f"{m.id}.{lang}.sheet.{fmt}"}
    return names


def _option_names(data) -> set[str]:
    try:
        return set(data.get("options", {}) or {})
    except AttributeError:
        return set()


def run(args) -> int:
    from ..documents.pages import build_site, write_site
    started = time.perf_counter()
    langs = [x.strip() for x in args.lang.split(",") if x.strip()]
    models = load_models(args.models, parse_options(args.option))
    out = output_folder(Path(args.output), site_names(models, langs, args.format),
                        [Path(m.path) for m in models], args.force)  # before the long work
    if args.format == "pdf":
        from ..documents.pages import check_site
        from ..documents.pdf import print_pdfs
        from ..i18n import pick_language, translator
        files = build_site(models, langs, "html")
        written = print_pdfs(files, check_site(models, langs, "html"), out)
        t = translator(pick_language())
        print(t.ngettext("wrote {n} PDF to {folder}", "wrote {n} PDFs to {folder}", len(written)).format(
            n=len(written), folder=f"{out}/"))
        return 0
    files = build_site(models, langs, args.format)
    write_site(files, out)
    from ..i18n import number, pick_language, translator
    lang = pick_language()
    t = translator(lang)
    pages = len(models) * len(langs)
    print(t.gettext("wrote {pages} for {games} in {langs} to {folder} ({files} files, {seconds} s); start at {start}").format(
        pages=t.ngettext("{n} page", "{n} pages", pages).format(n=pages),
        games=t.ngettext("{n} game", "{n} games", len(models)).format(n=len(models)), langs=", ".join(langs), folder=f"{out}/", files=len(files),
        seconds=number(time.perf_counter() - started, lang, 2), start=out / next(iter(files))))
    return 0
