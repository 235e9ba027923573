"""The `rulebook` command: one sub-command per module, errors as one line and exit code 2."""
from __future__ import annotations

import argparse
from contextlib import contextmanager
import errno
import importlib
import os
import re
import sys
from typing import Callable

from ..interpreter.model.errors import RulebookError

# command -> (module, one-line help)
COMMANDS = {
    "check": ("check", "validate models: YAML, schema, expressions, names, translations"),
    "score": ("score", "which boxes may take a roll, and what each scores"),
    "play": ("play", "play a game in the terminal (humans and computer players)"),
    "replay": ("replay", "re-run a game log and print the final sheets"),
    "review": ("review", "review a game log: each decision's best choice and what the choice made cost"),
    "solve": ("solve", "compute optimal solitaire play and its expected score"),
    "simulate": ("simulate", "play many games with bots and report statistics"),
    "compare": ("compare", "compare rule variants side by side: scores, scratches, bonuses, skill, length"),
    "diagram": ("diagram", "draw the rule diagram of a model"),
    "pages": ("pages", "write localized rule pages"),
    "new": ("new", "copy a bundled model to a file, ready to edit"),
    "serve": ("serve", "play in the browser"),
}


DESCRIPTION = "Declarative dice games: check, play, solve and document them."
LIMIT_HELP = "raise a limit of the untrusted-input budget for this run (see docs/writing-a-game.md)"
# argparse's own texts that `rulebook` can show (Python 3.11's wording), translated with ours.
ARGPARSE_TEXTS = (
    "usage: ", "positional arguments", "options", "show this help message and exit",
    "show program's version number and exit", "the following arguments are required: %s",
    "unrecognized arguments: %s", "invalid choice: %(value)r (choose from %(choices)s)",
    "expected one argument", "argument %(argument_name)s: %(message)s", "invalid %(type)s value: %(value)r",
    "not allowed with argument %s", "ambiguous option: %(option)s could match %(matches)s",
    "expected at least one argument", "one of the arguments %s is required", "ignored explicit argument %r",
)


class _Parser(argparse.ArgumentParser):
    gettext = staticmethod(str)  # the language's gettext, set by build_parser

    def error(self, message: str):  # one line, exit 2, like every other error
        from ..interpreter.model.errors import SHOWN_CHARS, shorten
        self.exit(2, f"{self.prog}: {self.gettext('error:')} {shorten(message, 2 * SHOWN_CHARS)}\n")  # no value echoed whole


def _formatter(gettext):
    """A help formatter that shows each argument's help in the language of `gettext`."""
    class Formatter(argparse.HelpFormatter):
        def _get_help_string(self, action: argparse.Action) -> str | None:
            return gettext(action.help) if action.help else action.help
    return Formatter


def _help_language(argv: list[str]) -> str:
    """The language of help and usage texts: a `--lang` anywhere on the line, else the environment's."""
    from . import i18n
    for i, arg in enumerate(argv):
        value = argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else arg[7:] if arg.startswith("--lang=") else ""
        if value.split(",")[0] in i18n.LANGUAGES:
            return value.split(",")[0]
    return i18n.safe_language()


def build_parser(only: str | None = None, lang: str = "en") -> argparse.ArgumentParser:
    """The argument parser, its texts in `lang`; only the module of the command `only` is imported
    (none for `--help`). argparse's own texts are translated while the parser runs (see `main`)."""
    gettext = str
    if lang != "en":
        from . import i18n
        gettext = i18n.translator(lang).gettext
    parser_class = type("Parser", (_Parser,), {"gettext": staticmethod(gettext)})
    formatter = _formatter(gettext)
    parser = parser_class(prog="rulebook", description=gettext(DESCRIPTION), formatter_class=formatter)
    parser.add_argument("--lang", dest="global_lang", default=None, metavar="LANG",
                        help="language of everything printed: en, de or nl (default: RULEBOOK_LANG, "
                             "then LANGUAGE, LC_ALL, LC_MESSAGES, LANG)")
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=parser_class)
    for name, (module, help_text) in COMMANDS.items():
        help_text = gettext(help_text)
        if name != only:  # only the command run is imported; the others are names and help
            sub.add_parser(name, help=help_text, formatter_class=formatter)
            continue
        try:
            mod = importlib.import_module(f"{__package__}.commands.{module}")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.endswith(f"commands.{module}"):
                continue  # not built yet
            raise
        p = sub.add_parser(name, help=help_text, description=gettext(command_description(mod, name)),
                           formatter_class=formatter)
        mod.add_arguments(p)
        p.add_argument("--limit", action="append", default=[], metavar="NAME=N", help=LIMIT_HELP)
        p.set_defaults(run=mod.run)
    return parser


def command_description(module, name: str) -> str:
    """The first line of a command module's docstring (its description under `--help`)."""
    return (module.__doc__ or COMMANDS[name][1]).strip().splitlines()[0]


