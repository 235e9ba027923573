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

from .errors import ModelError, Pos


class Text(str):
    """A string from a YAML file that knows where each of its characters came from."""

    pos: Pos
    raw: str  # the scalar's source text (with its quotes or block indicator)

    def at(self, offset: int) -> Pos:
        """The file position of character `offset` of this string."""
        return _locate(self, offset)


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


def _locate(text: Text, offset: int) -> Pos:
    """Map a character offset in the loaded string to its place in the file.

    Plain, quoted and folded scalars keep their non-blank characters in order, so the n-th non-blank
    character of the value is the n-th non-blank character of the source after any indicator.
    """
    raw, start = text.raw, text.pos
    body_start = 0
    if raw[:1] in "\"'":
        body_start = 1
    elif raw[:1] in "|>":
        body_start = raw.find("\n") + 1 if "\n" in raw else len(raw)
    target = sum(1 for ch in text[:offset] if not ch.isspace())
    seen = 0
    line, col = start.line, start.col
    for i, ch in enumerate(raw):
        if i >= body_start and not ch.isspace():
            if seen == target:
                return Pos(start.file, line, col)
            seen += 1
        if ch == "\n":
            line, col = line + 1, 1
        else:
            col += 1
    return Pos(start.file, line, col)


# YAML 1.2 core schema scalars only.
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT = re.compile(r"^[-+]?[0-9]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")


def _scalar(file: str, node: ScalarNode, source: str) -> Any:
    value = node.value
    if node.style is None:  # plain: resolve by YAML 1.2 core rules
        if _NULL.match(value):
            return None
        if _BOOL.match(value):
            return value.lower() == "true"
        if _INT.match(value):
            return int(value)
        if _FLOAT.match(value):
            return float(value)
    text = Text(value)
    text.pos = _mark_pos(file, node.start_mark)
    text.raw = source[node.start_mark.index : node.end_mark.index]
    return text


def _build(file: str, node: yaml.Node, source: str) -> Any:
    if isinstance(node, ScalarNode):
        return _scalar(file, node, source)
    if isinstance(node, SequenceNode):
        seq = Seq(_build(file, item, source) for item in node.value)
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
                raise ModelError(f"duplicate key '{key}' (first defined at line {first.line})", kpos)
            out[key] = _build(file, value_node, source)
            out.key_pos[key] = kpos
            out.value_pos[key] = _mark_pos(file, value_node.start_mark)
        return out
    raise ModelError("unsupported YAML node", _mark_pos(file, node.start_mark))


def load_yaml(source: str, file: str) -> Any:
    """Parse YAML text into positioned Nodes, Seqs and Texts; any problem is a ModelError."""
    try:
        root = yaml.compose(source, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        pos = _mark_pos(file, mark) if mark else Pos(file, 1, 1)
        raise ModelError(f"YAML syntax: {exc.problem or exc.context}", pos) from None
    except yaml.YAMLError as exc:
        raise ModelError(f"YAML syntax: {exc}", Pos(file, 1, 1)) from None
    if root is None:
        raise ModelError("the file is empty", Pos(file, 1, 1))
    return _build(file, root, source)


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
