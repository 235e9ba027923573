"""Turn plans from the solver's kernel arrays: what a bot needs to play a turn, for many states at once.

For each turn-start state (a batch of them, laid out by `kernelplan.KernelPlan.batch`), compiled with
numba: the value of writing every final roll into every box (points + write bonus + the table's
value of the next sheet; -inf where the box is filled or refuses the roll), the box a bot writes
each roll into (the best; the first on the sheet on a tie), and per reroll layer the value of every
keep and of every roll. It is the turn part of `kernel.solve_states` with its outputs kept, the same
additions in the same order as `turn.TurnTables.layers`, so the numbers are those of the numpy path
bit for bit (tests/test_turnplan.py).

Used by the optimal bot for one state (a decision's plan in ~20 µs instead of ~250 µs) and by bulk
play for batches of new states. Models whose points depend on the roll number keep the numpy path.
Without numba (or with RULEBOOK_KERNEL=numpy) `compiled()` is None and callers use numpy.
"""
from __future__ import annotations

import os

import numpy as np

from .shipped import spec


def _plan_states(V, base, tfeat, gkey, slot_box, padd, pconst, movt, tlim, tradix, row, gain,
                 bq_box, bq_roll, bq_off, bq_key, bsel, bgain, adds, removes, size_start, faces, rerolls,
                 wtable, box, keepv, rollv):  # pragma: no cover (compiled)
    B, S = base.shape
    D = slot_box.shape[0]
    R = row.shape[2]
    K = adds.shape[0]
    C = removes.shape[1]
    T = tlim.shape[0]
    Q = bq_box.shape[0]
    n = size_start.shape[0] - 2
    full0 = size_start[n]
    inv = 1.0 / faces
    neg = -np.inf
    fut = np.empty(D)
    A = np.empty(K + 1)
    status = 0
    all_tables = wtable.shape[0] == S  # else row 0 is scratch (only the best boxes are wanted)
    all_rolls = rollv.shape[0] == S
    for s in range(S):
        ws = s if all_tables else 0
        rs = s if all_rolls else 0
        for d in range(D):  # the value of the next sheet for every (box, points) slot
            b = slot_box[d]
            if base[b, s] < 0:
                fut[d] = neg
                continue
            at = base[b, s] + pconst[d]
            for k in range(T):
                if movt[b, k]:
                    v = tfeat[k, s] + padd[d]
                    at += (v if v < tlim[k] else tlim[k]) * tradix[k]
            fut[d] = V[at]
            if fut[d] != fut[d]:
                status |= 2
        for b in range(B):  # every write of every roll
            for r in range(R):
                d = row[0, b, r]
                wtable[ws, b, r] = gain[0, b, r] + fut[d] if d >= 0 and base[b, s] >= 0 else neg
        for x in range(Q):  # rolls whose write reads the sheet: the state's group of atoms decides
            b = bq_box[x]
            if base[b, s] < 0:
                continue
            e = bq_off[x] + gkey[bq_key[x], s]
            d = bsel[0, e]
            if d >= 0:
                wtable[ws, b, bq_roll[x]] = bgain[0, e] + fut[d]
        for r in range(R):  # the best box (the first on a tie)
            best = neg
            which = -1
            for b in range(B):
                v = wtable[ws, b, r]
                if v > best:
                    best = v
                    which = b
            box[s, r] = which
            if which < 0:
                status |= 1
            A[full0 + r] = best
            rollv[rs, 0, r] = best
        for layer in range(1, rerolls + 1):  # the keep/reroll layers, as TurnTables.layers
            for sz in range(n - 1, -1, -1):
                for k in range(size_start[sz], size_start[sz + 1]):
                    acc = A[adds[k, 0]]
                    for f in range(1, faces):
                        acc += A[adds[k, f]]
                    A[k] = acc * inv
            for k in range(K):
                keepv[s, layer - 1, k] = A[k]
            A[K] = neg
            for sz in range(1, n + 1):
                for k in range(size_start[sz], size_start[sz + 1]):
                    y = A[k]
                    for c in range(C):
                        x = A[removes[k, c]]
                        if x > y:
                            y = x
                    A[k] = y
            for r in range(R):
                rollv[rs, layer, r] = A[full0 + r]
    return status


