"""Round two of the hostile corpus (issue 28): what was added since the first corpus.

Classes: alias scalar bombs, names that make file names too long, rich markup and terminal escapes
in names shown by `compare`, SVG and Markdown injection through names, writes through links and
over files (`compare --plot`, `pages -o`, `play --log`, `new`), a log that names a file of the
system as its model, a move of 800 KB, and a save whose state has values of the wrong kind.
Each case runs through tests/test_hostile_corpus.py (memory cap, hang guard, one line, no writes
but the named outputs).
"""
from __future__ import annotations

import json

COMPARE = ["--games", "2", "--no-cache"]


def models(minimal, add) -> None:
    """Model files: add(kind, name, content, commands-for-path, outputs)."""
    bomb = 'x: &a "' + "A" * 200_000 + '"\ny: [' + ", ".join(["*a"] * 5000) + "]\n"
    add("alias", "scalar-bomb", bomb, lambda p: [["check", p], ["play", p]], [])
    long_id = minimal(**{"id: mini": "id: " + "m" * 300})
    add("names", "id-300", long_id, lambda p: [["diagram", p, "-f", "dot", "-o", "out.dot"], ["solve", p, "--json"],
                                               ["compare", p, "--model", p, *COMPARE]], ["out.dot"])
    for label, text in (("markup-close", "[/]"), ("markup-link", "[link=http://evil]x[/link]"),
                        ("osc8", "\\e]8;;http://evil\\e\\\\click\\e]8;;\\e\\\\"), ("clear", "\\e[2J\\e[H")):
        add("markup", f"box-{label}", minimal(**{"name: {en: Ones, de: Einer, nl: Enen}": f'name: {{en: "{text}", de: Einer, nl: Enen}}'}),
            lambda p: [["compare", p, "--model", p, *COMPARE], ["compare", p, "--model", p, *COMPARE, "--json"]], [])
    svg = '\\" onload=\\"alert(1)\\" x=\\"'
    add("inject", "svg-handler", minimal(**{"name: {en: Mini, de: Mini, nl: Mini}": f'name: {{en: "M{svg}", de: Mini, nl: Mini}}'}),
        lambda p: [["simulate", p, "--games", "2", "--players", "a:greedy", "--plot", "s.svg"],
                   ["compare", p, "--model", p, *COMPARE, "--plot", "c.svg"]], ["s.svg", "c.svg"])
    add("inject", "markdown-backslash", minimal(**{"name: {en: Ones, de: Einer, nl: Enen}":
                                                   'name: {en: "\\\\[x\\\\](javascript:alert(1))", de: Einer, nl: Enen}'}),
        lambda p: [["pages", p, "--format", "md", "-o", "site"]], ["site"])


def command_lines(add) -> None:
    """Command lines on the run folder (setup_run_folder: existing.svg, victim.txt, dangling links,
    an empty log, a site with a planted link)."""
    for label, plot in (("folder", "."), ("missing-folder", "no/such/c.svg"), ("existing", "existing.svg"),
                        ("dangling-link", "dangling.svg"), ("link-to-victim", "victim.svg")):
        add("writes", f"compare-plot-{label}", ["compare", "yacht", "--variant", "yacht_toll=0",
                                                "--variant", "yacht_toll=5", *COMPARE, "--plot", plot])
    add("writes", "simulate-plot-link", ["simulate", "yacht", "--games", "2", "--plot", "victim.svg", "--force"])
    add("writes", "pages-planted-link", ["pages", "yacht", "--lang", "en", "-o", "planted", "--force"],
        outputs=["planted"])
    add("writes", "pages-planted-folder", ["pages", "yacht", "--lang", "en", "-o", "planted-static", "--force"],
        outputs=["planted-static"])
    add("writes", "log-empty-file", ["play", "yacht", "--players", "a:random", "--log", "empty.jsonl"])
    add("writes", "log-dangling", ["play", "yacht", "--players", "a:random", "--log", "dangling.jsonl"])
    add("writes", "new-missing-folder", ["new", "yacht", "no/such/x.yaml"])
    add("echo", "move-800k", ["play", "yacht", "--players", "Ann:human", "--seed", "1"],
        stdin="keep " + "1 " * 400_000 + "\nquit\n")
    add("echo", "write-800k", ["play", "yacht", "--players", "Ann:human", "--seed", "1"],
        stdin="roll\nwrite " + "x" * 800_000 + "\nquit\n")


def games(head: dict, moves: list[str], saved: dict, out: dict) -> None:
    """Logs and saves: out[name] = (kind, text, is_save)."""
    for label, path in (("proc-environ", "/proc/self/environ"), ("etc-passwd", "/etc/passwd"),
                        ("proc-yaml", "/proc/self/cwd/model.yaml")):
        h = dict(head, model_path=path)
        out[f"misleading-log-{label}.jsonl"] = ("misleading", "\n".join([json.dumps(h), *moves]) + "\n", False)
    for label, change in (("sheets-str", lambda s: s["state"].update(sheets=["ones"])),
                          ("awards-str", lambda s: s["state"].update(awards="x")),
                          ("stack-int", lambda s: s["state"].update(stack=5))):
        s = json.loads(json.dumps(saved))
        change(s)
        out[f"misleading-save-{label}.json"] = ("misleading", json.dumps(s), True)


def setup(run) -> None:
    """What round two's cases need in a run folder."""
    import os
    (run / "dangling.svg").symlink_to(run / "elsewhere.svg")
    (run / "victim.svg").symlink_to(run / "victim.txt")
    (run / "dangling.jsonl").symlink_to(run / "elsewhere.jsonl")
    (run / "empty.jsonl").write_text("", encoding="utf-8")
    (run / "planted").mkdir()
    (run / "planted" / "index.html").symlink_to(run / "victim.txt")
    (run / "planted-static").mkdir()
    os.symlink(run / "foreign", run / "planted-static" / "static", target_is_directory=True)
