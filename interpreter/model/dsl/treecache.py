"""The parsed expression trees of a model's text, kept in the cache folder between runs.

One file per model text: `dsl-trees/<key>.json`, the key a hash of the text, the grammar, this
format and the limits in force (a limit decides what parses). A file is used only if its seal
holds (`cachedir`: written by this user, unchanged), it is whole and every tree in it is well formed for its expression (`_valid`); anything else is ignored
and written again after the model is parsed. Files are written only inside the cache folder, under
a name made of hex digits.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import astuple
from functools import lru_cache
from pathlib import Path

from ..limits import limits
from . import parser

FORMAT = 1  # bump when `Expr`, `parser.pack` or the parser's output change
MAX_FILE_BYTES = 8 * 2**20  # a tree file larger than this is not read (a model's: a few KB)
OPS = frozenset({"number", "string", "bool", "name", "call", "list", "index", "attr", "ifelse", "or", "and",
                 "not", "compare", "contains", "binop", "neg"})


@lru_cache(maxsize=1)
def _grammar_hash() -> str:
    return hashlib.sha256(parser.grammar_text().encode("utf-8")).hexdigest()


def key(source: str) -> str:
    """The cache key of a model text's trees."""
    text = f"{FORMAT}|{_grammar_hash()}|{astuple(limits())}|".encode() + source.encode("utf-8", "surrogatepass")
    return hashlib.sha256(text).hexdigest()


def path(source: str) -> Path | None:
    from ..cachedir import folder
    where = folder()
    return None if where is None else where / "dsl-trees" / f"{key(source)[:40]}.json"


def load(source: str) -> dict[str, list]:
    """Put the kept trees of this model text into the parser's memo, and return them ({}: none usable)."""
    file = path(source)
    if file is None:
        return {}
    from ..cachedir import read_sealed
    raw = read_sealed(file, MAX_FILE_BYTES)  # None: missing, too large, or not sealed by this user
    if raw is None:
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return {}
    if not (isinstance(data, dict) and data.get("key") == key(source) and isinstance(data.get("trees"), dict)):
        return {}
    trees = data["trees"]
    if not all(isinstance(text, str) and _valid(tree, len(text)) for text, tree in trees.items()):
        return {}  # damaged or not ours: parsed again and written anew
    parser.remember(trees)
    return trees


def save(source: str, trees: dict[str, list]) -> bool:
    """Keep the trees of this model text (False if there is no cache folder or it cannot be written)."""
    from ..cachedir import write_sealed
    file = path(source)
    if file is None or not trees:
        return False
    data = json.dumps({"key": key(source), "trees": trees}, ensure_ascii=False, separators=(",", ":"))
    return write_sealed(file, data.encode("utf-8", "surrogatepass"))


def _valid(tree, size: int) -> bool:
    """Whether `tree` is a packed tree parse could have made for an expression of `size` characters."""
    digits = limits().number_digits
    stack, seen = [tree], 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > 2 * size + 2 or not (isinstance(node, list) and len(node) == 5):
            return False
        op, value, offset, start, args = node
        if op not in OPS or not isinstance(args, list):
            return False
        for at in (offset, start):
            if type(at) is not int or not 0 <= at <= size:
                return False
        if not (value is None or type(value) in (str, bool) or (type(value) is int and len(str(abs(value))) <= digits)):
            return False
        stack.extend(args)
    return True
