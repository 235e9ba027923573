"""The English message templates of errors, found in the source, for the gettext catalogs.

An error is raised with its English template and named values (`UsageError("no such file: {path}",
path=p)`); Babel's extractor does not see hints passed by keyword or templates chosen by `if`, so
this walks the syntax tree instead: every string literal given to an error class, `Message`, or a
helper that builds one (`fail`, `_error`, `bad`) as an argument or `hint=`. `make catalogs` adds them
to the template catalog; a test checks that German and Dutch translate each.

    python -m rulebook.tools.i18n_extract tools/locales/rulebook.pot   # add them to the .pot
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("interpreter", "tools")
# Callables whose string arguments are user-facing message templates.
MESSAGE_CALLS = frozenset({
    "RulebookError", "ModelError", "DslError", "IllegalActionError", "UsageError", "SaveFileError",
    "NotSolvable", "ServeError", "UnsafeCache", "WorkshopError", "Message", "bad", "fail", "_error", "ParseError",
})


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _strings(node: ast.expr) -> list[str]:
    """String literals that are the value of `node`: itself, or either branch of `a if c else b` / `a or b`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _strings(node.body) + _strings(node.orelse)
    if isinstance(node, ast.BoolOp):
        return [s for v in node.values for s in _strings(v)]
    return []


def templates_in(source: str, filename: str = "<source>") -> dict[str, int]:
    """Each message template in one Python source → the line it first appears on."""
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Call) and _name(node.func) in MESSAGE_CALLS:
            args = list(node.args) + [k.value for k in node.keywords if k.arg in ("hint", "message")]
            for arg in args:
                for text in _strings(arg):
                    if text.strip():
                        found.setdefault(text, node.lineno)
    return found


def error_templates(root: Path = ROOT) -> dict[str, str]:
    """Every template under interpreter/ and tools/ → `file:line` where it is."""
    out: dict[str, str] = {}
    for folder in SOURCES:
        for path in sorted((root / folder).rglob("*.py")):
            for text, line in templates_in(path.read_text(encoding="utf-8"), str(path)).items():
                out.setdefault(text, f"{path.relative_to(root)}:{line}")
    return out


def cli_texts() -> list[str]:
    """Every text `rulebook … --help` shows: the descriptions and help of every command and argument
    (read off the real parsers, so a new flag cannot be missed) and argparse's own texts."""
    import argparse
    from . import cli
    texts = [cli.DESCRIPTION, cli.LIMIT_HELP, "error:", *cli.ARGPARSE_TEXTS]
    for name in cli.COMMANDS:
        parser = cli.build_parser(only=name)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        texts += [a.help for a in parser._actions if a.help and a.help != argparse.SUPPRESS]
        texts += [choice.help for choice in sub._choices_actions]
        command = sub.choices[name]
        texts.append(command.description)
        texts += [a.help for a in command._actions if a.help and a.help != argparse.SUPPRESS]
    return list(dict.fromkeys(t for t in texts if t))


def add_to_pot(pot: Path) -> int:
    """Add the templates and CLI texts missing from the .pot file; how many were added."""
    from babel.messages.pofile import read_po, write_po
    with pot.open("rb") as f:
        catalog = read_po(f)
    added = 0
    for text in error_templates():
        if text not in catalog:
            catalog.add(text, flags=("python-brace-format",) if "{" in text else ())
            added += 1
    for text in cli_texts():
        if text not in catalog:
            catalog.add(text, flags=("python-format",) if "%(" in text or "%s" in text or "%r" in text else ())
            added += 1
    with pot.open("wb") as f:
        write_po(f, catalog, width=100, sort_output=True, omit_header=False, no_location=True)
    return added


if __name__ == "__main__":
    print(f"added {add_to_pot(Path(sys.argv[1]))} error templates and command-line texts to {sys.argv[1]}")
