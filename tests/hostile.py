"""A corpus of hostile inputs for every command: models, logs, saves and command-line values.

`corpus(folder)` writes the files and returns one `Case` per input: its class, the file, and the
commands to run on it. Classes (each several variants): oversized and deeply nested YAML, alias
bombs, long numbers, long expressions, dice whose tables are too big, nested loops, squaring
definitions, solver-sized thresholds, too many boxes, huge scores, control characters, lone
surrogates, rich markup, HTML/Markdown injection, devices and pipes, broken encodings, truncated
and mutated real models; logs and saves without a hash, naming devices, pipes or victims, with long
numbers, deep JSON or the wrong shape; bad --sheet, --dice, --plot, -o, --db and `new` targets.
"""
from __future__ import annotations

import json
import os
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MINIMAL = (ROOT / "tests" / "bad_models" / "base" / "minimal.yaml").read_text(encoding="utf-8")
YAHTZEE = (ROOT / "rules" / "yahtzee.yaml").read_text(encoding="utf-8")


@dataclass
class Case:
    """One hostile input and the command lines (argument lists) to run with it."""

    kind: str
    name: str
    commands: list[list[str]] = field(default_factory=list)
    stdin: str = ""
    outputs: list[str] = field(default_factory=list)  # files a command may create (relative to the run folder)
    cache: str = ""  # a cache recipe (hostile_two.plant): a cache folder of its own, commands in fresh processes
    forbidden: list[str] = field(default_factory=list)  # what must never appear in the output (a forged value)


def _model_commands(path: str, heavy: bool = True) -> list[list[str]]:
    """Every command that reads a model; `heavy` adds the ones that copy, play, solve or simulate."""
    cmds = [["check", path], ["score", path, "--dice", "1,2,3,4,5"],
            ["diagram", path, "-f", "dot", "-o", "out.dot"], ["pages", path, "--format", "md", "-o", "site"]]
    if heavy:
        cmds += [["new", path, "copy.yaml"], ["play", path], ["solve", path, "--json"],
                 ["simulate", path, "--games", "2", "--players", "a:greedy,b:random", "--json"]]
    return cmds


MODEL_OUTPUTS = ["out.dot", "site", "copy.yaml"]


