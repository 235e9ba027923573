"""The scoring language's syntax tree: one small node type, with the place it came from."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class Expr:
    """One expression node. `op` names the construct; `args` are sub-expressions."""

    op: str  # number string true false name call list index attr ifelse or and not compare binop neg contains
    args: list["Expr"] = field(default_factory=list)
    value: Any = None  # literal value, name, operator symbol or attribute name
    offset: int = 0  # character offset in the expression text where errors about this node point
    start: int = 0  # character offset where the whole sub-expression begins
    # filled in by the compiler:
    type: str = ""
    deps: frozenset[str] = frozenset()  # 'dice', 'sheet', 'target', 'turn'

    def walk(self):
        """This node and every node below it."""
        yield self
        for a in self.args:
            yield from a.walk()
