"""Parse scoring expressions with Lark (LALR, positions on) into `Expr` trees."""
from __future__ import annotations

from functools import lru_cache
from importlib.resources import files

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .ast import Expr

_SYMBOLS = {
    "RPAR": "')'", "LPAR": "'('", "RSQB": "']'", "LSQB": "'['", "COMMA": "','", "DOT": "'.'",
    "NAME": "a name", "INT": "a number", "STRING": "a string", "COMP_OP": "a comparison",
    "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '//' or '%'", "MINUS": "'-'", "IF": "'if'",
    "ELSE": "'else'", "AND": "'and'", "OR": "'or'", "NOT": "'not'", "IN": "'in'",
    "TRUE": "'true'", "FALSE": "'false'", "$END": "the end",
}


class ParseError(Exception):
    """A syntax error at a character offset of the expression."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message, self.offset = message, offset


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = files(__package__).joinpath("grammar.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=False)


def _off(meta_or_token) -> int:
    return getattr(meta_or_token, "start_pos", 0) or 0


@v_args(meta=True)
class _ToExpr(Transformer):
    def number(self, meta, c):
        return Expr("number", value=int(c[0]), offset=_off(meta))

    def string(self, meta, c):
        return Expr("string", value=str(c[0])[1:-1], offset=_off(meta))

    def true(self, meta, c):
        return Expr("bool", value=True, offset=_off(meta))

    def false(self, meta, c):
        return Expr("bool", value=False, offset=_off(meta))

    def name(self, meta, c):
        return Expr("name", value=str(c[0]), offset=_off(meta))

    def call(self, meta, c):
        return Expr("call", args=[a for a in c[1:] if a is not None], value=str(c[0]), offset=_off(meta))

    def list(self, meta, c):
        return Expr("list", args=[a for a in c if a is not None], offset=_off(meta))

    def index(self, meta, c):
        return Expr("index", args=[c[0], c[1]], offset=c[1].offset)

    def attr(self, meta, c):
        return Expr("attr", args=[c[0]], value=str(c[1]), offset=c[1].start_pos)

    def ifelse(self, meta, c):
        return Expr("ifelse", args=[c[1], c[0], c[2]], offset=_off(meta))  # cond, then, else

    def or_(self, meta, c):
        return Expr("or", args=list(c), offset=_off(meta))

    def and_(self, meta, c):
        return Expr("and", args=list(c), offset=_off(meta))

    def not_(self, meta, c):
        return Expr("not", args=[c[0]], offset=_off(meta))

    def compare(self, meta, c):
        return Expr("compare", args=[c[0], c[2]], value=str(c[1]), offset=c[1].start_pos)

    def contains(self, meta, c):
        return Expr("contains", args=[c[0], c[1]], offset=_off(meta))

    def not_contains(self, meta, c):
        return Expr("not", args=[Expr("contains", args=[c[0], c[1]], offset=_off(meta))], offset=_off(meta))

    def binop(self, meta, c):
        return Expr("binop", args=[c[0], c[2]], value=str(c[1]), offset=c[1].start_pos)

    def neg(self, meta, c):
        return Expr("neg", args=[c[0]], offset=_off(meta))


def _describe(token: Token) -> str:
    if token.type == "$END":
        return "end of expression"
    return f"'{token.value}'"


def parse(text: str) -> Expr:
    """Parse one expression; raises ParseError with a human message and offset."""
    if not text.strip():
        raise ParseError("empty expression", 0)
    try:
        tree = _parser().parse(text)
    except UnexpectedCharacters as exc:
        ch = text[exc.pos_in_stream]
        hint = " (use '==' to compare)" if ch == "=" else ""
        raise ParseError(f"unexpected character '{ch}'{hint}", exc.pos_in_stream) from None
    except UnexpectedToken as exc:
        expected = sorted({_SYMBOLS.get(t, t) for t in exc.expected if not t.startswith("__")})
        want = f"; expected {', '.join(expected[:8])}" if expected else ""
        offset = len(text.rstrip()) if exc.token.type == "$END" or exc.token.start_pos is None else exc.token.start_pos
        raise ParseError(f"unexpected {_describe(exc.token)}{want}", offset) from None
    except UnexpectedEOF:
        raise ParseError("unexpected end of expression", len(text.rstrip())) from None
    except UnexpectedInput as exc:  # pragma: no cover - other lark variants
        raise ParseError("syntax error", getattr(exc, "pos_in_stream", 0) or 0) from None
    return _ToExpr().transform(tree)
