"""Not one English word where a German or Dutch user looks.

Every output is produced in German and Dutch over every bundled model: the rule pages (with their
inline diagram), both diagrams, the terminal (a whole game, a scripted human session with help,
hint and wrong moves, a resumed game, replay, score, check, simulate with its plot, solve, diagram,
pages, new), the errors of every command, and the web app's pages. The same outputs in English give
the English vocabulary; a word of it that is no word of the language (its catalog, its model texts,
its step templates) and not on the short allowlist is a leak.
"""
from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

import html5lib
import pytest
import yaml
from babel.messages.pofile import read_po

from rulebook.interpreter.model.loader import bundled_models, load_model
from rulebook.tools.cli import COMMANDS, main
from rulebook.tools.documents import describe, pages
from rulebook.tools.documents.diagram import render_svg
from rulebook.tools.i18n import LOCALES_DIR

# Words the languages use as they are (at most 10): the program's and file formats' names.
ALLOWLIST = frozenset({"rulebook", "yaml", "json", "svg", "png", "pdf", "utf"})
assert len(ALLOWLIST) <= 10

# What the test itself types (player names, file names) and the commands' names: not English text.
INPUTS = frozenset({"anna", "bert", "stdin", "mine", "site", "en", "de", "nl"}) | frozenset(COMMANDS)

# Plain English that must never show, whatever the vocabulary walk finds.
ENGLISH_CORE = frozenset("""the and of not with must cannot error interrupted solving games game share
player players points point score scores roll rolls dice keep write turn round rounds wins ended input
none total box boxes already filled rules move moves there only your you when would could file""".split())

WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ]{2,}")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
SVG = "{http://www.w3.org/2000/svg}"
XLINK_TITLE = "{http://www.w3.org/1999/xlink}title"
MODELS = tuple(bundled_models())


def words(text: str, quoted: bool = False) -> set[str]:
    if not quoted:
        text = re.sub(r"'[^'\n]{1,60}'", " ", text)  # 'quoted': what the user typed, or an id to type
    text = re.sub(r"\S*[/\\]\S*|\S+\.(yaml|json|jsonl|svg|png|pdf|html|md)\b", " ", text)  # paths, files
    return {w.lower() for w in WORD.findall(text)}


# what is a word of German or Dutch -----------------------------------------------------------------

@lru_cache(maxsize=None)
def language_words(lang: str) -> frozenset[str]:
    out: set[str] = set()
    with (LOCALES_DIR / lang / "LC_MESSAGES" / "rulebook.po").open("rb") as f:
        for m in read_po(f):
            if m.id:
                for s in (m.string if isinstance(m.string, tuple) else [m.string]):
                    out |= words(s)

    def walk(node):
        if isinstance(node, dict):
            if lang in node and isinstance(node[lang], str):
                out.update(words(node[lang]))
            if lang in node and isinstance(node[lang], list):  # also_known_as
                out.update(w for name in node[lang] for w in words(str(name)))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    for path in bundled_models().values():
        walk(yaml.safe_load(path.read_text(encoding="utf-8")))
    for kind in describe.STEP_KINDS.values():
        for source in kind.templates[lang].values():
            out |= words(source, quoted=True)
    for source in describe.PHRASES[lang].values():
        out |= words(source, quoted=True)
    return frozenset(out)


# collecting outputs -----------------------------------------------------------------------------

def page_texts(text: str) -> list[str]:
    """Visible, translatable texts of an HTML page (code marked translate="no" left out), SVG included."""
    root = html5lib.HTMLParser(namespaceHTMLElements=False).parse(text)
    page_lang = root.get("lang")
    out: list[str] = []

    def walk(el, translate: bool):
        translate = (translate and el.get("translate") != "no" and el.tag not in ("code", "pre", "kbd")  # keycaps too
                     and el.get("lang", page_lang) == page_lang)  # "English" in the language switcher
        if el.tag in ("script", "style", "template") or el.get("hidden") is not None:
            return
        if translate:
            out.append(el.text or "")
            out.extend(el.get(a) or "" for a in ("alt", "title", "aria-label", "placeholder"))
            if el.tag == "meta" and el.get("name") == "description":
                out.append(el.get("content") or "")
            out.extend(v for k, v in el.attrib.items() if k.endswith("title"))
        for child in el:
            walk(child, translate)
            if translate:
                out.append(child.tail or "")
    walk(root, True)
    return [t for t in out if t.strip()]


