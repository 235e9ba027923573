"""Hostile input, round two (issue 28): the fixes the corpus (tests/hostile_two.py) relies on, pinned
one by one."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from rulebook.interpreter.model.errors import ModelError, RulebookError, shorten
from rulebook.interpreter.model.yamlsource import load_yaml
from rulebook.tools.documents.histogram import histogram_svg
from rulebook.tools.documents.pages import markdown_text

MINIMAL = (Path(__file__).resolve().parent / "bad_models" / "base" / "minimal.yaml").read_text(encoding="utf-8")


def test_a_name_never_leaves_its_svg_attribute():
    svg = histogram_svg({'a" onload="alert(1)': [1, 2, 3]}, 'T" onload="alert(1)')
    root = ET.fromstring(svg)
    assert not [n for el in root.iter() for n in el.attrib if n.lower().startswith("on")]
    assert root.attrib["aria-label"] == 'T" onload="alert(1)'  # shown as written, as text


def test_a_backslash_cannot_unescape_a_markdown_bracket():
    assert markdown_text(r"\[x\](javascript:alert(1))") == r"\\\[x\\\](javascript:alert(1))"
    assert markdown_text("a|b <i>") == r"a\|b &lt;i&gt;"


def test_one_long_text_named_many_times_is_refused_before_it_is_built():
    text = 'x: &a "' + "A" * 100_000 + '"\ny: [' + ", ".join(["*a"] * 100) + "]\n"
    with pytest.raises(ModelError, match="more than 4000000 characters") as exc:
        load_yaml(text, "bomb.yaml")
    assert "--limit yaml_chars" in str(exc.value)


def test_an_echoed_value_is_shortened():
    from rulebook.interpreter.engine.actions import parse_action
    with pytest.raises(RulebookError) as exc:
        parse_action("keep " + "x" * 800_000)
    assert len(str(exc.value)) < 400 and "…" in str(exc.value)
    assert shorten("abc") == "abc" and len(shorten("a" * 10_000)) == 201


def test_a_save_with_values_of_the_wrong_kind_says_so_not_python(cli, tmp_path):
    import json
    import io
    import sys
    save = tmp_path / "s.json"
    old = sys.stdin
    try:
        sys.stdin = io.StringIO("roll\n")
        assert cli("play", "yacht", "--players", "Ann:human", "--seed", "5", "--save", str(save))[0] in (0, 2)
    finally:
        sys.stdin = old
    data = json.loads(save.read_text())
    data["state"]["sheets"] = ["ones"]
    save.write_text(json.dumps(data))
    code, _, err = cli("play", "--resume", str(save))
    assert code == 2 and "wrong kind" in err and "attribute" not in err


def test_a_log_cannot_name_a_system_file_as_its_model(tmp_path):
    from rulebook.interpreter.model.errors import SaveFileError, Pos
    from rulebook.interpreter.play.game import _model_for
    for path in ("/proc/self/environ", "/etc/passwd", "/dev/zero.yaml"):
        with pytest.raises(SaveFileError, match="not a model file"):
            _model_for({"model": "yacht", "model_path": path, "model_hash": "0" * 64}, Pos("log", 1, 1))


def test_box_names_are_shown_as_text_by_compare(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))
    model = tmp_path / "m.yaml"
    model.write_text(MINIMAL.replace("name: {en: Ones, de: Einer, nl: Enen}", 'name: {en: "[/]x[link=http://e]y", de: E, nl: E}'),
                     encoding="utf-8")
    code, out, err = cli("compare", str(model), "--model", str(model), "--games", "2", "--no-cache", "--lang", "en")
    assert code == 0, err
    assert "[/]x[link=http://e]y" in out


def test_refusals_say_what_to_do(cli):
    code, _, err = cli("solve", "generala", "--lang", "en")
    assert code == 2 and "-O served_generala_wins=false" in err and "cpu:strong" in err and err.count("\n") == 1
    code, _, err = cli("solve", "triple_yahtzee", "--lang", "en")
    assert code == 2 and "cpu:strong" in err and err.count("\n") == 1


def test_strong_is_in_the_help_text(capsys):
    from rulebook.tools.cli import main
    for command in ("play", "simulate"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "strong" in capsys.readouterr().out


def _saved(cli, tmp_path, model: str):
    import io
    import json
    import sys
    save = tmp_path / f"{model}.json"
    old = sys.stdin
    try:
        sys.stdin = io.StringIO("roll\n")
        cli("play", model, "--players", "Ann:human", "--seed", "5", "--save", str(save))
    finally:
        sys.stdin = old
    return save, json.loads(save.read_text())


@pytest.mark.parametrize("model, sheet, says", [
    ("balut", {"fours#4": 0, "fives#4": 0}, "'fours#4' is written while 'fours#1' is empty; a box's entries fill in order"),
    ("balut", {"fours#1": 4, "fours#3": 8}, "'fours#3' is written while 'fours#2' is empty"),
    ("yamb", {"ones@down": 1, "threes@down": 9}, "'threes@down' is written while 'twos@down' above it is open; "
                                                   "column 'down' fills from the top"),
    ("yamb", {"maximum@up": 30}, "'maximum@up' is written while 'yamb@up' below it is open; column 'up' fills from the bottom"),
])
def test_a_saved_sheet_out_of_its_fill_order_is_refused_naming_the_save(cli, tmp_path, model, sheet, says):
    import json
    save, data = _saved(cli, tmp_path, model)
    data["state"]["sheets"] = [sheet]
    save.write_text(json.dumps(data))
    code, _, err = cli("--lang", "en", "play", "--resume", str(save))
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"{save}:1:1: error: the saved game does not fit the model {model}: on the sheet of player 1, "
                          + says), err
    assert "rules/" not in err


def test_a_saved_sheet_in_its_fill_order_is_taken(cli, tmp_path):
    import json
    save, data = _saved(cli, tmp_path, "yamb")
    data["state"]["sheets"] = [{"ones@down": 1, "twos@down": 4, "yamb@up": 50, "maximum@free": 30}]
    save.write_text(json.dumps(data))
    import io
    import sys
    old = sys.stdin
    try:
        sys.stdin = io.StringIO("quit\n")
        code, out, err = cli("--lang", "en", "play", "--resume", str(save))
    finally:
        sys.stdin = old
    assert code in (0, 2) and "does not fit" not in err, err
