"""`rulebook pages --format pdf`: a printed rule book and a blank score sheet per language (Chromium)."""
import os

import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.model.frozen import LANGUAGES

from conftest import require_tool


def _text(path) -> tuple[int, str]:
    pypdf = pytest.importorskip("pypdf") if not os.environ.get("RULEBOOK_REQUIRE_TOOLS") else __import__("pypdf")
    reader = pypdf.PdfReader(str(path))
    text = " ".join(page.extract_text() for page in reader.pages)
    return len(reader.pages), " ".join(text.replace("ﬀ", "ff").replace("ﬂ", "fl").replace("ﬁ", "fi").split())


@pytest.mark.slow
def test_pdf_rule_book_and_blank_sheet_per_language(cli, tmp_path, monkeypatch):
    require_tool("chromium")
    monkeypatch.delenv("RULEBOOK_CHROMIUM", raising=False)
    code, out, err = cli("pages", "yahtzee", "--format", "pdf", "-o", str(tmp_path))
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"yahtzee.{lang}{kind}.pdf" for lang in LANGUAGES for kind in ("", ".sheet"))
    model = load_model("yahtzee")
    for lang in LANGUAGES:
        pages, text = _text(tmp_path / f"yahtzee.{lang}.pdf")
        assert 3 <= pages <= 12, (lang, pages)
        missing = [b.name[lang] for b in model.boxes.values() if b.name[lang] not in text]
        assert missing == [], (lang, missing)
        sheet_pages, sheet = _text(tmp_path / f"yahtzee.{lang}.sheet.pdf")
        assert sheet_pages == 1  # one A4 page, as seed 000's sheet
        assert all(b.name[lang] in sheet for b in model.boxes.values())
        assert all(s.total[lang] in sheet for s in model.sections)
    assert "Auch bekannt als Kniffel" in _text(tmp_path / "yahtzee.de.pdf")[1]
    assert "Spiel 1" in _text(tmp_path / "yahtzee.de.sheet.pdf")[1]


def test_without_chromium_one_clear_line(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CHROMIUM", str(tmp_path / "no-such-browser"))
    code, out, err = cli("pages", "yahtzee", "--format", "pdf", "-o", str(tmp_path / "out"))
    assert code == 2 and out == ""
    assert err == ("rulebook: error: printing PDFs needs Chromium, which is not installed; "
                   "install it, e.g. apt-get install chromium (or set RULEBOOK_CHROMIUM)\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_the_printed_rule_book_has_no_engine_words_and_no_stranded_heading(cli, tmp_path, monkeypatch):
    """A leaflet: no 'who decides', seeds or the model in print, and no page that ends with a heading."""
    require_tool("chromium")
    pypdf = pytest.importorskip("pypdf")
    from rulebook.tools.documents.gamepage import chapters
    from rulebook.tools.documents.words import Words
    monkeypatch.delenv("RULEBOOK_CHROMIUM", raising=False)
    code, out, err = cli("pages", "yamb", "balut", "ship_captain_crew", "--lang", "de,nl", "--format", "pdf",
                         "-o", str(tmp_path))
    assert code == 0, err
    engine = {"de": ("Wer entscheidet", "Das Modell hinter diesen Regeln", "Zufallsfolge", "rulebook pages", "YAML"),
              "nl": ("Wie beslist", "Het model achter deze regels", "toevalsreeks", "rulebook pages", "YAML")}
    for name in ("yamb", "balut", "ship_captain_crew"):
        for lang in ("de", "nl"):
            w = Words(lang, "html")
            headings = set(chapters(w).values()) | {str(w._(t)) for t in (
                "A turn, step by step", "An example game", "One roll, every box", "Questions and answers",
                "Where the dice may go", "Counters")}
            reader = pypdf.PdfReader(str(tmp_path / f"{name}.{lang}.pdf"))
            texts = [page.extract_text() for page in reader.pages]
            assert not [e for e in engine[lang] if e in " ".join(texts)], (name, lang)
            last_lines = [t.strip().splitlines()[-1].strip() for t in texts[:-1] if t.strip()]
            assert not [line for line in last_lines if line in headings], (name, lang, last_lines)
