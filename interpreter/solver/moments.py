"""The mean and variance of the points still to come from every turn-start state, under the optimal player.

Backward over the layers of the solver's states, from the full sheets (their end bonuses) to the empty
one: a state's turn sends it, with the optimal player's keeps and box (`_turn`: the planner's
choices with the bot's tie rules, as the first exact distribution read them), to next states with points gained; the first two moments of
the rest add up over those outcomes (E[X] = Σ p (g + E[X']), E[X²] = Σ p (g² + 2 g E[X'] + E[X'²])).
The mean equals the solved table's value at every reached state (a test checks it). The play-to-win
computer player (`players/win.py`) weighs these two numbers of its own sheet against each opponent's.
"""
from __future__ import annotations

import numpy as np

from ..model.errors import UsageError
from .shipped import spec
CHUNK = 4096  # states planned at one time

_MOMENTS: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def remaining_moments(space, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean, variance) of the points still to come from each state index (NaN where not reached)."""
    from .cache import cache_key
    key = cache_key(space.model)
    if key in _MOMENTS:
        return _MOMENTS[key]
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
    sub = np.ascontiguousarray(tt.sub_index[:, ::-1])  # largest keeps first: a tie keeps more dice
    bq_at = np.full((w.row.shape[1], R), -1, dtype=np.int64)
    bq_at[w.bq_box, w.bq_roll] = np.arange(len(w.bq_box))
    m1 = np.full(space.entries, np.nan)
    m2 = np.full(space.entries, np.nan)
    last = len(space.level_counts()) - 1
    for k in range(last, -1, -1):
        masks, feats = space.level(k)
        idx = space.index(masks, feats)
        keep = np.isfinite(values[idx])
        masks, feats, idx = masks[keep], feats[keep], idx[keep]
        if k == last:
            end = space.end_values(masks, feats)
            m1[idx], m2[idx] = end, end * end
            continue
        for lo in range(0, len(idx), CHUNK):
            sl = slice(lo, lo + CHUNK)
            ni, g, p = _turn(planner, masks[sl], feats[sl], idx[sl], sub, bq_at, R, K, full0)
            g = np.where(p > 0, g, 0).astype(float)
            a, b = np.where(p > 0, m1[ni], 0.0), np.where(p > 0, m2[ni], 0.0)  # a roll never met reads nothing
            m1[idx[sl]] = (p * (g + a)).sum(axis=1)
            m2[idx[sl]] = (p * (g * g + 2 * g * a + b)).sum(axis=1)
    var = np.maximum(0.0, m2 - m1 * m1)
    _MOMENTS[key] = (m1, var)
    return m1, var


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


_TURN = []
# the compiled loop's types (numba's signature at use, the install's build: shipped.py)
SHIPPED = {"_turn_mass": [spec("i8", "f8.3 i8.2 i8.2 i8.1 f8.1 i8 i8 i8 i8 f8.2")]}


def _compiled_turn():
    """The turn's chances per state, compiled by numba (the planner needs numba already)."""
    if not _TURN:
        from .numbajit import compiled
        _TURN.append(compiled(_turn_mass, SHIPPED["_turn_mass"]))
    return _TURN[0]


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
    _compiled_turn()(keepv, sub, t.adds, t.size_start, t.p_all, faces, t.rerolls, K, full0, rollp)
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
