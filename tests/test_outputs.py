"""Every command that writes opens its output safely (issue 28): no link planted in an output folder
is followed, nothing is overwritten without --force, folders are checked before the long work, and
`new` never makes folders on the way."""
from __future__ import annotations

import os

import pytest

COMMANDS = {  # a command that writes FILE, fast
    "compare": ["compare", "yacht", "--variant", "yacht_toll=0", "--variant", "yacht_toll=10",
                "--games", "5", "--no-cache", "--plot"],
    "simulate": ["simulate", "yacht", "--games", "5", "--players", "a:greedy", "--plot"],
    "diagram": ["diagram", "yacht", "--format", "dot", "-o"],
}


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))


def _argv(command: str, path) -> list[str]:
    return list(COMMANDS[command]) + [str(path)]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_planted_link_is_not_written_through(cli, tmp_path, command):
    target = tmp_path / "victim.txt"
    target.write_text("precious")
    out = tmp_path / ("plot.svg" if command != "diagram" else "d.dot")
    out.symlink_to(target)
    code, _, err = cli(*_argv(command, out), "--force")
    assert code == 2 and "symbolic link" in err and err.count("\n") == 1
    assert target.read_text() == "precious"
    out.unlink()
    out.symlink_to(tmp_path / "nowhere.txt")  # dangling: writing would make the file it points to
    code, _, err = cli(*_argv(command, out))
    assert code == 2 and not (tmp_path / "nowhere.txt").exists()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_overwrite_without_force_and_no_missing_folder(cli, tmp_path, command):
    out = tmp_path / ("plot.svg" if command != "diagram" else "d.dot")
    out.write_text("mine")
    code, _, err = cli(*_argv(command, out))
    assert code == 2 and "--force" in err and out.read_text() == "mine"
    code, _, err = cli(*_argv(command, tmp_path / "no" / "such" / out.name))
    assert code == 2 and "does not exist" in err and err.count("\n") == 1
    code, _, err = cli(*_argv(command, tmp_path))  # a folder
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    code, _, err = cli(*_argv(command, out), "--force")
    assert code == 0, err
    assert out.read_text() != "mine"


def test_pages_never_write_through_links_planted_in_the_site(cli, tmp_path):
    site = tmp_path / "site"
    code, _, err = cli("pages", "yacht", "--lang", "en", "-o", str(site))
    assert code == 0, err
    victim = tmp_path / "victim.html"
    victim.write_text("precious")
    (site / "index.html").unlink()
    (site / "index.html").symlink_to(victim)
    code, _, err = cli("pages", "yacht", "--lang", "en", "-o", str(site), "--force")
    assert code == 0, err
    assert victim.read_text() == "precious" and not (site / "index.html").is_symlink()
    # a folder of the site replaced by a link to somewhere else: refused, nothing written there
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    static = next(p for p in site.iterdir() if p.is_dir())
    import shutil
    shutil.rmtree(static)
    static.symlink_to(elsewhere, target_is_directory=True)
    code, _, err = cli("pages", "yacht", "--lang", "en", "-o", str(site), "--force")
    assert code == 2 and "symbolic link" in err and list(elsewhere.iterdir()) == []


def test_play_log_refuses_an_empty_file_and_a_dangling_link(cli, tmp_path, monkeypatch):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    code, _, err = cli("play", "yacht", "--players", "a:random", "--seed", "1", "--log", str(empty))
    assert code == 2 and "exists already" in err and empty.read_text() == ""
    link = tmp_path / "link.jsonl"
    link.symlink_to(tmp_path / "made.jsonl")
    code, _, err = cli("play", "yacht", "--players", "a:random", "--seed", "1", "--log", str(link))
    assert code == 2 and not (tmp_path / "made.jsonl").exists()
    code, _, err = cli("play", "yacht", "--players", "a:random", "--seed", "1", "--log", str(tmp_path / "new.jsonl"))
    assert code == 0, err
    assert (tmp_path / "new.jsonl").read_text().count("\n") > 10


def test_new_refuses_a_missing_folder(cli, tmp_path):
    code, _, err = cli("new", "yacht", str(tmp_path / "no" / "such" / "x.yaml"))
    assert code == 2 and "does not exist" in err and not (tmp_path / "no").exists()
    code, out, err = cli("new", "yacht", str(tmp_path / "x.yaml"))
    assert code == 0, err
    code, _, err = cli("new", "yacht", str(tmp_path / "x.yaml"))
    assert code == 2 and "--force" in err
    os.remove(tmp_path / "x.yaml")