def _replace(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def _minimal(**changes: str) -> str:
    text = MINIMAL
    for old, new in changes.items():
        text = _replace(text, old, new)
    return text


def _models() -> dict[str, tuple[str, str | bytes]]:
    """name -> (class, content)."""
    out: dict[str, tuple[str, str | bytes]] = {}

    def add(kind: str, name: str, content: str | bytes) -> None:
        out[f"{kind}-{name}.yaml"] = (kind, content)

    # size: big lists, long lines, many keys
    add("size", "list-3mb", "items:\n" + "- 1\n" * 800_000)
    add("size", "list-150k", "items:\n" + "- 1\n" * 150_000)
    add("size", "flow-list-120k", "items: [" + "1," * 120_000 + "1]\n")
    add("size", "keys-120k", "".join(f"k{i}: {i}\n" for i in range(120_000)))
    add("size", "long-string-1.9mb", "name: '" + "a" * 1_900_000 + "'\n")
    add("size", "minimal-padded", MINIMAL + "#" * 1_500_000 + "\n")
    # depth
    for n in (70, 1000, 5000, 100_000):
        add("depth", f"flow-{n}", "a: " + "[" * n + "]" * n + "\n")
    add("depth", "maps-2000", "".join(" " * i + f"k{i}:\n" for i in range(2000)) + " " * 2000 + "v\n")
    add("depth", "flow-maps-3000", "a: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n")
    # aliases
    for depth in (5, 9):
        lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, depth)]
        add("alias", f"laughs-{depth}", "\n".join(lines) + "\n")
    add("alias", "self", "a: &a [*a]\n")
    add("alias", "in-model", _minimal(**{"define:\n": "define:\n  big: &b [" + ", ".join(["1"] * 50) + "]\n"}))
    # long numbers
    for digits in (16, 19, 400, 4300, 5000, 100_000):
        add("digits", f"yaml-times-{digits}", _minimal(**{"times: 2\n  name: {en: Game": f"times: {'9' * digits}\n  name: {{en: Game"}))
        add("digits", f"expr-{digits}", _minimal(**{"score: count(1)": f"score: count(1) + {'7' * digits}"}))
    add("digits", "option-default", _minimal(**{"default: 35": "default: " + "3" * 5000}))
    add("digits", "dice-count", _minimal(**{"count: 5, faces: 6": "count: " + "5" * 4500 + ", faces: 6"}))
    add("digits", "negative", _minimal(**{"score: count(1)": "score: count(1) - " + "8" * 400}))
    add("digits", "threshold-400", _minimal(**{"total(upper) >= 3": "total(upper) >= " + "9" * 400}))
    # long expressions and deep expressions
    add("expr", "long-5000", _minimal(**{"score: count(1)": "score: " + " + ".join(["1"] * 2000)}))
    add("expr", "deep-parens", _minimal(**{"score: count(1)": "score: " + "(" * 1500 + "1" + ")" * 1500}))
    add("expr", "deep-neg", _minimal(**{"score: count(1)": "score: " + "-" * 3000 + "1"}))
    add("expr", "deep-not", _minimal(**{"max(counts) >= 2": "not " * 900 + "max(counts) >= 2"}))
    add("expr", "huge-list", _minimal(**{"score: count(1)": "score: sum([" + ", ".join(["9"] * 1300) + "])"}))
    # dice tables
    for count, faces in ((7, 12), (5, 20), (10, 8), (8, 10), (6, 20), (10, 10), (10, 20), (9, 9), (8, 12)):
        add("dice", f"{count}x{faces}", _minimal(**{"count: 5, faces: 6": f"count: {count}, faces: {faces}",
                                                    "example: [1, 1, 2, 3, 4]\n": ""}))
    # loops
    add("loops", "rolls-1000x1000x1000", _minimal(**{
        "        - id: rerolls\n          kind: repeat\n          times: 2\n": "        - id: rerolls\n          kind: repeat\n          times: 1000\n",
        "            - id: keep\n              kind: keep\n              can_stop: true\n              name: {en: Keep, de: Behalten, nl: Houden}\n":
            "            - id: keep\n              kind: keep\n              can_stop: true\n              name: {en: Keep, de: Behalten, nl: Houden}\n"
            "            - id: again\n              kind: repeat\n              times: 1000\n              name: {en: A, de: A, nl: A}\n"
            "              steps:\n                - id: inner\n                  kind: repeat\n                  times: 1000\n"
            "                  name: {en: I, de: I, nl: I}\n                  steps:\n                    - id: spin\n"
            "                      kind: roll\n                      dice: all\n                      name: {en: S, de: S, nl: S}\n"}))
    add("loops", "rounds-1000-cubed", _loops_outer())
    add("loops", "times-1001", _minimal(**{"times: 2\n  name: {en: Game": "times: 1001\n  name: {en: Game"}))
    add("loops", "times-0", _minimal(**{"times: 2\n  name: {en: Game": "times: 0\n  name: {en: Game"}))
    # definitions that grow
    for n in (10, 40, 200):
        defs = "  d0: sum(dice) + 2\n" + "".join(f"  d{i + 1}: d{i} * d{i}\n" for i in range(n))
        add("values", f"squares-{n}", _minimal(**{"define:\n": "define:\n" + defs,
                                                   "score: count(1)": f"score: d{n} if count(1) > 9 else 0"}))
        defs = "  e0: 99999\n" + "".join(f"  e{i + 1}: e{i} * e{i}\n" for i in range(n))
        add("values", f"const-squares-{n}", _minimal(**{"define:\n": "define:\n" + defs}))
    add("values", "score-2-63", _minimal(**{"score: count(1)": "score: 999999999999999 * 9999"}))
    add("values", "score-15-digits", _minimal(**{"score: count(1)": "score: 999999999999999"}))
    add("values", "bonus-huge", _minimal(**{"points: option.bonus_points if": "points: 999999999999999 if"}))
    add("values", "sum-many", _minimal(**{"score: count(1)": "score: sum([" + ", ".join(["99999999999999"] * 200) + "])"}))
    # solver-sized thresholds
    for threshold in ("1000000", "100000", "-5", "-999999999999999", "99999999999999"):
        add("solver", f"threshold-{threshold}", _minimal(**{"total(upper) >= 3": f"total(upper) >= {threshold}"}))
    add("solver", "value-equals", _minimal(**{"total(upper) >= 3": "value(ones) == 999999999999999"}))
    add("solver", "many-thresholds", _minimal(**{"total(upper) >= 3": "total(upper) >= 30000 and total(upper) < 40000"}))
    # many boxes
    for n in (40, 300, 1100):
        add("boxes", str(n), _many_boxes(n))
    # text: controls, surrogates, markup, injection
    for label, text in (("esc", "\\e[31mred\\e[0m"), ("osc-link", "\\e]8;;http://evil/\\aclick\\e]8;;\\a"),
                        ("surrogate", "\\ud800"), ("nul", "\\0"), ("bell", "\\a"), ("c1", "\\x9b2J"),
                        ("del", "\\x7f"), ("nel", "\\N")):
        add("text", f"name-{label}", _minimal(**{"name: {en: Mini, de: Mini, nl: Mini}": f'name: {{en: "Mi{text}ni", de: Mini, nl: Mini}}'}))
        add("text", f"box-{label}", _minimal(**{"name: {en: Ones, de: Einer, nl: Enen}": f'name: {{en: "On{text}es", de: Einer, nl: Enen}}'}))
    for label, text in (("markup-close", "[/]"), ("markup-link", "[link=http://evil]click[/link]"),
                        ("markup-bold", "[bold red]x"), ("markup-unclosed", "[/bold]"),
                        ("script", "<script>alert(1)</script>"), ("js-link", "[x](javascript:alert(1))"),
                        ("img", "<img src=x onerror=alert(1)>"), ("md-html", "</td><b>x"),
                        ("quote", "\\\"'&<>"), ("dot", "\\\\N\\\\G\\\"];x[label=y"), ("braces", "{{}}"),
                        ("rtl", "\\u202eevil"), ("zw", "a\\u200bb")):
        add("text", f"name-{label}", _minimal(**{"name: {en: Mini, de: Mini, nl: Mini}": f'name: {{en: "{text}", de: Mini, nl: Mini}}'}))
        add("text", f"box-{label}", _minimal(**{"name: {en: Ones, de: Einer, nl: Enen}": f'name: {{en: "{text}", de: Einer, nl: Enen}}'}))
        add("text", f"rule-{label}", _minimal(**{"rule: {en: the ones count,": f'rule: {{en: "{text}",'}))
    # encodings and odd documents
    add("bytes", "latin1", MINIMAL.replace("Mini, de", "Mïni, de").encode("latin-1"))
    add("bytes", "nul-bytes", MINIMAL.encode() + b"\0\0\0")
    add("bytes", "bom", b"\xef\xbb\xbf" + MINIMAL.encode())
    add("bytes", "utf16", MINIMAL.encode("utf-16"))
    add("bytes", "random", bytes(random.Random(1).randrange(256) for _ in range(4000)))
    for label, text in (("empty", ""), ("comment", "# nothing\n"), ("scalar", "42\n"), ("list", "- 1\n- 2\n"),
                        ("null", "~\n"), ("tab", "a:\n\tb: 1\n"), ("two-docs", "a: 1\n---\nb: 2\n"),
                        ("tags", "a: !!python/object:os.system 'echo hi'\n"), ("binary", "a: !!binary AAAA\n"),
                        ("set", "a: !!set {x}\n"), ("merge", "a: &a {x: 1}\nb: {<<: *a}\n"), ("complex-key", "? [1]\n: 2\n"),
                        ("dup", "a: 1\na: 2\n")):
        add("doc", label, text)
    # truncated and mutated real models
    rng = random.Random(16)
    for i in range(30):
        cut = rng.randrange(len(YAHTZEE))
        add("mutate", f"cut-{i}", YAHTZEE[:cut])
    for i in range(30):
        lines = YAHTZEE.splitlines(keepends=True)
        j = rng.randrange(len(lines))
        choice = rng.randrange(5)
        if choice == 0:
            del lines[j]
        elif choice == 1:
            lines[j] = lines[j].replace(":", "", 1)
        elif choice == 2:
            lines[j] = re.sub(r"\d+", lambda m: "9" * rng.choice((2, 16, 40)), lines[j])
        elif choice == 3:
            lines.insert(j, lines[j])
        else:
            lines[j] = " " + lines[j]
        add("mutate", f"line-{i}", "".join(lines))
    return out


