"""Errors speak the user's language: English templates with named values, translated where printed."""
import re
import string

import pytest

from rulebook.interpreter.model.errors import Message, Pos, SaveFileError, did_you_mean
from rulebook.tools.i18n import pick_language
from rulebook.tools.i18n_extract import error_templates, templates_in


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def test_every_error_template_is_translated_with_the_same_placeholders(catalogs):
    templates = error_templates()
    assert len(templates) > 150 and "there is no box '{box}'" in templates
    for lang, catalog in catalogs.items():
        missing = sorted(t for t in templates if t not in catalog or not catalog[t].string or catalog[t].fuzzy)
        assert missing == [], (lang, missing)
        wrong = sorted((t, catalog[t].string) for t in templates if "{" in t and _fields(t) != _fields(catalog[t].string))
        assert wrong == [], (lang, wrong)


def test_the_extractor_sees_hints_by_keyword_and_both_branches():
    found = templates_in('raise UsageError("a {x}" if c else "b", hint="c", x=1)\n'
                         'raise SaveFileError(f"no {y}")\nMessage("d {z}", {"z": 1})\nprint("e")\n')
    assert set(found) == {"a {x}", "b", "c", "d {z}"}  # f-strings are no templates: a test elsewhere finds their English


def test_a_message_is_filled_in_after_translation():
    german = {"the dice {dice} are not {count} dice": "die Würfel {dice} sind nicht {count} Würfel",
              "did you mean '{word}'?": "meintest du '{word}'?", "error:": "Fehler:"}.get
    exc = SaveFileError("the dice {dice} are not {count} dice", Pos("s.json", 1, 1),
                        did_you_mean("fours", ["fours"]), dice=[1, 2], count=5)
    assert str(exc) == "s.json:1:1: error: the dice [1, 2] are not 5 dice; did you mean 'fours'?"
    assert exc.render(lambda t: german(t) or t) == \
        "s.json:1:1: Fehler: die Würfel [1, 2] sind nicht 5 Würfel; meintest du 'fours'?"
    assert exc.message == "the dice [1, 2] are not 5 dice"


def test_model_texts_and_nested_messages_take_the_language_rendered():
    msg = Message("in {box}: {why}", {"box": {"en": "Fours", "de": "Vierer", "nl": "Vieren"},
                                      "why": Message("{n} points", {"n": 3})})
    assert msg.render() == "in Fours: 3 points"
    assert msg.render(lambda t: {"{n} points": "{n} Punkte"}.get(t, t), "de") == "in Vierer: 3 Punkte"


def test_a_broken_translation_falls_back_to_english():
    assert Message("{a} and {b}", {"a": 1, "b": 2}).render(lambda t: "{a} und {c}") == "1 and 2"


@pytest.mark.parametrize("args, env, expected", [
    (("--lang", "de", "score", "yahtzee", "--dice", "1,2,3,4,9"), {},
     "rulebook: Fehler: --dice: 9 ist keine Augenzahl eines Würfels mit 6 Seiten"),
    (("score", "yahtzee", "--dice", "1,2,3,4,9", "--lang", "nl"), {},
     "rulebook: fout: --dice: 9 is geen oog van een dobbelsteen met 6 zijden"),
    (("check", "yahtzeee"), {"RULEBOOK_LANG": "nl", "LANG": "de_DE.UTF-8"},
     "rulebook: fout: onbekend model 'yahtzeee'; bedoelde je 'yahtzee'?"),
    (("check", "yahtzeee"), {"LANGUAGE": "de:en", "LANG": "nl_NL.UTF-8"},
     "rulebook: Fehler: unbekanntes Modell 'yahtzeee'; meintest du 'yahtzee'?"),
    (("check", "yahtzeee"), {"LC_ALL": "C"}, "rulebook: error: unknown model 'yahtzeee'; did you mean 'yahtzee'?"),
    (("--lang", "xx", "check", "yahtzee"), {}, "rulebook: error: --lang must be one of en, de, nl, not 'xx'"),
])
def test_the_cli_prints_errors_in_the_users_language(cli, monkeypatch, args, env, expected):
    for var in ("RULEBOOK_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    code, out, err = cli(*args)
    assert code == 2 and err.strip() == expected


def test_the_global_language_does_not_outlive_its_command(cli, monkeypatch):
    monkeypatch.setenv("RULEBOOK_LANG", "en")
    cli("--lang", "de", "check", "nosuch")
    assert pick_language() == "en"


def test_check_says_ok_in_german(cli, monkeypatch):
    monkeypatch.setenv("RULEBOOK_LANG", "de")
    code, out, err = cli("check", "yahtzee")
    assert code == 0 and re.search(r": in Ordnung \(yahtzee: 13 Felder, \d+ Optionen, 1–\d+ Spieler\)", out)


def test_babels_data_is_read_with_the_cycle_collector_paused_and_numbers_come_out_the_same(monkeypatch):
    import gc

    import babel

    from rulebook.interpreter.model.errors import Number, babel_locale
    from rulebook.tools.i18n import number, percent
    collecting = []

    class Read:  # a Locale whose data is read at its first number symbols, as Babel's
        @property
        def number_symbols(self):
            collecting.append(gc.isenabled())
            return {}

    babel_locale.cache_clear()
    with monkeypatch.context() as m:
        m.setattr(babel.Locale, "parse", staticmethod(lambda lang: (collecting.append(gc.isenabled()), Read())[1]))
        assert babel_locale("de") is babel_locale("de")  # read once
    babel_locale.cache_clear()
    assert collecting == [False, False] and gc.isenabled()
    assert (number(1234567.891, "de", 2), number(4096, "en"), percent(0.1234, "de"), percent(0.1234, "en")) == \
        ("1.234.567,89", "4,096", "12,3\xa0%", "12.3%")
    assert (Number(57507840).render("nl"), Number(680, 1).render("de"), Number(3).render("xx")) == \
        ("57.507.840", "680,0", "3")  # an unknown language: as in English
