"""Round two of the hostile corpus (issue 28): what was added since the first corpus.

Classes: alias scalar bombs, names that make file names too long, rich markup and terminal escapes
in names shown by `compare`, SVG and Markdown injection through names, writes through links and
over files (`compare --plot`, `pages -o`, `play --log`, `new`), a log that names a file of the
system as its model, a move of 800 KB, and a save whose state has values of the wrong kind.
Caches (a cache folder of its own per case, filled by real runs and then forged or planted: solve
tables that say 999,999, pickles where numba, Jinja2 and the parser keep their files, expression
trees that say 100, table headers that are a FIFO, /dev/zero, malformed or huge, a folder others
can write). Expressions that are cheap to write and dear to evaluate (a chain of definitions, each
using the one before several times), one per place an expression sits, and per-roll tables too dear
to build. Sheets of many columns (memory): 50 uses in 10 columns with a write rule, 8 down columns,
200 columns that count 100 times.
Each case runs through tests/test_hostile_corpus.py (memory cap, hang guard, one line, no writes
but the named outputs).
"""
from __future__ import annotations

import json

COMPARE = ["--games", "2", "--no-cache"]
DEFINE = "define:\n"


def chain(prefix: str, base: str, n: int, fan: int) -> str:
    """`define:` lines of a chain of n+1 definitions, each using the one before `fan` times (fan 2:
    `d + d - d`, three uses), so one evaluation of the last costs about fan**n steps."""
    out = f"  {prefix}0: {base}\n"
    for i in range(n):
        prev = f"{prefix}{i}"
        body = "min([" + ", ".join([prev] * fan) + "])" if fan > 2 else f"{prev} + {prev} - {prev}"
        out += f"  {prefix}{i + 1}: {body}\n"
    return out


def cost_models(minimal, n: int = 38, fan: int = 2) -> dict[str, str]:
    """place -> a model whose expression at that place chains definitions (n deep, `fan` uses each)."""
    winner = ("players: {min: 1, max: 4}\nwinner:\n  by: highest\n  name: {en: P, de: P, nl: P}\n  score: total(upper)\n"
              "  tie_breaks:\n    - name: {en: T, de: T, nl: T}\n      score: b%d\n" % n)
    counter = "counters:\n  - id: c\n    name: {en: C, de: C, nl: C}\n    per: player\n" + DEFINE
    effect = "          effects:\n            - counter: c\n              add: k%d\n          allowed: >-" % n
    return {
        "box": minimal(**{DEFINE: DEFINE + chain("s", "value(ones) + count(1)", n, fan), "score: count(1)": f"score: s{n}"}),
        "end-bonus": minimal(**{DEFINE: DEFINE + chain("t", "total(upper)", n, fan),
                                "points: option.bonus_points if total(upper) >= 3 else 0": f"points: t{n}"}),
        "write-rule": minimal(**{DEFINE: DEFINE + chain("w", "value(target)", n, fan),
                                 "not filled(target)\n            or value(target) == 0": f"not filled(target) and w{n} >= 0"}),
        "while": minimal(**{DEFINE: DEFINE + chain("r", "roll_number + value(ones)", n, fan),
                            "          times: 2\n          name: {en: Reroll": f"          times: 2\n          while: r{n} < 3\n"
                                                                            "          name: {en: Reroll"}),
        "effect": minimal(**{DEFINE: counter + chain("k", "counter.c + value(ones)", n, fan), "          allowed: >-": effect}),
        "tie-break": minimal(**{DEFINE: DEFINE + chain("b", "total(upper)", n, fan), "players: {min: 1, max: 4}\n": winner}),
    }


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


    every = lambda p: [["check", p], ["score", p, "--dice", "1,2,3,4,5"], ["pages", p, "--format", "md", "-o", "site"],  # noqa: E731
                       ["diagram", p, "-f", "dot", "-o", "out.dot"], ["play", p], ["compare", p, "--model", p, *COMPARE]]
    for shape, n, fan in (("deep", 38, 2), ("wide", 12, 8)):
        for place, text in cost_models(minimal, n, fan).items():
            add("cost", f"{place}-{shape}", text, every, ["site", "out.dot"])
    for name, text in column_sheets(minimal).items():
        add("memory", name, text, lambda p: [["check", p], ["solve", p, "--json"], ["score", p, "--dice", "1,1,1,1,1"]], [])
    for name, text in announce_holes(minimal).items():
        add("misleading", name, text, lambda p: [["check", p], ["play", p, "--players", "a:random,b:greedy", "--seed", "7"],
                                                 ["play", p]], [])
    add("cost", "tables-5x12", dear_tables(minimal), lambda p: [["check", p], ["play", p]], [])  # 3 s of tables each