def _loops_outer() -> str:
    """The minimal model with its game wrapped in two more repeats of 1000: 10^9 rounds."""
    body = MINIMAL[MINIMAL.index("flow:\n"):]
    head = MINIMAL[:MINIMAL.index("flow:\n")]
    inner = "\n".join("    " + line if line else line for line in body.splitlines()[1:])
    inner = inner.replace("    id: game", "  - id: game", 1).replace("times: 2", "times: 1000", 1)
    return (head + "flow:\n  id: outer\n  kind: repeat\n  times: 1000\n  name: {en: O, de: O, nl: O}\n  steps:\n"
            "  - id: middle\n    kind: repeat\n    times: 1000\n    name: {en: M, de: M, nl: M}\n    steps:\n"
            + _indent_list(body))


def _indent_list(body: str) -> str:
    lines = body.splitlines()[1:]  # drop "flow:"
    out = []
    for k, line in enumerate(lines):
        text = line[2:]
        out.append(("    - " if k == 0 else "      ") + text)
    return "\n".join(out).replace("times: 2\n      name: {en: Game", "times: 1000\n      name: {en: Game", 1) + "\n"


def _many_boxes(n: int) -> str:
    boxes = "".join(f"      - id: b{i}\n        name: {{en: B{i}, de: B{i}, nl: B{i}}}\n"
                    f"        rule: {{en: r, de: r, nl: r}}\n        score: count({i % 6 + 1})\n" for i in range(n))
    text = _minimal(**{"    boxes:\n": "    boxes:\n" + boxes})
    return text.replace("times: 2\n  name: {en: Game", f"times: {min(n + 2, 1000)}\n  name: {{en: Game", 1)


