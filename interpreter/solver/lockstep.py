"""The keeps and rerolls of one turn for many games at once, compiled with numba (bulk.py's inner loop).

For every game: its plan slot, its first roll and one uniform number per reroll layer (drawn in bulk
by the caller, in the order bulk.py always drew them, so the games are the same as numpy's). Per
layer the keep is read as a byte, its place among the roll's candidate keeps (a policy table,
policy.py, or the plans' `kbyte`: the best candidate, the first on a tie: the larger keep, as
`PlannerBot.choose`, found once per planned state by `best_keeps`), a game that kept every die where stopping is allowed keeps them to
the end, and the next roll is looked up in the keep's cumulative distribution (`bulk.Dice`: a start
from a grid, then a step or two). Out: the final roll, the box the plan writes it into, and the
rolls thrown. Without numba (or RULEBOOK_KERNEL=numpy) `compiled()` is None and bulk.py uses numpy.
"""
from __future__ import annotations

import os

import numpy as np


def _turn(slot, roll, U, keep, cand, every, can_stop, start, scum, out, grid, rolls):  # pragma: no cover (compiled)
    G = slot.shape[0]
    L = U.shape[0]
    for g in range(G):
        s = slot[g]
        r = roll[g]
        stopped = False
        for j in range(L, 0, -1):
            if stopped:
                k = every[r]
            else:
                k = cand[r, keep[s, j - 1, r]]
                if can_stop and k == every[r]:
                    stopped = True
            if not stopped:
                rolls[g] += 1
            u = U[L - j, g]
            cell = int(u * grid)
            if cell > grid - 1:
                cell = grid - 1
            at = start[k, cell]
            while scum[k, at] <= u:
                at += 1
            r = out[k, at]
        roll[g] = r
    return 0


def _best_keeps(keepv, cand, keep):  # pragma: no cover (compiled)
    S, L = keep.shape[0], keep.shape[1]
    R, W = cand.shape
    for s in range(S):
        for j in range(L):
            for r in range(R):
                best = -np.inf
                at = 0
                for c in range(W):
                    v = keepv[s, j, cand[r, c]]
                    if v > best:
                        best = v
                        at = c
                keep[s, j, r] = at
    return 0


_COMPILED = None
_BEST = None


def best_keeps(keepv: np.ndarray, cand: np.ndarray, keep: np.ndarray) -> None:
    """keep[s, j, r]: the position of the best of roll r's candidate keeps (the first on a tie)."""
    global _BEST
    if _BEST is None:
        from .kernel import jit
        _BEST = jit(_best_keeps, lambda nb: [nb.int64(nb.float64[:, :, ::1], nb.int64[:, ::1], nb.uint8[:, :, ::1])])
    _BEST(keepv, cand, keep)


def _signatures(numba):
    i64, f64, b1, i16, u8 = numba.int64, numba.float64, numba.boolean, numba.int16, numba.uint8
    a1, a2 = i64[::1], i64[:, ::1]
    keep = numba.types.Array(u8, 3, "C", readonly=True)  # a policy table read from a memory map
    return [i64(a1, a1, f64[:, ::1], kp, a2, a1, b1, st[:, ::1], f64[:, ::1], a2, i64, a1)
            for st in (i16, i64) for kp in (u8[:, :, ::1], keep)]


def compiled():
    """The compiled turn (numba, cached beside the solver's kernel), reading keeps as bytes (a policy
    table, policy.py, or the bytes of the states planned so far, plans.Plans.kbyte); or None: then
    bulk.py uses numpy."""
    global _COMPILED
    if os.environ.get("RULEBOOK_KERNEL", "").lower() == "numpy":
        return None
    if _COMPILED is None:
        from .kernel import jit
        _COMPILED = jit(_turn, _signatures)
    return _COMPILED or None


def turn(plans, dice, slot: np.ndarray, roll: np.ndarray, U: np.ndarray, can_stop: bool,
         rolls: np.ndarray) -> np.ndarray:
    """The final roll of each game's turn (`roll` is overwritten with it; `rolls` counts the rolls thrown)."""
    space = plans.space
    keep = plans.keep if plans.keep is not None else plans.kbyte
    compiled()(slot, roll, U, keep, plans.candidates, space.tt.roll_as_keep, bool(can_stop),
               dice.start, dice.scum, dice.out, dice.GRID, rolls)
    return roll
