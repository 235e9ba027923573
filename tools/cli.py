"""The `rulebook` command: one sub-command per module, errors as one line and exit code 2."""
from __future__ import annotations

import argparse
import errno
import importlib
import os
import re
import sys

from ..interpreter.errors import RulebookError

# command -> (module, one-line help)
COMMANDS = {
    "check": ("check", "validate models: YAML, schema, expressions, names, translations"),
    "score": ("score", "which boxes may take a roll, and what each scores"),
    "play": ("play", "play a game in the terminal (humans and computer players)"),
    "replay": ("replay", "re-run a game log and print the final sheets"),
    "solve": ("solve", "compute optimal solitaire play and its expected score"),
    "simulate": ("simulate", "play many games with bots and report statistics"),
    "compare": ("compare", "compare rule variants side by side: scores, scratches, bonuses, skill, length"),
    "diagram": ("diagram", "draw the rule diagram of a model"),
    "pages": ("pages", "write localized rule pages"),
    "new": ("new", "copy a bundled model to a file, ready to edit"),
    "serve": ("serve", "play in the browser"),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, like every other error
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; only the module of the command `only` is imported (none for `--help`)."""
    parser = _Parser(prog="rulebook", description="Declarative dice games: check, play, solve and document them.")
    parser.add_argument("--lang", dest="global_lang", default=None, metavar="LANG",
                        help="language of everything printed: en, de or nl (default: RULEBOOK_LANG, "
                             "then LANGUAGE, LC_ALL, LC_MESSAGES, LANG)")
    parser.add_argument("--version", action="version", version=f"rulebook {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module, help_text) in COMMANDS.items():
        if name != only:  # only the command run is imported; the others are names and help
            sub.add_parser(name, help=help_text)
            continue
        try:
            mod = importlib.import_module(f"{__package__}.commands.{module}")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.endswith(f"commands.{module}"):
                continue  # not built yet
            raise
        p = sub.add_parser(name, help=help_text, description=(mod.__doc__ or help_text).strip().splitlines()[0])
        mod.add_arguments(p)
        p.add_argument("--limit", action="append", default=[], metavar="NAME=N",
                       help="raise a limit of the untrusted-input budget for this run (see docs/writing-a-game.md)")
        p.set_defaults(run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = next((a for i, a in enumerate(argv) if not a.startswith("-") and (i == 0 or argv[i - 1] != "--lang")),
                   None)
    parser = build_parser(command if command in COMMANDS else None)
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    from . import i18n
    i18n.chosen = args.global_lang
    own = getattr(args, "lang", None)  # a command's own --lang (pages takes a list: not one language)

    def lang() -> str:  # asked when printing: a command may have settled it (play --resume: the saved one)
        return i18n.safe_language(own if own and "," not in own else None)
    try:
        if getattr(args, "limit", None):
            from ..interpreter.limits import raise_limits
            raise_limits(args.limit)
        code = args.run(args) or 0
        sys.stdout.flush()  # a full disk shows here, as one line, not at exit as a traceback
        return code
    except RulebookError as exc:
        print(printable(i18n.error_text(exc, lang())), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        _ = i18n.translator(lang()).gettext
        print("rulebook: " + _("interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:
        _drop_stdout()
        return 0
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EIO, errno.EDQUOT):
            raise
        _drop_stdout()
        _ = i18n.translator(lang).gettext
        print("rulebook: " + _("error:") + " " + _("cannot write the output: {reason}").format(
            reason=exc.strerror or exc), file=sys.stderr)
        return 2
    finally:
        i18n.chosen = None


def _drop_stdout() -> None:
    """Point standard output at /dev/null, so the interpreter's last flush at exit cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def printable(text: str) -> str:
    """Text with control characters (ESC, OSC …) and lone surrogates shown as escapes, never obeyed."""
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape", "backslashreplace").decode("ascii"), text)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("rulebook")
    except PackageNotFoundError:
        return "unknown"


if __name__ == "__main__":
    raise SystemExit(main())