def _layers_of(best, adds, removes, size_start, faces, rerolls, keepv, rollv):  # pragma: no cover (compiled)
    """The keep/reroll layers of one state from the value of writing each final roll (`best`, R): the
    loop of `_plan_states` after its write table, for a bot whose write values are its own."""
    K = adds.shape[0]
    C = removes.shape[1]
    R = best.shape[0]
    n = size_start.shape[0] - 2
    full0 = size_start[n]
    inv = 1.0 / faces
    A = np.empty(K + 1)
    for r in range(R):
        A[full0 + r] = best[r]
        rollv[0, r] = best[r]
    for layer in range(1, rerolls + 1):
        for sz in range(n - 1, -1, -1):
            for k in range(size_start[sz], size_start[sz + 1]):
                acc = A[adds[k, 0]]
                for f in range(1, faces):
                    acc += A[adds[k, f]]
                A[k] = acc * inv
        for k in range(K):
            keepv[layer - 1, k] = A[k]
        A[K] = -np.inf
        for sz in range(1, n + 1):
            for k in range(size_start[sz], size_start[sz + 1]):
                y = A[k]
                for c in range(C):
                    x = A[removes[k, c]]
                    if x > y:
                        y = x
                A[k] = y
        for r in range(R):
            rollv[layer, r] = A[full0 + r]
    return 0


_LAYERS = []


def layers(tt, best: np.ndarray, rerolls: int):
    """`TurnTables.layers(best, rerolls)` of one state (no stopping), compiled: the same numbers bit for
    bit in ~10 µs instead of ~1 ms; None without numba (the caller uses numpy)."""
    from .kernel import turn_arrays  # (imported on every call: a name bound only on the first is unbound on the next)
    if not _LAYERS:
        from .numbajit import compiled as compile_
        fn = None if os.environ.get("RULEBOOK_KERNEL", "").lower() == "numpy" else compile_(_layers_of, SHIPPED["_layers_of"])
        _LAYERS.extend([fn or None, {}])
    fn, arrays = _LAYERS
    if fn is None:
        return None
    t = arrays.get((tt.n, tt.faces, rerolls))
    if t is None:
        t = arrays[(tt.n, tt.faces, rerolls)] = turn_arrays(tt, rerolls, False)
    keepv = np.empty((rerolls, len(t.adds)))
    rollv = np.empty((rerolls + 1, len(best)))
    fn(np.ascontiguousarray(best, dtype=np.float64), t.adds, t.removes, t.size_start, t.faces, rerolls, keepv, rollv)
    return [(None, rollv[0][:, None])] + [(keepv[j][:, None], rollv[j + 1][:, None]) for j in range(rerolls)]


_COMPILED = None


_REST = ("i8.2 i8.2 i8.2 i8.1 i8.1 i8.1 b1.2 i8.1 i8.1 i8.3 f8.3 i8.1 i8.1 i8.1 i8.1 i8.2 f8.2 i8.2 i8.2 i8.1 i8 i8 "
         "f8.3 i8.2 f8.3 f8.3")
# the compiled loops' types (numba's signatures at use, the install's build: shipped.py); the planner's table
# may be a read-only memory map
SHIPPED = {"_layers_of": [spec("i8", "f8.1 i8.2 i8.2 i8.1 i8 i8 f8.2 f8.2")],
           "_plan_states": [spec("i8", "f8.1 " + _REST), spec("i8", "f8.1r " + _REST)]}


def compiled():
    """The compiled planner (numba, cached beside the solver's kernel), or None (numpy is chosen or
    numba is missing): then callers plan with numpy."""
    global _COMPILED
    if os.environ.get("RULEBOOK_KERNEL", "").lower() == "numpy":
        return None
    if _COMPILED is None:
        from .numbajit import compiled as compile_
        _COMPILED = compile_(_plan_states, SHIPPED["_plan_states"])
    return _COMPILED or None


