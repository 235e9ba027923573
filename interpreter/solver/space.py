"""The solver's state space: which sheets a turn can start from, their codes, and the values of writing
any roll into any box from any of them (`Space`); `Table`, the solved values."""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import product
from typing import Callable

import numpy as np

from .abstraction import (walk, Explorer, representative, Feature, NotSolvable, Tree, features, quantity_units,
                          scoring_expressions, turn_can_stop, turn_shape, unit_ids, views)
from .size import check_size
from ..model.dsl.compiler import Context
from ..model.frozen import Model
from ..engine.turn import turn_tables


@dataclass
class Table:
    """The solved game: the expected final score from every turn-start state."""

    values: np.ndarray  # indexed by mask * F + feature index; NaN where unreachable
    features: list[Feature]
    states: int
    seconds: float

    @property
    def expected_score(self) -> float:
        return float(self.values[0])


class Space:
    """States, their encoding, and per-box scoring as decision trees over atoms.

    With `boxes`, the space of a part of the sheet only (a relaxed problem: those boxes played on
    their own, one turn each): boxes outside it count as open and empty, sections tracked only
    through their boxes inside it.
    """

    def __init__(self, model: Model, boxes: list[str] | None = None, relaxed: bool = False):
        self.model = model
        self.relaxed = relaxed and boxes is not None  # a part read with the turn's rules set aside (turn_shape)
        self.rerolls = turn_shape(model, self.relaxed)
        all_units = unit_ids(model)
        self.boxes = list(boxes) if boxes is not None else all_units  # the units: write targets
        inside = set(self.boxes)
        target = model.targets
        self.box_of = {u: target[u].box if u in target else u for u in all_units}
        self.column_of = {u: target[u].column if u in target else None for u in all_units}
        self.uses = {u: len(target[u].cells) if u in target else 1 for u in all_units}
        columns = {c.id: c for c in model.columns}
        self.mult = {u: columns[self.column_of[u]].multiplier if self.column_of[u] else 1 for u in all_units}
        counting = {b for sec in model.sections if sec.counts for b in sec.boxes}
        self.counts = {u: self.box_of[u] in counting for u in all_units}  # its points add to the total
        self.quantity = {}  # total feature name -> its units
        feats = []
        for f in features(model):
            if f.kind == "total":
                units = quantity_units(model, f.name)
                if inside & set(units):
                    feats.append(f)
                    self.quantity[f.name] = [u for u in units if u in inside]
            elif f.name in inside:
                feats.append(f)
        self.feats = feats
        tracked = {f.name for f in self.feats if f.kind == "total"}
        self.outside: dict = {("filled", u): False for u in all_units if u not in inside}
        self.outside.update({("value", u): 0 for u in all_units if u not in inside})
        self.outside.update({("uses", u): 0 for u in all_units if u not in inside})
        self.outside.update({("total", f.name): 0 for f in features(model) if f.kind == "total" and f.name not in tracked})
        for view in views(model).values():  # totals no feature tracks: none is read, or all outside
            self.outside.update({("total", name): 0 for name in view.sections.values() if name not in tracked})
        # The sheet's state is a mixed-radix fill code: a digit per unit, how many of its entries are
        # written (with one entry per unit the code is the bit mask of filled boxes); but a column
        # filled in order (down or up) is one digit, how many of its cells are written: its boxes
        # fill in turn, so it has a position, not a subset.
        self.groups: list[list[str]] = []
        for u in self.boxes:
            c = columns.get(self.column_of[u])
            if c is None or c.order not in ("down", "up"):
                self.groups.append([u])
            elif not any(self.column_of[g[0]] == c.id for g in self.groups):
                column = [v for v in self.boxes if self.column_of[v] == c.id]
                self.groups.append(column if c.order == "down" else column[::-1])
        self.place, self.start, self.radix_of = {}, {}, {}
        self.group_place, self.group_radix = [], []
        place = 1
        for units in self.groups:
            cells = 0
            for u in units:
                self.place[u], self.start[u] = place, cells
                cells += self.uses[u]
            for u in units:
                self.radix_of[u] = cells + 1
            self.group_place.append(place)
            self.group_radix.append(cells + 1)
            place *= cells + 1
        self.codes = place
        self.ordered = {u for units in self.groups if len(units) > 1 for u in units}  # units of ordered columns
        self.bit = self.place  # (the name of a unit's place when every unit took one entry)
        self.binary = not self.ordered and all(self.uses[u] == 1 for u in self.boxes)
        self.n_units = len(self.boxes)
        self.n = sum(self.uses[u] for u in self.boxes)  # entries in all: the layers are 0..n
        self.sizes = [f.size for f in self.feats]
        check_size(model, self.n, self.sizes, self.rerolls, self.feats, self.codes)  # before anything is built
        self.F = math.prod(self.sizes)
        self.radix = [math.prod(self.sizes[i + 1:]) for i in range(len(self.sizes))]
        self.entries = self.codes * self.F  # slots of the dense table (fill code × feature values)
        self.tt = turn_tables(model.n_dice, model.faces)
        self.explorer = Explorer(model, self.feats, self.uses)
        write = next(s for s in model.flow.walk() if s.kind == "write")
        self.allowed = write.allowed
        self.last_roll = self.rerolls + 1
        self.can_stop = turn_can_stop(model)
        self.roll_dependent = any("turn" in c.deps for _, c in scoring_expressions(model))
        self.roll_numbers = list(range(1, self.last_roll + 1)) if self.roll_dependent else [self.last_roll]
        self.write_bonuses = [b for b in model.bonuses if b.when == "write"]
        self.end_bonuses = [b for b in model.bonuses if b.when == "end"]
        self._trees()
        for f in self.feats:  # a quantity read as a number must never reach its cap
            if f.kind == "total" and f.name in set(model.__dict__.get("_exact", ())) | model.__dict__.get("_clipped", set()):
                most = sum(max(self.possible_points[u]) * self.uses[u] for u in self.quantity[f.name])
                if most >= f.limit:
                    raise NotSolvable("{name} can reach {most}, more than the solver expected; compare it with "
                                      "constants instead", model.flow.pos, name=f.name, most=most)
        # per unit: the features that writing it changes (position, feature), and those it leaves alone
        self.moving = {b: [(i, ft) for i, ft in enumerate(self.feats) if self._moves(b, ft)] for b in self.boxes}
        self.staying = {b: [i for i, ft in enumerate(self.feats) if not self._moves(b, ft)] for b in self.boxes}
        self._domains: dict[int, list[list[int]]] = {}
        read = {u for f in self.feats for u in (self.quantity[f.name] if f.kind == "total" else [f.name])}
        self._feature_units = [u for u in self.boxes if u in read]
        self._free_units = [u for u in self.boxes if u not in read]

    # decision trees per box and roll --------------------------------------------
    def _trees(self) -> None:
        """Per roll number (only the last one unless scoring reads it): trees per box and roll."""
        self.trees: dict[int, tuple[dict, dict, dict, dict]] = {}
        counts = [tuple(dice.count(f) for f in range(1, self.model.faces + 1)) for dice in self.tt.rolls]
        for rn in self.roll_numbers:
            points: dict[str, list[Tree]] = {}
            legal: dict[str, list[Tree]] = {}
            bonus: dict[str, list[list[Tree]]] = {}
            contexts = [Context(dice, r, counts[r], None, None, rn) for r, dice in enumerate(self.tt.rolls)]
            for b in self.boxes:
                box, column = self.box_of[b], self.column_of[b]
                score = self.model.boxes[box].score
                pts, leg, bon = [], [], []
                given = {**self.outside, ("filled", b): False}  # (a unit being written has an entry free)
                for ctx in contexts:  # (one context per roll, its box set here: `explore` sets its sheet)
                    ctx.target = box
                    pts.append(self.explorer.explore(score, ctx, given, column))
                    leg.append(self.explorer.explore(self.allowed, ctx, given, column) if self.allowed else Tree(True))
                    bon.append([self.explorer.explore(x.points, ctx, given, column) for x in self.write_bonuses])
                points[b], legal[b], bonus[b] = pts, leg, bon
            plain = {b: _PlainRows(points[b], legal[b], bonus[b], self.mult[b], self.counts[b]) for b in self.boxes}
            self.trees[rn] = (points, legal, bonus, plain)
        self.possible_points = {b: sorted({v for rn in self.roll_numbers for t in self.trees[rn][0][b] for v in t.values()})
                                for b in self.boxes}

    # fill codes ---------------------------------------------------------------------
    def count(self, masks, u: str):
        """How many entries of unit u are written, per code."""
        if self.binary:
            return (masks & self.place[u]) != 0 if isinstance(masks, np.ndarray) else int(bool(masks & self.place[u]))
        digit = (masks // self.place[u]) % self.radix_of[u]
        if u not in self.ordered:
            return digit
        if isinstance(masks, np.ndarray):
            return np.clip(digit - self.start[u], 0, self.uses[u])
        return max(0, min(self.uses[u], digit - self.start[u]))

    def full(self, masks, u: str):
        """Whether unit u has all its entries written (bool, or a bool array over codes)."""
        if self.binary:  # the code is a bit mask
            return (masks & self.place[u]) != 0
        if u not in self.ordered:
            return (masks // self.place[u]) % self.radix_of[u] == self.uses[u]
        return (masks // self.place[u]) % self.radix_of[u] >= self.start[u] + self.uses[u]

    def writable(self, masks, u: str):
        """Whether unit u may be written: not full, and (in a column filled in order) its turn."""
        if u not in self.ordered:
            return ~self.full(masks, u) if isinstance(masks, np.ndarray) else not self.full(masks, u)
        digit = (masks // self.place[u]) % self.radix_of[u]
        return (digit >= self.start[u]) & (digit < self.start[u] + self.uses[u])

    def code_of(self, counts: dict[str, int]) -> int:
        return sum(self.place[u] * c for u, c in counts.items() if u in self.place)

    def _moves(self, box: str, ft: Feature) -> bool:
        """Whether writing unit `box` can change the feature."""
        if ft.kind == "total":
            return box in self.quantity[ft.name]
        return ft.name == box

    def _at(self, roll_number: int | None):
        """The trees for writing after the given roll of a turn (default: the last roll)."""
        return self.trees[roll_number if self.roll_dependent and roll_number is not None else self.last_roll]

    # reachable states -------------------------------------------------------------
    def _feature_key(self, mask: int) -> tuple[int, ...]:
        return tuple(int(self.count(mask, u)) for u in self._feature_units)

    def feature_domains(self, mask: int) -> list[list[int]]:
        """The values each feature can have on a sheet with these entries written."""
        key = self._feature_key(mask)
        if key not in self._domains:
            self._domains[key] = self._feature_domains(dict(zip(self._feature_units, key)))
        return self._domains[key]

    def _feature_domains(self, counts: dict[str, int]) -> list[list[int]]:
        out = []
        for f in self.feats:
            if f.kind == "total":
                sums = self._reachable_sums(f, tuple(counts[u] for u in self.quantity[f.name]))
                out.append([v for v in range(f.limit + 1) if sums >> v & 1])
            else:
                filled = counts[f.name]
                seen = sorted({int(f.holds(p)) for p in self.possible_points[f.name]}) if filled else [0]
                out.append(seen)
        return out

    def _reachable_sums(self, f: Feature, counts: tuple[int, ...]) -> int:
        """The capped totals of a quantity with these numbers of entries written in its units, as a
        bit set (memoized)."""
        memo = self.__dict__.setdefault("_sums", {})
        key = (f.name, f.limit, counts)
        if key not in memo:
            if not any(counts):
                memo[key] = 1
            else:
                j = next(i for i, c in enumerate(counts) if c)
                rest = self._reachable_sums(f, counts[:j] + (counts[j] - 1,) + counts[j + 1:])
                box = self.quantity[f.name][j]
                full = (1 << (f.limit + 1)) - 1
                out = 0
                for v in self.possible_points[box]:
                    if v >= 0:
                        shifted = rest << v
                        out |= (shifted & full) | ((1 << f.limit) if shifted >> f.limit else 0)
                memo[key] = out
        return memo[key]

    def sample(self, k: int, count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """`count` random reachable states with k entries written (without enumerating the layer)."""
        rng = np.random.default_rng(seed)
        cells = [p for p, r in zip(self.group_place, self.group_radix) for _ in range(r - 1)]
        masks, feats = [], []
        for _ in range(count):
            mask = sum(cells[int(i)] for i in rng.choice(len(cells), size=k, replace=False))
            masks.append(mask)
            feats.append([int(rng.choice(d)) for d in self.feature_domains(mask)])
        return np.array(masks, dtype=np.int64), np.array(feats, dtype=np.int64).reshape(count, len(self.feats))

    def _digits(self, groups: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Every fill of these digit groups: (codes, entries written), all of them."""
        codes = np.zeros(1, dtype=np.int64)
        pop = np.zeros(1, dtype=np.int64)
        for g in groups:
            c = np.arange(self.group_radix[g], dtype=np.int64)
            codes = (codes[:, None] + c[None, :] * self.group_place[g]).ravel()
            pop = (pop[:, None] + c[None, :]).ravel()
        return codes, pop

    def _groups(self) -> list[tuple[int, int, np.ndarray]]:
        """Per way to fill the feature-relevant digit groups: (code, entries, feature combos (c, nf))."""
        if not hasattr(self, "_group_list"):
            read = set(self._feature_units)
            relevant = [g for g, units in enumerate(self.groups) if read & set(units)]
            codes, pops = self._digits(relevant)
            groups = []
            for key, j in zip(codes.tolist(), pops.tolist()):
                combos = list(product(*self.feature_domains(key)))
                combos = np.array(combos, dtype=np.int64).reshape(len(combos), len(self.feats))
                groups.append((key, j, combos))
            self._group_list = groups
            # every group's combos stacked (rows first[g].. are group g's), for `level` to gather at once
            self._combo_table = np.concatenate([c for _, _, c in groups])
            self._combo_first = np.cumsum([0] + [len(c) for _, _, c in groups][:-1]).astype(np.int64)
            free, fpop = self._digits([g for g in range(len(self.groups)) if g not in relevant])
            self._free_by_count = [np.sort(free[fpop == i]) for i in range(int(fpop.max()) + 1)]
        return self._group_list

    def level_counts(self) -> list[int]:
        """How many reachable states have k entries written, for k = 0..n (counted, not enumerated)."""
        groups = self._groups()
        free = self._free_by_count
        return [sum(len(c) * len(free[k - j]) for _, j, c in groups if 0 <= k - j < len(free))
                for k in range(self.n + 1)]

    def level(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(codes, feature values) of every reachable state with k entries written, ordered by code.

        A code is one sheet (a group's digits plus free ones), so the sheets are sorted, each then repeated
        with its group's combos (sorting every state took about twice as long)."""
        groups = self._groups()
        free = self._free_by_count
        codes, combos, first = [], [], []
        for g, (key, j, found) in enumerate(groups):
            if not 0 <= k - j < len(free) or not len(found):
                continue
            codes.append(key + free[k - j])
            combos.append(np.full(len(codes[-1]), len(found), dtype=np.int64))
            first.append(np.full(len(codes[-1]), self._combo_first[g], dtype=np.int64))
        if not codes:
            return np.zeros(0, dtype=np.int64), np.zeros((0, len(self.feats)), dtype=np.int64)
        codes = np.concatenate(codes)
        order = np.argsort(codes, kind="stable")
        codes, combos, first = codes[order], np.concatenate(combos)[order], np.concatenate(first)[order]
        ends = np.cumsum(combos)
        rows = np.arange(ends[-1], dtype=np.int64) + np.repeat(first - (ends - combos), combos)
        return np.repeat(codes, combos), self._combo_table[rows]

    def index(self, masks: np.ndarray, feats: np.ndarray) -> np.ndarray:
        idx = masks * self.F
        for i, r in enumerate(self.radix):
            idx = idx + feats[:, i] * r
        return idx

    # atoms of a batch of states ---------------------------------------------------
    def atoms(self, masks: np.ndarray, feats: np.ndarray) -> Callable[[tuple], np.ndarray]:
        cache: dict[tuple, np.ndarray] = {}
        total_at = {f.name: i for i, f in enumerate(self.feats) if f.kind == "total"}

        def get(atom: tuple) -> np.ndarray:
            if atom in cache:
                return cache[atom]
            if atom in self.outside:
                return self.outside[atom]
            kind, name = atom
            if kind == "filled":
                a = self.full(masks, name)
            elif kind == "uses":
                a = self.count(masks, name).astype(np.int64)
            elif kind == "total" or name in total_at:
                a = feats[:, total_at[name]]
            else:  # value: 0 while open, else the candidate its tracked yes/no features point to
                filled = self.full(masks, name)
                bits = {i: feats[:, i] for i, f in enumerate(self.feats) if f.name == name and f.kind != "total"}
                a = np.where(filled, np.broadcast_to(representative(self.feats, name, bits), (len(masks),)), 0)
            cache[atom] = a
            return a
        return get

    @staticmethod
    def evaluate(tree: Tree, atoms, size: int):
        if tree.leaf:
            return tree.value
        a = atoms(tree.atom)
        out = None
        for v, sub in tree.branches.items():
            val = Space.evaluate(sub, atoms, size)
            out = np.where(a == v, val, 0 if out is None else out)
        return out

    def rows(self, trees: list[Tree], atoms, size: int, dtype) -> np.ndarray:
        """(R, S) values of per-roll trees for a batch (broadcastable (R, 1) when no tree branches)."""
        base = np.array([t.value if t.leaf else 0 for t in trees], dtype=dtype)[:, None]
        branching = [r for r, t in enumerate(trees) if not t.leaf]
        if not branching:
            return base
        out = np.repeat(base, size, axis=1)
        for r in branching:
            out[r] = Space.evaluate(trees[r], atoms, size)
        return out

    # one batch of states ------------------------------------------------------------
    def box_values(self, masks: np.ndarray, feats: np.ndarray, V: np.ndarray, box: str, roll_number: int | None = None,
                   closed: np.ndarray | None = None, loose: bool = False):
        """(R, S) value of writing each roll into `box`, for every state of the batch.

        The value is points + write bonus + the table's value of the sheet that results; -inf where
        the write rule does not allow the box. Columns of states where the box is already filled
        are meaningless, unless `closed` (where the box is filled) is given: those are -inf. Rolls whose trees do not branch share one row per
        distinct number of points; the few rolls that branch on the sheet are done row by row.
        """
        m, f = masks, feats
        atoms = self.atoms(m, f)
        all_points, all_legal, all_bonus, all_plain = self._at(roll_number)
        points, legal = all_points[box], all_legal[box]
        bonus = all_bonus[box]  # per roll: one tree per write bonus
        base_next = (m + self.place[box] * (True if closed is None else ~closed)) * self.F
        moving = self.moving[box]
        for i in self.staying[box]:
            base_next = base_next + f[:, i] * self.radix[i]

        def future(p):
            """V of the next sheet for `p` points (a number, or an array over the states)."""
            idx = base_next
            for i, ft in moving:
                if ft.kind == "total":
                    idx = idx + np.minimum(ft.limit, f[:, i] + np.maximum(p, 0)) * self.radix[i]
                else:
                    idx = idx + ft.holds(p) * self.radix[i]
            return V[idx]

        plain = all_plain[box]
        value = np.empty((len(points), len(m)))
        rows = np.stack([future(p) for p in plain.distinct]) if moving else V[base_next][None, :]
        if closed is not None:
            np.copyto(rows, -np.inf, where=closed[None, :])  # a few rows: cheaper than masking every roll
        if len(m) > 64:  # large batches: one row at a time, no temporaries
            for r, w, g in zip(plain.rows.tolist(), (plain.which if moving else np.zeros_like(plain.which)).tolist(),
                               plain.gain.tolist()):
                np.add(rows[w], g, out=value[r])
        else:  # a few states (a bot's decision): all rows at once
            value[plain.rows] = rows[plain.which if moving else 0] + plain.gain[:, None]
        if not loose:
            value[plain.refused] = -np.inf
        for r in plain.branching:
            p = np.broadcast_to(Space.evaluate(points[r], atoms, len(m)), (len(m),))
            gain = self.mult[box] * (p * self.counts[box] + sum(np.asarray(Space.evaluate(t, atoms, len(m))) for t in bonus[r]))
            allowed = True if loose else Space.evaluate(legal[r], atoms, len(m))
            value[r] = np.where(allowed, gain + future(p), -np.inf)
            if closed is not None:
                value[r, closed] = -np.inf
        return value

    def scalar_atoms(self, mask: int, fvals: list[int]):
        """`atoms` for one state, in plain numbers (memoized per call site)."""
        memo: dict = {}

        def atom(a: tuple):
            if a in memo:
                return memo[a]
            if a in self.outside:
                return self.outside[a]
            kind, name = a
            if kind == "filled":
                v = bool(self.full(mask, name))
            elif kind == "uses":
                v = int(self.count(mask, name))
            elif kind == "total" or any(f.kind == "total" and f.name == name for f in self.feats):
                v = next(fvals[i] for i, f in enumerate(self.feats) if f.kind == "total" and f.name == name)
            elif not self.full(mask, name):
                v = 0
            else:
                bits = {i: fvals[i] for i, f in enumerate(self.feats) if f.name == name and f.kind != "total"}
                v = int(representative(self.feats, name, bits))
            memo[a] = v
            return v
        return atom

    def box_row(self, mask: int, fvals: list[int], V: np.ndarray, box: str, roll_number: int | None = None) -> np.ndarray:
        """(R,) value of writing each roll into `box` for one state: `box_values` in plain numbers."""
        base = (mask + self.place[box]) * self.F + sum(fvals[i] * self.radix[i] for i in self.staying[box])
        moving = self.moving[box]

        def index(p: int) -> int:
            idx = base
            for i, ft in moving:
                if ft.kind == "total":
                    idx += min(ft.limit, fvals[i] + max(p, 0)) * self.radix[i]
                else:
                    idx += int(ft.holds(p)) * self.radix[i]
            return idx

        all_points, all_legal, all_bonus, all_plain = self._at(roll_number)
        plain = all_plain[box]
        value = np.empty(len(self.tt.rolls))
        futures = V[[index(p) for p in plain.distinct]]
        value[plain.rows] = futures[plain.which] + plain.gain
        value[plain.refused] = -np.inf
        if plain.branching:
            atom = self.scalar_atoms(mask, fvals)
            points, legal, bonus = all_points[box], all_legal[box], all_bonus[box]
            for r in plain.branching:
                if walk(legal[r], atom):
                    p = walk(points[r], atom)
                    value[r] = self.mult[box] * (p * self.counts[box] + sum(walk(t, atom) for t in bonus[r])) + V[index(p)]
                else:
                    value[r] = -np.inf
        return value

    def outcomes(self, mask: int, fvals: list[int], box: str, roll_number: int | None = None):
        """For one state and box, per roll: (points written, points + write bonus or -inf if refused)."""
        all_points, all_legal, all_bonus, all_plain = self._at(roll_number)
        plain = all_plain[box]
        R = len(self.tt.rolls)
        pts, gain = np.zeros(R, dtype=np.int64), np.empty(R)
        if len(plain.rows):
            pts[plain.rows] = np.asarray(plain.distinct, dtype=np.int64)[plain.which]
            gain[plain.rows] = plain.gain
            gain[plain.refused] = -np.inf
        if plain.branching:
            atom = self.scalar_atoms(mask, fvals)
            for r in plain.branching:
                if walk(all_legal[box][r], atom):
                    p = walk(all_points[box][r], atom)
                    pts[r], gain[r] = p, self.mult[box] * (p * self.counts[box] + sum(walk(t, atom) for t in all_bonus[box][r]))
                else:
                    gain[r] = -np.inf
        return pts, gain

    def futures(self, mask: int, fvals: list[int], V: np.ndarray, box: str, points: np.ndarray) -> np.ndarray:
        """V of the sheet after writing each of `points` into `box` (one state)."""
        base = (mask + self.place[box]) * self.F + sum(fvals[i] * self.radix[i] for i in self.staying[box])
        distinct, which = np.unique(points, return_inverse=True)
        idx = []
        for p in distinct.tolist():
            i = base
            for j, ft in self.moving[box]:
                if ft.kind == "total":
                    i += min(ft.limit, fvals[j] + max(p, 0)) * self.radix[j]
                else:
                    i += int(ft.holds(p)) * self.radix[j]
            idx.append(i)
        return np.asarray(V[idx])[which]

    def write_values(self, masks: np.ndarray, feats: np.ndarray, V: np.ndarray, roll_number: int | None = None) -> np.ndarray:
        """(R, S): the best value of writing each final roll, given the table V of fuller sheets."""
        best = np.full((len(self.tt.rolls), len(masks)), -np.inf)
        with np.errstate(invalid="ignore"):
            for b in self.boxes:
                open_ = self.writable(masks, b)
                if not open_.any():
                    continue
                value = self.box_values(masks, feats, V, b, roll_number, closed=None if open_.all() else ~open_)
                np.maximum(best, value, out=best)
        if not np.isfinite(best.min()) and self.outside:
            # a part of the sheet: where the rule sends a roll to a box outside the part, let it go
            # into any open box of the part (the relaxed problem ignores the write rule there)
            anywhere = np.full_like(best, -np.inf)
            with np.errstate(invalid="ignore"):
                for b in self.boxes:
                    open_ = self.writable(masks, b)
                    if open_.any():
                        value = self.box_values(masks, feats, V, b, roll_number, None if open_.all() else ~open_, True)
                        np.maximum(anywhere, value, out=anywhere)
            best = np.where(best == -np.inf, anywhere, best)
        if not np.isfinite(best.min()):
            raise NotSolvable("for some roll and sheet the write rule allows no box; the solver cannot value that",
                              self.model.flow.pos)
        return best

    def encode(self, sheet: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
        """A concrete sheet (cell -> points) as a one-state batch (code, features)."""
        from .writetable import encode
        mask, values = encode(self, sheet)
        return np.array([mask], dtype=np.int64), np.array([values], dtype=np.int64).reshape(1, len(self.feats))

    def end_values(self, masks: np.ndarray, feats: np.ndarray) -> np.ndarray:
        """The end bonuses of full sheets, per state (a bonus per column counted with each column's multiplier)."""
        out = np.zeros(len(masks))
        atoms = self.atoms(masks, feats)
        for bonus in self.end_bonuses:
            seen = ([(c.id, c.multiplier) for c in self.model.columns] if bonus.per_column and self.model.columns
                    else [(None, 1)])
            for column, mult in seen:
                tree = self.explorer.explore(bonus.points, Context(), self.outside, column)
                out = out + mult * np.asarray(Space.evaluate(tree, atoms, len(masks)))
        return out


class _PlainRows:
    """For one box: the rolls whose points, legality and bonus do not depend on the sheet."""

    def __init__(self, points: list[Tree], legal: list[Tree], bonus: list[list[Tree]], mult: int = 1,
                 counts: bool = True):
        plain = [r for r in range(len(points))
                 if points[r].leaf and legal[r].leaf and all(t.leaf for t in bonus[r])]
        self.rows = np.array(plain, dtype=np.int64)
        leaves = set(plain)
        self.branching = [r for r in range(len(points)) if r not in leaves]
        pts = np.array([points[r].value for r in plain], dtype=np.int64)
        self.gain = np.array([mult * (points[r].value * counts + sum(t.value for t in bonus[r])) for r in plain],
                             dtype=np.float64)
        self.distinct, self.which = np.unique(pts, return_inverse=True)
        self.distinct = [int(p) for p in self.distinct]
        self.refused = self.rows[[not legal[r].value for r in plain]] if plain else self.rows
