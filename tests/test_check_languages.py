"""`rulebook --lang de check` and `--lang nl check` over every refused model: not one English word in the message.

Each message is the English template of the error, looked up in the catalog and filled in; a body that
keeps an English word (an f-string that never reached the catalogs, a PyYAML phrase) is a leak. The
vocabulary is the English output of the same errors; names the user wrote ('quoted'), paths, the model
language's keywords and the detector's allowlist (tests/test_no_english.py) do not count.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulebook.tools.cli import main
from test_no_english import leaks_in, words

ROOT = Path(__file__).resolve().parent.parent
BAD = sorted((ROOT / "tests" / "bad_models").glob("*.yaml"))
# the model language's own words, which a message names as they are typed
KEYWORDS = frozenset("""repeat each_player roll keep announce write true false times choices players min max
end_if counter option dice faces scratch otherwise steps kind""".split())


def check_all(lang: str, capsys, monkeypatch) -> dict[str, str]:
    monkeypatch.chdir(ROOT)
    out = {}
    for path in BAD:
        code = main(["--lang", lang, "check", path.relative_to(ROOT).as_posix()])
        err = capsys.readouterr().err
        assert code == 2 and err.strip() and "Traceback" not in err, (path.name, err)
        body = "\n".join(line.split(": ", 1)[1] for line in err.splitlines())  # without file:line:col
        body = re.sub(r"\w+(?:\.\w+)+", " ", body)  # places in the model: sections.0.boxes.1.name
        out[path.name] = re.sub(r"\((?:\w+ → )+\w+\)", " ", body)  # a cycle of the model's names
    return out


def test_check_speaks_german_and_dutch_for_every_refused_model(capsys, monkeypatch):
    english = check_all("en", capsys, monkeypatch)
    vocabulary = {w for text in english.values() for w in words(text)} - KEYWORDS
    assert {"unknown", "cannot", "depend", "expected"} <= vocabulary
    report = []
    for lang, label in (("de", "Fehler:"), ("nl", "fout:")):
        texts = check_all(lang, capsys, monkeypatch)
        assert all(t.startswith(label) for t in texts.values())
        report += [f"{lang} {name}: {' '.join(found)}" for name, found in leaks_in(texts, vocabulary, lang).items()]
    assert report == [], "English in check's messages:\n" + "\n".join(report)
