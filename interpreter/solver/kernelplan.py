"""A `solver.Space` as the arrays of `kernel.solve_states`.

Once per space: every (box, points) slot, which slot each (roll number, box, roll) writes and its
points + write bonus, and for the few rolls whose write depends on the sheet (their trees branch on
atoms such as `filled(x)`), a row per combination of the atoms they read. Per batch of states: the
next sheet's index per box (without the tracked totals the box moves), the tracked totals, and the
combination of atoms of each sheet-dependent roll.
"""
from __future__ import annotations

import math
import numpy as np

from .kernel import Batch, TurnArrays, WriteArrays, turn_arrays

MAX_GROUPS = 1 << 20  # rows of the sheet-dependent write table; a model needing more uses the plain numpy path


class Unsupported(Exception):
    """The space cannot be laid out as kernel arrays (the plain numpy path solves it)."""


class KernelPlan:
    """The kernel arrays of one space."""

    def __init__(self, space):
        from .space import Space
        self.space = space
        # a part of the sheet (the strong bot's): its relaxed write rule (a roll the rule sends outside
        # the part may go into any open unit) is not laid out; batches where it matters report NO_BOX
        self.part = any(kind == "filled" for kind, _ in space.outside)
        boxes, feats = space.boxes, space.feats
        B = len(boxes)
        # a slot per (unit, next sheet): points that lead to the same next sheet (a unit that moves
        # no tracked total, the same yes/no features) share one, so its value is read once per state
        self.slot_of: list[dict[int, int]] = []
        slot_box, padd, pconst = [], [], []
        for bi, b in enumerate(boxes):
            slots, seen = {}, {}
            moves_total = any(ft.kind == "total" for _, ft in space.moving[b])
            for p in space.possible_points[b]:
                const = sum(int(ft.holds(p)) * space.radix[i] for i, ft in space.moving[b] if ft.kind != "total")
                key = (const, max(int(p), 0) if moves_total else 0)
                if key not in seen:
                    seen[key] = len(slot_box)
                    slot_box.append(bi)
                    padd.append(key[1])
                    pconst.append(const)
                slots[p] = seen[key]
            self.slot_of.append(slots)
        self.totals = [i for i, f in enumerate(feats) if f.kind == "total"]
        movt = np.zeros((B, len(self.totals)), dtype=np.bool_)
        for bi, b in enumerate(boxes):
            moved = {i for i, _ in space.moving[b]}
            for k, i in enumerate(self.totals):
                movt[bi, k] = i in moved
        R = len(space.tt.rolls)
        rns = space.roll_numbers
        row = np.full((len(rns), B, R), -1, dtype=np.int64)
        gain = np.zeros((len(rns), B, R))
        branching: dict[tuple[int, int], None] = {}
        for q, rn in enumerate(rns):
            points, legal, bonus, plain = space.trees[rn]
            for bi, b in enumerate(boxes):
                pr = plain[b]
                for r, g in zip(pr.rows.tolist(), pr.gain.tolist()):
                    row[q, bi, r] = self.slot_of[bi][points[b][r].value]
                    gain[q, bi, r] = g
                    if g != _gain(space, b, points[b][r].value, [t.value for t in bonus[b][r]]):
                        raise Unsupported("the space counts points otherwise than the kernel's sheet-dependent rows")
                row[q, bi, pr.refused] = -1
                for r in pr.branching:
                    branching[(bi, r)] = None
        # sheet-dependent rolls: one row per combination of the atoms their trees read
        self.queries: list[tuple[int, int, list[tuple], list[list]]] = []
        bq_box, bq_roll, bq_off, bq_key = [], [], [], []
        key_of: dict[tuple, tuple[int, list, list]] = {}  # rolls that read the same atoms share their group numbers
        sel, gains, wpts, wbon = [], [], [], []
        nb = len(space.write_bonuses)
        offset = 0
        for bi, r in branching:
            b = boxes[bi]
            trees = [(space.trees[rn][0][b][r], space.trees[rn][1][b][r], space.trees[rn][2][b][r]) for rn in rns]
            atoms = sorted({a for pts, leg, bon in trees for t in (pts, leg, *bon) for a in _atoms(t)}, key=repr)
            domains = [space.explorer.domain(a) for a in atoms]
            groups = math.prod(len(d) for d in domains)
            if offset + groups > MAX_GROUPS:
                raise Unsupported("too many combinations of sheet atoms")
            s_rows = np.full((len(rns), groups), -1, dtype=np.int64)
            g_rows = np.zeros((len(rns), groups))
            p_rows = np.zeros((len(rns), groups), dtype=np.int64)  # the points and each write bonus, apart
            b_rows = np.zeros((len(rns), nb, groups), dtype=np.int64)
            mesh = _mesh(atoms, domains)  # every combination, numbered as `batch` numbers them
            slots = np.array(sorted(self.slot_of[bi].items()), dtype=np.int64).reshape(-1, 2)
            for q, rn in enumerate(rns):
                if r not in space.trees[rn][3][b].branching:
                    continue  # plain at this roll number: `row` has it
                pts, leg, bon = trees[q]
                allowed = np.broadcast_to(np.asarray(Space.evaluate(leg, mesh.__getitem__, groups), dtype=bool), (groups,))
                p = np.broadcast_to(np.asarray(Space.evaluate(pts, mesh.__getitem__, groups)), (groups,))
                bonus = sum(np.asarray(Space.evaluate(t, mesh.__getitem__, groups)) for t in bon)
                s_rows[q] = np.where(allowed, slots[np.searchsorted(slots[:, 0], p), 1], -1)
                g_rows[q] = np.where(allowed, _gain(space, b, p, [bonus]), 0.0)
                p_rows[q] = p
                for k, t in enumerate(bon[:nb]):
                    b_rows[q, k] = np.broadcast_to(np.asarray(Space.evaluate(t, mesh.__getitem__, groups)), (groups,))
            self.queries.append((bi, r, atoms, domains))
            key_of.setdefault(tuple(atoms), (len(key_of), atoms, domains))
            bq_key.append(key_of[tuple(atoms)][0])
            bq_box.append(bi)
            bq_roll.append(r)
            bq_off.append(offset)
            sel.append(s_rows)
            gains.append(g_rows)
            wpts.append(p_rows)
            wbon.append(b_rows)
            offset += groups
        i64 = np.int64
        self.write = WriteArrays(
            slot_box=np.array(slot_box, dtype=i64), padd=np.array(padd, dtype=i64), pconst=np.array(pconst, dtype=i64),
            movt=movt, tlim=np.array([feats[i].limit for i in self.totals], dtype=i64),
            tradix=np.array([space.radix[i] for i in self.totals], dtype=i64), row=row, gain=gain,
            bq_box=np.array(bq_box, dtype=i64), bq_roll=np.array(bq_roll, dtype=i64), bq_off=np.array(bq_off, dtype=i64),
            bq_key=np.array(bq_key, dtype=i64),
            bsel=np.ascontiguousarray(np.concatenate(sel, axis=1) if sel else np.zeros((len(rns), 1), dtype=i64)),
            bgain=np.ascontiguousarray(np.concatenate(gains, axis=1) if gains else np.zeros((len(rns), 1))))
        self.keys = [(atoms, domains) for _, atoms, domains in key_of.values()]
        # per roll number and sheet-dependent (box, roll) group, as bsel: the points, and each write bonus
        self.wpoints = np.concatenate(wpts, axis=1) if wpts else np.zeros((len(rns), 1), dtype=i64)
        self.wbonus = np.concatenate(wbon, axis=2) if wbon else np.zeros((len(rns), nb, 1), dtype=i64)
        self.query_of = np.full(B * R, -1, dtype=i64)  # box * R + roll -> its sheet-dependent query
        self.query_of[np.array(bq_box, dtype=i64) * R + np.array(bq_roll, dtype=i64)] = np.arange(len(bq_box))
        self.turn: TurnArrays = turn_arrays(space.tt, space.rerolls, space.roll_dependent and space.can_stop)
        self.places = np.array([space.place[b] for b in boxes], dtype=i64)
        self.moving_cols = [[i for i, _ in space.moving[b]] for b in boxes]
        self.moved_by = {}  # feature: (the units that move it, its radix)
        for i in range(len(feats)):
            units = [bi for bi, cols in enumerate(self.moving_cols) if i in cols]
            if units:
                self.moved_by[i] = (np.array(units, dtype=i64), space.radix[i])

    def batch(self, masks: np.ndarray, feats: np.ndarray, idx: np.ndarray | None = None) -> Batch:
        """The per-state arrays of a batch (`idx`: the states' own table indices, if known).

        `masks` are the space's fill codes: writing unit u adds `place[u]`; `writable` says where it may."""
        space = self.space
        if idx is None:
            idx = space.index(masks, feats)
        S = len(masks)
        base = np.empty((len(self.places), S), dtype=np.int64)
        np.add(idx[None, :], self.places[:, None] * space.F, out=base)  # one more entry written in each unit
        for i, (boxes, radix) in self.moved_by.items():  # without the features the unit moves
            base[boxes] -= radix * feats[None, :, i]
        if space.binary:  # a unit's one entry is free where its bit is not set
            np.putmask(base, (masks[None, :] & self.places[:, None]) != 0, -1)
        else:
            for bi, b in enumerate(space.boxes):
                np.putmask(base[bi], ~space.writable(masks, b), -1)
        tfeat = np.ascontiguousarray(feats[:, self.totals].T, dtype=np.int64).reshape(len(self.totals), S)
        gkey = np.zeros((len(self.keys), S), dtype=np.int64)
        if self.keys:
            atoms = space.atoms(masks, feats)
            codes: dict[tuple, np.ndarray] = {}
            for x, (names, domains) in enumerate(self.keys):
                key = np.zeros(S, dtype=np.int64)
                for a, dom in zip(names, domains):
                    if a not in codes:
                        codes[a] = _code(np.broadcast_to(atoms(a), (S,)), dom)
                    key = key * len(dom) + codes[a]
                gkey[x] = key
        return Batch(base, tfeat, gkey)