def svg_texts(svg: str) -> list[str]:
    root = ET.fromstring(svg[svg.find("<svg"):].encode())
    out = []
    for el in root.iter():
        if el.tag in (f"{SVG}text", f"{SVG}title"):
            out.append("".join(el.itertext()))
        out.append(el.get(XLINK_TITLE) or "")
        out.append(el.get("aria-label") or "")
    return [t for t in out if t.strip()]


def run(capsys, monkeypatch, lang: str, *args: str, stdin: str = "") -> str:
    import io
    import sys
    monkeypatch.setenv("RULEBOOK_LANG", lang)
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    main(list(args))
    out = capsys.readouterr()
    return ANSI.sub("", out.out + "\n" + out.err)


def cli_outputs(capsys, monkeypatch, tmp_path: Path, lang: str) -> dict[str, str]:
    """What each command prints, in `lang`: normal runs and errors."""
    d = tmp_path / lang
    d.mkdir()
    r = lambda *a, stdin="": run(capsys, monkeypatch, lang, *a, stdin=stdin)  # noqa: E731
    out: dict[str, str] = {}
    for name in MODELS:
        model = load_model(name)
        example = next((b.example for b in model.boxes.values() if b.example), (1,) * model.n_dice)  # (no boxes: any roll)
        out[f"check {name}"] = r("check", name)
        out[f"score {name}"] = r("score", name, "--dice", ",".join(map(str, example)))
        out[f"play {name}"] = r("play", name, "--players", "Anna:greedy,Bert:random", "--seed", "3",
                                "--log", str(d / f"{name}.jsonl"))
        out[f"replay {name}"] = r("replay", str(d / f"{name}.jsonl"))
        out[f"simulate {name}"] = r("simulate", name, "--games", "5", "--players", "Anna:greedy,Bert:random",
                                    "--plot", str(d / f"{name}.svg"))  # (two players: every game takes two)
        out[f"plot {name}"] = " ".join(svg_texts((d / f"{name}.svg").read_text(encoding="utf-8")))
    if "review" in COMMANDS:
        out["review"] = r("review", str(d / "yacht.jsonl"))
    session = "\n".join(["help", "sheet", "hint", "keep 9", "pos 7", "frobnicate", "stop", "write nosuch",
                         "write fourz", "quit"]) + "\n"
    out["play session"] = r("play", "yacht", "--players", "Anna:human,Bert:greedy", "--seed", "5",
                            "--save", str(d / "s.json"), stdin=session)
    out["play resumed"] = r("play", "--resume", str(d / "s.json"), stdin="keep 1\n")  # input ends mid-game
    out["solve"] = r("solve", "yacht")
    if "compare" in COMMANDS:
        yacht = str(bundled_models()["yacht"])
        out["compare"] = r("compare", "yacht", "--model", yacht, "--games", "3", "--no-cache",
                           "--plot", str(d / "compare.svg"))
        out["compare plot"] = " ".join(svg_texts((d / "compare.svg").read_text(encoding="utf-8")))
    out["diagram"] = r("diagram", "yahtzee", "-o", str(d / "y.svg"))
    out["pages"] = r("pages", "yacht", "-o", str(d / "site"))
    out["new"] = r("new", "yacht", str(d / "mine.yaml"))
    errors = {
        "check": [("check", "nosuch"), ("check", "yahtzeee"), ("check", "yahtzee", "--option", "joker=sometimes"),
                  ("check", "yahtzee", "--option", "upper_bonus=lots"), ("check", "yahtzee", "--option", "bogus=1")],
        "score": [("score", "yahtzee", "--dice", "1,2,3,4,9"), ("score", "yahtzee", "--dice", "1,2"),
                  ("score", "yahtzee", "--dice", "x"), ("score", "yahtzee", "--dice", "1,2,3,4,5", "--sheet", "{"),
                  ("score", "yahtzee", "--dice", "1,2,3,4,5", "--sheet", '{"fourz": 1}')],
        "play": [("play", "yahtzee", "--players", "Anna:wizard"), ("play", "yahtzee", "--players", ""),
                 ("play", "--resume", str(d / "missing.json")), ("play", "--resume", str(d / "y.svg")),
                 ("play", "yacht", "--players", "Anna:human", "--seed", "1")],
        "replay": [("replay", str(d / "missing.jsonl")), ("replay", str(d / "s.json"))],
        "review": [("review", str(d / "qwixx.jsonl")), ("review", str(d / "missing.jsonl"))],
        "simulate": [("simulate", "yahtzee", "--games", "0"), ("simulate", "yahtzee", "--players", "Anna:human"),
                     ("simulate", "yahtzee", "--plot", str(d / "p.png"))],
        "solve": [("solve", "nosuch")],
        "diagram": [("diagram", "yahtzee", "-f", "png", "-o", "-"), ("diagram", "nosuch")],
        "pages": [("pages", "yahtzee", "--lang", "fr", "-o", str(d / "x")), ("pages", "yahtzee", "-o", str(d / "y.svg"))],
        "new": [("new", "yahtzee", str(d / "mine.yaml")), ("new", "yahtzee", str(d / "x.txt"))],
        "serve": [("serve", "--port", "99999")],
        "lang": [("--lang", "fr", "check", "yahtzee")],
    }
    for command, calls in errors.items():
        out[f"errors {command}"] = "\n".join(r(*call) for call in calls)
    return out


