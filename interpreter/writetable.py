"""One state's write table (value of writing each roll into each open box) as one numpy gather.

`solver.Space.box_row` builds the table box by box in Python. Here everything that depends only on
the model is laid out once per Space and roll number: every (box, distinct points) pair of the
rolls whose points do not depend on the sheet, which pair each (box, roll) uses, and its points
plus write bonus. For one state the next-state index of every pair is a handful of array
operations, their values one gather from the table, and the (B, R) table one more gather. Rolls
whose points depend on the sheet (a few per box) are walked as before, their results remembered
per box and the values of the atoms they read.
"""
from __future__ import annotations

import numpy as np


class WriteGather:
    """The write tables of one Space for one roll number."""

    def __init__(self, space, roll_number: int | None = None):
        self.space = space
        points, legal, bonus, plain_t = space._at(roll_number)
        self.points_t, self.legal_t, self.bonus_t = points, legal, bonus
        R = len(space.tt.rolls)
        pair_box, pair_points = [], []
        which = np.zeros((space.n, R), dtype=np.int64)
        gain = np.full((space.n, R), -np.inf)
        self.branching: list[list[int]] = []
        for bi, b in enumerate(space.boxes):
            plain = plain_t[b]
            first = len(pair_box)
            pair_box += [bi] * len(plain.distinct)
            pair_points += plain.distinct
            if len(plain.rows):
                which[bi, plain.rows] = first + plain.which
                gain[bi, plain.rows] = plain.gain
                gain[bi, plain.refused] = -np.inf
            self.branching.append(list(plain.branching))
        self.which, self.gain = which, gain
        self.refused = np.isneginf(gain)  # refused plain rolls (and, until walked, the branching ones)
        pair_box = np.array(pair_box, dtype=np.int64)
        pts = np.array(pair_points, dtype=np.int64)
        bits = np.array([space.bit[b] for b in space.boxes], dtype=np.int64)
        self.pair_bit = bits[pair_box]
        # per feature: which pairs move it, and the value it moves to as a function of the old value
        self.moves = []
        for i, ft in enumerate(space.feats):
            moving = np.array([any(j == i for j, _ in space.moving[b]) for b in space.boxes])[pair_box]
            self.moves.append((i, ft, moving, np.maximum(pts, 0), (pts == ft.limit).astype(np.int64)))
        self.atoms_of = [sorted({a for r in rows for t in self._trees(b, r) for a in _atoms(t)})
                         for b, rows in zip(space.boxes, self.branching)]
        self._branch_memo: dict[tuple, list[tuple[int, float, int | None]]] = {}

    def _trees(self, b: str, r: int):
        return [self.points_t[b][r], self.legal_t[b][r], *self.bonus_t[b][r]]

    def table(self, mask: int, fvals: list[int], V: np.ndarray) -> tuple[list[str], np.ndarray]:
        """(open boxes, (B_open, R) values): points + write bonus + V of the next state; -inf if refused."""
        space = self.space
        idx = (mask | self.pair_bit) * space.F
        for i, ft, moving, gain, hits in self.moves:
            if ft.kind == "total":
                new = np.where(moving, np.minimum(ft.limit, fvals[i] + gain), fvals[i])
            else:
                new = np.where(moving, hits, fvals[i])
            idx += new * space.radix[i]
        futures = V[idx]
        open_rows = [bi for bi, b in enumerate(space.boxes) if not mask & space.bit[b]]
        table = futures[self.which[open_rows]] + self.gain[open_rows]
        table[self.refused[open_rows]] = -np.inf  # (even where the next state is unreachable: NaN)
        atom = None
        for row, bi in enumerate(open_rows):
            if not self.branching[bi]:
                continue
            if atom is None:
                atom = space.scalar_atoms(mask, fvals)
            b = space.boxes[bi]
            key = (bi, tuple(atom(a) for a in self.atoms_of[bi]))
            found = self._branch_memo.get(key)
            if found is None:
                if len(self._branch_memo) > 100_000:  # a bound on the memo
                    self._branch_memo.clear()
                found = self._branch_memo[key] = self._walk_branches(b, atom)
            for r, gain, p in found:
                table[row, r] = gain if p is None else gain + V[self._next(mask, fvals, b, p)]
        return [space.boxes[bi] for bi in open_rows], table

    def _walk_branches(self, b: str, atom) -> list[tuple[int, float, int | None]]:
        """For the rolls of box b that read the sheet: (roll, points + bonus or -inf, points or None)."""
        from .solver import _walk
        out = []
        for r in self.branching[self.space.boxes.index(b)]:
            if _walk(self.legal_t[b][r], atom):
                p = _walk(self.points_t[b][r], atom)
                out.append((r, float(p + sum(_walk(t, atom) for t in self.bonus_t[b][r])), p))
            else:
                out.append((r, -np.inf, None))
        return out

    def _next(self, mask: int, fvals: list[int], b: str, p: int) -> int:
        space = self.space
        idx = (mask | space.bit[b]) * space.F + sum(fvals[i] * space.radix[i] for i in space.staying[b])
        for i, ft in space.moving[b]:
            if ft.kind == "total":
                idx += min(ft.limit, fvals[i] + max(p, 0)) * space.radix[i]
            else:
                idx += (p == ft.limit) * space.radix[i]
        return idx


def _atoms(tree) -> set:
    if tree.leaf:
        return set()
    out = {tree.atom}
    for sub in tree.branches.values():
        out |= _atoms(sub)
    return out


def encode(space, sheet: dict[str, int]) -> tuple[int, list[int]]:
    """A sheet as (mask, feature values) in plain numbers (`Space.encode` without numpy)."""
    bit = space.bit
    mask = 0
    for b in sheet:
        mask |= bit[b]
    values = []
    sections = space.__dict__.get("_section_boxes")
    if sections is None:
        sections = space.__dict__["_section_boxes"] = {s.id: s.boxes for s in space.model.sections}
    for f in space.feats:
        if f.kind == "total":
            boxes = sections[f.name]
            values.append(min(f.limit, max(0, sum(sheet.get(b, 0) for b in boxes))))
        else:
            values.append(int(sheet.get(f.name) == f.limit))
    return mask, values


def gather(space, roll_number: int | None = None) -> WriteGather:
    """The WriteGather of a Space for a roll number (made once, kept beside the Space)."""
    key = roll_number if space.roll_dependent and roll_number is not None else space.last_roll
    cache = space.__dict__.setdefault("_gathers", {})
    if key not in cache:
        cache[key] = WriteGather(space, key)
    return cache[key]