class Planner:
    """Turn plans of one solver space against one value table (a solved table, or zeros for greedy)."""

    def __init__(self, space, values: np.ndarray):
        from .kernelplan import plan
        self.space = space
        self.V = values if type(values) is np.ndarray else np.asarray(values).view(np.ndarray)
        self.kplan = plan(space)
        self.usable = (self.kplan is not None and compiled() is not None and not space.roll_dependent
                       and self.kplan.write.row.shape[0] == 1)

    def plan(self, masks: np.ndarray, feats: np.ndarray, idx: np.ndarray | None = None, batch=None,
             keepv: np.ndarray | None = None, tables: bool = True):
        """(write table (S, B, R), best box (S, R), keep values (S, rerolls, K), roll values
        (S, rerolls + 1, R)) of the states, and the kernel's status (1: a roll with no box).

        keepv: where to write the keep values ((S, rerolls, >= K), C order); tables=False: only the
        best boxes and keep values are wanted (the write table and roll values returned are scratch)."""
        w, t = self.kplan.write, self.kplan.turn
        if batch is None:
            batch = self.kplan.batch(masks, feats, idx)
        S, (B, R), K, J = len(masks), w.row.shape[1:], len(t.adds), t.rerolls
        wtable = np.empty((S if tables else 1, B, R))
        box = np.empty((S, R), dtype=np.int64)
        if keepv is None:
            keepv = np.empty((S, J, K))
        rollv = np.empty((S if tables else 1, J + 1, R))
        status = compiled()(self.V, batch.base, batch.tfeat, batch.gkey, w.slot_box, w.padd, w.pconst, w.movt,
                            w.tlim, w.tradix, w.row, w.gain, w.bq_box, w.bq_roll, w.bq_off, w.bq_key, w.bsel,
                            w.bgain, t.adds, t.removes, t.size_start, t.faces, J, wtable, box, keepv, rollv)
        return wtable, box, keepv, rollv, int(status)

    def bot_plan(self, sheet: dict):
        """A `PlannerBot` plan of one sheet: (open boxes, {last roll number: table}, layers, bytes),
        or None where the numpy path must plan (a roll no box takes: it raises there, as before)."""
        from .writetable import encode
        space = self.space
        mask, fvals = encode(space, sheet)
        wtable, box, keepv, rollv, status = self.plan(np.array([mask], dtype=np.int64),
                                                      np.array([fvals], dtype=np.int64).reshape(1, len(space.feats)),
                                                      batch=self._one_batch(mask, fvals))
        if status:
            return None
        open_rows = [i for i, b in enumerate(space.boxes) if space.writable(mask, b)]
        table = wtable[0, open_rows]
        layers = [(None, rollv[0, 0][:, None])]
        layers += [(keepv[0, j][:, None], rollv[0, j + 1][:, None]) for j in range(keepv.shape[1])]
        size = table.nbytes + keepv.nbytes + rollv.nbytes
        return [space.boxes[i] for i in open_rows], {space.rerolls + 1: table}, layers, size

    def _one_batch(self, mask: int, fvals: list[int]):
        """`KernelPlan.batch` of one state in plain numbers (a batch's numpy calls cost more than the plan)."""
        from .kernel import Batch
        from .kernelplan import _code
        kp, space = self.kplan, self.space
        F, radix = space.F, space.radix
        idx = mask * F + sum(int(f) * r for f, r in zip(fvals, radix))
        base = np.empty((len(space.boxes), 1), dtype=np.int64)
        for bi, b in enumerate(space.boxes):
            if space.writable(mask, b):
                base[bi, 0] = idx + int(kp.places[bi]) * F - sum(int(fvals[i]) * radix[i] for i in kp.moving_cols[bi])
            else:
                base[bi, 0] = -1
        tfeat = np.array([fvals[i] for i in kp.totals], dtype=np.int64).reshape(len(kp.totals), 1)
        gkey = np.zeros((len(kp.keys), 1), dtype=np.int64)
        if kp.keys:
            parts = self.__dict__.get("_key_parts")
            if parts is None:  # every atom the keys read, once; each atom's domain: value -> position (as _code)
                atoms = sorted({a for names, _ in kp.keys for a in names}, key=repr)
                where = {a: i for i, a in enumerate(atoms)}
                parts = self._key_parts = (atoms, [[(where[a], dom, dict(zip(dom, _code(np.asarray(dom), dom).tolist())))
                                                     for a, dom in zip(names, domains)] for names, domains in kp.keys], {})
            atoms, keys, memo = parts
            atom = space.scalar_atoms(mask, fvals)
            values = tuple(atom(a) for a in atoms)
            column = memo.get(values)
            if column is None:
                column = []
                for key_parts in keys:
                    key = 0
                    for i, dom, positions in key_parts:
                        at = positions.get(values[i])
                        if at is None:
                            at = int(_code(np.array([values[i]]), dom)[0])
                        key = key * len(dom) + at
                    column.append(key)
                if len(memo) > 100_000:
                    memo.clear()
                memo[values] = column = np.array(column, dtype=np.int64)
            gkey[:, 0] = column
        return Batch(base, tfeat, gkey)