@contextmanager
def _argparse_speaks(lang: str):
    """argparse's own texts (usage, errors, group titles) in `lang` meanwhile: it looks them up as it speaks."""
    if lang == "en":
        yield
        return
    from . import i18n
    texts = i18n.translator(lang)
    saved = argparse._, argparse.ngettext
    argparse._, argparse.ngettext = texts.gettext, texts.ngettext
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved


# what tells numpy's OpenBLAS how many threads to start (its own name first, then the ones it also reads)
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _one_blas_thread() -> None:
    """Ask numpy's OpenBLAS for one thread, unless the user chose a number. Imported, it starts a thread per
    core, and each spins about a tenth of a CPU second waiting for work that rulebook never gives it (its
    matrix products are small; its parallel work is its own, `--jobs`): `python -c "import numpy"` and a
    0.5 s sleep took 0.19 CPU s, 0.08 with one thread. Set before numpy is imported (the children inherit it)."""
    if "numpy" not in sys.modules and not any(os.environ.get(name) for name in BLAS_THREADS):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def main(argv: list[str] | None = None) -> int:
    """The program (`argv` None: sys.argv's); the exit code."""
    if argv is not None:  # called by a process that goes on (the tests): its collector left as it is
        return _main(argv)
    import gc
    gc.disable()  # until `_started`
    try:
        code = _main(sys.argv[1:], _started)
    finally:
        gc.enable()
    _spare_the_exit()
    return code


def _started() -> None:
    """The program's modules imported and its arguments read: the cycle collector, paused until now, starts, and
    what was made so far (modules, classes, functions: they live as long as the program) is left out of its reach
    (`gc.freeze`). While a solve of a bundled model imported its modules the collector ran 51 times (about 7 ms) and
    freed 423 objects, which now stay."""
    import gc
    gc.freeze()
    gc.enable()


def _spare_the_exit() -> None:
    """The program's last step: every object it made, out of the cycle collector's reach (`gc.freeze`). The
    interpreter's exit collects cycles over all of them once more (the model, the solver's space, numpy's
    modules), about 0.03 CPU s of a solve of a bundled model (0.023-0.065 s, 0.001-0.013 frozen; docs/solver.md). Only
    when main is the program: a process that goes on (the tests call main) keeps its objects collectable."""
    import gc
    gc.freeze()


def _main(argv: list[str], started: Callable[[], None] | None = None) -> int:
    _one_blas_thread()
    command = next((a for i, a in enumerate(argv) if not a.startswith("-") and (i == 0 or argv[i - 1] != "--lang")),
                   None)
    help_lang = _help_language(argv)
    if command == "solve":  # a kernel not compiled yet starts compiling now, while the command loads (kernel.py)
        from ..interpreter.solver import kernel
        kernel.compile_in_background()
    with _argparse_speaks(help_lang):
        parser = build_parser(command if command in COMMANDS else None, help_lang)
        args = parser.parse_args(argv)
        if not getattr(args, "run", None):
            parser.print_help()
            return 2
    from . import i18n
    i18n.chosen = args.global_lang
    own = getattr(args, "lang", None)  # a command's own --lang (pages takes a list: not one language)

    def lang() -> str:  # asked when printing: a command may have settled it (play --resume: the saved one)
        return i18n.safe_language(own if own and "," not in own else None)
    _term_as_interrupt()
    try:
        if getattr(args, "limit", None):
            from ..interpreter.model.limits import raise_limits
            raise_limits(args.limit)
        if started:
            started()
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
    except ValueError as exc:  # Python refuses to print an integer of more than 4,300 digits
        if "integer string conversion" not in str(exc):
            raise
        _ = i18n.translator(lang()).gettext
        print("rulebook: " + _("error:") + " " + _("a number grew past {digits} digits; the model computes values "
                                                   "no score sheet can hold").format(digits=sys.get_int_max_str_digits()),
              file=sys.stderr)
        return 2
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            _ = i18n.translator(lang()).gettext
            print("rulebook: " + _("error:") + " " + _("a file name is too long: {name}").format(
                name=printable(str(exc.filename or "")[-80:])), file=sys.stderr)
            return 2
        if exc.errno not in (errno.ENOSPC, errno.EIO, errno.EDQUOT):
            raise
        _drop_stdout()
        _ = i18n.translator(lang()).gettext
        print("rulebook: " + _("error:") + " " + _("cannot write the output: {reason}").format(
            reason=exc.strerror or exc), file=sys.stderr)
        return 2
    finally:
        i18n.chosen = None


def _term_as_interrupt() -> None:
    """SIGTERM ends a command as Ctrl-C does: cleanly, with one line (a solve keeps its checkpoint)."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt
    try:
        if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
            signal.signal(signal.SIGTERM, interrupt)
    except (ValueError, OSError):
        pass


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


class _VersionAction(argparse.Action):
    """`--version`: the installed version, looked up only when asked (importlib.metadata is slow to import)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest, nargs=0, default=default,
                         help=help or "show program's version number and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        parser._print_message(f"rulebook {_version()}\n", sys.stdout)
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("rulebook")
    except PackageNotFoundError:
        return "unknown"


if __name__ == "__main__":
    raise SystemExit(main())
