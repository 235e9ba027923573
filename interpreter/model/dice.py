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


# Dice that differ: groups of dice, each with its own count and faces (white and coloured dice).
# A roll of several groups is one tuple, group after group in the model's order, each group's faces
# sorted; with one group it is the plain sorted multiset, so every table above stays as it was.
Groups = tuple[tuple[int, int], ...]  # (count, faces) per group, in the model's order


@lru_cache(maxsize=None)
def group_rolls(groups: Groups) -> tuple[Multiset, ...]:
    """Every roll of all the groups' dice: one group's multisets, or the product of the groups'."""
    if len(groups) == 1:
        return multisets(*groups[0])
    return tuple(sum(parts, ()) for parts in product(*(multisets(c, f) for c, f in groups)))


@lru_cache(maxsize=None)
def group_index(groups: Groups) -> dict[Multiset, int]:
    """Roll → its position in `group_rolls(groups)`."""
    if len(groups) == 1:
        return index_of(*groups[0])
    return {m: i for i, m in enumerate(group_rolls(groups))}


@lru_cache(maxsize=None)
def group_outcomes(groups: Groups) -> tuple[tuple[Multiset, int], ...]:
    """Every roll of all the groups' dice with its integer weight; weights sum to the product of
    faces**count over the groups."""
    if len(groups) == 1:
        return outcomes(*groups[0])
    out = []
    for parts in product(*(outcomes(c, f) for c, f in groups)):
        w = 1
        for _, pw in parts:
            w *= pw
        out.append((sum((m for m, _ in parts), ()), w))
    return tuple(out)


def group_total(groups: Groups) -> int:
    """How many equally likely ordered results a roll of all the groups' dice has."""
    total = 1
    for c, f in groups:
        total *= f ** c
    return total


def group_slices(groups: Groups) -> tuple[slice, ...]:
    """Where each group's dice are in a roll."""
    out, start = [], 0
    for c, _ in groups:
        out.append(slice(start, start + c))
        start += c
    return tuple(out)


def canonical(dice, groups: Groups) -> Multiset | None:
    """A roll given die by die, as the engine keeps it (each group's faces sorted); None if it is not
    a roll of these groups (wrong number of dice, or a face a group's dice do not have)."""
    dice = tuple(dice)
    if len(dice) != sum(c for c, _ in groups):
        return None
    out: list[int] = []
    for (c, f), s in zip(groups, group_slices(groups)):
        part = sorted(dice[s])
        if any(not (type(d) is int and 1 <= d <= f) for d in part):
            return None
        out.extend(part)
    return tuple(out)
