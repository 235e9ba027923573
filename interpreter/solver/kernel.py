"""The inner loops of the backward induction, on plain arrays: compiled with numba, or in numpy.

`solve_states` takes a batch of turn-start states and the table of fuller sheets and returns
each state's expected final score: the value of writing every final roll (best over the open
boxes of points + write bonus + the table's value of the next sheet), then the keep/reroll layers
of the turn, then the mean over the first roll. Everything it needs is an array (`WriteArrays`,
`TurnArrays`, and per batch `Batch`), so a state space that encodes sheets differently only has to
produce those arrays (`interpreter/kernelplan.py` does it for `solver.Space`).

Two implementations do the same arithmetic in the same order, so they give the same numbers bit
for bit (tests/test_kernel.py): `_solve_states` compiled by numba (blocks of states in cache, no
temporaries), and `_solve_states_numpy` (whole batches, numpy operations). `RULEBOOK_KERNEL=numpy`
chooses numpy; without numba installed numpy is used. The install compiles `_solve_states` ahead of
time where it can (`shipped.py`, from setup.py), so a solve has nothing to compile; without that (or
with `RULEBOOK_KERNEL=jit`) numba compiles it on first use and its code is cached in rulebook's cache
directory (`<cache>/numba`), never beside the installed package; if that directory cannot be
written, nothing is cached.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np

from .numbajit import _numba, _prepare, jit, numba_cache_dir  # noqa: F401  (re-exported: tests compile at use through kernel.jit)
from . import shipped as _aot

NO_BOX = 1  # status bit: for some roll of some state the write rule allows no box
NAN_READ = 2  # status bit: a next sheet's value was not solved yet (NaN)


@dataclass(frozen=True)
class WriteArrays:
    """The write step of a model, laid out once.

    A *slot* is one (box, points) pair (points that lead to the same next sheet may share one); the
    next sheet's index for slot d and state s is
    `base[box, s] + pconst[d] + Σ_t movt[box, t] * min(tlim[t], tfeat[t, s] + padd[d]) * tradix[t]`.
    """

    slot_box: np.ndarray  # (D,) int64: the box of each slot
    padd: np.ndarray  # (D,) int64: what the points add to a tracked total (max(points, 0))
    pconst: np.ndarray  # (D,) int64: index offset of the yes/no features the points set
    movt: np.ndarray  # (B, T) bool: writing box b adds to tracked total t
    tlim: np.ndarray  # (T,) int64: cap of each tracked total
    tradix: np.ndarray  # (T,) int64: its place in the index
    row: np.ndarray  # (NR, B, R) int64: per roll number, box and roll: the slot, or -1 (refused / branching)
    gain: np.ndarray  # (NR, B, R) float64: points + write bonus of that write
    bq_box: np.ndarray  # (Q,) int64: rolls whose write depends on the sheet: their box,
    bq_roll: np.ndarray  # (Q,) int64: their roll,
    bq_off: np.ndarray  # (Q,) int64: the start of their rows in bsel/bgain (one row per sheet group),
    bq_key: np.ndarray  # (Q,) int64: and which row of `Batch.gkey` holds each state's group
    bsel: np.ndarray  # (NR, G) int64: slot written, or -1 if the rule refuses it
    bgain: np.ndarray  # (NR, G) float64: points + write bonus
    # derived from the above (`_pairs`): the different (slot, gain) pairs of `row` and `gain` (a sheet of 15 boxes
    # and 252 rolls: 120 pairs for 3,780 writes), so the compiled kernel adds each pair's gain to its slot's value
    # once per state
    pair_slot: np.ndarray = field(init=False, repr=False)  # (P,) int64: the slot of each pair
    pair_gain: np.ndarray = field(init=False, repr=False)  # (P,) float64: its points + write bonus
    pair_box: np.ndarray = field(init=False, repr=False)  # (P,) int64: its box
    pair_of: np.ndarray = field(init=False, repr=False)  # (NR, B, R) int64: the pair of each write, -1, or POOLED
    # (`_pool`) per roll number, the pairs of the writes worth nothing into boxes whose every write is allowed, leads
    # to one next sheet and earns 0 or more: a roll's writes of that kind are taken as one, the best of them all
    pool_at: np.ndarray = field(init=False, repr=False)  # (NR + 1,) int64: where each roll number's pairs start
    pool: np.ndarray = field(init=False, repr=False)  # (Z,) int64: the pooled pairs

    def __post_init__(self):
        for name, value in zip(("pair_slot", "pair_gain", "pair_box", "pair_of"), _pairs(self.slot_box, self.row, self.gain)):
            object.__setattr__(self, name, value)
        for name, value in zip(("pair_of", "pool_at", "pool"), _pool(self.pair_slot, self.pair_gain, self.pair_of)):
            object.__setattr__(self, name, value)


def _pairs(slot_box: np.ndarray, row: np.ndarray, gain: np.ndarray) -> tuple[np.ndarray, ...]:
    """The different (slot, gain) pairs of the writes (gains told apart bit for bit) and the pair of each write."""
    ok = row >= 0
    key = np.stack([row[ok], np.ascontiguousarray(gain[ok], dtype=np.float64).view(np.int64)], axis=1)
    pairs, which = np.unique(key.reshape(-1, 2), axis=0, return_inverse=True)
    pair_of = np.full(row.shape, -1, dtype=np.int64)
    pair_of[ok] = which.reshape(-1)
    pair_slot = np.ascontiguousarray(pairs[:, 0])
    return (pair_slot, np.ascontiguousarray(pairs[:, 1]).view(np.float64), np.ascontiguousarray(slot_box[pair_slot]),
            pair_of)


POOLED = -2  # in `WriteArrays.pair_of`: a write taken with the roll number's pool


def _pool(pair_slot: np.ndarray, pair_gain: np.ndarray, pair_of: np.ndarray) -> tuple[np.ndarray, ...]:
    """The writes worth nothing that a roll's best write may take as one: per roll number, the boxes that allow every
    roll (no sheet-dependent row either), whose writes all lead to one next sheet (its value F) and earn g >= 0. The
    best of their zero writes, max F over the open ones, is then one candidate of each roll that has such a write.
    The best write stays the same bit for bit: a box of the pool in which the roll scores something adds its F to the
    candidates, which its own write g + F already passes or equals (g >= 0, and rounding keeps that order).
    (pair_of with POOLED for the pooled writes, the start of each roll number's pairs, the pairs. No np.unique here:
    numpy 2's imports numpy.ma, 7 ms.)"""
    pair_of = pair_of.copy()
    NR, B, _ = pair_of.shape
    pool, starts = [], [0]
    for q in range(NR):
        found = set()
        for b in range(B):
            pairs = pair_of[q, b]
            if (pairs < 0).any() or (pair_slot[pairs] != pair_slot[pairs[0]]).any() or (pair_gain[pairs] < 0).any():
                continue
            zero = pair_gain[pairs] == 0
            found.update(pairs[zero].tolist())
            pair_of[q, b, zero] = POOLED
        pool += sorted(found)
        starts.append(len(pool))
    return pair_of, np.array(starts, dtype=np.int64), np.array(pool, dtype=np.int64)


@dataclass(frozen=True)
class TurnArrays:
    """The keep/reroll layers of a turn (`turn.TurnTables` as arrays)."""

    adds: np.ndarray  # (K, faces) int64: the keep with one more die showing each face (unused for full keeps)
    removes: np.ndarray  # (K, C) int64: the keeps with one die fewer, padded with K (a row of -inf)
    size_start: np.ndarray  # (n + 2,) int64: the first keep of each size; keeps of size n are the rolls
    p_all: np.ndarray  # (R,) float64: probability of each first roll
    faces: int
    rerolls: int
    stop: bool  # the player may stop rolling (then writing at once, with the roll number's own scoring)


@dataclass(frozen=True)
class Batch:
    """What the kernel needs of a batch of S states."""

    base: np.ndarray  # (B, S) int64: next sheet's index without the tracked totals a box moves; -1 if filled
    tfeat: np.ndarray  # (T, S) int64: the tracked totals
    gkey: np.ndarray  # (U, S) int64: each state's sheet group, per set of atoms that sheet-dependent rolls read


def turn_arrays(tt, rerolls: int, stop: bool) -> TurnArrays:
    """`TurnArrays` of a `turn.TurnTables`."""
    K, n = len(tt.keeps), tt.n
    adds = np.zeros((K, tt.faces), dtype=np.int64)
    width = max(len(cols) for cols in tt.removes)
    removes = np.full((K, width), K, dtype=np.int64)
    for s in range(n + 1):
        sl = tt.slices[s]
        if s < n:
            for f, col in enumerate(tt.adds[s]):
                adds[sl, f] = col
        if s > 0:
            for c, col in enumerate(tt.removes[s]):
                removes[sl, c] = col
    size_start = np.array([tt.slices[s].start for s in range(n + 1)] + [K], dtype=np.int64)
    return TurnArrays(adds, removes, size_start, np.ascontiguousarray(tt.p_all), tt.faces, rerolls, bool(stop))


# numpy ------------------------------------------------------------------------------------------

def _solve_states_numpy(V: np.ndarray, w: WriteArrays, t: TurnArrays, batch: Batch, out: np.ndarray) -> int:
    base, tfeat, gkey = batch.base, batch.tfeat, batch.gkey
    B, S = base.shape
    D = len(w.slot_box)
    NR, _, R = w.row.shape
    K = len(t.adds)
    n = len(t.size_start) - 2
    full0 = int(t.size_start[n])
    status = 0
    is_open = base >= 0
    any_open = is_open.any(axis=1)
    fut = np.full((D, S), -np.inf)
    for d in range(D):
        b = w.slot_box[d]
        if not any_open[b]:
            continue
        idx = base[b] + w.pconst[d]
        for k in range(len(w.tlim)):
            if w.movt[b, k]:
                idx = idx + np.minimum(w.tlim[k], tfeat[k] + w.padd[d]) * w.tradix[k]
        o = is_open[b]
        got = V[idx[o]]
        if np.isnan(got).any():
            status |= NAN_READ
        fut[d, o] = got
    W = np.full((NR, R, S), -np.inf)
    cols = np.arange(S)
    for q in range(NR):
        Wq = W[q]
        for b in range(B):
            if not any_open[b]:
                continue
            tmp = np.empty(S)
            for r, d, g in zip(range(R), w.row[q, b].tolist(), w.gain[q, b].tolist()):
                if d >= 0:
                    np.add(fut[d], g, out=tmp)
                    np.fmax(Wq[r], tmp, out=Wq[r])
        for x in range(len(w.bq_box)):
            b, r = w.bq_box[x], w.bq_roll[x]
            if not any_open[b]:
                continue
            e = w.bq_off[x] + gkey[w.bq_key[x]]
            d = w.bsel[q, e]
            ok = is_open[b] & (d >= 0)
            v = w.bgain[q, e] + fut[np.where(ok, d, 0), cols]
            Wq[r] = np.where(ok, np.fmax(Wq[r], v), Wq[r])
        if np.isneginf(Wq).any():
            status |= NO_BOX
    A = np.empty((K + 1, S))
    A[full0:K] = W[NR - 1]
    inv = 1.0 / t.faces
    for layer in range(1, t.rerolls + 1):
        for s in range(n - 1, -1, -1):  # a keep's value: the mean over one more die
            lo, hi = t.size_start[s], t.size_start[s + 1]
            acc = A[t.adds[lo:hi, 0]]
            for f in range(1, t.faces):
                acc += A[t.adds[lo:hi, f]]
            acc *= inv
            A[lo:hi] = acc
        if t.stop:
            A[full0:K] = W[NR - 1 - layer]
        A[K] = -np.inf
        for s in range(1, n + 1):  # the best keep within each keep
            lo, hi = t.size_start[s], t.size_start[s + 1]
            part = A[lo:hi]
            for c in range(t.removes.shape[1]):
                np.maximum(part, A[t.removes[lo:hi, c]], out=part)
    acc = np.zeros(S)
    for r in range(R):
        acc += t.p_all[r] * A[full0 + r]
    out[:] = acc
    return status


# numba ------------------------------------------------------------------------------------------

BLOCK = 128  # states per block in the compiled kernel (its arrays stay in the core's cache)


def _solve_states(V, base, tfeat, gkey, slot_box, padd, pconst, movt, tlim, tradix, row, gain,
                  bq_box, bq_roll, bq_off, bq_key, bsel, bgain, adds, removes, size_start, p_all, faces, rerolls, stop,
                  pair_slot, pair_gain, pair_box, pair_of, pool_at, pool, out, fut, val, A, acc, at):  # pragma: no cover (compiled)
    B, S = base.shape
    D = slot_box.shape[0]
    P = pair_slot.shape[0]
    NR, _, R = row.shape
    K = adds.shape[0]
    C = removes.shape[1]
    T = tlim.shape[0]
    Q = bq_box.shape[0]
    n = size_start.shape[0] - 2
    full0 = size_start[n]
    inv = 1.0 / faces
    neg = -np.inf
    # the scratch arrays come from the caller (an allocation inside would compile numpy's own
    # functions with the kernel: about a second of the first solve): fut (D, BLOCK), val (P + 2, BLOCK),
    # A (K + 1 + (NR - 1) R, BLOCK), acc (BLOCK,) and at (BLOCK + 3 B + 4,) int64, whose tail holds which
    # boxes are open and a roll's writes
    any_open = at[BLOCK:BLOCK + B]
    open_boxes = at[BLOCK + B:BLOCK + 2 * B]
    writes = at[BLOCK + 2 * B:BLOCK + 3 * B + 4]
    status = 0
    for lo in range(0, S, BLOCK):
        sb = S - lo if S - lo < BLOCK else BLOCK
        # (a block's rows of the per-state arrays are read through slices: as `base[b, lo + j]`, numba's negative
        # indices made each such loop a gather; a box is open in the block if its largest next index is not -1)
        for b in range(B):
            row, most = base[b, lo:lo + sb], -1
            for j in range(sb):
                most = row[j] if row[j] > most else most
            any_open[b] = 1 if most >= 0 else 0
        # the value of the next sheet for every slot
        for d in range(D):
            b = slot_box[d]
            if not any_open[b]:
                continue
            c, row = pconst[d], base[b, lo:lo + sb]
            for j in range(sb):
                at[j] = row[j] + c
            for k in range(T):
                if movt[b, k]:
                    p, cap, radix = padd[d], tlim[k], tradix[k]
                    frow = tfeat[k, lo:lo + sb]
                    for j in range(sb):
                        v = frow[j] + p
                        at[j] += (v if v < cap else cap) * radix
            for j in range(sb):
                fut[d, j] = V[at[j]] if row[j] >= 0 else neg
            for j in range(sb):
                if fut[d, j] != fut[d, j]:
                    status |= 2
        # the value of every write, once per (slot, points + write bonus) pair; row P is -inf, row P + 1 the pool's best
        for p in range(P):
            if any_open[pair_box[p]]:
                d, g = pair_slot[p], pair_gain[p]
                for j in range(sb):
                    val[p, j] = g + fut[d, j]
        for j in range(sb):
            val[P, j] = neg
        # the best write of every roll, into rows w0.. of A: the rolls' own rows for the last roll number
        nopen = 0
        for b in range(B):
            if any_open[b]:
                open_boxes[nopen] = b
                nopen += 1
        for q in range(NR):
            w0 = full0 if q == NR - 1 else K + 1 + q * R
            pooled = 0
            for z in range(pool_at[q], pool_at[q + 1]):  # the best of the pool's writes into open boxes
                p = pool[z]
                if any_open[pair_box[p]]:
                    for j in range(sb):
                        x = val[p, j]
                        y = val[P + 1, j] if pooled else neg
                        val[P + 1, j] = x if x > y else y
                    pooled += 1
            for r in range(R):
                m = 0
                inpool = False
                for ob in range(nopen):  # the roll's writes into open boxes, in the boxes' order, then the pool's
                    p = pair_of[q, open_boxes[ob], r]
                    if p >= 0:
                        writes[m] = p
                        m += 1
                    elif p == POOLED:
                        inpool = True
                if inpool:
                    writes[m] = P + 1
                    m += 1
                while m == 0 or m % 4:  # padded with the -inf row, which changes nothing
                    writes[m] = P
                    m += 1
                for c in range(0, m, 4):  # four at a time, the maximum held in a register
                    m0, m1, m2, m3 = writes[c], writes[c + 1], writes[c + 2], writes[c + 3]
                    for j in range(sb):
                        y = A[w0 + r, j] if c else neg
                        x = val[m0, j]
                        y = x if x > y else y
                        x = val[m1, j]
                        y = x if x > y else y
                        x = val[m2, j]
                        y = x if x > y else y
                        x = val[m3, j]
                        A[w0 + r, j] = x if x > y else y
            for x in range(Q):
                b = bq_box[x]
                if not any_open[b]:
                    continue
                r = bq_roll[x]
                row, krow = base[b, lo:lo + sb], gkey[bq_key[x], lo:lo + sb]
                for j in range(sb):
                    if row[j] < 0:
                        continue
                    e = bq_off[x] + krow[j]
                    d = bsel[q, e]
                    if d < 0:
                        continue
                    v = bgain[q, e] + fut[d, j]
                    if v > A[w0 + r, j]:
                        A[w0 + r, j] = v
            for r in range(R):
                for j in range(sb):
                    if A[w0 + r, j] == neg:
                        status |= 1
        # the keep/reroll layers
        for layer in range(1, rerolls + 1):
            for s in range(n - 1, -1, -1):
                for k in range(size_start[s], size_start[s + 1]):
                    if faces == 6:  # the common die in one pass (the same additions in the same order)
                        a0, a1, a2, a3, a4, a5 = adds[k, 0], adds[k, 1], adds[k, 2], adds[k, 3], adds[k, 4], adds[k, 5]
                        for j in range(sb):
                            A[k, j] = (((((A[a0, j] + A[a1, j]) + A[a2, j]) + A[a3, j]) + A[a4, j]) + A[a5, j]) * inv
                        continue
                    a = adds[k, 0]
                    for j in range(sb):
                        acc[j] = A[a, j]
                    for f in range(1, faces):
                        a = adds[k, f]
                        for j in range(sb):
                            acc[j] += A[a, j]
                    for j in range(sb):
                        A[k, j] = acc[j] * inv
            if stop:
                w0 = K + 1 + (NR - 1 - layer) * R
                for r in range(R):
                    for j in range(sb):
                        A[full0 + r, j] = A[w0 + r, j]
            for s in range(1, n + 1):
                for k in range(size_start[s], size_start[s + 1]):
                    # the keeps with one die fewer, four at a time (the maximum held in a register), then the
                    # last one, two or three: the same comparisons in the same order as one at a time
                    c = 0
                    while c + 4 <= C and removes[k, c + 3] != K:
                        m0, m1, m2, m3 = removes[k, c], removes[k, c + 1], removes[k, c + 2], removes[k, c + 3]
                        for j in range(sb):
                            y = A[k, j]
                            x = A[m0, j]
                            y = x if x > y else y
                            x = A[m1, j]
                            y = x if x > y else y
                            x = A[m2, j]
                            y = x if x > y else y
                            x = A[m3, j]
                            A[k, j] = x if x > y else y
                        c += 4
                    left = 0
                    while c + left < C and removes[k, c + left] != K:
                        left += 1
                    if left == 3:
                        m0, m1, m2 = removes[k, c], removes[k, c + 1], removes[k, c + 2]
                        for j in range(sb):
                            y = A[k, j]
                            x = A[m0, j]
                            y = x if x > y else y
                            x = A[m1, j]
                            y = x if x > y else y
                            x = A[m2, j]
                            A[k, j] = x if x > y else y
                    elif left == 2:
                        m0, m1 = removes[k, c], removes[k, c + 1]
                        for j in range(sb):
                            y = A[k, j]
                            x = A[m0, j]
                            y = x if x > y else y
                            x = A[m1, j]
                            A[k, j] = x if x > y else y
                    elif left == 1:
                        m0 = removes[k, c]
                        for j in range(sb):
                            y = A[k, j]
                            x = A[m0, j]
                            A[k, j] = x if x > y else y
        for j in range(sb):
            acc[j] = 0.0
        for r in range(R):
            p = p_all[r]
            for j in range(sb):
                acc[j] += p * A[full0 + r, j]
        orow = out[lo:lo + sb]
        for j in range(sb):
            orow[j] = acc[j]
    return status


_COMPILED = None


def _ready_marker(where) -> "os.PathLike | None":
    """A sealed file in numba's cache folder saying this kernel (this source, this numba) is compiled there."""
    if where is None:
        return None
    import hashlib
    from importlib.metadata import version
    from pathlib import Path
    stamp = hashlib.blake2b(Path(__file__).read_bytes() + version("numba").encode(), digest_size=8).hexdigest()
    return where / f"kernel-ready-{stamp}"


def will_compile() -> bool:
    """Whether the next solve compiles the kernel first (a few seconds, once per cache folder)."""
    if _COMPILED is not None or os.environ.get("RULEBOOK_KERNEL", "").lower() == "numpy":
        return False
    if _BACKGROUND is not None:
        return True
    if shipped() is not None:
        return False
    import importlib.util
    if importlib.util.find_spec("numba") is None:
        return False
    from ..model.cachedir import marked
    marker = _ready_marker(numba_cache_dir())
    return marker is None or not marked(marker)


_BACKGROUND = None  # the child process compiling the kernel into the cache (`compile_in_background`)


def compile_in_background() -> bool:
    """Start compiling the kernel in a child process when the next solve would compile it, so that the
    compile overlaps the caller's own work (loading the model, laying out its states). The child
    writes numba's files into the cache and seals them as any compile does (under the folder's lock);
    `compiled()` waits for it, then loads the kernel from there, checked like every cached kernel (if
    the child failed, it compiles the kernel itself). True if a child was started."""
    global _BACKGROUND
    from ..model.errors import RulebookError
    try:
        if _BACKGROUND is not None or not will_compile() or numba_cache_dir() is None:
            return False
    except RulebookError:  # an unsafe or broken cache folder: the command itself says so, in one line
        return False
    import atexit
    import subprocess
    import sys
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p or os.getcwd() for p in sys.path)}
    try:
        _BACKGROUND = subprocess.Popen([sys.executable, "-c", f"from {__package__} import kernel; kernel.compiled()"],
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, env=env)
    except OSError:
        return False
    atexit.register(_stop_background)  # a command that ends early (an error) leaves no compile running
    return True


