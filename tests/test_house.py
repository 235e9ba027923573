"""The house: rooms whose imports point one way, no import circles, nothing private taken from another
room, and no source file too long to read. The imports are read with `ast`, not by importing."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the floors, lowest first: a module may import its own floor and those below it, never one above
FLOORS = ["interpreter.model", "interpreter.engine", "interpreter.solver", "interpreter.players",
          "interpreter.play", "interpreter.adapters", "tools"]
MAX_LINES = 600
SKIP = {"static", "vendor", "__pycache__", "templates", "locales"}


def modules() -> dict[str, Path]:
    """Every module of interpreter/ and tools/, by dotted name (a package by its folder's name)."""
    found = {}
    for top in ("interpreter", "tools"):
        for path in (ROOT / top).rglob("*.py"):
            if SKIP & set(path.relative_to(ROOT).parts):
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


MODULES = modules()


def imports(name: str, path: Path) -> list[tuple[str, str, int]]:
    """(module imported, name taken from it or '', line) for each import of the project's own code."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = (node.module or "").removeprefix("rulebook.")
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in MODULES:
                    out.append((sub, "", node.lineno))
                elif target in MODULES:
                    out.append((target, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name.removeprefix("rulebook.")
                if target in MODULES:
                    out.append((target, "", node.lineno))
    return out


def graph() -> dict[str, set[str]]:
    edges = {m: set() for m in MODULES}
    for name, path in MODULES.items():
        for target, _, _ in imports(name, path):
            if target != name and not MODULES[target].name == "__init__.py":
                edges[name].add(target)
    return edges


def floor(name: str) -> int | None:
    for i, prefix in enumerate(FLOORS):
        if name == prefix or name.startswith(prefix + "."):
            return i
    return None


def room(name: str) -> str:
    """A module's room: the package it sits in below interpreter/ or tools/ (tools.serve, interpreter.model…)."""
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 else parts[0]


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter[0]; counter[0] += 1
        stack.append(start); on.add(start)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop(); on.discard(w); comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_the_reader_finds_the_rooms_and_their_imports():
    assert {"interpreter.model.loader", "interpreter.engine.state", "interpreter.solver.solve",
            "interpreter.players.registry", "interpreter.play.game", "tools.cli"} <= set(MODULES)
    taken = {t for t, _, _ in imports("interpreter.engine.state", MODULES["interpreter.engine.state"])}
    assert {"interpreter.engine.program", "interpreter.model.frozen"} <= taken


def test_the_circle_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles():
    assert circles(graph()) == []


def test_imports_point_one_way():
    """model ← engine ← solver ← players ← play ← tools: never an import from a higher floor."""
    wrong = []
    for name, targets in graph().items():
        here = floor(name)
        for target in targets:
            there = floor(target)
            if here is not None and there is not None and there > here:
                wrong.append(f"{name} imports {target}")
    assert wrong == []


def private_taken(name: str, path: Path) -> list[str]:
    """Private names one module takes from another room: imported (`from ..solver.solve import _walk`)
    or read off a module of that room it imported (`from ..solver import solve` … `solve._walk`)."""
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    wrong = []
    modules_of = {}  # local name -> a module of another room bound to it
    for target, taken, line in imports(name, path):
        if room(target) == room(name):
            continue
        if taken.startswith("_") and not taken.startswith("__"):
            wrong.append(f"{where}:{line}: {taken} from {target}")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            package = name if path.name == "__init__.py" else name.rpartition(".")[0]
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            prefix = ".".join(base + ([node.module] if node.module else [])) if node.level \
                else (node.module or "").removeprefix("rulebook.")
            for alias in node.names:
                sub = f"{prefix}.{alias.name}"
                if sub in MODULES and room(sub) != room(name):
                    modules_of[alias.asname or alias.name] = sub
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules_of \
                and node.attr.startswith("_") and not node.attr.startswith("__"):
            wrong.append(f"{where}:{node.lineno}: {node.attr} read off {modules_of[node.value.id]}")
    return wrong


def test_no_private_name_taken_from_another_room():
    wrong = [w for name, path in MODULES.items() for w in private_taken(name, path)]
    assert wrong == []


def test_the_checks_catch_each_wrong_import(tmp_path, monkeypatch):
    """A made-up house with one import of each wrong kind: each check names it, and nothing else."""
    files = {"interpreter.model.frozen": "def f():\n    from ..engine.state import GameState\n",
             "interpreter.engine.state": "from ..model.frozen import f\n",
             "interpreter.solver.solve": "_walk = 1\n",
             "interpreter.solver.writetable": "from .solve import _walk\n",  # its own room: allowed
             "interpreter.players.strong": "from ..solver.solve import _walk\n",
             "interpreter.play.bulk": "from ..solver import solve\nprint(solve._walk, solve.public)\n"}
    fake = {}
    for name, text in files.items():
        path = tmp_path.joinpath(*name.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        fake[name] = path
    monkeypatch.setitem(globals(), "MODULES", fake)
    assert circles(graph()) == [["interpreter.engine.state", "interpreter.model.frozen"]]
    assert [n for n, t in graph().items() for u in t if floor(u) > floor(n)] == ["interpreter.model.frozen"]
    wrong = sorted(w.split(": ", 1)[1] for name, path in fake.items() for w in private_taken(name, path))
    assert wrong == ["_walk from interpreter.solver.solve", "_walk read off interpreter.solver.solve"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_source_file_over_600_lines(name):
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{MODULES[name].relative_to(ROOT)} has {lines} lines"


def test_gamestate_class_body_under_300_lines():
    tree = ast.parse(MODULES["interpreter.engine.state"].read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "GameState")
    assert cls.end_lineno - cls.lineno + 1 < 300


def test_every_room_says_what_it_is_for():
    for name, path in MODULES.items():
        if path.name == "__init__.py" and name.count(".") >= 1:
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
            assert doc and len(doc) > 40, f"{path.relative_to(ROOT)} needs a docstring saying what the room is for"


def test_the_architecture_page_lists_every_module_and_only_those():
    """docs/architecture.md's room map has one row per module file, and names no file that is not there."""
    import re
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `((?:interpreter|tools)/[\w/]+\.py)` \|", text, re.M)
    files = sorted(str(p.relative_to(ROOT)) for p in MODULES.values() if p.name != "__init__.py")
    assert sorted(rows) == files
    assert len(rows) == len(set(rows))


def test_the_docs_send_no_reader_outside_the_repository():
    for page in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"(?<![\w.])/(work|home|root|tmp)/", text), page.name
        for path in re.findall(r"`((?:interpreter|tools|tests|benchmarks|rules|schema|docs)/[\w/.-]+\.(?:py|md|yaml|lark|json))`", text):
            assert (ROOT / path).exists(), f"{page.name} names {path}, which does not exist"
