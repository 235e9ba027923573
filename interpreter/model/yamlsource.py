"""YAML reading that keeps source positions and refuses YAML's traps.

Every mapping becomes a `Node` dict and every string a `Text` str; both know their file, line and
column, so later checks (schema, DSL, references) can point at the exact place. Duplicate keys are
errors, and only `true`/`false` are booleans (YAML 1.1 would read `no` as false, `1:20` as 80).
"""
from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from .errors import Either, Message, ModelError, Pos
from .limits import NumberTooLong, bounded_int, hint_for, limits, too_long


class Text(str):
    """A string from a YAML file that knows where each of its characters came from."""

    pos: Pos
    raw: str  # the scalar's source text (with its quotes or block indicator)

    def at(self, offset: int) -> Pos:
        """The file position of character `offset` of this string."""
        parent = getattr(self, "parent", None)
        if parent is not None:
            return parent[0].at(parent[1] + offset)
        return _locate(self, offset)

    def slice(self, start: int, end: int) -> "Text":
        """The part [start:end] of this string, still knowing where each character came from."""
        part = Text(str(self)[start:end])
        part.pos, part.raw, part.parent = self.at(start), str(part), (self, start)
        return part


class Node(dict):
    """A YAML mapping with the position of itself, of each key and of each value."""

    pos: Pos
    key_pos: dict[str, Pos]
    value_pos: dict[str, Pos]


class Seq(list):
    """A YAML sequence with its own position and each item's."""

    pos: Pos
    item_pos: list[Pos]


def _mark_pos(file: str, mark: yaml.Mark) -> Pos:
    return Pos(file, mark.line + 1, mark.column + 1)


_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
            "r": "\r", "e": "\x1b", " ": " ", "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"}
_HEX = {"x": 2, "u": 4, "U": 8}


def _characters(raw: str):
    """Each character of a scalar's value with the index in `raw` it came from, in order.

    Line breaks and indentation may fold into spaces, but every other character of the value
    comes from one place in the source: after a block indicator's line, between the quotes
    (with `''` and backslash escapes decoded), or anywhere in a plain scalar.
    """
    if raw[:1] in "|>":
        start = raw.find("\n") + 1 if "\n" in raw else len(raw)
        yield from ((raw[i], i) for i in range(start, len(raw)))
    elif raw[:1] == "'":
        i, end = 1, len(raw) - 1 if len(raw) > 1 and raw.endswith("'") else len(raw)
        while i < end:
            yield raw[i], i
            i += 2 if raw.startswith("''", i) else 1
    elif raw[:1] == '"':
        i, end = 1, len(raw) - 1 if len(raw) > 1 and raw.endswith('"') else len(raw)
        while i < end:
            ch = raw[i]
            if ch != "\\" or i + 1 >= end:
                yield ch, i
                i += 1
                continue
            code = raw[i + 1]
            if code in "\r\n":  # an escaped line break joins the lines
                i += 2
                continue
            width = _HEX.get(code, 0)
            try:
                value = chr(int(raw[i + 2 : i + 2 + width], 16)) if width else _ESCAPES.get(code, code)
            except ValueError:
                value = "?"
            yield value, i
            i += 2 + width
    else:
        yield from ((ch, i) for i, ch in enumerate(raw))


def _locate(text: Text, offset: int) -> Pos:
    """Map a character offset in the loaded string to its place in the file.

    The n-th non-blank character of the value is the n-th non-blank character of the source;
    an offset past the last one maps to just after it (where "unexpected end" errors point).
    """
    raw, start = text.raw, text.pos

    def place(i: int, after: bool = False) -> Pos:
        newline = raw.rfind("\n", 0, i)
        line = start.line + raw.count("\n", 0, i)
        col = start.col + i if newline < 0 else i - newline
        return Pos(start.file, line, col + after)

    target = sum(1 for ch in text[:offset] if not ch.isspace())
    seen, last = 0, None
    for ch, i in _characters(raw):
        if ch.isspace():
            continue
        if seen == target:
            return place(i)
        seen, last = seen + 1, i
    return place(last, after=True) if last is not None else start


# YAML 1.2 core schema scalars only.
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT = re.compile(r"^[-+]?[0-9]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")


