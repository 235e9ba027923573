"""The exact distribution of the final score under the optimal (or the greedy) player, by forward density evolution.

Start from the empty sheet with probability 1. Layer by layer (k = entries written), every
turn-start state carries a histogram of the points gained so far. The turn's chance and the
player's decisions (the keeps and the box of `turnplan.Planner` against the solved table, or
against zeros for the greedy player; with the bots' tie rules: a tie keeps more dice, and writes
into the first box on the sheet) send each state's mass to the states of layer k + 1, the
histogram shifted by the points and write bonus of each write. At the full sheets the end bonuses
are added: the mass at each final score is its probability. Nothing is sampled. The loops are
compiled (numba, releasing the GIL): threads plan chunks of a layer's states, then fill the next
layer's histograms (stored ragged: each state only from its least to its most points), each its own rows.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..model.errors import UsageError
from .shipped import spec

CHUNK = 2048  # states planned at once (one task of a worker thread)


def _whole(x: np.ndarray) -> np.ndarray:
    out = np.rint(x)
    if not np.allclose(out, x, atol=1e-9, rtol=0):
        raise UsageError("The exact score distribution needs whole points, and this model scores fractions.")
    return out.astype(np.int64)


def jobs_default() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def score_distribution(space, values, jobs: int | None = None, policy=None) -> dict[int, float]:
    """{final score: probability} of the player who plans its turns against the table `values` of
    `space`: the solved table for the optimal player, zeros (`values=None`) for the greedy one.

    `policy`: the policy tables of that player (policy.py: slot per state, box per (slot, roll), keep
    per (slot, rerolls left, roll)), made from the same table with the same tie rules: then a state's
    turn is read from them instead of planned (a state they lack is planned). `jobs` threads share
    the work (the compiled loops release the GIL): the states of a layer in chunks, then the
    histograms of the next layer in blocks of rows."""
    from .kernelplan import plan
    if values is None:
        values = np.zeros(space.entries)
    kp = plan(space)
    numpy_only = os.environ.get("RULEBOOK_KERNEL", "").lower() == "numpy"  # (as the planner: nothing compiled)
    if numpy_only or kp is None or space.roll_dependent or kp.write.row.shape[0] != 1 or not _compiled("turn"):
        raise UsageError("The exact score distribution needs the compiled planner (numba) and a model whose "
                         "points do not depend on the roll number; here one of them is missing.")
    planner = [None]  # made when a state must be planned (no policy tables, or a state they lack)
    if policy is not None:
        slot_of = policy[0].view(np.ndarray)
        pbox, pkeep = (_read_only(a) for a in policy[1:])
        cand = np.ascontiguousarray(space.tt.sub_index[:, ::-1])  # (a stored keep: its place among these)
    jobs = max(1, jobs or jobs_default())
    w, t = kp.write, kp.turn
    tt = space.tt
    R = len(tt.rolls)
    # rolls whose write reads the sheet: (box, roll) -> its entry in bq_*
    bq_at = np.full((w.row.shape[1], R), -1, dtype=np.int64)
    bq_at[w.bq_box, w.bq_roll] = np.arange(len(w.bq_box))
    for gains in (w.gain[0], w.bgain[0]):
        gains = _whole(gains[np.isfinite(gains)])
        if len(gains) and gains.min() < 0:
            raise UsageError("The exact score distribution needs writes that never take points away, "
                             "and this model has some.")
    turn, layout, spread = _compiled("turn"), _compiled("layout"), _compiled("spread")
    consts = (t.removes, t.adds, t.size_start, t.p_all, t.faces, t.rerolls, np.ascontiguousarray(w.row[0]),
              np.ascontiguousarray(w.gain[0]), bq_at, w.bq_off, w.bq_key, np.ascontiguousarray(w.bsel[0]),
              np.ascontiguousarray(w.bgain[0]), w.pconst, np.ascontiguousarray(w.movt), w.tlim, w.tradix, w.padd)

    def outcomes(task):  # one chunk of a layer: its (state, next state, points, chance) outcomes
        lo, masks, feats, idx = task
        batch = kp.batch(masks, feats, idx)
        slots = slot_of[idx].astype(np.int64) if policy is not None else None
        if slots is not None and slots.min() >= 0:  # read from the policy tables
            keepv, box, turn_args = _NO_KEEPV, _NO_BOX, (slots, pbox, pkeep, cand)
        else:
            if planner[0] is None:
                from .turnplan import Planner
                planner[0] = Planner(space, values)
            _, box, keepv, _, status = planner[0].plan(masks, feats, idx, batch=batch, tables=False)
            if status:
                raise UsageError("The exact score distribution met a roll that no box takes.")
            turn_args = _NO_POLICY
        n = len(masks) * R
        src, dst, gk, mass = (np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64),
                              np.empty(n, dtype=np.int64), np.empty(n))
        used = turn(keepv, box, *turn_args, batch.base, batch.tfeat, batch.gkey, *consts, lo, src, dst, gk, mass)
        return src[:used], dst[:used], gk[:used], mass[:used]

    # the current layer: sorted state indexes and their histograms of points so far, ragged: state i's
    # chance of `lo[i] + x` points is flat[off[i] + x] for 0 <= x < off[i + 1] - off[i]
    idx_now = np.array([0], dtype=np.int64)
    masks_now = np.zeros(1, dtype=np.int64)
    feats_now = np.zeros((1, len(space.feats)), dtype=np.int64)
    flat, off, lo_now = np.ones(1), np.array([0, 1], dtype=np.int64), np.zeros(1, dtype=np.int64)
    where = np.full(space.entries, -1, dtype=np.int64)  # a next state's row in the next layer
    with ThreadPoolExecutor(jobs) as pool:
        for k in range(_entries(space)):
            tasks = [(lo, masks_now[lo:lo + CHUNK], feats_now[lo:lo + CHUNK], idx_now[lo:lo + CHUNK])
                     for lo in range(0, len(idx_now), CHUNK)]
            parts = list((pool.map if jobs > 1 else map)(outcomes, tasks))
            si, ni, gk, m = (np.concatenate(c) for c in zip(*parts))
            seen = np.zeros(space.entries, dtype=bool)
            seen[ni] = True
            nxt = np.flatnonzero(seen)
            where[nxt] = np.arange(len(nxt))
            rows = where[ni]
            N = len(nxt)
            # each next row's columns, and the outcomes in order of their next row (a counting sort)
            lo_new, off_new, order, start = (np.empty(N, dtype=np.int64), np.empty(N + 1, dtype=np.int64),
                                             np.empty(len(si), dtype=np.int64), np.empty(N + 1, dtype=np.int64))
            layout(si, rows, gk, lo_now, off, lo_new, off_new, order, start)
            new = np.zeros(int(off_new[-1]))
            # rows in `jobs` ranges of about equal work: each thread writes its own rows only
            work = np.cumsum(np.diff(off)[si[order]])[np.maximum(start[1:] - 1, 0)]
            cuts = np.searchsorted(work, np.linspace(0, work[-1], jobs + 1)[1:-1]) if jobs > 1 else []
            cuts = [0, *sorted({int(c) for c in cuts}), N]
            blocks = [(flat, off, lo_now, si, gk, m, order, start, new, off_new, lo_new, a, b)
                      for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
            list((pool.map if jobs > 1 else map)(lambda x: spread(*x), blocks))
            idx_now, flat, off, lo_now = nxt, new, off_new, lo_new
            masks_now, feats_now = _decode(space, nxt)
    end = _whole(space.end_values(masks_now, feats_now))
    top = int((lo_now + np.diff(off) + end).max())
    base = min(0, int((lo_now + end).min()))
    total = np.zeros(top - base)
    _compiled("finish")(flat, off, lo_now + end - base, total)
    return {int(s) + base: float(p) for s, p in enumerate(total) if p > 0}


def _layout(src, dst, gain, lo, off, lo_new, off_new, order, start):  # pragma: no cover (compiled)
    """The columns of each next row (the least and most points its outcomes bring), its place in the
    flat array of the next layer; and the outcomes ordered by next row (`start[r]`: row r's first)."""
    N = lo_new.shape[0]
    hi = np.empty(N, dtype=np.int64)
    count = np.zeros(N + 1, dtype=np.int64)
    for r in range(N):
        lo_new[r] = 1 << 62
        hi[r] = -(1 << 62)
    for i in range(src.shape[0]):
        s, r = src[i], dst[i]
        a = lo[s] + gain[i]
        b = a + off[s + 1] - off[s]
        if a < lo_new[r]:
            lo_new[r] = a
        if b > hi[r]:
            hi[r] = b
        count[r + 1] += 1
    off_new[0] = 0
    for r in range(N):
        off_new[r + 1] = off_new[r] + hi[r] - lo_new[r]
        count[r + 1] += count[r]
    for r in range(N + 1):
        start[r] = count[r]
    for i in range(src.shape[0]):
        r = dst[i]
        order[count[r]] = i
        count[r] += 1
    return 0


def _spread(flat, off, lo, src, gain, mass, order, start, new, off_new, lo_new, r0, r1):  # pragma: no cover (compiled)
    """For the next rows r0 <= r < r1: each outcome's chance times its state's histogram, shifted by its
    points (so threads with other rows never meet). The inner loop runs over views from 0, so the
    compiler needs no check for negative indexes and adds four columns at a time (the same sums)."""
    for r in range(r0, r1):
        base = off_new[r] - lo_new[r]
        for j in range(start[r], start[r + 1]):
            i = order[j]
            s = src[i]
            p = mass[i]
            a = off[s]
            w = off[s + 1] - a
            at = base + lo[s] + gain[i]
            row = new[at:at + w]
            hist = flat[a:a + w]
            for x in range(w):
                row[x] += p * hist[x]
    return 0


def _finish(flat, off, shift, total):  # pragma: no cover (compiled)
    """The full sheets' histograms added up, each shifted by its first column plus its end bonus."""
    for s in range(off.shape[0] - 1):
        at = shift[s] - off[s]
        for x in range(off[s], off[s + 1]):
            total[at + x] += flat[x]
    return 0


def _turn_outcomes(keepv, box, slots, pbox, pkeep, cand, base, tfeat, gkey, removes, adds, size_start, p_all,
                   faces, rerolls, row, gain, bq_at, bq_off, bq_key, bsel, bgain, pconst, movt, tlim, tradix, padd,
                   offset, src, dst, gk, out):  # pragma: no cover (compiled)
    """Per state, the chance of each final roll (the first roll, then per reroll the best keep of each
    roll, the larger on a tie, and the other dice rolled again), the write of the
    planned box (next state, points), and the outcomes with the same (next state, points) added up.
    How many outcomes there are.

    With policy tables (`slots`: each state's slot in them, not empty) the keep of each roll and the
    box are read from them (`pkeep`: the keep's place among the roll's candidates `cand`; `pbox`);
    else found from the planned keep values `keepv` and boxes `box`."""
    S = base.shape[1]
    read = slots.shape[0] > 0
    K = adds.shape[0]
    C = removes.shape[1]
    R = row.shape[1]
    T = tlim.shape[0]
    n = size_start.shape[0] - 2
    full0 = size_start[n]
    mass = np.empty(K + 1)
    bestv = np.empty(K)
    besti = np.empty(K, dtype=np.int64)
    prob = np.empty(R)
    key = np.empty(R, dtype=np.int64)
    nx = np.empty(R, dtype=np.int64)
    gr = np.empty(R, dtype=np.int64)
    inv = 1.0 / faces
    H = 1
    while H < 2 * R:
        H *= 2
    slot_key = np.empty(H, dtype=np.int64)
    slot_at = np.empty(H, dtype=np.int64)
    G = 1
    for b in range(row.shape[0]):
        for r in range(R):
            if row[b, r] >= 0 and gain[b, r] + 1 > G:
                G = np.int64(gain[b, r] + 1.5)
    for e in range(bgain.shape[0]):
        if bgain[e] + 1 > G and bgain[e] < np.inf:
            G = np.int64(bgain[e] + 1.5)
    count = 0
    for s in range(S):
        for r in range(R):
            prob[r] = p_all[r]
        sl = slots[s] if read else 0
        for j in range(rerolls, 0, -1):
            if read:  # the stored keep of every roll
                mass[:] = 0.0
                for r in range(R):
                    mass[cand[r, pkeep[sl, j - 1, r]]] += prob[r]
            else:
                # the best sub-keep of every keep (of every roll): the largest value, the largest index on a
                # tie (a keep comes after all its sub-keeps, so a tie keeps more dice, as the bots do)
                for k in range(K):
                    bv = keepv[s, j - 1, k]
                    bi = k
                    for c in range(C):
                        m = removes[k, c]
                        if m == K:
                            break
                        v = bestv[m]
                        if v > bv or (v == bv and besti[m] > bi):
                            bv = v
                            bi = besti[m]
                    bestv[k] = bv
                    besti[k] = bi
                mass[:] = 0.0
                for r in range(R):
                    mass[besti[full0 + r]] += prob[r]
            for size in range(n):  # the dice not kept rolled again, one die at a time
                for k in range(size_start[size], size_start[size + 1]):
                    p = mass[k] * inv
                    if p != 0.0:
                        for f in range(faces):
                            mass[adds[k, f]] += p
            for r in range(R):
                prob[r] = mass[full0 + r]
        for r in range(R):  # the write of each final roll
            b = pbox[sl, r] if read else box[s, r]
            d = row[b, r]
            g = gain[b, r]
            x = bq_at[b, r]
            if x >= 0:
                e = bq_off[x] + gkey[bq_key[x], s]
                d = bsel[e]
                g = bgain[e]
            at = base[b, s] + pconst[d]
            for ti in range(T):
                if movt[b, ti]:
                    v = tfeat[ti, s] + padd[d]
                    at += (v if v < tlim[ti] else tlim[ti]) * tradix[ti]
            nx[r] = at
            gr[r] = np.int64(np.floor(g + 0.5))
            key[r] = at * G + gr[r]
        for h in range(H):
            slot_key[h] = -1
        for r in range(R):  # the outcomes with the same key added up, in the order first met
            if prob[r] == 0.0:
                continue
            h = (key[r] * 40503) & (H - 1)
            while slot_key[h] != -1 and slot_key[h] != key[r]:
                h = (h + 1) & (H - 1)
            if slot_key[h] == -1:
                slot_key[h] = key[r]
                slot_at[h] = count
                src[count] = s + offset
                dst[count] = nx[r]
                gk[count] = gr[r]
                out[count] = prob[r]
                count += 1
            else:
                out[slot_at[h]] += prob[r]
    return count


_COMPILED: dict = {}


def _compiled(name: str):
    """The compiled loops (numba; the planner needs numba already). They release the GIL, so threads share the work."""
    if name not in _COMPILED:
        from .numbajit import compiled
        function = {"spread": _spread, "turn": _turn_outcomes, "layout": _layout, "finish": _finish}[name]
        _COMPILED[name] = compiled(function, SHIPPED[function.__name__])
    return _COMPILED[name]


# the compiled loops' types (numba's signatures at use, the install's build: shipped.py); the policy tables
# are read-only views
SHIPPED = {"_spread": [spec("i8", "f8.1 i8.1 i8.1 i8.1 i8.1 f8.1 i8.1 i8.1 f8.1 i8.1 i8.1 i8 i8")],
           "_layout": [spec("i8", "i8.1 i8.1 i8.1 i8.1 i8.1 i8.1 i8.1 i8.1 i8.1")],
           "_finish": [spec("i8", "f8.1 i8.1 i8.1 f8.1")],
           "_turn_outcomes": [spec("i8", "f8.3 i8.2 i8.1 i1.2r u1.3r i8.2 i8.2 i8.2 i8.2 i8.2 i8.2 i8.1 f8.1 i8 i8 "
                                         "i8.2 f8.2 i8.2 i8.1 i8.1 i8.1 f8.1 i8.1 b1.2 i8.1 i8.1 i8.1 i8 i8.1 i8.1 "
                                         "i8.1 f8.1")]}


def _read_only(a: np.ndarray) -> np.ndarray:
    """A read-only C-ordered view of a policy table (what the compiled turn is typed for)."""
    out = np.ascontiguousarray(a.view(np.ndarray)).view()
    out.flags.writeable = False
    return out


_NO_KEEPV, _NO_BOX = np.zeros((1, 1, 1)), np.zeros((1, 1), dtype=np.int64)  # (unused with policy tables)
_NO_POLICY = (np.zeros(0, dtype=np.int64), _read_only(np.zeros((1, 1), dtype=np.int8)),
              _read_only(np.zeros((1, 1, 1), dtype=np.uint8)), np.zeros((1, 1), dtype=np.int64))


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


def summary(dist: dict[int, float], quantiles=(5, 25, 50, 75, 95)) -> tuple[float, dict[int, int]]:
    """(mean, {q: the q-th percentile}) of a distribution: the least score whose cumulative chance is ≥ q %."""
    scores = np.array(sorted(dist))
    probs = np.array([dist[s] for s in scores])
    cum = np.cumsum(probs)
    mean = float((scores * probs).sum())
    return mean, {q: int(scores[min(len(scores) - 1, np.searchsorted(cum, q / 100 - 1e-12))]) for q in quantiles}


def at_least(dist: dict[int, float], target: int) -> float:
    """The chance of a final score of at least `target`."""
    return float(min(1.0, sum(p for s, p in dist.items() if s >= target)))
