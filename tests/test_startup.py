"""Start-up: what `--help` and `score` import, the cached parser, the schema check skipped for a text
that passed it, pages reading each model once. (Times are in `python -m benchmarks startup`, not here.)"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jinja2
import pytest
import yaml

from rulebook.interpreter.model import cachedir, loader
from rulebook.interpreter.model.yamlsource import load_yaml

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "jsonschema", "rich", "lark")


def _imported(args: list[str], tmp_path) -> set[str]:
    code = ("import sys, runpy\n"
            f"sys.argv = ['rulebook'] + {args!r}\n"
            "from rulebook.tools.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            f"print('MODULES', ' '.join(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})), file=sys.stderr)\n")
    env = {"RULEBOOK_CACHE": str(tmp_path), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    line = next(line for line in proc.stderr.splitlines() if line.startswith("MODULES"))
    return set(line.split()[1:])


def test_help_imports_no_numpy_jsonschema_rich_or_lark(tmp_path):
    assert _imported(["--help"], tmp_path) == set()
    assert _imported([], tmp_path) == set()


def test_score_imports_neither_numpy_nor_jsonschema_once_the_model_was_seen(tmp_path):
    args = ["score", "yahtzee", "--dice", "2,2,4,3,4", "--json"]
    assert {"jsonschema", "lark"} <= _imported(args, tmp_path)  # the first time: schema checked, text parsed
    assert _imported(args, tmp_path) == set()  # then: no schema check, the trees from the cache, no numpy
    assert _imported(args[:-1], tmp_path) == set()  # the table is drawn without rich


def test_the_score_table_looks_as_rich_draws_it(tmp_path):
    import io

    from rich.console import Console
    from rich.table import Table

    from rulebook.tools.terminal.plaintable import render
    rows = [["Ones", "0", ""], ["Große Straße", "40", "100"], ["(no open box may take these dice)", "", ""]]
    table = Table(title="Yahtzee: 2 2 4 3 4")
    for i, name in enumerate(["Box", "Points", "Write bonus"]):
        table.add_column(name, justify="right" if i else "left")
    for row in rows:
        table.add_row(*row)
    out = io.StringIO()
    Console(file=out, width=200, highlight=False, markup=False, color_system=None).print(table)
    ours = render("Yahtzee: 2 2 4 3 4", ["Box", "Points", "Write bonus"], rows, right={1, 2})
    assert ours.splitlines() == [line.rstrip("\n") for line in out.getvalue().splitlines()]
    ascii_table = render("T", ["Box"], [["Ones"]], encoding="ascii")
    assert ascii_table.encode("ascii") and "| Ones |" in ascii_table


def test_libyaml_reads_every_file_as_the_python_loader_does(monkeypatch):
    """The C loader is only a faster way to the same result: positions, texts, numbers, refusals."""
    from rulebook.interpreter.model import yamlsource
    from rulebook.interpreter.model.errors import RulebookError
    from rulebook.interpreter.model.limits import Limits, set_limits

    def dump(x):
        if isinstance(x, yamlsource.Node):
            return ("map", x.pos, [(k, x.key_pos[k], x.value_pos[k], dump(v)) for k, v in x.items()])
        if isinstance(x, yamlsource.Seq):
            return ("seq", x.pos, x.item_pos, [dump(v) for v in x])
        if isinstance(x, yamlsource.Text):
            return ("text", str(x), x.pos, x.raw, x.at(len(x) // 2))
        return (type(x).__name__, x)

    def both(text: str):
        out = []
        for fast in (True, False):
            if not fast:
                monkeypatch.setattr(yamlsource, "_fast_root", lambda source, file: None)
            try:
                out.append(dump(load_yaml(text, "f.yaml")))
            except RulebookError as exc:
                out.append(("refused", str(exc)))
            monkeypatch.undo()
        return out

    texts = [p.read_text(encoding="utf-8") for p in sorted(ROOT.rglob("*.yaml")) if ".venv" not in p.parts]
    texts += ["a: 'it''s'\nb: \"\\u00e9t\\xe9\"\nc: |\n  Straße\n  zwei\nd: >-\n  een\n  twee\n",
              "a: [1, 2\n", "\ufeffa: 1\nb: Über\n", "a: &x [1, *x]\n", "[" * 5000 + "]" * 5000,
              "a: " + "9" * 40 + "\n", "a: 1\na: 2\n", "", "a: \"x\\x01\"\n", "a:\tb\n", "- a\n- b: c\n  d: e\n"]
    assert yamlsource._fast_root(texts[0], "f.yaml") is not None  # libyaml is there and used
    for text in texts:
        fast, python = both(text)
        assert fast == python, text[:80]
    set_limits(Limits(yaml_nodes=50))
    try:
        fast, python = both("\n".join(f"- {i}" for i in range(100)))
        assert fast == python and "more than 50 values" in fast[1]
    finally:
        set_limits(Limits())


def test_the_schema_is_checked_once_per_text(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path))
    calls = []
    real = loader._schema_errors
    monkeypatch.setattr(loader, "_schema_errors", lambda data, file: calls.append(file) or real(data, file))
    loader.load_model("yacht")
    loader.load_model("yacht")
    assert len(calls) == 1
    loader.load_model("yacht", validate=True)
    assert len(calls) == 2
    text = (ROOT / "rules" / "yacht.yaml").read_text(encoding="utf-8")
    loader.load_source(text.replace("id: yacht", "id: yacht2", 1), "y2.yaml")  # another text: checked
    assert len(calls) == 3
    broken = text.replace("kind: write", "kind: writ", 1)
    for _ in range(2):  # a text that fails is never noted as passing
        with pytest.raises(Exception):
            loader.load_source(broken, "b.yaml")
    assert len(calls) == 5


def test_the_parser_is_kept_in_the_cache_directory(tmp_path):
    code = ("from rulebook.interpreter.model.dsl.parser import _parser, _cache_file\n"
            "_parser(); print(_cache_file())")
    env = {"RULEBOOK_CACHE": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    cache = Path(out.strip())
    assert cache.parent == tmp_path and cache.stat().st_size > 1000
    cache.write_bytes(b"damaged")  # a damaged cache is rebuilt, not trusted
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert cache.stat().st_size > 1000
    # a pickle planted there (it would make a file when unpickled) is never loaded: no seal, rebuilt
    import pickle
    planted = tmp_path / "planted"

    class Evil:
        def __reduce__(self):
            return (open, (str(planted), "w"))

    cache.write_bytes(pickle.dumps(Evil()))
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert not planted.exists() and cache.read_bytes().startswith(b"rulebook-seal-1 ")


def test_yaml_errors_say_the_python_loaders_problem_at_its_position():
    """libyaml reads the text, but an error is said at the place and in the words of PyYAML's own
    loader (its problem and context, put into the catalogs' words: 'found', 'while reading a list')."""
    source = "a: 1\nb: [1, 2\nc: 3\n"
    with pytest.raises(Exception) as info:
        load_yaml(source, "f.yaml")
    with pytest.raises(yaml.MarkedYAMLError) as plain:
        yaml.compose(source, Loader=yaml.SafeLoader)
    mark = plain.value.problem_mark
    assert str(info.value).startswith(f"f.yaml:{mark.line + 1}:{mark.column + 1}: ")
    assert "expected ',' or ']', but found ':'" in str(info.value)
    assert "from line 2" in str(info.value)


def test_pages_read_each_model_once_and_keep_compiled_templates(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path))
    from rulebook.tools.commands import pages as command
    from rulebook.tools.documents import pages, templatecache
    read = []
    real = loader.load_yaml
    monkeypatch.setattr(loader, "load_yaml", lambda source, file: read.append(file) or real(source, file))
    models = command.load_models(["yacht", "yahtzee"], {"joker": "free"})
    assert len(read) == 2 and models[1].option_values["joker"] == "free"
    templatecache.bytecode_cache.cache_clear()
    pages.environment.cache_clear()
    try:
        pages.build_site(models[:1], ["en"], "html")
        kept = [p for d in (tmp_path / "templates").iterdir() for p in d.iterdir()]
        assert kept  # compiled templates, kept for the next run, sealed
        assert all(p.read_bytes().startswith(b"rulebook-seal-1 ") for p in kept)
        # marshalled code planted there (it would run when the template loads) is never loaded
        for p in kept:
            p.write_bytes(p.read_bytes().split(b"\n", 1)[1])
        templatecache.bytecode_cache.cache_clear()
        pages.environment.cache_clear()
        loaded = []
        monkeypatch.setattr(jinja2.bccache.Bucket, "bytecode_from_string",
                            lambda self, data: loaded.append(data))
        pages.build_site(models[:1], ["en"], "html")
        assert loaded == []
    finally:
        templatecache.bytecode_cache.cache_clear()
        pages.environment.cache_clear()


