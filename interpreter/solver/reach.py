"""The objective reach:T: the highest chance that the final score is at least T, by backward induction
over (turn-start state, points still needed).

The state carries the points so far, capped at T (more than T is as good as T); equivalently the
points still needed, ν = T - points so far, from 0 (reached: chance 1) to T. A full sheet reaches
ν when its end bonuses are at least ν. Every other state, for every ν at once: the write of each
final roll is the box whose next state, needing ν minus the write's points, has the highest chance;
the keeps are the best expected chance (the turn as `kernel.solve_states`, on vectors over ν, a
maximum where the solver adds points). One pass up to ν = N gives the best chance of every T ≤ N
from the empty sheet (each T with its own best play). Only two layers of filled-box count are kept
in memory (states × (N + 1) values each). Compiled with numba; threads share a layer's states.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..model.errors import UsageError
from .shipped import spec

CHUNK = 512  # states per task of a worker thread


def reach_chances(space, most: int, jobs: int | None = None, progress=None, keep=None) -> np.ndarray:
    """(most + 1,): the highest chance, from the empty sheet, of gaining at least ν points, ν = 0..most.

    `keep(indices, chances)`, if given, sees every layer of filled-box count (the full sheets first):
    the states' indices in the Space and their (states, most + 1) chances (`reach_table` keeps them)."""
    from .distribution import jobs_default
    from .turnplan import Planner
    planner = Planner(space, np.zeros(1))
    if not planner.usable:
        raise UsageError("The objective reach:T needs the compiled planner (numba) and a model whose points do not "
                         "depend on the roll number; here one of them is missing.")
    jobs = max(1, jobs or jobs_default())
    kp = planner.kplan
    w, t = kp.write, kp.turn
    R = len(space.tt.rolls)
    gains = []
    for g in (w.gain[0], w.bgain[0]):
        finite = np.where(np.isfinite(g), g, 0)
        whole = np.rint(finite)
        if not np.allclose(whole, finite, atol=1e-9, rtol=0) or whole.min() < 0:
            raise UsageError("The objective reach:T needs whole points that a write never takes away, and this model "
                             "has others.")
        gains.append(np.ascontiguousarray(whole.astype(np.int64)))
    bq_at = np.full((w.row.shape[1], R), -1, dtype=np.int64)
    bq_at[w.bq_box, w.bq_roll] = np.arange(len(w.bq_box))
    consts = (np.ascontiguousarray(w.row[0]), gains[0], bq_at, w.bq_off, w.bq_key, np.ascontiguousarray(w.bsel[0]),
              gains[1], w.pconst, np.ascontiguousarray(w.movt), w.tlim, w.tradix, w.padd, t.adds, t.removes,
              t.size_start, t.p_all, t.faces, t.rerolls)
    kernel = _compiled()
    n = len(space.level_counts()) - 1
    masks, feats = space.level(n)
    end = np.rint(space.end_values(masks, feats)).astype(np.int64)
    nu = np.arange(most + 1)
    V = np.ascontiguousarray((end[:, None] >= nu[None, :]).astype(np.float64))
    where = np.full(space.entries, -1, dtype=np.int64)
    where[space.index(masks, feats)] = np.arange(len(masks))
    top = _top(V)
    if keep is not None:
        keep(space.index(masks, feats), V)
    with ThreadPoolExecutor(jobs) as pool:
        for k in range(n - 1, -1, -1):
            masks, feats = space.level(k)
            idx = space.index(masks, feats)
            out = np.empty((len(masks), most + 1))

            def task(lo, V=V, top=top, masks=masks, feats=feats, idx=idx, out=out):
                sl = slice(lo, lo + CHUNK)
                batch = kp.batch(masks[sl], feats[sl], idx[sl])
                return kernel(V, top, where, batch.base, batch.tfeat, batch.gkey, *consts, out[sl])

            status = 0
            for s in (pool.map if jobs > 1 else map)(task, range(0, len(masks), CHUNK)):
                status |= int(s)
            if status:
                raise UsageError("The objective reach:T met a roll that no box takes, or a sheet it has not valued.")
            where[:] = -1
            where[idx] = np.arange(len(idx))
            V, top = out, _top(out)
            if keep is not None:
                keep(idx, out)
            if progress is not None:
                progress(n - k, n)
    return V[0].copy()


class ReachTable:
    """Every reached state's highest chance of gaining at least ν more points, ν = 0..most (float32,
    (states, most + 1), with `slot` mapping a Space index to its row, -1 where not reached): what the
    reach:T computer player reads (for 536,448 states and T = 250: 539 MB)."""

    def __init__(self, space, most: int, jobs: int | None = None, progress=None):
        self.most = most
        self.slot = np.full(space.entries, -1, dtype=np.int64)
        self.values = np.empty((sum(space.level_counts()), most + 1), dtype=np.float32)
        count = 0

        def keep(idx: np.ndarray, chances: np.ndarray) -> None:
            nonlocal count
            self.slot[idx] = np.arange(count, count + len(idx))
            self.values[count:count + len(idx)] = chances
            count += len(idx)

        self.start = float(reach_chances(space, most, jobs, progress, keep)[most])

    def chances(self, nxt: np.ndarray, need: np.ndarray) -> np.ndarray:
        """The chance from each next state `nxt` (Space indices, -1: none) of gaining at least `need`
        points more (need <= 0: reached, 1); NaN where `nxt` is -1 or was never reached."""
        need = np.clip(need, 0, self.most)
        row = np.where(nxt >= 0, self.slot[np.maximum(nxt, 0)], -1)
        out = self.values[np.maximum(row, 0), need].astype(np.float64)
        out[need == 0] = 1.0
        out[row < 0] = np.nan
        return out


