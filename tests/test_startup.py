"""Start-up: what `--help` and `score` import, the cached parser, the schema check skipped for a text
that passed it, pages reading each model once. (Times are in `python -m benchmarks startup`, not here.)"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rulebook.interpreter import loader
from rulebook.interpreter.yamlsource import load_yaml

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
    assert "jsonschema" in _imported(args, tmp_path)  # the first time the schema is checked
    assert _imported(args, tmp_path).isdisjoint({"numpy", "jsonschema"})


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
    code = ("from rulebook.interpreter.dsl.parser import _parser, _cache_file\n"
            "_parser(); print(_cache_file())")
    env = {"RULEBOOK_CACHE": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    cache = Path(out.strip())
    assert cache.parent == tmp_path and cache.stat().st_size > 1000
    cache.write_bytes(b"damaged")  # a damaged cache is rebuilt, not trusted
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert cache.stat().st_size > 1000


def test_yaml_errors_keep_the_python_loaders_words():
    source = "a: 1\nb: [1, 2\nc: 3\n"
    with pytest.raises(Exception) as info:
        load_yaml(source, "f.yaml")
    try:
        yaml.compose(source, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        assert exc.problem in str(info.value)
    assert "f.yaml:" in str(info.value)


def test_pages_read_each_model_once_and_keep_compiled_templates(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path))
    from rulebook.tools.commands import pages as command
    from rulebook.tools.documents import pages
    read = []
    real = loader.load_yaml
    monkeypatch.setattr(loader, "load_yaml", lambda source, file: read.append(file) or real(source, file))
    models = command.load_models(["yacht", "yahtzee"], {"joker": "free"})
    assert len(read) == 2 and models[1].option_values["joker"] == "free"
    pages._bytecode_cache.cache_clear()
    pages.environment.cache_clear()
    try:
        pages.build_site(models[:1], ["en"], "html")
        assert list((tmp_path / "templates").iterdir())  # compiled templates, kept for the next run
    finally:
        pages._bytecode_cache.cache_clear()
        pages.environment.cache_clear()