ROLL = "        - id: first_roll\n          kind: roll\n          dice: all\n          name: {en: Roll, de: Wurf, nl: Worp}\n"
CALL = ROLL + "        - id: call\n          kind: announce\n          name: {en: Announce, de: Ansagen, nl: Aankondigen}\n"


def column_sheets(minimal) -> dict[str, str]:
    """Sheets of many columns: 50 uses of a box in 10 columns (510 cells), 8 columns filled from the top,
    200 columns each counting 100 times."""
    def columns(n: int, extra: str = "") -> str:
        return "columns:\n" + "".join(f"  - id: c{i}\n    name: {{en: C{i}, de: C{i}, nl: C{i}}}\n{extra}" for i in range(n))

    def rounds(n: int) -> dict[str, str]:
        return {"times: 2\n  name: {en: Game": f"times: {n}\n  name: {{en: Game"}
    uses = minimal(**{"sections:\n": columns(10) + "sections:\n", "        score: count(1)\n": "        score: count(1)\n        uses: 50\n",
                      **rounds(510)})
    free = {"\n          allowed: >-\n            not filled(target)\n            or value(target) == 0": ""}  # solvable
    down = minimal(**{"sections:\n": columns(8, "    order: down\n") + "sections:\n", **rounds(16), **free})
    wide = minimal(**{"sections:\n": columns(200, "    multiplier: 100\n") + "sections:\n", **rounds(400), **free})
    return {"uses-50x10": uses, "down-8": down, "columns-200": wide}


def announce_holes(minimal) -> dict[str, str]:
    """Models whose announcement cannot always be kept (tests/bad_models/announce_*.yaml are these):
    a write rule that refuses the announced box some rolls while another box is open, and a turn
    that writes twice after one announcement."""
    rule = minimal(**{ROLL: CALL, "not filled(target)\n            or value(target) == 0":
                      "target != pairs or pair or open_count(upper) == 1"})
    twice = minimal(**{ROLL: CALL, "times: 2\n  name: {en: Game": "times: 1\n  name: {en: Game",
                       "        - id: write\n          kind: write\n          name: {en: Write, de: Eintragen, nl: Invullen}\n"
                       "          allowed: >-\n            not filled(target)\n            or value(target) == 0":
                       "        - id: write\n          kind: repeat\n          times: 2\n          name: {en: Twice, de: Zweimal, nl: Tweemaal}\n"
                       "          steps:\n            - id: again\n              kind: roll\n              dice: all\n"
                       "              name: {en: R, de: R, nl: R}\n            - id: put\n              kind: write\n"
                       "              name: {en: Write, de: Eintragen, nl: Invullen}"})
    return {"announce-rule": rule, "announce-twice": twice}


def dear_tables(minimal, boxes: int = 12) -> str:
    """Dice with 12 faces (4,368 rolls) and `boxes` boxes whose score takes about 700 steps per roll:
    about 3.1 million steps to tabulate each, 36.8 million for all."""
    dear = "sum([" + ", ".join("count(%d)" % (i % 12 + 1) for i in range(350)) + "])"
    extra = "".join(f"      - id: d{i}\n        name: {{en: D{i}, de: D{i}, nl: D{i}}}\n"
                    f"        rule: {{en: r, de: r, nl: r}}\n        score: {dear}\n" for i in range(boxes))
    return minimal(**{"count: 5, faces: 6": "count: 5, faces: 12", "    boxes:\n": "    boxes:\n" + extra,
                      "times: 2\n  name: {en: Game": f"times: {boxes + 2}\n  name: {{en: Game"})


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


def saves(folder, out: dict) -> None:
    """Saves of models with a fill order (Balut: a box's four entries; Yamb: columns down and up) whose
    sheet that order could not have written, and of Maxi Yatzy with mistyped counters:
    out[name] = (kind, text, is_save)."""
    import contextlib
    import io
    import sys
    from rulebook.tools.cli import main
    changes = [("balut", "sheets", [{"fours#4": 0, "fives#4": 0, "sixes#4": 0}]), ("balut", "sheets", [{"choice#2": 20}]),
               ("yamb", "sheets", [{"threes@down": 9}]), ("yamb", "sheets", [{"ones@up": 3}]),
               ("maxi_yatzy", "counters", ["saved_rolls"]), ("maxi_yatzy", "counters", [{"saved_rolls": "2"}]),
               ("maxi_yatzy", "counters", "x"), ("maxi_yatzy", "counters", [{"saved_rols": 1}])]  # mistyped counters
    for k, (model, key, value) in enumerate(changes):
        save = folder / "_base" / f"{model}.json"
        if not save.exists():
            old = sys.stdin
            try:
                sys.stdin = io.StringIO("roll\n")
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    main(["play", model, "--players", "Ann:human", "--seed", "5", "--save", str(save)])
            finally:
                sys.stdin = old
        data = json.loads(save.read_text())
        data["state"][key] = value
        out[f"misleading-save-{key}-{model}-{k}.json"] = ("misleading", json.dumps(data), True)


