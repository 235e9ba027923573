"""Turn plans of the play-to-win player (`players/win.py`) for many games at once, compiled with numba.

Per game: its turn-start state, its points so far and, per opponent, the mean and variance of their
final score (`moments.py`). A write of roll r into box b is worth the chance to finish ahead of every
opponent, from a normal curve of the difference of the final scores (a tie counts half), the numbers
of `WinBot.write_table` in the same order of operations: the box a game writes each roll into (the
first on the sheet on a tie) and per reroll layer the value of every keep (`TurnTables.layers`). The
next state of every (box, points) slot is found as `turnplan._plan_states` finds it. Bulk play
(`play/winbulk.py`) plays the win seat's turns from these plans.
"""
from __future__ import annotations

import math

import numpy as np

from .shipped import spec


def _win_states(M1, VAR, base, tfeat, gkey, slot_box, padd, pconst, movt, tlim, tradix, row, gain,
                bq_box, bq_roll, bq_off, bq_key, bsel, bgain, adds, removes, size_start, faces, rerolls,
                mine0, rmean, rvar, box, keepv):  # pragma: no cover (compiled)
    B, S = base.shape
    D = slot_box.shape[0]
    R = row.shape[2]
    K = adds.shape[0]
    C = removes.shape[1]
    T = tlim.shape[0]
    Q = bq_box.shape[0]
    O = rmean.shape[1]
    n = size_start.shape[0] - 2
    full0 = size_start[n]
    inv = 1.0 / faces
    neg = -np.inf
    fm = np.empty(D)
    fv = np.empty(D)
    dd = np.empty((B, R), dtype=np.int64)
    gg = np.empty((B, R))
    A = np.empty(K + 1)
    status = 0
    for s in range(S):
        for d in range(D):  # the next sheet's mean and variance for every (box, points) slot
            b = slot_box[d]
            if base[b, s] < 0:
                fm[d] = neg
                fv[d] = neg
                continue
            at = base[b, s] + pconst[d]
            for k in range(T):
                if movt[b, k]:
                    v = tfeat[k, s] + padd[d]
                    at += (v if v < tlim[k] else tlim[k]) * tradix[k]
            fm[d] = M1[at]
            fv[d] = VAR[at]
        for b in range(B):
            for r in range(R):
                dd[b, r] = row[0, b, r] if base[b, s] >= 0 else -1
                gg[b, r] = gain[0, b, r]
        for x in range(Q):  # rolls whose write reads the sheet: the state's group of atoms decides
            b = bq_box[x]
            if base[b, s] < 0:
                continue
            e = bq_off[x] + gkey[bq_key[x], s]
            d = bsel[0, e]
            if d >= 0:
                dd[b, bq_roll[x]] = d
                gg[b, bq_roll[x]] = bgain[0, e]
        for r in range(R):
            best = neg
            which = -1
            for b in range(B):
                d = dd[b, r]
                if d < 0:
                    continue
                g = gg[b, r]
                mine = mine0[s] + (g + fm[d])
                my_var = (g + fv[d]) - g
                chance = 1.0
                for o in range(O):
                    diff = mine - rmean[s, o]
                    var = my_var + rvar[s, o]
                    if var > 1e-12:
                        z = diff / math.sqrt(var)
                        if z != z:
                            z = 0.0
                        # players.win.normal_cdf (Abramowitz and Stegun 7.1.26), in its order of operations
                        a = abs(z) / math.sqrt(2.0)
                        if a > 40.0:
                            a = 40.0
                        tt = 1.0 / (1.0 + 0.3275911 * a)
                        poly = tt * (0.254829592 + tt * (-0.284496736 + tt * (1.421413741 + tt * (-1.453152027 + tt * 1.061405429))))
                        erf = 1.0 - poly * math.exp(-a * a)
                        sign = 1.0 if z > 0 else (-1.0 if z < 0 else 0.0)
                        c = 0.5 * (1.0 + sign * erf)
                    else:
                        c = 1.0 if diff > 0 else (0.0 if diff < 0 else 0.5)
                    chance = chance * c
                if chance > best:
                    best = chance
                    which = b
            box[s, r] = which
            if which < 0:
                status |= 1
            A[full0 + r] = best
        for layer in range(1, rerolls + 1):  # the keep/reroll layers, as TurnTables.layers
            for sz in range(n - 1, -1, -1):
                for k in range(size_start[sz], size_start[sz + 1]):
                    acc = A[adds[k, 0]]
                    for f in range(1, faces):
                        acc += A[adds[k, f]]
                    A[k] = acc * inv
            for k in range(K):
                keepv[s, layer - 1, k] = A[k]
            keepv[s, layer - 1, K] = neg
            A[K] = neg
            for sz in range(1, n + 1):
                for k in range(size_start[sz], size_start[sz + 1]):
                    y = A[k]
                    for c in range(C):
                        x = A[removes[k, c]]
                        if x > y:
                            y = x
                    A[k] = y
    return status


_COMPILED = []


# the compiled loop's types (numba's signature at use, the install's build: shipped.py)
SHIPPED = {"_win_states": [spec("i8", "f8.1 f8.1 i8.2 i8.2 i8.2 i8.1 i8.1 i8.1 b1.2 i8.1 i8.1 i8.3 f8.3 i8.1 i8.1 "
                                      "i8.1 i8.1 i8.2 f8.2 i8.2 i8.2 i8.1 i8 i8 f8.1 f8.2 f8.2 i8.2 f8.3")]}


def compiled():
    """The compiled win planner, or None (numba missing or RULEBOOK_KERNEL=numpy)."""
    import os
    if os.environ.get("RULEBOOK_KERNEL", "").lower() == "numpy":
        return None
    if not _COMPILED:
        from .numbajit import compiled as compile_
        _COMPILED.append(compile_(_win_states, SHIPPED["_win_states"]))
    return _COMPILED[0] or None


def plan(kplan, mean: np.ndarray, var: np.ndarray, masks: np.ndarray, feats: np.ndarray, states: np.ndarray,
         points: np.ndarray, rival_mean: np.ndarray, rival_var: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(box per (state, roll), keep values (S, rerolls, K + 1), status: 1 if a roll has no box) of the
    win player at these states with these points so far, against rivals (S, opponents) of these
    final means and variances."""
    w, t = kplan.write, kplan.turn
    batch = kplan.batch(masks, feats, states)
    S, R, K, J = len(states), w.row.shape[2], len(t.adds), t.rerolls
    box = np.empty((S, R), dtype=np.int64)
    keepv = np.empty((S, J, K + 1))
    status = compiled()(mean, var, batch.base, batch.tfeat, batch.gkey, w.slot_box, w.padd, w.pconst, w.movt,
                        w.tlim, w.tradix, w.row, w.gain, w.bq_box, w.bq_roll, w.bq_off, w.bq_key, w.bsel, w.bgain,
                        t.adds, t.removes, t.size_start, t.faces, J, np.ascontiguousarray(points, dtype=np.float64),
                        np.ascontiguousarray(rival_mean, dtype=np.float64),
                        np.ascontiguousarray(rival_var, dtype=np.float64), box, keepv)
    return box, keepv, int(status)