# Characters a text may not hold: controls (a terminal would obey ESC and OSC sequences) and lone
# surrogates (halves of a character, which no output encoding can write).
_FORBIDDEN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def _scalar(file: str, node: ScalarNode, source: str) -> Any:
    value = node.value
    if not node.style:  # plain (None from Python's parser, '' from libyaml): resolve by YAML 1.2 core rules
        if _NULL.match(value):
            return None
        if _BOOL.match(value):
            return value.lower() == "true"
        if _INT.match(value):
            try:
                return bounded_int(value)
            except NumberTooLong as exc:
                raise ModelError(too_long(exc.digits), _mark_pos(file, node.start_mark),
                                 hint_for("number_digits")) from None
        if _FLOAT.match(value):
            return float(value)
    bad = _FORBIDDEN.search(value)
    if bad:
        raise ModelError("a text holds the control character or lone surrogate {char}, which a model may not contain",
                      _mark_pos(file, node.start_mark), "write the text without it", char=f"U+{ord(bad.group()):04X}")
    text = Text(value)
    text.pos = _mark_pos(file, node.start_mark)
    text.raw = source[node.start_mark.index : node.end_mark.index]
    return text


def _bounded_compose(loader, compose, parent, index):
    """`compose(loader, parent, index)` (PyYAML's composer), counting values and nesting first."""
    loader.count += 1
    loader.depth += 1
    try:
        if loader.count > loader.budget.yaml_nodes:
            raise ModelError("the file has more than {limit} values", loader._here(),
                             hint_for("yaml_nodes"), limit=loader.budget.yaml_nodes)
        if loader.depth > loader.budget.yaml_depth:
            raise ModelError("the file is nested more than {limit} levels deep", loader._here(),
                             hint_for("yaml_depth"), limit=loader.budget.yaml_depth)
        return compose(loader, parent, index)
    finally:
        loader.depth -= 1


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, counting values and nesting *while* it composes (not after)."""

    def __init__(self, stream: str, file: str):
        super().__init__(stream)
        self.file, self.count, self.depth = file, 0, 0
        self.budget = limits()

    def compose_node(self, parent, index):
        return _bounded_compose(self, yaml.SafeLoader.compose_node, parent, index)

    def _here(self) -> Pos:
        return _mark_pos(self.file, self.peek_event().start_mark)


class _Builder:
    """Turns composed YAML nodes into Nodes, Seqs and Texts, refusing self-referencing aliases."""

    def __init__(self, file: str, source: str):
        self.file, self.source = file, source
        self.active: set[int] = set()  # nodes being built (an alias to one of them is a loop)
        self.count = 0
        self.limit = limits().yaml_nodes  # aliases can make a small file expand enormously ("billion laughs")
        self.chars, self.char_limit = 0, limits().yaml_chars  # … also by repeating one long text

    def build(self, node: yaml.Node) -> Any:
        self.count += 1
        if self.count > self.limit:
            raise ModelError("the file expands to more than {limit} values (aliases repeat what they name)",
                          _mark_pos(self.file, node.start_mark), hint_for("yaml_nodes"), limit=self.limit)
        if isinstance(node, ScalarNode):
            self.chars += len(node.value)
            if self.chars > self.char_limit:
                raise ModelError("the file expands to more than {limit} characters (aliases repeat what they name)",
                                 _mark_pos(self.file, node.start_mark), hint_for("yaml_chars"), limit=self.char_limit)
            return _scalar(self.file, node, self.source)
        if id(node) in self.active:
            raise ModelError("an alias refers to the value that contains it", _mark_pos(self.file, node.start_mark))
        self.active.add(id(node))
        try:
            return self._collection(node)
        finally:
            self.active.discard(id(node))

    def _collection(self, node: yaml.Node) -> Any:
        file = self.file
        if isinstance(node, SequenceNode):
            seq = Seq(self.build(item) for item in node.value)
            seq.pos = _mark_pos(file, node.start_mark)
            seq.item_pos = [_mark_pos(file, item.start_mark) for item in node.value]
            return seq
        if isinstance(node, MappingNode):
            out = Node()
            out.pos = _mark_pos(file, node.start_mark)
            out.key_pos, out.value_pos = {}, {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, ScalarNode):
                    raise ModelError("mapping keys must be plain words", _mark_pos(file, key_node.start_mark))
                key = key_node.value
                kpos = _mark_pos(file, key_node.start_mark)
                if key in out:
                    first = out.key_pos[key]
                    raise ModelError("duplicate key '{key}' (first defined at line {line})", kpos, key=key, line=first.line)
                out[key] = self.build(value_node)
                out.key_pos[key] = kpos
                out.value_pos[key] = _mark_pos(file, value_node.start_mark)
            return out
        raise ModelError("unsupported YAML node", _mark_pos(file, node.start_mark))


# PyYAML's words for what went wrong, as templates the catalogs translate (anything else is shown as PyYAML says it)
_YAML_PROBLEMS = (
    (re.compile(r"^expected (.+), but (?:found|got) (.+)$"), "YAML syntax: expected {expected}, but found {found}"),
    # (PyYAML's "expected ',' or '}'": the "or" said in the language shown)
    (re.compile(r"^found character (.+) that cannot start any token$"), "YAML syntax: the character {char} cannot start a value here"),
    (re.compile(r"^mapping values are not allowed here$"), "YAML syntax: a ':' is not allowed here"),
    (re.compile(r"^could not find expected ':'$"), "YAML syntax: a ':' is missing"),
    (re.compile(r"^found unexpected end of stream$"), "YAML syntax: the file ends too early"),
    (re.compile(r"^found undefined alias (.+)$"), "YAML syntax: the alias {alias} is not defined"),
)
_YAML_TEMPLATES = (Message("YAML syntax: expected {expected}, but found {found}"),
                   Message("YAML syntax: the character {char} cannot start a value here"),
                   Message("YAML syntax: a ':' is not allowed here"), Message("YAML syntax: a ':' is missing"),
                   Message("YAML syntax: the file ends too early"), Message("YAML syntax: the alias {alias} is not defined"),
                   Message("YAML syntax: {problem}"))  # (for the catalogs)
_YAML_CONTEXTS = {"while parsing a block collection": Message("a block of entries"),
                  "while parsing a block mapping": Message("a mapping"),
                  "while parsing a flow mapping": Message("a mapping in braces"),
                  "while parsing a flow sequence": Message("a list in brackets"),
                  "while scanning a quoted scalar": Message("a quoted text"),
                  "while scanning a simple key": Message("a key")}


_YAML_TOKENS = {"<block end>": Message("the end of the block"), "<block mapping start>": Message("the start of a mapping"),
                "<block sequence start>": Message("the start of a list"), "<block entry>": Message("a '-' entry"),
                "<stream end>": Message("the end of the file"), "<document start>": Message("a new document"),
                "<scalar>": Message("a value")}


def _token(text: str):
    """A PyYAML token name ("'<block mapping start>'") in words; a character stays as it is."""
    return _YAML_TOKENS.get(text.strip("'"), text)


def _yaml_problem(problem: str) -> Message:
    for pattern, template in _YAML_PROBLEMS:
        match = pattern.match(problem)
        if match:
            names = [f for f in ("expected", "found", "char", "alias") if "{" + f + "}" in template]
            values = dict(zip(names, match.groups()))
            if "expected" in values:
                values["expected"] = Either(tuple(_token(t) for t in values["expected"].split(" or ")))
            if "found" in values:
                values["found"] = _token(values["found"])
            return Message(template, values)
    return Message("YAML syntax: {problem}", {"problem": problem})


def _syntax_error(exc: yaml.MarkedYAMLError, file: str) -> ModelError:
    """A one-line YAML syntax error at the place the parser stopped, with what it was reading."""
    mark = exc.problem_mark or exc.context_mark
    pos = _mark_pos(file, mark) if mark else Pos(file, 1, 1)
    message = _yaml_problem(exc.problem or exc.context or "")
    if exc.problem and exc.context and exc.context_mark and exc.problem_mark \
            and exc.context_mark.line != exc.problem_mark.line:
        context = _YAML_CONTEXTS.get(exc.context, exc.context)
        message = Message("{problem} (while reading {context} from line {line})",
                          {"problem": message, "context": context, "line": exc.context_mark.line + 1})
    problem = exc.problem or ""
    hint = (Message("indent with spaces, not tabs") if "\\t" in problem
            else Message("check the indentation") if "<block" in problem else None)
    return ModelError(message, pos, hint)


try:  # libyaml's scanner and parser, when PyYAML was built with it (about 10x faster than Python's)
    from yaml._yaml import CParser as _CParser
except ImportError:  # pragma: no cover - PyYAML without libyaml
    _CParser = None

if _CParser is not None:
    from yaml.composer import Composer
    from yaml.events import ScalarEvent
    from yaml.resolver import Resolver

    class _AskPython(Exception):
        """The text is one libyaml reads differently: the Python loader reads it."""

    class _FastBoundedLoader(_CParser, Composer, Resolver):
        """libyaml's events composed by PyYAML's Python composer, so that values and nesting are
        counted *while* composing, exactly as `_BoundedLoader` does (libyaml's own composer could
        not be bounded). Used only where it succeeds: any problem is reported by the Python loader."""

        def __init__(self, stream: str, file: str):
            _CParser.__init__(self, stream)
            Resolver.__init__(self)
            Composer.__init__(self)
            self.file, self.count, self.depth = file, 0, 0
            self.budget = limits()

        def compose_node(self, parent, index):
            event = self.peek_event()
            if isinstance(event, ScalarEvent) and not event.value and not event.style:
                raise _AskPython  # an empty value: libyaml places it at the next token, Python after the ':'
            return _bounded_compose(self, Composer.compose_node, parent, index)

        _here = _BoundedLoader._here

        def get_single_node(self):
            return Composer.get_single_node(self)


# Texts libyaml reads differently (found by comparing both over mutated models): its positions skip a
# byte-order mark, and it takes tabs and a '?' ending a plain scalar in a flow where Python refuses them.
_PYTHON_ONLY = ("\ufeff", "\t", "?")


def _fast_root(source: str, file: str) -> yaml.Node | None:
    """The composed root by libyaml, or None where libyaml is missing or finds any problem (then the
    Python loader reads the text and says what is wrong in its own words, as it always has)."""
    if _CParser is None or any(ch in source for ch in _PYTHON_ONLY):
        return None
    loader = None
    try:
        loader = _FastBoundedLoader(source, file)
        root = loader.get_single_node()
    except Exception:  # noqa: BLE001 - a refusal, a syntax error, text libyaml cannot encode: ask Python
        return None
    finally:
        if loader is not None:
            loader.dispose()
    return root


def load_yaml(source: str, file: str) -> Any:
    """Parse YAML text into positioned Nodes, Seqs and Texts; any problem is a ModelError."""
    budget = limits()
    if len(source) > budget.file_bytes:
        raise ModelError("the file has {size} characters; the limit is {limit}", Pos(file, 1, 1),
                      hint_for("file_bytes"), size=len(source), limit=budget.file_bytes)
    root = _fast_root(source, file)
    if root is None:
        root = _python_root(source, file)
    try:
        return _Builder(file, source).build(root)
    except RecursionError:
        raise ModelError("the file is nested too deeply", Pos(file, 1, 1)) from None


def _python_root(source: str, file: str) -> yaml.Node:
    """The composed root by PyYAML's Python loader, counting values and depth as it goes."""
    loader = None
    try:
        loader = _BoundedLoader(source, file)  # the reader already refuses unprintable characters here
        root = loader.get_single_node()
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (NUL, most controls)
        before = source[: exc.position]
        pos = Pos(file, before.count("\n") + 1, exc.position - (before.rfind("\n") + 1) + 1)
        raise ModelError("YAML syntax: the character {char} is not allowed in YAML", pos,
                         char=f"U+{exc.character:04X}" if isinstance(exc.character, int) else repr(exc.character)) from None
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, file) from None
    except yaml.YAMLError as exc:
        raise ModelError("YAML syntax: {problem}", Pos(file, 1, 1), problem=str(exc)) from None
    except RecursionError:
        raise ModelError("the file is nested too deeply", Pos(file, 1, 1)) from None
    finally:
        if loader is not None:
            loader.dispose()
    if root is None:
        raise ModelError("the file is empty", Pos(file, 1, 1))
    return root


def position_of(data: Any, path: list[str | int]) -> Pos | None:
    """The position of the value at `path` (keys and indexes) inside loaded data."""
    pos = getattr(data, "pos", None)
    for step in path:
        if isinstance(data, Node) and step in data:
            pos = data.value_pos[step]
            data = data[step]
        elif isinstance(data, Seq) and isinstance(step, int) and step < len(data):
            pos = data.item_pos[step]
            data = data[step]
        else:
            break
    return pos


def key_position(data: Any, path: list[str | int], key: str) -> Pos | None:
    """The position of `key` itself in the mapping at `path`."""
    for step in path:
        try:
            data = data[step]
        except (KeyError, IndexError, TypeError):
            return None
    return data.key_pos.get(key) if isinstance(data, Node) else None
