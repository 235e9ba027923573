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
        bits = np.array([space.place[b] for b in space.boxes], dtype=np.int64)
        self.pair_box = pair_box
        self.pair_bit = bits[pair_box]
        # per feature: which pairs move it, and the value it moves to as a function of the old value
        self.moves_of = []
        for i, ft in enumerate(space.feats):
            moving = np.array([any(j == i for j, _ in space.moving[b]) for b in space.boxes])[pair_box]
            self.moves_of.append((i, ft, moving, np.maximum(pts, 0), ft.holds(pts) if ft.kind != "total" else None))
        self.box_bit = bits
        self.box_moves = [(i, ft, np.array([any(j == i for j, _ in space.moving[b]) for b in space.boxes]))
                          for i, ft in enumerate(space.feats)]
        self.atoms_of = [sorted({a for r in rows for t in self._trees(b, r) for a in _atoms(t)})
                         for b, rows in zip(space.boxes, self.branching)]
        self.all_atoms = sorted({a for atoms in self.atoms_of for a in atoms})
        self._branch_memo: dict[tuple, tuple] = {}

    def _trees(self, b: str, r: int):
        return [self.points_t[b][r], self.legal_t[b][r], *self.bonus_t[b][r]]

    def table(self, mask: int, fvals: list[int], V: np.ndarray) -> tuple[list[str], np.ndarray]:
        """(open boxes, (B_open, R) values): points + write bonus + V of the next state; -inf if refused."""
        if type(V) is not np.ndarray:
            V = V.view(np.ndarray)  # a memory-mapped table, read as a plain array (faster gathers)
        boxes, gain, nxt = self.moves(mask, fvals)
        table = gain + V[np.maximum(nxt, 0)]
        table[nxt < 0] = -np.inf  # (even where the next state is unreachable: NaN)
        return boxes, table

    def moves(self, mask: int, fvals: list[int]) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(open boxes, (B_open, R) points + write bonus, (B_open, R) next-state index): what writing each
        roll into each open box gains and where it leads; the index is -1 (and the gain -inf) if refused."""
        space = self.space
        open_rows = [bi for bi, b in enumerate(space.boxes) if space.writable(mask, b)]
        if space.binary:
            idx = (mask | self.pair_bit) * space.F
        else:  # a full unit's pairs are never read: any index in the table will do
            is_open = np.zeros(space.n_units, dtype=bool)
            is_open[open_rows] = True
            idx = (mask + self.pair_bit * is_open[self.pair_box]) * space.F
        for i, ft, moving, gain, hits in self.moves_of:
            if ft.kind == "total":
                new = np.where(moving, np.minimum(ft.limit, fvals[i] + gain), fvals[i])
            else:
                new = np.where(moving, hits, fvals[i])
            idx += new * space.radix[i]
        nxt = idx[self.which[open_rows]]
        gain = self.gain[open_rows]  # (a copy: fancy indexing)
        refused = self.refused[open_rows]
        nxt[refused] = -1
        if self.all_atoms:  # the rolls that read the sheet: walked once per combination of the atoms they read
            atom = space.scalar_atoms(mask, fvals)
            key = tuple(atom(a) for a in self.all_atoms)
            found = self._branch_memo.get(key)
            if found is None:
                if len(self._branch_memo) > 100_000:  # a bound on the memo
                    self._branch_memo.clear()
                found = self._branch_memo[key] = self._walk_all(atom)
            b, r, g, p = found
            is_open = np.zeros(space.n_units, dtype=bool)
            is_open[open_rows] = True
            keep = is_open[b]
            b, r, g, p = b[keep], r[keep], g[keep], p[keep]
            idx = (mask + self.box_bit[b]) * space.F
            for i, ft, moving in self.box_moves:
                if ft.kind == "total":
                    new = np.where(moving[b], np.minimum(ft.limit, fvals[i] + np.maximum(p, 0)), fvals[i])
                else:
                    new = np.where(moving[b], ft.holds(p), fvals[i])
                idx += new * space.radix[i]
            legal = np.isfinite(g)
            row_of = np.zeros(space.n, dtype=np.int64)
            row_of[open_rows] = np.arange(len(open_rows))
            gain[row_of[b], r] = np.where(legal, g, -np.inf)
            nxt[row_of[b], r] = np.where(legal, idx, -1)
        return [space.boxes[bi] for bi in open_rows], gain, nxt

    def _walk_all(self, atom) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(boxes, rolls, gains, points) of every (box, roll) that reads the sheet, for these atoms."""
        parts = [(np.full(len(self.branching[bi]), bi, dtype=np.int64),) + self._walk_branches(b, atom)
                 for bi, b in enumerate(self.space.boxes) if self.branching[bi]]
        return tuple(np.concatenate(column) for column in zip(*parts))

    def _walk_branches(self, b: str, atom) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For the rolls of box b that read the sheet: (rolls, points + bonus or -inf, points)."""
        from .abstraction import walk as _walk
        rolls, gains, points = [], [], []
        for r in self.branching[self.space.boxes.index(b)]:
            rolls.append(r)
            if _walk(self.legal_t[b][r], atom):
                p = _walk(self.points_t[b][r], atom)
                gains.append(float(self.space.mult[b] * (p * self.space.counts[b] + sum(_walk(t, atom) for t in self.bonus_t[b][r]))))
                points.append(p)
            else:
                gains.append(-np.inf)
                points.append(0)
        return np.array(rolls, dtype=np.int64), np.array(gains), np.array(points, dtype=np.int64)


def _atoms(tree) -> set:
    if tree.leaf:
        return set()
    out = {tree.atom}
    for sub in tree.branches.values():
        out |= _atoms(sub)
    return out


def encode(space, sheet: dict[str, int]) -> tuple[int, list[int]]:
    """A sheet (cell -> points) as (code, feature values) in plain numbers (`Space.encode` without numpy)."""
    if space.binary and space.model.simple_sheet:
        bit = space.place
        mask = 0
        for b in sheet:
            if b in bit:
                mask |= bit[b]
        points = sheet
    else:  # a unit's digit is how many of its cells are written; its points, their sum
        cells = space.__dict__.get("_cells_of")
        if cells is None:
            targets = space.model.targets
            cells = space.__dict__["_cells_of"] = {u: targets[u].cells if u in targets else (u,) for u in space.boxes}
        mask = 0
        points = {}
        for u, cs in cells.items():
            written = [sheet[c] for c in cs if c in sheet]
            if written:
                mask += space.place[u] * len(written)
                points[u] = sum(written)
    values = []
    for f in space.feats:
        if f.kind == "total":
            values.append(min(f.limit, max(0, sum(points.get(u, 0) for u in space.quantity[f.name]))))
        else:
            p = points.get(f.name)  # equals / atleast (as `Feature.holds`, in plain numbers)
            values.append(0 if p is None else int(p == f.limit if f.kind == "equals" else p >= f.limit))
    return mask, values


def gather(space, roll_number: int | None = None) -> WriteGather:
    """The WriteGather of a Space for a roll number (made once, kept beside the Space)."""
    key = roll_number if space.roll_dependent and roll_number is not None else space.last_roll
    cache = space.__dict__.setdefault("_gathers", {})
    if key not in cache:
        cache[key] = WriteGather(space, key)
    return cache[key]