# logs and saves ----------------------------------------------------------------------------

def _games(folder: Path) -> dict[str, tuple[str, str, bool]]:
    """name -> (class, content, is_save). Built from a real log and save written by `rulebook play`."""
    from rulebook.tools.cli import main
    import contextlib
    import io
    base = folder / "_base"
    base.mkdir(exist_ok=True)
    log, save = base / "g.jsonl", base / "s.json"
    import sys
    old_stdin = sys.stdin
    try:
        sys.stdin = io.StringIO("")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main(["play", "yacht", "--players", "a:random,b:greedy", "--seed", "5", "--log", str(log)])
            sys.stdin = io.StringIO("roll\n")
            main(["play", "yacht", "--players", "Ann:human", "--seed", "5", "--save", str(save)])
    finally:
        sys.stdin = old_stdin
    header, *moves = log.read_text().splitlines()
    head = json.loads(header)
    saved = json.loads(save.read_text())
    out: dict[str, tuple[str, str, bool]] = {}

    def both(kind: str, name: str, change) -> None:
        h = json.loads(header)
        change(h)
        out[f"{kind}-log-{name}.jsonl"] = (kind, "\n".join([json.dumps(h), *moves]) + "\n", False)
        s = json.loads(json.dumps(saved))
        change(s)
        out[f"{kind}-save-{name}.json"] = (kind, json.dumps(s), True)

    both("header", "no-hash", lambda d: d.pop("model_hash"))
    both("header", "null-hash", lambda d: d.update(model_hash=None))
    both("header", "wrong-hash", lambda d: d.update(model_hash="0" * 16))
    both("header", "list-hash", lambda d: d.update(model_hash=[1]))
    both("header", "dev-zero", lambda d: d.update(model_path="/dev/zero", model="/dev/zero"))
    both("header", "dev-zero-path", lambda d: d.update(model_path="/dev/zero"))
    both("header", "dev-urandom", lambda d: d.update(model_path="/dev/urandom", model="/dev/urandom"))
    both("header", "fifo", lambda d: d.update(model_path="fifo.yaml", model="fifo.yaml"))
    both("header", "folder", lambda d: d.update(model_path="/", model="/"))
    both("header", "passwd", lambda d: d.update(model_path="/etc/passwd", model="/etc/passwd"))
    both("header", "big-model", lambda d: d.update(model_path="huge.yaml", model="huge.yaml"))
    both("header", "missing-model", lambda d: d.update(model_path="/nonexistent/x.yaml", model="nope"))
    both("header", "model-number", lambda d: d.update(model=5))
    both("header", "options-list", lambda d: d.update(options=[1, 2]))
    both("header", "options-deep", lambda d: d.update(options={"a": {"b": [1]}}))
    both("header", "players-empty", lambda d: d.update(players=[]))
    both("header", "player-name-esc", lambda d: d["players"][0].update(name="\x1b]8;;http://evil\x07x\x1b]8;;\x07"))
    both("header", "player-name-markup", lambda d: d["players"][0].update(name="[link=http://evil]x[/link][/]"))
    both("header", "player-name-surrogate", lambda d: d["players"][0].update(name="\ud800"))
    both("header", "player-name-long", lambda d: d["players"][0].update(name="x" * 100_000))
    both("header", "seed-huge", lambda d: d.update(seed=10**400))
    both("header", "seed-float", lambda d: d.update(seed=1.5))
    both("header", "format-2", lambda d: d.update(rulebook=2))
    for name, content in (("digits-5000", header.replace('"seed": 5', '"seed": ' + "5" * 5000)),
                          ("digits-20", header.replace('"seed": 5', '"seed": ' + "5" * 20)),
                          ("nan", header.replace('"seed": 5', '"seed": NaN')),
                          ("deep", "[" * 100_000 + "]" * 100_000),
                          ("deep-object", '{"a":' * 5000 + "1" + "}" * 5000),
                          ("empty", ""), ("blank-lines", "\n\n\n"), ("not-json", "hello"),
                          ("surrogate-escape", header.replace('"seed": 5', '"seed": 5, "x": "\\ud800"')),
                          ("big", header + "\n" + ('{"player": 0, "move": "roll 1 2 3 4 5"}\n' * 60_000)),
                          ("binary", "\x00\x01\x02"),
                          ("bad-move", "\n".join([header, '{"player": 0, "move": "' + "9" * 5000 + '"}'])),
                          ("move-digits", "\n".join([header, '{"player": 0, "move": "roll ' + "6 " * 4 + "6" * 4400 + '"}'])),
                          ("points-huge", "\n".join([header, *moves[:5]]).replace('"points": ', '"points": 1' + "0" * 30, 1))):
        out[f"json-log-{name}.jsonl"] = ("json", content, False)
    for name, content in (("digits-5000", json.dumps(saved).replace('"seed": 5', '"seed": ' + "5" * 5000)),
                          ("deep", "[" * 100_000 + "]" * 100_000), ("empty", ""), ("truncated", json.dumps(saved)[:200]),
                          ("list", "[1, 2]"), ("rng-huge", json.dumps({**saved, "rng": [3, [10**30] * 625, None]})),
                          ("rng-short", json.dumps({**saved, "rng": [3, [1], None]})),
                          ("state-wrong", json.dumps({**saved, "state": {"sheets": "x"}})),
                          ("state-digits", json.dumps({**saved, "state": {**saved["state"], "player": 10**14}})),
                          ("log-victim", json.dumps({**saved, "log": "victim.txt"})),
                          ("log-bashrc", json.dumps({**saved, "log": str(Path.home() / ".bashrc")})),
                          ("log-dev-full", json.dumps({**saved, "log": "/dev/full"})),
                          ("log-number", json.dumps({**saved, "log": 5}))):
        out[f"json-save-{name}.json"] = ("json", content, True)
    return out


