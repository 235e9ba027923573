"""Shared fixtures: bundled models, a CLI runner, and skips that become failures in CI; how the suite
runs in parallel (pytest-xdist, `make test`)."""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest


def _keep_bytecode() -> None:
    """Where PYTHONDONTWRITEBYTECODE is set, keep the compiled bytecode of this run (the test modules
    pytest rewrites, rulebook's modules each `python -m rulebook.interpreter` the tests start imports)
    in a folder of this user's own outside the source tree (PYTHONPYCACHEPREFIX), instead of compiling
    it again in every worker and every subprocess; the tree stays free of __pycache__. A folder that
    another user made or can write is not used (bytecode is code)."""
    if not sys.flags.dont_write_bytecode or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    where = Path(tempfile.gettempdir()) / f"rulebook-tests-pycache-{os.getuid()}"
    try:
        where.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(where)
    except OSError:
        return
    if not os.path.isdir(where) or os.path.islink(where) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return
    sys.pycache_prefix, sys.dont_write_bytecode = str(where), False
    os.environ["PYTHONPYCACHEPREFIX"] = str(where)  # for the pytest-xdist workers and every subprocess
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


if hasattr(os, "getuid"):
    _keep_bytecode()

from rulebook.interpreter import load_model  # noqa: E402
from rulebook.tools.cli import main  # noqa: E402

# commands run by the tests write no progress lines to a captured stderr (tests/test_progress.py asks for them)
os.environ.setdefault("RULEBOOK_PROGRESS", "none")

# Under pytest-xdist each worker keeps a cache folder of its own, inside the one it was given: two
# solves of one table at once in one folder would share a checkpoint file.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
if _WORKER:
    from rulebook.interpreter.model.cachedir import folder as _cache_folder
    _given = _cache_folder()
    if _given is not None:
        (_given / "xdist" / _WORKER).mkdir(mode=0o700, parents=True, exist_ok=True)
        (_given / "xdist").chmod(0o700)
        os.environ["RULEBOOK_CACHE"] = str(_given / "xdist" / _WORKER)

# Modules whose tests are independent of each other's fixtures (each builds what it needs) and so
# may be spread over the workers one test at a time; every other module runs whole on one worker,
# so a module-scoped fixture (a solved table, a server, the site the readers walk builds) is made once.
SPREAD = {"test_hostile_corpus"}
# Modules that take longest: started first, so no worker is left with one of them at the end.
FIRST = ("test_hostile_corpus", "test_readers_walk")


def pytest_configure(config):
    config.addinivalue_line("markers", "xdist_group(name): run with the other tests of the group on one worker")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Order the long modules first and group every other module's tests (for `--dist loadgroup`)."""
    def module(item) -> str:
        return Path(str(item.fspath)).stem

    rank = {name: i for i, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(module(item), len(FIRST)))  # stable: the rest keep their order
    for item in items:
        if module(item) not in SPREAD and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(module(item)))


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
