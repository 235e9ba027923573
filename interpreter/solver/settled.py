"""Settled totals: states whose tracked totals lead to the same ends share one value, solved once.

A tracked total (a `total` feature, capped at its limit) matters only through the end bonuses. Two of
its final values are *alike* when every full sheet that differs only in them has the same end value
(a bonus for reaching a threshold: every value below it is alike, and every value from it on). Two
states of the same sheet (and the same other features) whose totals t and t' are such that, for every
sum x that the sheet's open units can still add, min(t + x, limit) and min(t' + x, limit) are alike,
end alike whatever is written: the solve computes the one with the smallest total and copies its
value to the others (`split`). (A bonus at a threshold T in a section whose one open box can add 0, 6,
12, … 30: every total from T - 24 to T - 19 needs the same 24 or 30 to reach T; a total nothing can lift to T
is as good as 0.)

The copies are exact, bit for bit: writing a unit adds the same points p to t and t', and the sums the
next sheet can add are among x - p, so the next states are alike again (by induction from the full
sheets, whose end values agree by the choice of what is alike); no write rule reads the total (else
it is left alone), so both earn the same points and do the same arithmetic.
Everything comes from the space: its features, the points each unit can add, its end values.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

MAX_KEYS = 4096  # different fills of a total's units in one layer beyond which the layer is solved whole
DENSE = 8  # a layer whose sheets have at most this many entries per state finds copies' sources by a flag per entry


@dataclass
class Total:
    """What settling one tracked total needs."""

    column: int  # its feature column
    limit: int
    units: list[str]  # the units whose points add to it
    steps: list[list[int]]  # per unit: what one entry can add
    uses: list[int]  # per unit: its entries
    alike: np.ndarray  # (limit + 1,) int64: a number per final value, the same for values that end alike
    reps: dict[int, np.ndarray] = field(default_factory=dict)  # fill key -> (limit + 1,) the total each copies (-1: none)
    sums: dict[tuple, int] = field(default_factory=dict)  # open entries per unit -> what they can add (a bit set)


def plan(space) -> list[Total]:
    """The totals of a space that can settle; built once."""
    found = space.__dict__.get("_settled", None)
    if found is None:
        found = space.__dict__["_settled"] = _plan(space)
    return found


def _plan(space) -> list[Total]:
    read = _atom_names(space)
    full_masks, full_feats = space.level(space.n)
    if not len(full_masks):
        return []
    end = space.end_values(full_masks, full_feats)
    out = []
    for i, f in enumerate(space.feats):
        if f.kind != "total" or f.name in read:
            continue
        units = list(space.quantity[f.name])
        steps = [sorted({min(max(int(p), 0), f.limit) for p in space.possible_points[u]}) for u in units]
        alike = _alike(full_masks, full_feats, end, i, f.limit)
        out.append(Total(i, f.limit, units, steps, [space.uses[u] for u in units], alike))
    return out


def _atom_names(space) -> set:
    """The names of every atom a write rule reads (points, legality, write bonuses), any roll number."""
    names = set()
    for points, legal, bonus, _ in space.trees.values():
        for b in space.boxes:
            for trees in (points[b], legal[b], *zip(*bonus[b])):
                for tree in trees:
                    stack = [tree]
                    while stack:
                        t = stack.pop()
                        if not t.leaf:
                            names.add(t.atom[1])
                            stack.extend(t.branches.values())
    return names


def _alike(masks: np.ndarray, feats: np.ndarray, end: np.ndarray, i: int, limit: int) -> np.ndarray:
    """Per final value 0..limit of feature i, a number: the same for two values when every full sheet alike
    but for feature i has the same end value with either (a value no full sheet has: a number of its own)."""
    others = np.column_stack([masks] + [feats[:, j] for j in range(feats.shape[1]) if j != i])
    _, group = np.unique(others, axis=0, return_inverse=True)
    group = group.ravel()
    table = np.full((limit + 1, int(group.max()) + 1), np.nan)
    table[feats[:, i], group] = end
    seen = ~np.isnan(table).all(axis=1)
    _, alike = np.unique(np.where(np.isnan(table), -np.inf, table), axis=0, return_inverse=True)
    alike = alike.ravel().astype(np.int64)
    alike[~seen] = alike.max() + 1 + np.arange(int((~seen).sum()))
    return alike


def _sums(total: Total, open_: tuple) -> int:
    """What these open entries (per unit) can add in all, capped at the limit: a bit set (memoized)."""
    if open_ not in total.sums:
        if not any(open_):
            total.sums[open_] = 1
        else:
            j = next(k for k, c in enumerate(open_) if c)
            rest = _sums(total, open_[:j] + (open_[j] - 1,) + open_[j + 1:])
            full, top = (1 << (total.limit + 1)) - 1, 1 << total.limit
            out = 0
            for step in total.steps[j]:
                shifted = rest << step
                out |= (shifted & full) | (top if shifted >> total.limit else 0)
            total.sums[open_] = out
    return total.sums[open_]


def _reps(total: Total, key: int, values: np.ndarray) -> np.ndarray:
    """For the fill `key` (open entries per unit, mixed radix) whose states have these totals: per total,
    the smallest one that ends alike (each copies it; the smallest copies itself)."""
    if key not in total.reps:
        open_, rest = [], key
        for u in reversed(total.uses):
            open_.append(rest % (u + 1))
            rest //= u + 1
        bits = _sums(total, tuple(reversed(open_)))
        adds = np.array([x for x in range(total.limit + 1) if bits >> x & 1], dtype=np.int64)
        ends = total.alike[np.minimum(values[:, None] + adds[None, :], total.limit)]  # (values, sums)
        rep = np.full(total.limit + 1, -1, dtype=np.int64)
        first: dict[bytes, int] = {}  # per row of ends (its bytes: quicker than np.unique's rows), the first value with it:
        for v, row in zip(values.tolist(), np.ascontiguousarray(ends)):  # the smallest, as values ascend
            rep[v] = first.setdefault(row.tobytes(), v)
        total.reps[key] = rep
    return total.reps[key]


def split(space, masks: np.ndarray, feats: np.ndarray, idx: np.ndarray):
    """A layer's states as (which to solve: a bool per state, the table indices to copy to, and from).

    Every state copies the one of the same sheet and other features whose settled totals are the smallest
    that end alike (which the layer has: its states are every combination of the features' reachable
    values; checked all the same); the others are solved."""
    totals = plan(space)
    S = len(masks)
    solve = np.ones(S, dtype=bool)
    if not totals or not S:
        return solve, idx[:0], idx[:0]
    starts = np.flatnonzero(np.r_[True, masks[1:] != masks[:-1]])  # the layer is ordered by code
    sheets, counts = masks[starts], np.diff(np.r_[starts, S])
    below = np.zeros(S, dtype=np.int64)  # how far below each state its copy's table index is (0: none)
    for total in totals:
        keys = np.zeros(len(sheets), dtype=np.int64)  # open entries per unit, mixed radix
        for u, uses in zip(total.units, total.uses):
            keys = keys * (uses + 1) + (uses - np.asarray(space.count(sheets, u), dtype=np.int64))
        found = np.sort(keys)  # (not np.unique: numpy 2 imports numpy.ma for it, 12 ms)
        found = found[np.r_[True, found[1:] != found[:-1]]]
        if len(found) > MAX_KEYS or math.prod(u + 1 for u in total.uses) > 2**62:
            continue
        row = np.repeat(np.searchsorted(found, keys) * (total.limit + 1), counts)  # per state, its fill's row
        row += feats[:, total.column]  # ... and its total: its place in the (fills, totals) table
        new = [k for k, key in enumerate(found.tolist()) if key not in total.reps]
        if new:  # the totals each new fill has (the same in every layer: the reachable ones)
            pairs = np.flatnonzero(np.bincount(row, minlength=len(found) * (total.limit + 1)))
            for k in new:
                _reps(total, int(found[k]), pairs[pairs // (total.limit + 1) == k] % (total.limit + 1))
        # per (fill, total), how far below it its copy's table index is (r <= t; a total not seen with the fill: 0)
        t = np.arange(total.limit + 1)
        r = np.stack([total.reps[key] for key in found.tolist()])
        below += (np.where(r >= 0, t - r, 0) * space.radix[total.column]).ravel()[row]
    some = np.flatnonzero(below)
    if not len(some):
        return solve, idx[:0], idx[:0]
    src = idx[some] - below[some]  # (space.index of the sheet with the settled totals)
    if len(sheets) * space.F <= DENSE * S:  # a flag per entry of the layer's sheets, set where it has a state (a
        # copy's source is an entry of its own sheet): about a third faster than looking each one up (docs/solver.md)
        at = np.repeat((np.arange(len(sheets)) - sheets) * space.F, counts)
        at += idx
        present = np.zeros(len(sheets) * space.F, dtype=bool)
        present[at] = True
        there = present[at[some] - below[some]]
    else:  # sparse sheets: look each source up
        ordered = bool(np.all(idx[1:] > idx[:-1]))
        order = None if ordered else np.argsort(idx, kind="stable")
        pos = np.minimum(np.searchsorted(idx, src, sorter=order), S - 1)
        there = (idx[pos] if ordered else idx[order[pos]]) == src
    copy = there & (src != idx[some])
    solve[some[copy]] = False
    return solve, idx[some[copy]], src[copy]
