"""Shared fixtures: bundled models, a CLI runner, and skips that become failures in CI."""
from __future__ import annotations

import os
import shutil

import pytest

from rulebook.interpreter import load_model
from rulebook.tools.cli import main

# commands run by the tests write no progress lines to a captured stderr (tests/test_progress.py asks for them)
os.environ.setdefault("RULEBOOK_PROGRESS", "none")


def require_tool(name: str) -> str:
    """The path of a system tool; skip without it, except in CI (RULEBOOK_REQUIRE_TOOLS=1)."""
    path = shutil.which(name)
    if path is None:
        if os.environ.get("RULEBOOK_REQUIRE_TOOLS"):
            pytest.fail(f"{name} is required in CI but not installed")
        pytest.skip(f"{name} is not installed")
    return path


@pytest.fixture(scope="session")
def catalogs():
    """The German and Dutch message catalogs, by language."""
    from babel.messages.pofile import read_po
    from rulebook.tools.i18n import LOCALES_DIR
    out = {}
    for lang in ("de", "nl"):
        with (LOCALES_DIR / lang / "LC_MESSAGES" / "rulebook.po").open("rb") as f:
            out[lang] = read_po(f)
    return out


@pytest.fixture(scope="session")
def yahtzee():
    return load_model("yahtzee")


@pytest.fixture
def cli(capsys):
    """Run `rulebook ARGS…`; returns (exit code, stdout, stderr)."""
    def run(*args: str):
        code = main(list(args))
        out = capsys.readouterr()
        return code, out.out, out.err
    return run