def _await_background() -> None:
    global _BACKGROUND
    if _BACKGROUND is not None:
        try:
            _BACKGROUND.wait()
        finally:
            _BACKGROUND = None


def _stop_background() -> None:
    global _BACKGROUND
    if _BACKGROUND is not None and _BACKGROUND.poll() is None:
        _BACKGROUND.kill()  # what it wrote is not sealed yet: the next check empties the folder
        _BACKGROUND.wait()
    _BACKGROUND = None


# the kernel's arguments: numba's signature at use, the install's export and its checks of every call
SHIPPED = {"_solve_states": [_aot.spec("i8", "f8.1 i8.2 i8.2 i8.2 i8.1 i8.1 i8.1 b1.2 i8.1 i8.1 i8.3 f8.3 i8.1 i8.1 i8.1 i8.1 "
                                                "i8.2 f8.2 i8.2 i8.2 i8.1 f8.1 i8 i8 b1 i8.1 f8.1 i8.1 i8.3 i8.1 i8.1 "
                                                "f8.1 f8.2 f8.2 f8.2 f8.1 i8.1")]}


def _signature(numba):
    return _aot.signature(numba, SHIPPED["_solve_states"][0])


def shipped():
    """The kernel compiled when rulebook was installed (`shipped.py`), or None (RULEBOOK_KERNEL=jit: compile it at use)."""
    return _aot.load(_solve_states, SHIPPED["_solve_states"])


