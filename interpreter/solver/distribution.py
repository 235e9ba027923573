"""The exact distribution of the final score under the optimal player, by forward density evolution.

Start from the empty sheet with probability 1. Layer by layer (k = entries written), every
turn-start state carries a histogram of the points gained so far. The turn's chance and the optimal
player's decisions (the keeps and the box of `turnplan.Planner`, with the bot's tie rules: a tie
keeps more dice, and writes into the first box on the sheet) send each state's mass to the states
of layer k + 1, the histogram shifted by the points and write bonus of each write. At the full
sheets the end bonuses are added: the mass at each final score is its probability.
Vectorized with numpy over the states of a layer; nothing is sampled.
"""
from __future__ import annotations

import numpy as np

from ..model.errors import UsageError

CHUNK = 4096  # states planned at once


def _whole(x: np.ndarray) -> np.ndarray:
    out = np.rint(x)
    if not np.allclose(out, x, atol=1e-9, rtol=0):
        raise UsageError("The exact score distribution needs whole points, and this model scores fractions.")
    return out.astype(np.int64)


def score_distribution(space, values: np.ndarray) -> dict[int, float]:
    """{final score: probability} under the optimal player of the table `values` of `space`."""
    from .turnplan import Planner
    planner = Planner(space, values)
    if not planner.usable:
        raise UsageError("The exact score distribution needs the compiled planner (numba) and a model whose "
                         "points do not depend on the roll number; here one of them is missing.")
    kp = planner.kplan
    w, t = kp.write, kp.turn
    tt = space.tt
    R, K = len(tt.rolls), len(t.adds)
    n_dice = len(t.size_start) - 2
    full0 = int(t.size_start[n_dice])
    sub = np.ascontiguousarray(tt.sub_index[:, ::-1])  # largest keeps first: a tie keeps more dice (as PlannerBot)
    # rolls whose write reads the sheet: (box, roll) -> its entry in bq_*
    bq_at = np.full((w.row.shape[1], R), -1, dtype=np.int64)
    bq_at[w.bq_box, w.bq_roll] = np.arange(len(w.bq_box))
    for gains in (w.gain[0], w.bgain[0]):
        gains = _whole(gains[np.isfinite(gains)])
        if len(gains) and gains.min() < 0:
            raise UsageError("The exact score distribution needs writes that never take points away, "
                             "and this model has some.")
    # the current layer: sorted state indexes and their histograms of points so far
    idx_now = np.array([0], dtype=np.int64)
    masks_now = np.zeros(1, dtype=np.int64)
    feats_now = np.zeros((1, len(space.feats)), dtype=np.int64)
    hist = np.ones((1, 1))
    where = np.full(space.entries, -1, dtype=np.int64)  # a next state's row in the next layer
    for k in range(_entries(space)):
        parts = []
        for lo in range(0, len(idx_now), CHUNK):
            sl = slice(lo, lo + CHUNK)
            ni, g, m = _turn(planner, masks_now[sl], feats_now[sl], idx_now[sl], sub, bq_at, R, K, full0)
            # one entry per (state, next state, points): the rolls that lead alike are added up first
            n_out = ni.size
            src, dst, gk, mass = (np.empty(n_out, dtype=np.int64), np.empty(n_out, dtype=np.int64),
                                  np.empty(n_out, dtype=np.int64), np.empty(n_out))
            used = _compiled("gather")(ni, g, m, int(g.max()) + 1, lo, src, dst, gk, mass)
            parts.append((src[:used], dst[:used], gk[:used], mass[:used]))
        si, ni, gk, m = (np.concatenate(c) for c in zip(*parts))
        seen = np.zeros(space.entries, dtype=bool)
        seen[ni] = True
        nxt = np.flatnonzero(seen)
        where[nxt] = np.arange(len(nxt))
        rows = where[ni]
        nz = hist > 0
        first = np.argmax(nz, axis=1)
        last = hist.shape[1] - 1 - np.argmax(nz[:, ::-1], axis=1)
        new = np.zeros((len(nxt), hist.shape[1] + int(gk.max())))
        _compiled("spread")(hist, first, last, si, rows, gk, m, new)
        idx_now, hist = nxt, new
        masks_now, feats_now = _decode(space, nxt)
    end = _whole(space.end_values(masks_now, feats_now))
    lo = min(0, int(end.min()))
    total = np.zeros(hist.shape[1] + int(end.max()) - lo)
    for ev in np.unique(end):
        total[ev - lo:ev - lo + hist.shape[1]] += hist[end == ev].sum(axis=0)
    return {int(s) + lo: float(p) for s, p in enumerate(total) if p > 0}


def _spread(hist, first, last, src, dst, gain, mass, new):  # pragma: no cover (compiled)
    for i in range(src.shape[0]):
        s = src[i]
        row = dst[i]
        off = gain[i]
        p = mass[i]
        for x in range(first[s], last[s] + 1):
            new[row, x + off] += p * hist[s, x]
    return 0


