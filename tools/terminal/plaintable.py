"""A small table drawn with box characters, for commands that print one table and exit (`score`):
the look of rich's default table without importing rich (a third of such a command's start-up)."""
from __future__ import annotations

import unicodedata

_UNICODE = ("┏━┳┓", "┃┃┃", "┡━╇┩", "│││", "└─┴┘")
_ASCII = ("+-++", "|||", "+=++", "|||", "+-++")


def width(text: str) -> int:
    """Terminal columns of a text (wide East Asian characters take two, combining marks none)."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def render(title: str, headers: list[str], rows: list[list[str]], right: set[int] = frozenset(),
           encoding: str | None = "utf-8") -> str:
    """The table as lines of text: a centred title, a heavy header, one line per row.

    `right`: the columns aligned right. Box characters the output `encoding` cannot write are
    replaced by ASCII ones.
    """
    parts = _UNICODE
    try:
        "".join(_UNICODE).encode(encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        parts = _ASCII
    widths = [max([width(h)] + [width(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def line(cells: list[str], bars: str) -> str:
        out = []
        for i, (cell, w) in enumerate(zip(cells, widths)):
            pad = " " * (w - width(cell))
            out.append(" " + (pad + cell if i in right else cell + pad) + " ")
        return bars[0] + bars[1].join(out) + bars[2]

    def rule(p: str) -> str:
        return p[0] + p[2].join(p[1] * (w + 2) for w in widths) + p[3]

    total = sum(w + 3 for w in widths) + 1
    pad = max(0, total - width(title))
    lines = [" " * (pad // 2) + title + " " * (pad - pad // 2), rule(parts[0]), line(headers, parts[1]),
             rule(parts[2])]
    lines += [line(r, parts[3]) for r in rows]
    lines.append(rule(parts[4]))
    return "\n".join(lines)
