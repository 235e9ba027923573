"""The resource budget (interpreter/model/limits.py): each limit refuses before the work, in one line, with its number."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from rulebook.interpreter.model.errors import ModelError, RulebookError
from rulebook.interpreter.model.limits import DEFAULT, Limits, limits, raise_limits, read_untrusted, set_limits
from rulebook.interpreter.model.loader import load_model, load_source
from rulebook.interpreter.model.yamlsource import load_yaml

ROOT = Path(__file__).resolve().parent.parent
MINIMAL = (ROOT / "tests" / "bad_models" / "base" / "minimal.yaml").read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def fresh_budget():
    set_limits(DEFAULT)
    yield
    set_limits(DEFAULT)


def error(fn, *args) -> str:
    with pytest.raises(RulebookError) as info:
        fn(*args)
    return str(info.value)


def test_a_big_yaml_list_is_refused_while_it_is_read():
    set_limits(Limits(yaml_nodes=1000))  # the same check as the default 20,000, twenty times faster
    text = "items:\n" + "- 1\n" * 200_000  # refused after reading 1,000 of its 200,000 values
    assert error(load_yaml, text, "big.yaml") == \
        "big.yaml:999:3: error: the file has more than 1000 values; raise it with --limit yaml_nodes=N if you trust the file"


def test_deep_yaml_is_refused_at_its_depth_not_with_a_recursion_error():
    assert error(load_yaml, "[" * 5000 + "]" * 5000, "deep.yaml").startswith(
        "deep.yaml:1:65: error: the file is nested more than 64 levels deep")


def test_aliases_that_expand_too_much_are_refused():
    laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(6))
    set_limits(Limits(yaml_nodes=10_000))
    assert "the file expands to more than 10000 values" in error(load_yaml, laughs, "lol.yaml")


def test_long_integers_in_yaml_are_refused_at_their_position():
    assert error(load_yaml, "a: 1\nb: " + "9" * 5000 + "\n", "n.yaml") == \
        "n.yaml:2:4: error: a number of 5000 digits; numbers may have at most 15 digits; " \
        "raise it with --limit number_digits=N if you trust the file"


@pytest.mark.parametrize("char", ["\\e]8;;http://x\\a", "\\ud800", "\\x9b"])
def test_control_characters_and_lone_surrogates_are_refused(char):
    assert "which a model may not contain" in error(load_yaml, f'name: "a{char}b"\n', "c.yaml")


def test_files_are_checked_before_they_are_read(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (DEFAULT.file_bytes + 1))
    assert error(load_model, str(big)).endswith(
        f"error: the model file is {DEFAULT.file_bytes + 1} bytes; the limit is {DEFAULT.file_bytes} bytes; "
        "raise it with --limit file_bytes=N if you trust the file")
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    assert "is not a regular file" in error(load_model, str(fifo))  # and does not hang
    assert "is not a regular file" in error(read_untrusted, Path("/dev/zero"), "log file", ModelError)


def test_limits_can_be_raised_by_name():
    raise_limits(["yaml_nodes=200000", "number-digits=40"])
    assert limits().yaml_nodes == 200_000 and limits().number_digits == 40
    assert load_yaml("a: " + "9" * 30, "n.yaml")["a"] == int("9" * 30)
    assert "--limit needs NAME=N" in error(raise_limits, ["nodes=3"])


def test_squaring_definitions_stop_at_the_value_limit():
    defs = "".join(f"  d{i + 1}: d{i} * d{i}\n" for i in range(40))
    text = MINIMAL.replace("define:\n", "define:\n  d0: sum(dice) + 2\n" + defs) if "define:\n" in MINIMAL \
        else MINIMAL + "define:\n  d0: sum(dice) + 2\n" + defs
    message = error(load_source, text, "sq.yaml")
    assert "values must have at most 15 digits" in message


def test_markdown_pages_show_model_text_literally():
    from rulebook.tools.documents.pages import build_site
    text = MINIMAL.replace("name: {en: Mini, de: Mini, nl: Mini}", 'name: {en: "<script>alert(1)</script>", de: Mini, nl: Mini}') \
        .replace("rule: {en: the ones count,", 'rule: {en: "[click](javascript:alert(1)) | <img src=x onerror=alert(1)>",')
    files = build_site([load_source(text, "evil.yaml")], ["en"], "md")
    pages = "".join(v for k, v in files.items() if k.endswith(".md"))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages and "<script>" not in pages
    import re
    assert not re.search(r"(?<!\\)\]\(javascript:", pages) and "<img" not in pages
    assert "\\[click\\](javascript:alert(1)) \\| &lt;img" in pages


def test_the_terminal_prints_names_with_brackets_as_they_are(capsys):
    from rulebook.interpreter.play.game import Game, Seat
    from rulebook.tools.terminal.view import View
    text = MINIMAL.replace("name: {en: Ones, de: Einer, nl: Enen}", 'name: {en: "[/] [link=http://evil]x[/link]", de: Einer, nl: Enen}')
    game = Game(load_source(text, "m.yaml"), [Seat("[bold red]Ann[/]", "human")], 1)
    view = View("en")  # its own console: rich markup off
    view.console.width = 120
    game.apply(game.roll())
    view.board(game.state)
    shown = capsys.readouterr().out
    assert "[/] [link=http://evil]x[/link]" in shown and "[bold red]Ann[/]" in shown


def test_player_names_with_control_characters_are_refused():
    from rulebook.interpreter.play.game import parse_players
    assert "control characters" in error(parse_players, "\x1b]8;;http://evil\x07x:random")
    assert "at most 40 characters" in error(parse_players, "x" * 41 + ":random")
