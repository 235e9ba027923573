"""Parse scoring expressions with Lark (LALR, positions on) into `Expr` trees.

Lark is imported only when an expression has to be parsed: trees of expressions seen before come
from a memo filled by this run or by the tree cache (`treecache`: the trees of a model's text kept
in the cache folder), so loading a known model needs no parser at all.
"""
from __future__ import annotations

from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from ..errors import Either, Message
from ..limits import Limits, NumberTooLong, bounded_int, limits, too_long
from .ast import Expr

_SYMBOLS = {
    "RPAR": "')'", "LPAR": "'('", "RSQB": "']'", "LSQB": "'['", "COMMA": "','", "DOT": "'.'",
    "NAME": Message("a name"), "INT": Message("a number"), "STRING": Message("a string"),
    "COMP_OP": Message("a comparison"), "ADD_OP": Message("'+' or '-'"), "MUL_OP": Message("'*', '//' or '%'"),
    "MINUS": "'-'", "IF": "'if'", "ELSE": "'else'", "AND": "'and'", "OR": "'or'", "NOT": "'not'", "IN": "'in'",
    "TRUE": "'true'", "FALSE": "'false'",
}


class ParseError(Exception):
    """A syntax error at a character offset of the expression."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message, self.offset = message, offset


def grammar_text() -> str:
    return (Path(__file__).resolve().parent / "grammar.lark").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _parser():
    """The LALR parser, built once and kept in the cache folder (`Lark.save`, a pickle: loaded only
    when its seal holds, `cachedir.read_sealed`; the file's name carries a hash of the grammar,
    the options and Lark's version, so any change builds it again)."""
    import io
    from lark import Lark
    grammar, options = grammar_text(), dict(_OPTIONS)
    cache = _cache_file()
    if cache is not None:
        from ..cachedir import read_sealed
        data = read_sealed(cache, 16 * 2**20)
        if data is not None:
            try:
                return Lark.load(io.BytesIO(data))
            except Exception:  # noqa: BLE001 - our own file, but of an older kind: build it again
                pass
    built = Lark(grammar, **options)
    if cache is not None:
        from ..cachedir import write_sealed
        out = io.BytesIO()
        try:
            built.save(out)
        except Exception:  # noqa: BLE001 - nothing kept, no harm
            return built
        write_sealed(cache, out.getvalue())
    return built


_OPTIONS = (("parser", "lalr"), ("propagate_positions", True), ("maybe_placeholders", False))


def _cache_file() -> "Path | None":
    """Where the built parser is kept in the cache folder (None: nowhere)."""
    import hashlib
    import lark
    from ..cachedir import folder
    where = folder()
    if where is None:
        return None
    stamp = hashlib.sha256(f"{lark.__version__}|{_OPTIONS}|{grammar_text()}".encode()).hexdigest()[:16]
    return where / f"dsl-parser-{stamp}.lark"


def _off(meta_or_token) -> int:
    return getattr(meta_or_token, "start_pos", 0) or 0


@lru_cache(maxsize=1)
def _transformer_class():
    """The Lark transformer that builds `Expr` nodes (defined on first use: Lark is imported then)."""
    from lark import Transformer, v_args

    @v_args(meta=True)
    class _ToExpr(Transformer):
        """Builds `Expr` nodes; `start` is where a node's text begins, `offset` where errors point."""

        def _node(self, meta, op, args=(), value=None, offset=None) -> Expr:
            start = _off(meta)
            return Expr(op, args=list(args), value=value, offset=start if offset is None else offset, start=start)

        def number(self, meta, c):
            try:
                value = bounded_int(str(c[0]))
            except NumberTooLong as exc:
                raise ParseError(too_long(exc.digits), _off(meta)) from None
            return self._node(meta, "number", value=value)

        def string(self, meta, c):
            return self._node(meta, "string", value=str(c[0])[1:-1])

        def true(self, meta, c):
            return self._node(meta, "bool", value=True)

        def false(self, meta, c):
            return self._node(meta, "bool", value=False)

        def name(self, meta, c):
            return self._node(meta, "name", value=str(c[0]))

        def call(self, meta, c):
            return self._node(meta, "call", [a for a in c[1:] if a is not None], value=str(c[0]))

        def list(self, meta, c):
            return self._node(meta, "list", [a for a in c if a is not None])

        def index(self, meta, c):  # errors point at the index inside the brackets
            return self._node(meta, "index", [c[0], c[1]], offset=c[1].start)

        def attr(self, meta, c):  # errors point at the field name after the dot
            return self._node(meta, "attr", [c[0]], value=str(c[1]), offset=c[1].start_pos)

        def ifelse(self, meta, c):
            return self._node(meta, "ifelse", [c[1], c[0], c[2]])  # cond, then, else

        def or_(self, meta, c):
            return self._node(meta, "or", c)

        def and_(self, meta, c):
            return self._node(meta, "and", c)

        def not_(self, meta, c):
            return self._node(meta, "not", [c[0]])

        def compare(self, meta, c):  # errors point at the operator
            return self._node(meta, "compare", [c[0], c[2]], value=str(c[1]), offset=c[1].start_pos)

        def contains(self, meta, c):
            return self._node(meta, "contains", [c[0], c[1]])

        def not_contains(self, meta, c):
            return self._node(meta, "not", [self._node(meta, "contains", [c[0], c[1]])])

        def binop(self, meta, c):  # errors point at the operator
            return self._node(meta, "binop", [c[0], c[2]], value=str(c[1]), offset=c[1].start_pos)

        def neg(self, meta, c):
            return self._node(meta, "neg", [c[0]])

    return _ToExpr


_OPERATORS = {"ADD_OP", "MUL_OP", "COMP_OP", "AND", "OR", "IN", "NOT", "IF", "ELSE", "DOT", "LSQB", "LPAR"}
_OPERANDS = {"INT", "STRING", "NAME", "TRUE", "FALSE", "LPAR", "LSQB", "MINUS", "NOT"}


def _expected(names: set[str]) -> Either | None:
    """What the parser would have accepted, in words; long lists are summarized."""
    names = {n for n in names if not n.startswith("__")}
    words: list = []
    if len(names & _OPERANDS) >= 4:
        names -= _OPERANDS
        words.append(Message("a value"))
    if len(names & _OPERATORS) >= 4:
        names -= _OPERATORS
        words.append(Message("an operator"))
    end = "$END" in names
    words += [_SYMBOLS.get(n, n) for n in sorted(names - {"$END"}, key=lambda n: str(_SYMBOLS.get(n, n)))]
    if end:
        words.append(Message("the end of the expression"))
    return Either(tuple(words)) if words else None


def _describe(token) -> Message | str:
    if token.type == "$END":
        return Message("end of expression")
    return f"'{token.value}'"


def parse(text: str) -> Expr:
    """Parse one expression; raises ParseError with a human message and offset.

    A text parsed before (in this run, or kept in the tree cache for its model) is rebuilt from its
    packed tree: a fresh `Expr` every time, since the compiler annotates the nodes it is given.
    """
    if not text.strip():
        raise ParseError("empty expression", 0)
    budget = limits()
    limit = budget.expression_chars
    if len(text) > limit:
        raise ParseError(Message("the expression has {size} characters; the limit is {limit} "
                                 "(raise it with --limit expression_chars=N)", {"size": len(text), "limit": limit}), limit)
    memo = _memo(budget)
    packed = memo.get(text)
    try:
        if packed is None:
            tree = _parse(text)
            packed = pack(tree)
            if len(memo) >= MEMO_SIZE:
                memo.clear()
            memo[text] = packed
            fresh = True
        else:
            tree = unpack(packed)
            fresh = False
    except RecursionError:
        raise ParseError("the expression is nested too deeply", 0) from None
    if _recording:
        _recording[-1][text] = packed
        if fresh:
            _fresh[-1] = True
    return tree


MEMO_SIZE = 50_000  # expressions remembered in one run (a served app loads many models)
_memos: dict[Limits, dict[str, list]] = {}
_recording: list[dict[str, list]] = []  # the trees used while a model loads (see `recording`)
_fresh: list[bool] = []  # whether any of them had to be parsed


def _memo(budget: Limits) -> dict[str, list]:
    """The memo of packed trees for this budget (a number's digits limit decides what parses)."""
    memo = _memos.get(budget)
    if memo is None:
        _memos.clear()
        memo = _memos[budget] = {}
    return memo


def remember(trees: dict[str, list]) -> None:
    """Add packed trees (checked by `treecache`) to this run's memo."""
    _memo(limits()).update(trees)


@contextmanager
def recording():
    """Collect the packed trees of every expression parsed inside: yields (trees, fresh), where
    fresh[0] says whether any of them was not known before."""
    trees: dict[str, list] = {}
    _recording.append(trees)
    _fresh.append(False)
    flag = [False]
    try:
        yield trees, flag
    finally:
        _recording.pop()
        flag[0] = _fresh.pop()


def pack(tree: Expr) -> list:
    """A tree as nested lists [op, value, offset, start, [args…]] (JSON-able)."""
    return [tree.op, tree.value, tree.offset, tree.start, [pack(a) for a in tree.args]]


def unpack(packed: list) -> Expr:
    op, value, offset, start, args = packed
    return Expr(op, args=[unpack(a) for a in args], value=value, offset=offset, start=start)


def _parse(text: str) -> Expr:
    """Parse with Lark."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
    try:
        tree = _parser().parse(text)
    except UnexpectedCharacters as exc:
        ch = text[exc.pos_in_stream]
        raise ParseError(Message("unexpected character '{char}' (use '==' to compare)" if ch == "=" else
                                 "unexpected character '{char}'", {"char": ch}), exc.pos_in_stream) from None
    except UnexpectedToken as exc:
        try:
            accepts = set(exc.interactive_parser.accepts())
        except Exception:  # pragma: no cover - fall back to the LALR table's guess
            accepts = set(exc.expected)
        offset = len(text.rstrip()) if exc.token.type == "$END" or exc.token.start_pos is None else exc.token.start_pos
        if exc.token.type == "COMP_OP" and not accepts & _OPERANDS:  # after a whole comparison
            raise ParseError("comparisons do not chain: write 'a < b and b < c', not 'a < b < c'", offset) from None
        expected = _expected(accepts)
        raise ParseError(Message("unexpected {token}; expected {what}" if expected else "unexpected {token}",
                                 {"token": _describe(exc.token), "what": expected}), offset) from None
    except UnexpectedEOF:
        raise ParseError("unexpected end of expression", len(text.rstrip())) from None
    except UnexpectedInput as exc:  # pragma: no cover - other lark variants
        raise ParseError("syntax error", getattr(exc, "pos_in_stream", 0) or 0) from None
    except RecursionError:
        raise ParseError("the expression is nested too deeply", 0) from None
    try:
        return _transformer_class()().transform(tree)
    except (RecursionError, VisitError) as exc:  # lark wraps errors raised inside a callback
        if isinstance(getattr(exc, "orig_exc", exc), RecursionError):
            raise ParseError("the expression is nested too deeply", 0) from None
        if isinstance(getattr(exc, "orig_exc", None), ParseError):
            raise exc.orig_exc from None
        raise
