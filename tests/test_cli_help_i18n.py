"""`rulebook … --help` and argparse's own messages speak German and Dutch too."""
from __future__ import annotations

import re

import pytest

from rulebook.tools.cli import COMMANDS, main
from rulebook.tools.i18n_extract import cli_texts

PLACEHOLDER = re.compile(r"%(\([a-z_]+\))?[sdgr]")
OPTION = re.compile(r"(?<![\w-])-{1,2}[a-z][\w-]*|\b[A-Z][A-Z_=]+\b|\{[^}]*\}|\S+\.(txt|md|yaml|sqlite3)\b|\S*/\S*")


def test_every_help_text_is_translated_with_the_same_placeholders(catalogs):
    texts = cli_texts()
    assert "show this help message and exit" in texts and "usage: " in texts and len(texts) > 90
    for lang, catalog in catalogs.items():
        missing = sorted(t for t in texts if t not in catalog or not catalog[t].string or catalog[t].fuzzy)
        assert missing == [], f"{lang}: run `make catalogs` and translate: {missing}"
        wrong = [(t, catalog[t].string) for t in texts
                 if sorted(PLACEHOLDER.findall(t)) != sorted(PLACEHOLDER.findall(catalog[t].string))]
        assert wrong == [], (lang, wrong)


def _help(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as stop:
        main(list(argv))
    assert stop.value.code == 0
    return capsys.readouterr().out


def _prose(text: str) -> set[str]:
    """The words of a help text, leaving out option names, metavars, placeholders, files and paths."""
    return {w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ]{3,}", OPTION.sub(" ", text))} - set(COMMANDS)


@pytest.mark.parametrize("lang", ["de", "nl"])
def test_every_commands_help_is_in_the_language(capsys, lang, catalogs):
    english_only = set()  # words of the English help that the language never uses
    language = {w for m in catalogs[lang] if m.id for w in _prose(m.string if isinstance(m.string, str) else "")}
    for command in (None, *COMMANDS):
        argv = ["--help"] if command is None else [command, "--help"]
        english, translated = _help(capsys, "--lang", "en", *argv), _help(capsys, "--lang", lang, *argv)
        assert translated != english
        english_only |= _prose(english) - language
        leaks = sorted(_prose(translated) & (_prose(english) - language))
        assert leaks == [], f"{lang} {command or 'rulebook'} --help: {leaks}\n{translated}"
    assert {"show", "exit", "across"} <= english_only  # the check can see English


def test_argparse_errors_are_translated(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--lang", "de", "play", "--no-such-flag"])
    assert stop.value.code == 2
    assert capsys.readouterr().err == "rulebook: Fehler: unbekannte Argumente: --no-such-flag\n"
    with pytest.raises(SystemExit):
        main(["--lang", "nl", "simulate"])
    assert capsys.readouterr().err == "rulebook simulate: fout: de volgende argumenten zijn nodig: MODEL\n"
    with pytest.raises(SystemExit):  # and English stays English afterwards: argparse is put back as it was
        main(["simulate"])
    assert "the following arguments are required: MODEL" in capsys.readouterr().err