def _gain(space, unit: str, points, bonuses: list):
    """What writing `points` (with these write bonuses) into a unit earns: the unit's multiplier times
    points plus bonuses (`_PlainRows.gain` of the plain rolls is checked against it)."""
    return space.mult[unit] * (points * space.counts[unit] + sum(bonuses))  # (counts: False in a non-counting section)


def _mesh(atoms: list[tuple], domains: list[list]) -> dict[tuple, np.ndarray]:
    """Per atom, its value in each combination of the domains (the last atom varying fastest)."""
    groups = math.prod(len(d) for d in domains)
    out, stride = {}, groups
    for a, dom in zip(atoms, domains):
        stride //= len(dom)
        out[a] = np.asarray(dom)[(np.arange(groups) // stride) % len(dom)]
    return out


def _code(values: np.ndarray, domain: list) -> np.ndarray:
    """The position of each value in its atom's domain."""
    dom = np.asarray(domain)
    if dom.dtype == np.bool_:
        return values.astype(np.int64)
    order = np.argsort(dom, kind="stable")
    pos = np.searchsorted(dom[order], values)
    return order[np.minimum(pos, len(dom) - 1)].astype(np.int64)


def _atoms(tree) -> set:
    out = set()
    stack = [tree]
    while stack:
        t = stack.pop()
        if not t.leaf:
            out.add(t.atom)
            stack.extend(t.branches.values())
    return out


def plan(space) -> KernelPlan | None:
    """The kernel plan of a space, built once (None if the space cannot be laid out as arrays)."""
    found = space.__dict__.get("_kernel_plan", ...)
    if found is ...:
        try:
            found = KernelPlan(space)
        except Unsupported:
            found = None
        space.__dict__["_kernel_plan"] = found
    return found
