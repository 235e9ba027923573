"""An announcement that cannot be kept (issue 28): `check` refuses a model whose write rule may refuse
the announced box, or whose turn writes twice after one announcement; with `otherwise: scratch`
the engine writes 0 into the announced box."""
from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from rulebook.interpreter.model.errors import ErrorList
from rulebook.interpreter.model.loader import load_source

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hostile import _minimal  # noqa: E402
from hostile_two import announce_holes  # noqa: E402

BAD = Path(__file__).resolve().parent / "bad_models"


@pytest.mark.parametrize("name, file", [("announce-rule", "announce_box_the_rule_refuses"),
                                        ("announce-twice", "announce_then_two_writes")])
def test_the_corpus_models_are_the_bad_models(name, file):
    text = (BAD / f"{file}.yaml").read_text(encoding="utf-8")
    assert text.split("\n", 1)[1] == announce_holes(_minimal)[name].split("\n", 1)[1]


def test_a_write_rule_that_refuses_the_announced_box_is_refused():
    with pytest.raises(ErrorList) as info:
        load_source(announce_holes(_minimal)["announce-rule"], "m.yaml")
    assert str(info.value) == ("m.yaml:76:20: error: the write rule of step 'write' lets no box take the roll 1 2 3 4 5 "
                               "after 'pairs' was announced on the empty sheet; allow an announced box every roll, or say "
                               "what happens then with 'otherwise: scratch'")


def test_two_writes_after_one_announcement_are_refused():
    with pytest.raises(ErrorList) as info:
        load_source(announce_holes(_minimal)["announce-twice"], "m.yaml")
    assert str(info.value).startswith("m.yaml:57:11: error: after the announcement at step 'call' a turn can write 2 "
                                      "times, but an announcement names the box of one write")


def test_with_otherwise_scratch_the_announced_box_takes_a_zero(cli, monkeypatch, tmp_path):
    text = announce_holes(_minimal)["announce-rule"].replace("          allowed: >-", "          otherwise: scratch\n          allowed: >-")
    model = tmp_path / "m.yaml"
    model.write_text(text, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO("announce pairs\nstop\nwrite pairs\nquit\n"))
    code, out, err = cli("--lang", "en", "play", str(model), "--players", "Ann:human", "--seed", "7")
    assert "Ann rolls 1 2 3 4 6" in out and "Ann announces Pair" in out and "Ann writes 0 points in Pair" in out, out + err
    assert "error" not in err.replace("the input ended", ""), err