def _turn_mass(keepv, sub, adds, size_start, p_all, faces, rerolls, K, full0, out):  # pragma: no cover (compiled)
    """Per state, the chance of each final roll: the first roll, then per reroll the best keep of
    each roll (the first of `sub`'s candidates on a tie) and the other dice rolled again."""
    S = keepv.shape[0]
    R, C = sub.shape
    n = size_start.shape[0] - 2
    mass = np.empty(K + 1)
    inv = 1.0 / faces
    for s in range(S):
        for r in range(R):
            out[s, r] = p_all[r]
        for j in range(rerolls, 0, -1):
            mass[:] = 0.0
            for r in range(R):
                best = -np.inf
                which = K
                for c in range(C):
                    k = sub[r, c]
                    if k < K and keepv[s, j - 1, k] > best:
                        best = keepv[s, j - 1, k]
                        which = k
                mass[which] += out[s, r]
            for size in range(n):
                for k in range(size_start[size], size_start[size + 1]):
                    p = mass[k] * inv
                    if p != 0.0:
                        for f in range(faces):
                            mass[adds[k, f]] += p
            for r in range(R):
                out[s, r] = mass[full0 + r]
    return 0


def _gather(nxt, gain, prob, G, offset, src, dst, gk, mass):  # pragma: no cover (compiled)
    """Per state, its outcomes (next state, points) with their chances added up; how many there are."""
    S, R = nxt.shape
    n = 0
    key = np.empty(R, dtype=np.int64)
    for s in range(S):
        for r in range(R):
            key[r] = nxt[s, r] * G + gain[s, r]
        order = np.argsort(key)
        last = -1
        for i in order:
            if prob[s, i] == 0.0:
                continue
            if key[i] != last:
                src[n] = s + offset
                dst[n] = nxt[s, i]
                gk[n] = gain[s, i]
                mass[n] = prob[s, i]
                n += 1
                last = key[i]
            else:
                mass[n - 1] += prob[s, i]
    return n


_COMPILED: dict = {}


def _compiled(name: str):
    """The spread of histograms and the turn's chances, compiled by numba (the planner needs numba already)."""
    if name not in _COMPILED:
        from .kernel import jit

        def spread_signatures(numba):
            i64, f64 = numba.int64, numba.float64
            a1 = i64[::1]
            return [i64(f64[:, ::1], a1, a1, a1, a1, a1, f64[::1], f64[:, ::1])]

        def turn_signatures(numba):
            i64, f64 = numba.int64, numba.float64
            return [i64(f64[:, :, ::1], i64[:, ::1], i64[:, ::1], i64[::1], f64[::1], i64, i64, i64, i64, f64[:, ::1])]
        def gather_signatures(numba):
            i64, f64 = numba.int64, numba.float64
            a1 = i64[::1]
            return [i64(i64[:, ::1], i64[:, ::1], f64[:, ::1], i64, i64, a1, a1, a1, f64[::1])]
        _COMPILED[name] = jit(*{"spread": (_spread, spread_signatures), "turn": (_turn_mass, turn_signatures),
                                "gather": (_gather, gather_signatures)}[name])
    return _COMPILED[name]


def _entries(space) -> int:
    return len(space.level_counts()) - 1


def _decode(space, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, feature values) of state indexes (index = code * F + Σ feature * radix)."""
    masks = idx // space.F
    rest = idx % space.F
    feats = np.zeros((len(idx), len(space.feats)), dtype=np.int64)
    order = sorted(range(len(space.radix)), key=lambda i: -space.radix[i])
    for i in order:
        feats[:, i] = rest // space.radix[i]
        rest = rest % space.radix[i]
    return masks, feats


def _turn(planner, masks, feats, idx, sub, bq_at, R, K, full0):
    """One turn of a batch of states: (next state index, state, points gained, probability) per outcome."""
    kp = planner.kplan
    w, t = kp.write, kp.turn
    batch = kp.batch(masks, feats, idx)
    _, box, keepv, _, status = planner.plan(masks, feats, idx, batch=batch, tables=False)
    if status:
        raise UsageError("The exact score distribution met a roll that no box takes.")
    S = len(masks)
    faces = t.faces
    # the first roll, then per reroll: keep the best sub-keep of the roll, roll the other dice
    rollp = np.empty((S, R))
    _compiled("turn")(keepv, sub, t.adds, t.size_start, t.p_all, faces, t.rerolls, K, full0, rollp)
    # the write: box, slot and points of each (state, roll)
    r_all = np.broadcast_to(np.arange(R), (S, R))
    d = w.row[0][box, r_all]
    g = w.gain[0][box, r_all]
    x = bq_at[box, r_all]
    br = x >= 0
    if br.any():
        s_of = np.broadcast_to(np.arange(S)[:, None], (S, R))[br]
        e = w.bq_off[x[br]] + batch.gkey[w.bq_key[x[br]], s_of]
        d[br] = w.bsel[0][e]
        g[br] = w.bgain[0][e]
    s_all = np.broadcast_to(np.arange(S)[:, None], (S, R))
    nxt = batch.base[box, s_all] + w.pconst[d]
    for ti in range(len(w.tlim)):
        moves = w.movt[box, ti]
        nxt = nxt + np.where(moves, np.minimum(w.tlim[ti], batch.tfeat[ti][s_all] + w.padd[d]) * w.tradix[ti], 0)
    return np.ascontiguousarray(nxt), np.ascontiguousarray(np.rint(g).astype(np.int64)), rollp


def summary(dist: dict[int, float], quantiles=(5, 25, 50, 75, 95)) -> tuple[float, dict[int, int]]:
    """(mean, {q: the q-th percentile}) of a distribution: the least score whose cumulative chance is ≥ q %."""
    scores = np.array(sorted(dist))
    probs = np.array([dist[s] for s in scores])
    cum = np.cumsum(probs)
    mean = float((scores * probs).sum())
    return mean, {q: int(scores[min(len(scores) - 1, np.searchsorted(cum, q / 100 - 1e-12))]) for q in quantiles}
