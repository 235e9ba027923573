"""Numbers, percentages, progress and a resumed game in the user's language."""
import io
import sys

from rich.progress import Progress

from rulebook.tools.cli import main
from rulebook.tools.i18n import number, options_text, percent
from rulebook.tools.progress import _count_column
from rulebook.interpreter import load_model


def test_numbers_and_percentages_the_local_way():
    assert [percent(0.34, lang) for lang in ("en", "de", "nl")] == ["34.0%", "34,0\u00a0%", "34,0%"]
    assert [number(251.125, lang, 2) for lang in ("en", "de", "nl")] == ["251.12", "251,12", "251,12"]
    assert number(4096, "de") == "4.096"


def test_option_values_by_name_not_by_id():
    text = options_text(load_model("yahtzee"), "de")
    assert text == "Joker-Regel: Pflicht, Bonusschwelle: 63, Bonus oben: 35, Yahtzee zählt als Full House: nein"


def test_progress_shows_no_none_before_the_total_is_known():
    with Progress(_count_column()) as bar:
        task = bar.add_task("x", total=None)
        assert str(_count_column().render(bar.tasks[task])) == ""
        bar.update(task, completed=3, total=8)
        assert str(_count_column().render(bar.tasks[task])) == "3/8"


def test_a_resumed_game_speaks_the_language_it_was_saved_in(tmp_path, monkeypatch, capsys):
    for var in ("RULEBOOK_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    save = tmp_path / "game.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "yacht", "--players", "Anna:human", "--seed", "1", "--lang", "nl", "--save", str(save)]) == 0
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO("keep 9\n"))
    code = main(["play", "--resume", str(save)])
    out = capsys.readouterr()
    assert code == 2
    assert out.err.startswith("stdin:1:1: fout: je kunt 9 niet houden"), out.err
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--resume", str(save), "--lang", "de"]) == 0  # an explicit --lang wins
    assert "Gespeichert" in capsys.readouterr().out