# command lines ---------------------------------------------------------------------------------

def _command_lines() -> list[Case]:
    cases = []

    def add(kind: str, name: str, *commands: list[str], outputs=(), stdin: str = "") -> None:
        cases.append(Case(kind, name, [list(c) for c in commands], stdin, list(outputs)))

    for label, sheet in (("digits", '{"ones": ' + "9" * 5000 + "}"), ("digits-20", '{"ones": ' + "9" * 20 + "}"),
                         ("deep", "[" * 100_000), ("nan", '{"ones": NaN}'), ("float", '{"ones": 1e400}'),
                         ("list", "[1]"), ("unknown", '{"nope": 1}'), ("negative", '{"ones": -999999999999999}'),
                         ("surrogate", '{"ones\\ud800": 1}'), ("big", '{"ones": 1, "x": "' + "a" * 3_000_000 + '"}')):
        add("cli", f"sheet-{label}", ["score", "yacht", "--dice", "1,2,3,4,5", "--sheet", sheet])
    for label, dice in (("digits", "9" * 5000), ("many", ",".join(["1"] * 100_000)), ("negative", "-1,2,3,4,5"),
                        ("words", "a,b"), ("empty", "")):
        add("cli", f"dice-{label}", ["score", "yacht", "--dice", dice])
    add("cli", "roll-number-huge", ["score", "yacht", "--dice", "1,2,3,4,5", "--roll-number", "9" * 5000])
    add("cli", "seed-huge", ["play", "yacht", "--players", "a:random", "--seed", "9" * 5000])
    add("cli", "seed-20", ["play", "yacht", "--players", "a:random", "--seed", "9" * 20])
    add("cli", "games-huge", ["simulate", "yacht", "--games", "9" * 5000])
    add("cli", "jobs-huge", ["simulate", "yacht", "--games", "2", "--jobs", "9" * 30])
    add("cli", "option-digits", ["check", "yahtzee", "--option", "upper_bonus=" + "9" * 5000])
    add("cli", "option-esc", ["check", "yahtzee", "--option", "joker=\x1b]8;;x\x07"])
    add("cli", "players-markup", ["play", "yacht", "--players", "[link=http://evil]x[/link]:random,[/]:random", "--seed", "1"])
    add("cli", "players-esc", ["play", "yacht", "--players", "\x1b[2Jx:random", "--seed", "1"])
    add("cli", "players-many", ["play", "yacht", "--players", ",".join(f"p{i}:random" for i in range(5000))])
    add("cli", "plot-missing-folder", ["simulate", "yacht", "--games", "50", "--plot", "no/such/folder/h.svg"])
    add("cli", "plot-is-input", ["simulate", "model.yaml", "--games", "2", "--plot", "model.yaml"])
    add("cli", "plot-existing", ["simulate", "yacht", "--games", "2", "--plot", "existing.svg"])
    add("cli", "plot-dev-full", ["simulate", "yacht", "--games", "2", "--plot", "/dev/full"])
    add("cli", "diagram-over-input", ["diagram", "model.yaml", "-o", "model.yaml"])
    add("cli", "diagram-over-existing", ["diagram", "yacht", "-o", "existing.svg"])
    add("cli", "diagram-dot-over-input", ["diagram", "model.yaml", "-f", "dot", "-o", "model.yaml"])
    add("cli", "diagram-dev-full", ["diagram", "yacht", "-f", "dot", "-o", "-"], outputs=())
    add("cli", "diagram-dir", ["diagram", "yacht", "-f", "dot", "-o", "."])
    add("cli", "diagram-missing-folder", ["diagram", "yacht", "-f", "dot", "-o", "no/such/d.dot"])
    add("cli", "new-dangling", ["new", "yacht", "dangling.yaml"])
    add("cli", "new-over-input", ["new", "model.yaml", "model.yaml"])
    add("cli", "new-dir", ["new", "yacht", "."])
    add("cli", "pages-root", ["pages", "yacht", "-o", "/"])
    add("cli", "pages-foreign", ["pages", "yacht", "-o", "foreign"])
    add("cli", "pages-file", ["pages", "yacht", "-o", "model.yaml"])
    add("cli", "pages-over-input", ["pages", "model.yaml", "-o", "."])
    add("cli", "serve-db-folder", ["serve", "--db", "/", "--port", "0"])
    add("cli", "serve-db-missing-folder", ["serve", "--db", "no/such/t.sqlite3", "--port", "0"])
    add("cli", "serve-db-not-sqlite", ["serve", "--db", "model.yaml", "--port", "0"])
    add("cli", "serve-db-dev-zero", ["serve", "--db", "/dev/zero", "--port", "0"])
    add("cli", "serve-port-huge", ["serve", "--port", "9" * 5000])
    add("cli", "log-over-input", ["play", "model.yaml", "--players", "a:random", "--log", "model.yaml"])
    add("cli", "save-dev-full", ["play", "yacht", "--players", "a:random", "--save", "/dev/full"])
    add("cli", "log-dev-full", ["play", "yacht", "--players", "a:random", "--log", "/dev/full"])
    add("cli", "resume-dev-zero", ["play", "--resume", "/dev/zero"])
    add("cli", "replay-dev-zero", ["replay", "/dev/zero"])
    add("cli", "replay-fifo", ["replay", "fifo.yaml"])
    add("cli", "check-fifo", ["check", "fifo.yaml"])
    add("cli", "check-dev-zero", ["check", "/dev/zero"])
    add("cli", "check-folder", ["check", "/"])
    add("cli", "limit-bad", ["check", "yacht", "--limit", "nope=1"])
    add("cli", "limit-digits", ["check", "yacht", "--limit", "yaml_nodes=" + "9" * 5000])
    add("cli", "version", ["--version"])
    return cases