def web_outputs(tmp_path: Path, lang: str) -> dict[str, str]:
    from starlette.testclient import TestClient

    from rulebook.tools.serve import create_app
    out = {}
    with TestClient(create_app(tmp_path / f"{lang}.sqlite3", pace=0), base_url="http://localhost") as client:
        client.get(f"/?lang={lang}")  # the language sticks (cookie)
        for url in ["/", "/new/yahtzee", "/watch/yahtzee"]:
            out[f"web {url}"] = " ".join(page_texts(client.get(url).text))
        r = client.post("/api/tables", json={"model": "yacht", "seats": [{"name": "Anna", "kind": "human"},
                                                                         {"name": "Bert", "kind": "greedy"}]})
        assert r.status_code == 201, r.text
        table = r.json()["table"]
        for url in [f"/t/{table}", f"/t/{table}/watch", f"/t/{table}/join"]:
            out[f"web {url}"] = " ".join(page_texts(client.get(url).text))
    return out


# the test -----------------------------------------------------------------------------------------

def leaks_in(outputs: dict[str, str], english: set[str], lang: str) -> dict[str, list[str]]:
    foreign = (english | ENGLISH_CORE) - language_words(lang) - ALLOWLIST - INPUTS
    found = {}
    for where, text in outputs.items():
        bad = sorted(words(text) & foreign)
        if bad:
            found[where] = bad
    return found


def all_outputs(lang: str, capsys, monkeypatch, tmp_path: Path) -> dict[str, str]:
    """Every output in one language: pages, diagrams, the terminal and its errors, the web app."""
    outputs: dict[str, str] = {}
    files = pages.build_site([load_model(n) for n in MODELS], [lang], "html")
    for name, text in files.items():
        if name.endswith(".html"):
            outputs[f"page {name}"] = " ".join(page_texts(text))
    for name in MODELS:
        for what in ("flow", "scoring"):
            outputs[f"diagram {name} {what}"] = " ".join(svg_texts(render_svg(load_model(name), lang, what)))
    outputs |= cli_outputs(capsys, monkeypatch, tmp_path, lang)
    outputs |= web_outputs(tmp_path, lang)
    assert len(outputs) > 10 * len(MODELS)
    assert all(text.strip() for text in outputs.values()), [k for k, v in outputs.items() if not v.strip()]
    return outputs


@pytest.mark.slow
def test_no_english_in_german_and_dutch_output(capsys, monkeypatch, tmp_path):
    english = all_outputs("en", capsys, monkeypatch, tmp_path)
    vocabulary = {w for text in english.values() for w in words(text)}
    with (LOCALES_DIR / "de" / "LC_MESSAGES" / "rulebook.po").open("rb") as f:  # and every English message
        for m in read_po(f):
            if m.id:
                vocabulary |= {w for s in (m.id if isinstance(m.id, tuple) else [m.id]) for w in words(s)}
    assert {"wrote", "games", "share", "error"} <= vocabulary
    report = []
    for lang in ("de", "nl"):
        leaks = leaks_in(all_outputs(lang, capsys, monkeypatch, tmp_path), vocabulary, lang)
        report += [f"{lang} {k}: {' '.join(v)}" for k, v in leaks.items()]
    assert report == [], "English in the output:\n" + "\n".join(report)


def test_the_detector_finds_english_and_spares_german():
    english = {"solving", "interrupted", "spieler"}
    found = leaks_in({"a": "Spieler würfelt 1 2 3", "b": "solving was interrupted: 34,0 %", "c": "rulebook: Fehler: x"},
                     english, "de")
    assert found == {"b": ["interrupted", "solving"]}
