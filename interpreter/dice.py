"""Dice as multisets: enumeration, roll probabilities, and keep → roll transitions.

A roll of n dice with f faces is a sorted tuple; there are C(n+f-1, n) of them (252 for 5d6).
Probabilities are exact integer weights over f**m equally likely ordered outcomes.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement, product
from math import factorial
from collections import Counter

Multiset = tuple[int, ...]


@lru_cache(maxsize=None)
def multisets(n: int, faces: int) -> tuple[Multiset, ...]:
    """All sorted n-dice outcomes, in lexicographic order."""
    return tuple(combinations_with_replacement(range(1, faces + 1), n))


@lru_cache(maxsize=None)
def index_of(n: int, faces: int) -> dict[Multiset, int]:
    """Multiset → its position in `multisets(n, faces)`."""
    return {m: i for i, m in enumerate(multisets(n, faces))}


def weight(m: Multiset) -> int:
    """How many ordered rolls give the multiset m (the multinomial coefficient)."""
    w = factorial(len(m))
    for c in Counter(m).values():
        w //= factorial(c)
    return w


@lru_cache(maxsize=None)
def outcomes(m: int, faces: int) -> tuple[tuple[Multiset, int], ...]:
    """Every result of rolling m dice with its integer weight; weights sum to faces**m."""
    return tuple((ms, weight(ms)) for ms in multisets(m, faces))


def chance_outcomes(kept: Multiset, n: int, faces: int) -> list[tuple[Multiset, float]]:
    """Keeping `kept` and rolling the rest: each resulting n-dice multiset with its probability."""
    m = n - len(kept)
    total = faces**m
    return [(tuple(sorted(kept + r)), w / total) for r, w in outcomes(m, faces)]


@lru_cache(maxsize=None)
def keeps(n: int, faces: int) -> tuple[Multiset, ...]:
    """Every multiset of 0..n dice (462 for 5d6), smallest first."""
    out: list[Multiset] = []
    for k in range(n + 1):
        out.extend(multisets(k, faces))
    return tuple(out)


def sub_multisets(m: Multiset) -> set[Multiset]:
    """Every sub-multiset of m (the distinct keeps possible from a roll)."""
    counts = sorted(Counter(m).items())
    result = set()
    for choice in product(*(range(c + 1) for _, c in counts)):
        result.add(tuple(f for (f, _), k in zip(counts, choice) for _ in range(k)))
    return result