def test_kept_templates_never_run_under_another_escaping(tmp_path, monkeypatch):
    """Markdown compiled without its escaping (an older rulebook, or HTML's setting) is not reused."""
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path))
    from rulebook.tools.documents import pages, templatecache
    text = (ROOT / "tests" / "bad_models" / "base" / "minimal.yaml").read_text(encoding="utf-8").replace(
        "name: {en: Mini, de: Mini, nl: Mini}", 'name: {en: "<script>alert(1)</script>", de: Mini, nl: Mini}')
    model = loader.load_source(text, "evil.yaml")
    real = pages.markdown_text
    try:
        for escape in (False, True):  # first as if the Markdown setting had no escaping, then as it is
            templatecache.bytecode_cache.cache_clear()
            pages.environment.cache_clear()
            monkeypatch.setattr(pages, "markdown_text", real if escape else None)
            files = pages.build_site([model], ["en"], "md")
        assert all("<script>" not in v for k, v in files.items() if k.endswith(".md"))
    finally:
        templatecache.bytecode_cache.cache_clear()
        pages.environment.cache_clear()


def test_expression_trees_are_kept_and_a_damaged_file_is_rebuilt(tmp_path, monkeypatch):
    from rulebook.interpreter.model.dsl import parser, treecache
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path))
    parsed = []
    real = parser._parse
    monkeypatch.setattr(parser, "_parse", lambda text: parsed.append(text) or real(text))
    text = (ROOT / "rules" / "yacht.yaml").read_text(encoding="utf-8").replace("id: yacht", "id: yacht_trees", 1)
    parser._memos.clear()
    first = loader.load_source(text, "t.yaml")
    assert parsed  # parsed once …
    file = treecache.path(text)
    assert file.parent == tmp_path / "dsl-trees" and file.exists()
    kept = json.loads(cachedir.read_sealed(file))["trees"]
    assert set(kept) == set(parsed)
    parsed.clear()
    parser._memos.clear()  # a new run: only the file knows the trees
    again = loader.load_source(text, "t.yaml")
    assert parsed == []  # … and read back from the file
    from rulebook.interpreter.model.dice import multisets
    from rulebook.interpreter.model.scoring import Scorer
    rolls = multisets(5, 6)
    assert [Scorer(first).choices(list(r), {}) for r in rolls] == [Scorer(again).choices(list(r), {}) for r in rolls]
    some = next(iter(kept))
    for damage in (b"{not json", json.dumps({"key": treecache.key(text), "trees": {some: ["number", 1]}}).encode(),
                   json.dumps({"key": treecache.key(text), "trees": {some: ["evil", None, 0, 0, []]}}).encode(),
                   json.dumps({"key": "0" * 64, "trees": kept}).encode(),
                   file.read_bytes().split(b"\n", 1)[1]):  # the very trees, but without their seal
        file.write_bytes(damage)
        parsed.clear()
        parser._memos.clear()
        loader.load_source(text, "t.yaml")
        assert parsed, damage  # not trusted: parsed again …
        assert json.loads(cachedir.read_sealed(file))["trees"] == kept  # … and written anew
    # (and the grammar's own cache, `dsl-parser-*.lark`, if this process had not built the parser yet: whether it
    # had depends on which tests ran before this one in the same worker)
    made = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("dsl-parser-"))
    assert made == ["dsl-trees", "sound-models", "valid-models"]


