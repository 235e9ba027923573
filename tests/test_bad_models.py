"""`rulebook check` on broken models: each file pins the exact first error line it must produce.

Every `tests/bad_models/*.yaml` starts with `# expect: <file>:<line>:<col>: error: <message>`; most are
`tests/bad_models/base/minimal.yaml` with one defect. The pinned line:col is the offending token.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from rulebook.interpreter.model.loader import bundled_models
from rulebook.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
BAD = sorted((ROOT / "tests" / "bad_models").glob("*.yaml"))


def expected_line(path: Path) -> str:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# expect: "), f"{path.name} must start with '# expect: <error line>'"
    return first.removeprefix("# expect: ")


def check(capsys, monkeypatch, *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(ROOT)  # error lines name files relative to the working directory
    code = main(["check", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_there_are_enough_bad_models():
    assert len(BAD) >= 30


@pytest.mark.parametrize("path", BAD, ids=[p.stem for p in BAD])
def test_bad_model_first_error(path, capsys, monkeypatch):
    relative = path.relative_to(ROOT).as_posix()
    code, out, err = check(capsys, monkeypatch, relative)
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert lines, "no error printed"
    assert lines[0] == expected_line(path)
    assert all(": error: " in line for line in lines), "every stderr line is one error"


@pytest.mark.parametrize("path", BAD, ids=[p.stem for p in BAD])
def test_pinned_position_is_inside_the_file(path):
    """line:col must name a real place: a character of that line, or just past its end."""
    line, col = (int(x) for x in expected_line(path).split(": error: ")[0].rsplit(":", 2)[1:])
    text = path.read_text(encoding="utf-8").splitlines()
    assert 1 <= line <= len(text)
    assert 1 <= col <= len(text[line - 1]) + 1


def test_base_model_is_valid(capsys, monkeypatch):
    code, out, err = check(capsys, monkeypatch, "tests/bad_models/base/minimal.yaml")
    assert (code, err) == (0, "")
    assert "ok (mini: 2 boxes, 2 options, 1-4 players)" in out


@pytest.mark.parametrize("name", sorted(bundled_models()))
def test_bundled_models_check_clean(name, capsys, monkeypatch):
    code, out, err = check(capsys, monkeypatch, f"rules/{name}.yaml")
    assert (code, err) == (0, "")
    assert out.startswith(f"rules/{name}.yaml: ok (")