# caches: a case with `cache` set runs in a cache folder of its own, filled by real runs on the run folder's
# model.yaml (see hostile_run.prime), then planted with the recipe below; its commands run in fresh processes,
# so every planted file is met as a new run meets it
CHECK, SCORE, SOLVE = ["check", "model.yaml"], ["score", "model.yaml", "--dice", "2,2,3,4,6"], ["solve", "yacht", "--json"]
PRIME = [["check", "model.yaml"], ["pages", "model.yaml", "--format", "md", "-o", "{elsewhere}"],
         ["solve", "yacht", "--json"], ["compare", "model.yaml", "--model", "model.yaml", "--games", "2"]]
CACHE_RECIPES = {  # recipe -> (the commands that read what it plants, patterns that must never reach their output)
    "table-forged": ([CHECK, SOLVE], [r"(?<![\d.])999,?999(?!\d)"]),  # not the digits of a time (0.29999)
    "pickles": ([CHECK, SCORE, ["pages", "model.yaml", "--format", "md", "-o", "site"], SOLVE], []),
    "trees-forged": ([CHECK, SCORE], [r"(?<![\d.])100(?![\d.%])"]),
    "header-fifo": ([SOLVE], []), "header-dev-zero": ([SOLVE], []), "header-malformed": ([SOLVE], []),
    "header-huge": ([SOLVE], []), "shared-folder": ([CHECK, SOLVE], []),
    "compare-osc8": ([["compare", "model.yaml", "--model", "model.yaml", "--games", "2"]], []),
}


def cache_cases(add) -> None:
    for recipe, (commands, forbidden) in CACHE_RECIPES.items():
        add("cache", f"cache-{recipe}", *commands, outputs=["site"], cache=recipe, forbidden=forbidden)


def plant(recipe: str, cache, run) -> None:
    """Forge, plant or break what real runs left in the cache folder `cache` (run: the case's folder,
    where code run from a pickle would leave the file `pwned`)."""
    import os
    import pickle
    import numpy as np
    from rulebook.interpreter.model import cachedir
    from rulebook.interpreter.solver import tablefile

    class Payload:
        def __reduce__(self):
            return (open, (str(run / "pwned"), "w"))
    tables = sorted(cache.glob("*.npy"))
    headers = [tablefile.header_path(t) for t in tables]
    if recipe == "table-forged":  # the values and a header to match, with no seal (the forger has no key)
        for t, h in zip(tables, headers):
            values = np.load(t, mmap_mode="r+")
            values[...] = 999_999.0
            values.flush()
            head = json.loads(cachedir.read_sealed(h))
            head["digest"] = tablefile.digest(np.load(t, mmap_mode="r"))
            h.write_text(json.dumps(head))
    elif recipe == "pickles":  # every kept file that could be unpickled, and new ones beside them
        payload = pickle.dumps(Payload())
        for f in [*cache.glob("dsl-parser-*"), *(cache / "numba").rglob("*"), *(cache / "templates").rglob("*")]:
            if f.is_file():
                f.write_bytes(payload)
        for name in ("numba/planted.nbi", "numba/planted.nbc", "templates/__jinja2_planted.cache"):
            (cache / name).parent.mkdir(parents=True, exist_ok=True)
            (cache / name).write_bytes(payload)
    elif recipe == "trees-forged":  # every kept expression tree says 100, unsealed
        from rulebook.interpreter.model.dsl import parser
        hundred = parser.pack(parser.parse("100"))
        for f in (cache / "dsl-trees").glob("*.json"):
            data = json.loads(cachedir.read_sealed(f))
            data["trees"] = {text: hundred for text in data["trees"]}
            f.write_text(json.dumps(data))
    elif recipe.startswith("header-"):
        for h in headers:
            h.unlink()
            if recipe == "header-fifo":
                os.mkfifo(h)
            elif recipe == "header-dev-zero":
                h.symlink_to("/dev/zero")
            elif recipe == "header-huge":
                h.write_bytes(b" " * (tablefile.MAX_HEADER_BYTES + 1))
            else:
                tablefile.write_header(h.with_suffix(".npy"), {"shape": "x", "states": "1", "digest": 5})
    elif recipe == "shared-folder":
        cache.chmod(0o777)
    elif recipe == "compare-osc8":  # names with terminal escapes in kept comparisons, sealed and not
        for f in cache.glob("compare-*.json"):
            text = (cachedir.read_sealed(f) or b"{}").decode()
            forged = text.replace('"mini', '"\\u001b]8;;http://evil\\u0007mini')
            cachedir.write_sealed(f, forged.encode())


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