def test_a_model_found_sound_is_not_checked_again(tmp_path, monkeypatch):
    from rulebook.interpreter.model import soundness
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path))
    calls = []
    real = soundness._check_writes
    monkeypatch.setattr(soundness, "_check_writes", lambda model: calls.append(model.id) or real(model))
    text = (ROOT / "rules" / "yahtzee.yaml").read_text(encoding="utf-8").replace("id: yahtzee", "id: ysound", 1)
    loader.load_source(text, "s.yaml")
    assert calls == ["ysound"]
    soundness._CHECKED.clear()  # a new run
    loader.load_source(text, "s.yaml")
    assert calls == ["ysound"]  # the note says it is sound
    loader.load_source(text, "s.yaml", {"joker": "free"})
    assert calls == ["ysound", "ysound"]  # other options: checked
    soundness._CHECKED.clear()
    broken = text.replace("id: ysound", "id: ysound2", 1)
    loader.load_source(broken, "s.yaml")
    assert calls[-1] == "ysound2"  # another text: checked


def test_a_planted_sound_marker_is_not_believed(tmp_path, monkeypatch):
    """An empty file put where the "found sound" note goes (without the user's seal) does not let a
    model the check refuses pass: the check runs."""
    from rulebook.interpreter.model import soundness
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path))
    model = loader.load_source((ROOT / "rules" / "yacht.yaml").read_text(encoding="utf-8"), "y.yaml")
    options = tuple(sorted((k, str(v)) for k, v in model.option_values.items()))
    marker = soundness._sound_marker(model, options)
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_bytes(b"")
    soundness._CHECKED.clear()
    calls = []
    real = soundness._check_writes
    monkeypatch.setattr(soundness, "_check_writes", lambda m: calls.append(m.id) or real(m))
    assert soundness.check_soundness(model) == [] and calls == ["yacht"]
    assert cachedir.marked(marker)  # now noted, sealed