def corpus(folder: Path) -> list[Case]:
    """Write every hostile file into `folder` and return the cases (paths relative to the run folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    cases: list[Case] = []
    for name, (kind, content) in _models().items():
        path = folder / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
        heavy = kind not in ("size", "depth", "alias", "mutate", "bytes", "doc")
        commands = _model_commands(f"input/{name}", heavy)
        if kind in ("mutate", "size"):  # big or many: the commands that read a model differently, not every one
            commands = [c for c in commands if c[0] in ("check", "diagram", "pages")]
        cases.append(Case(kind, name, commands, "roll\nstop\n", MODEL_OUTPUTS))
    for name, (kind, content, is_save) in _games(folder).items():
        path = folder / name
        path.write_bytes(content.encode("utf-8", "surrogatepass"))
        cmds = [["play", "--resume", f"input/{name}"], ["replay", f"input/{name}"]] if is_save else \
            [["replay", f"input/{name}"], ["replay", f"input/{name}", "--json"], ["play", "--resume", f"input/{name}"]]
        cases.append(Case(kind, name, cmds, "roll\nquit\n", []))
    cases += _command_lines()
    cases += _round_two(folder)
    return cases


def _round_two(folder: Path) -> list[Case]:
    """The cases of tests/hostile_two.py, written into `folder` like the others."""
    import hostile_two
    cases: list[Case] = []

    def model(kind: str, name: str, content: str, commands, outputs) -> None:
        file = f"{kind}-{name}.yaml"
        (folder / file).write_text(content, encoding="utf-8")
        cases.append(Case(kind, file, commands(f"input/{file}"), "roll\nstop\n", list(outputs)))

    def line(kind: str, name: str, *commands: list[str], outputs=(), stdin: str = "", cache: str = "",
             forbidden=()) -> None:
        cases.append(Case(kind, name, [list(c) for c in commands], stdin, list(outputs), cache, list(forbidden)))

    hostile_two.models(_minimal, model)
    hostile_two.command_lines(line)
    hostile_two.cache_cases(line)
    base = folder / "_base"
    header, *moves = (base / "g.jsonl").read_text().splitlines()
    games: dict[str, tuple[str, str, bool]] = {}
    hostile_two.games(json.loads(header), moves, json.loads((base / "s.json").read_text()), games)
    hostile_two.saves(folder, games)
    for name, (kind, content, is_save) in games.items():
        (folder / name).write_text(content, encoding="utf-8")
        cmds = [["play", "--resume", f"input/{name}"], ["replay", f"input/{name}"]] if is_save else \
            [["replay", f"input/{name}"], ["replay", f"input/{name}", "--json"]]
        cases.append(Case(kind, name, cmds, "roll\nquit\n", []))
    return cases


def setup_run_folder(run: Path, inputs: Path) -> None:
    """What every run folder holds besides the inputs: a model, decoys to protect, a FIFO, a dangling link."""
    (run / "input").symlink_to(inputs.resolve(), target_is_directory=True)
    (run / "model.yaml").write_text(MINIMAL, encoding="utf-8")
    (run / "existing.svg").write_text("keep me\n", encoding="utf-8")
    (run / "victim.txt").write_text("precious\n", encoding="utf-8")
    (run / "foreign").mkdir()
    (run / "foreign" / "mine.txt").write_text("mine\n", encoding="utf-8")
    (run / "huge.yaml").write_bytes(b"#" * 3_000_000)
    os.mkfifo(run / "fifo.yaml")
    (run / "dangling.yaml").symlink_to(run / "elsewhere.yaml")  # `new` must not create elsewhere.yaml
    import hostile_two
    hostile_two.setup(run)
