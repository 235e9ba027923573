"""Settled totals: states whose tracked total can no longer change the end of the game share one value.

A tracked total (a `total` feature, capped at its limit) matters only through the end bonuses. When
the end value of a full sheet is the same for every reachable total up to some `c` (a bonus for
reaching a threshold: the same nothing below it), a state whose total plus the most its open units
can still add stays at or below `c` is *settled*: whatever is written, the game ends with a total at
or below `c`, so its value is that of the same sheet with the total's smallest reachable value. The
solve computes one of them and copies its value to the others (`split`).

The copies are exact, bit for bit: two such states read next sheets that are settled alike (by
induction from the full sheets, whose end values agree by the choice of `c`), earn the same points
(no write rule reads the total; else the total is left alone) and so do the same arithmetic.
Everything comes from the space: its features, the most points each unit can add, its end values.
"""
from __future__ import annotations

import numpy as np


def plan(space) -> list[tuple[int, int, list[tuple[str, int]]]]:
    """Per total that can settle: (its feature column, `c`, [(unit, the most one entry adds)]); built once."""
    found = space.__dict__.get("_settled", None)
    if found is None:
        found = space.__dict__["_settled"] = _plan(space)
    return found


def _plan(space) -> list[tuple[int, int, list[tuple[str, int]]]]:
    read = _atom_names(space)
    full_masks, full_feats = space.level(space.n)
    if not len(full_masks):
        return []
    end = space.end_values(full_masks, full_feats)
    out = []
    for i, f in enumerate(space.feats):
        if f.kind != "total" or f.name in read:
            continue
        c = _constant_up_to(full_masks, full_feats, end, i)
        if c < 0:
            continue
        adds = [(u, max(max(space.possible_points[u]), 0)) for u in space.quantity[f.name]]
        out.append((i, c, adds))
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


def _constant_up_to(masks: np.ndarray, feats: np.ndarray, end: np.ndarray, i: int) -> int:
    """The largest c such that, among full sheets alike but for feature i, every one with feature i at
    most c has the end value of the one with its smallest value (-1 if none)."""
    others = [j for j in range(feats.shape[1]) if j != i]
    keys = np.column_stack([masks] + [feats[:, j] for j in others])
    _, group = np.unique(keys, axis=0, return_inverse=True)
    group = group.ravel()
    order = np.lexsort((feats[:, i], group))
    g, t, v = group[order], feats[order, i], end[order]
    first = np.r_[True, g[1:] != g[:-1]]
    start_value = v[np.maximum.accumulate(np.where(first, np.arange(len(g)), 0))]
    differs = v != start_value
    c = int(t.max())  # the end value never depends on it
    if differs.any():
        c = int(t[differs].min()) - 1  # below the first value (in any group) that changes the end
    return c


def split(space, masks: np.ndarray, feats: np.ndarray, idx: np.ndarray):
    """A layer's states as (which to solve: a bool per state, the table indices to copy to, and from).

    Every settled state copies the state with the same sheet whose settled totals are their smallest
    value in the layer for that sheet (which the layer has: its states are every combination of the
    features' reachable values; checked all the same); the others are solved."""
    totals = plan(space)
    S = len(masks)
    solve = np.ones(S, dtype=bool)
    if not totals or not S:
        return solve, idx[:0], idx[:0]
    starts = np.flatnonzero(np.r_[True, masks[1:] != masks[:-1]])  # the layer is ordered by code
    sheets, counts = masks[starts], np.diff(np.r_[starts, S])
    settled = []
    for i, c, adds in totals:  # per sheet: the most its open units add; per state: settled or not
        most = np.zeros(len(sheets), dtype=np.int64)
        for u, add in adds:
            if add:
                most += add * (space.uses[u] - np.asarray(space.count(sheets, u), dtype=np.int64))
        settled.append(feats[:, i] + np.repeat(most, counts) <= c)
    some = np.flatnonzero(np.logical_or.reduce(settled))
    if not len(some):
        return solve, idx[:0], idx[:0]
    rep = feats[some]
    for (i, _, _), down in zip(totals, settled):
        smallest = np.repeat(np.minimum.reduceat(feats[:, i], starts), counts)
        rep[:, i] = np.where(down[some], smallest[some], rep[:, i])
    src = space.index(masks[some], rep)
    ordered = bool(np.all(idx[1:] > idx[:-1]))
    order = None if ordered else np.argsort(idx, kind="stable")
    pos = np.minimum(np.searchsorted(idx, src, sorter=order), S - 1)
    there = (idx[pos] if ordered else idx[order[pos]]) == src
    copy = there & (src != idx[some])
    solve[some[copy]] = False
    return solve, idx[some[copy]], src[copy]