def compiled():
    """The numba kernel: the one compiled at install time (`shipped`), else compiled on first use or loaded
    from the cache; None if numpy is chosen or numba is missing."""
    global _COMPILED
    if os.environ.get("RULEBOOK_KERNEL", "").lower() == "numpy":
        return None
    if _COMPILED is None:
        _COMPILED = shipped()
    if _COMPILED is None:
        if _BACKGROUND is not None and _BACKGROUND.poll() is None:
            _prepare()
        _await_background()
        from ..model.cachedir import locked, mark, seal_tree
        where = numba_cache_dir()
        with locked(where) if where is not None else _nothing():
            _COMPILED = jit(_solve_states, _signature)
            where = numba_cache_dir() if _COMPILED else None
            marker = _ready_marker(where)
            if marker is not None:
                mark(marker)
                seal_tree(where)
    return _COMPILED or None


def _nothing():
    from contextlib import nullcontext
    return nullcontext()


def name() -> str:
    """Which implementation `solve_states` uses: 'numba' or 'numpy'."""
    return "numba" if compiled() is not None else "numpy"


ALIGN = 64  # bytes: a cache line, and one AVX-512 vector


def _scratch(shape: tuple[int, ...]) -> np.ndarray:
    """An empty float64 array whose data starts on a 64-byte boundary (numpy's own start on 16). A row of the
    kernel's scratch is BLOCK doubles (1 KB), so every vector the kernel loads then lies within one cache line;
    from wherever malloc put them, a load split across two lines made the kernel up to a fifth slower (a recorded
    solve of 840,000 states: 0.87 against 0.67 CPU s; the same from run to run once aligned; docs/solver.md)."""
    size = math.prod(shape)
    raw = np.empty(size + ALIGN // 8)
    skip = (-raw.ctypes.data % ALIGN) // 8
    return raw[skip:skip + size].reshape(shape)


def solve_states(V: np.ndarray, w: WriteArrays, t: TurnArrays, batch: Batch, out: np.ndarray,
                 use: str | None = None) -> int:
    """Write each state's expected final score into `out`; a status (NO_BOX | NAN_READ bits, 0 if all is well).

    `use`: 'numba' or 'numpy' (default: numba when available, unless RULEBOOK_KERNEL=numpy)."""
    kernel = compiled() if use in (None, "numba") else None
    if use == "numba" and kernel is None:
        raise RuntimeError("the numba kernel is not available")
    if kernel is None:
        return _solve_states_numpy(V, w, t, batch, out)
    V = V if type(V) is np.ndarray else np.asarray(V).view(np.ndarray)
    B = batch.base.shape[0]
    NR, _, R = w.row.shape
    scratch = (_scratch((len(w.slot_box), BLOCK)), _scratch((len(w.pair_slot) + 2, BLOCK)),
               _scratch((len(t.adds) + 1 + (NR - 1) * R, BLOCK)), _scratch((BLOCK,)), np.empty(BLOCK + 3 * B + 4, np.int64))
    return int(kernel(V, batch.base, batch.tfeat, batch.gkey, w.slot_box, w.padd, w.pconst, w.movt, w.tlim, w.tradix,
                      w.row, w.gain, w.bq_box, w.bq_roll, w.bq_off, w.bq_key, w.bsel, w.bgain, t.adds, t.removes, t.size_start,
                      t.p_all, t.faces, t.rerolls, t.stop, w.pair_slot, w.pair_gain, w.pair_box, w.pair_of, w.pool_at, w.pool, out,
                      *scratch))