def _top(V: np.ndarray) -> np.ndarray:
    """Per row, the largest ν with a chance above 0 (-1 if none)."""
    pos = V > 0
    return np.where(pos.any(axis=1), V.shape[1] - 1 - np.argmax(pos[:, ::-1], axis=1), -1).astype(np.int64)


def _reach_states(V, top, where, base, tfeat, gkey, row, gain, bq_at, bq_off, bq_key, bsel, bgain, pconst, movt,
                  tlim, tradix, padd, adds, removes, size_start, p_all, faces, rerolls, out):  # pragma: no cover
    """For each state of a batch, its best chance of gaining at least ν points, ν = 0..N, into out (S, N + 1).
    A status: 1 if some roll has no box, 2 if a next sheet has no values."""
    B, S = base.shape
    R = row.shape[1]
    K = adds.shape[0]
    C = removes.shape[1]
    T = tlim.shape[0]
    N1 = out.shape[1]
    n = size_start.shape[0] - 2
    full0 = size_start[n]
    inv = 1.0 / faces
    A = np.empty((K, N1))
    nrow = np.empty((B, R), dtype=np.int64)
    ngain = np.empty((B, R), dtype=np.int64)
    status = 0
    for s in range(S):
        L = 0  # the chance is 0 from ν = L on
        for b in range(B):
            for r in range(R):
                nrow[b, r] = -1
                if base[b, s] < 0:
                    continue
                d = row[b, r]
                g = gain[b, r]
                x = bq_at[b, r]
                if x >= 0:
                    e = bq_off[x] + gkey[bq_key[x], s]
                    d = bsel[e]
                    g = bgain[e]
                if d < 0:
                    continue
                at = base[b, s] + pconst[d]
                for ti in range(T):
                    if movt[b, ti]:
                        v = tfeat[ti, s] + padd[d]
                        at += (v if v < tlim[ti] else tlim[ti]) * tradix[ti]
                i = where[at]
                if i < 0:
                    status |= 2
                    continue
                nrow[b, r] = i
                ngain[b, r] = g
                if g + top[i] + 1 > L:
                    L = g + top[i] + 1
        if L > N1:
            L = N1
        for r in range(R):  # the best write of each roll, for every ν < L
            a = A[full0 + r]
            for v in range(L):
                a[v] = 0.0
            seen = False
            for b in range(B):
                i = nrow[b, r]
                if i < 0:
                    continue
                seen = True
                g = ngain[b, r]
                hi = g + 1 if g + 1 < L else L
                for v in range(hi):  # ν ≤ the write's points: reached
                    a[v] = 1.0
                nxt = V[i]
                for v in range(hi, L):
                    y = nxt[v - g]
                    if y > a[v]:
                        a[v] = y
            if not seen:
                status |= 1
        for layer in range(rerolls):  # the keep/reroll layers on vectors over ν
            for sz in range(n - 1, -1, -1):
                for k in range(size_start[sz], size_start[sz + 1]):
                    ak = A[k]
                    a0 = A[adds[k, 0]]
                    for v in range(L):
                        ak[v] = a0[v]
                    for f in range(1, faces):
                        af = A[adds[k, f]]
                        for v in range(L):
                            ak[v] += af[v]
                    for v in range(L):
                        ak[v] *= inv
            for sz in range(1, n + 1):
                for k in range(size_start[sz], size_start[sz + 1]):
                    ak = A[k]
                    for c in range(C):
                        m = removes[k, c]
                        if m == K:
                            break
                        am = A[m]
                        for v in range(L):
                            if am[v] > ak[v]:
                                ak[v] = am[v]
        o = out[s]
        for v in range(N1):
            o[v] = 0.0
        for r in range(R):
            p = p_all[r]
            a = A[full0 + r]
            for v in range(L):
                o[v] += p * a[v]
    return status


_COMPILED = None
# the compiled loop's types (numba's signature at use, the install's build: shipped.py)
SHIPPED = {"_reach_states": [spec("i8", "f8.2 i8.1 i8.1 i8.2 i8.2 i8.2 i8.2 i8.2 i8.2 i8.1 i8.1 i8.1 i8.1 i8.1 b1.2 "
                                        "i8.1 i8.1 i8.1 i8.2 i8.2 i8.1 f8.1 i8 i8 f8.2")]}


def _compiled():
    global _COMPILED
    if _COMPILED is None:
        from .numbajit import compiled
        _COMPILED = compiled(_reach_states, SHIPPED["_reach_states"])
        if not _COMPILED:
            raise UsageError("The objective reach:T needs the compiled planner (numba), which is missing here.")
    return _COMPILED
