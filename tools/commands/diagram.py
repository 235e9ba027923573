"""Draw the rule diagram of a model: its phase tree (flow) or its score sheet (scoring)."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

from ...interpreter.model.errors import Message, UsageError
from ..i18n import pick_language, translator
from ...interpreter.model.loader import load_model
from .options import add_option_argument, parse_options
from .outputs import output_file, write_output

FORMATS = ("svg", "png", "dot")
INSTALL_HINT = Message("install graphviz to draw it (apt install graphviz, brew install graphviz, "
                "or https://graphviz.org/download/)")


def add_arguments(p) -> None:
    p.add_argument("model", metavar="MODEL", help="a model file or a bundled model's name")
    p.add_argument("--what", choices=("flow", "scoring"), default="flow",
                   help="flow: the phase tree (default); scoring: the score sheet and its rules")
    p.add_argument("--lang", default=None, help="language of the labels: en, de or nl")
    p.add_argument("--format", "-f", choices=FORMATS, default=None,
                   help="svg (default), png, or dot (the graphviz source; needs no graphviz program)")
    p.add_argument("-o", "--output", metavar="FILE", default=None,
                   help="where to write it (default MODEL[.scoring].LANG.FORMAT; - for standard output)")
    p.add_argument("--force", action="store_true", help="replace the output file if it exists")
    add_option_argument(p)


def output_format(fmt: str | None, output: str | None) -> str:
    """--format, else the suffix of -o, else svg; a clash between the two is an error."""
    suffix = Path(output).suffix.lstrip(".").lower() if output and output != "-" else ""
    if suffix == "gv":
        suffix = "dot"
    if fmt and suffix in FORMATS and suffix != fmt:
        raise UsageError("-o {output} does not match --format {fmt}", output=output, fmt=fmt)
    return fmt or (suffix if suffix in FORMATS else "svg")


def run(args) -> int:
    from ..documents.diagram import diagram
    from ..i18n import pick_language
    lang = pick_language(args.lang)
    fmt = output_format(args.format, args.output)
    if args.output == "-" and fmt == "png":
        raise UsageError("a PNG cannot go to standard output; give -o FILE.png")
    model = load_model(args.model, parse_options(args.option))
    graph = diagram(model, lang, args.what)
    kind = "" if args.what == "flow" else ".scoring"
    out = Path(args.output) if args.output else Path(f"{model.id}{kind}.{lang}.{fmt}")
    if args.output != "-":
        output_file(out, "-o", [Path(model.path)], args.force)

    if fmt == "dot":
        _write(out, graph.source.encode("utf-8"), args.output == "-", lang=lang, force=args.force)
        if shutil.which("dot") is None:
            _ = translator(lang).gettext
            print("rulebook: " + _("note: graphviz's 'dot' program is not installed; {hint}").format(hint=_(INSTALL_HINT.text)),
                  file=sys.stderr)
        return 0
    if shutil.which("dot") is None:
        dot_file = out.with_suffix(".dot") if args.output != "-" else Path(f"{model.id}{kind}.{lang}.dot")
        output_file(dot_file, "-o", [Path(model.path)], args.force)
        _write(dot_file, graph.source.encode("utf-8"), False, quiet=True, force=args.force)
        raise UsageError("graphviz's 'dot' program is not installed, so only {dot_file} was written", INSTALL_HINT, dot_file=dot_file)
    try:
        if fmt == "svg":
            from ..documents.diagram import localize_svg
            data = localize_svg(graph.pipe(format="svg", encoding="utf-8"), model, lang).encode("utf-8")
        else:
            data = graph.pipe(format=fmt)
    except Exception as exc:  # graphviz.ExecutableNotFound, CalledProcessError: one line, not a traceback
        raise UsageError("dot could not draw the diagram: {reason}", reason=str(exc).splitlines()[0] if str(exc) else repr(exc)) from None
    _write(out, data, args.output == "-", lang=lang, force=args.force)
    return 0


def _write(path: Path, data: bytes, to_stdout: bool, quiet: bool = False, lang: str = "en",
           force: bool = False) -> None:
    if to_stdout:
        try:
            sys.stdout.write(data.decode("utf-8"))
            sys.stdout.flush()
        except OSError as exc:  # a full disk (/dev/full) or a closed pipe: one line, not a traceback
            raise UsageError("cannot write to standard output: {reason}", reason=exc.strerror or exc) from None
        return
    write_output(path, data, "-o", force)
    if not quiet:
        print(translator(lang).gettext("wrote {path}").format(path=path))
