"""The keeps and rerolls of one turn for many games at once, compiled with numba (bulk.py's inner loop).

For every game: its plan slot, its first roll and one uniform number per reroll layer (drawn in bulk
by the caller, in the order bulk.py always drew them, so the games are the same as numpy's). Per
layer the keep is read as a byte, its place among the roll's candidate keeps (a policy table,
policy.py, or the plans' `kbyte`: the best candidate, the first on a tie: the larger keep, as
`PlannerBot.choose`, found once per planned state by `best_keeps`), a game that kept every die where stopping is allowed keeps them to
the end, and the next roll is looked up in the keep's cumulative distribution (`play/dice.Dice`: a start
from a grid, then a step or two). Out: the final roll, the box the plan writes it into, and the
rolls thrown. Then the write (`write`): each game's points, write bonuses and next state, where its
points do not read the sheet (the others are left to plans.py's numpy). Without numba (or
RULEBOOK_KERNEL=numpy) `compiled()` is None and bulk.py uses numpy.
"""
from __future__ import annotations

import os

import numpy as np

from .shipped import spec


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


def _best_keeps_down(keepv, removes, full0, place, keep):  # pragma: no cover (compiled)
    """`_best_keeps` by recursion over the keeps: the best of a keep and all its sub-keeps is the best of
    the keep and of the best of each keep with one die fewer (the largest value, the largest index on a
    tie: a keep comes after its sub-keeps, and the candidates run from the largest index down, so it is
    the first best candidate); a roll's byte is that keep's place among its candidates."""
    S, L, R = keep.shape[0], keep.shape[1], keep.shape[2]
    K, C = removes.shape
    bestv = np.empty(K)
    besti = np.empty(K, dtype=np.int64)
    for s in range(S):
        for j in range(L):
            for k in range(K):
                bv = keepv[s, j, k]
                bi = k
                for c in range(C):
                    m = removes[k, c]
                    if m == K:
                        break
                    v = bestv[m]
                    i = besti[m]
                    take = (v > bv) | ((v == bv) & (i > bi))  # (no branch: the compiler selects)
                    bv = v if take else bv
                    bi = i if take else bi
                bestv[k] = bv
                besti[k] = bi
            for r in range(R):
                keep[s, j, r] = place[r, besti[full0 + r]]
    return 0


def _write(states, boxes, rolls, plain_points, plain_bonus, branching, bits, moves, total, atleast, limits, radix, sizes, F,
           points, bonus, nxt, odd):  # pragma: no cover (compiled)
    """`plans.Plans.write` game by game for the writes whose points do not read the sheet: their points,
    write bonuses and next state; the others' places in `odd` (their count returned), left to the caller."""
    G = states.shape[0]
    NB = plain_bonus.shape[0]
    NF = total.shape[0]
    n = 0
    for g in range(G):
        b = boxes[g]
        r = rolls[g]
        p = plain_points[b, r]
        points[g] = p
        for k in range(NB):
            bonus[k, g] = plain_bonus[k, b, r]
        if branching[b, r]:
            odd[n] = g
            n += 1
            continue
        s = states[g]
        mask = s // F
        rest = s - mask * F
        idx = (mask | bits[b]) * F
        for i in range(NF):
            v = (rest // radix[i]) % sizes[i]
            if moves[b, i]:
                if total[i]:
                    v = min(limits[i], v + max(p, 0))
                elif atleast[i]:
                    v = 1 if p >= limits[i] else 0
                else:
                    v = 1 if p == limits[i] else 0
            idx += v * radix[i]
        nxt[g] = idx
    return n


_COMPILED = None
_WRITE = None
_BEST: dict = {}


def best_keeps(keepv: np.ndarray, cand: np.ndarray, keep: np.ndarray, turn=None) -> None:
    """keep[s, j, r]: the position of the best of roll r's candidate keeps (the first on a tie).

    turn: the space's `kernel.TurnArrays` (its one-die-fewer keeps); then found by recursion over the
    keeps (about three times fewer comparisons, the same bytes where a roll has a keep of finite value)."""
    from .numbajit import compiled as compile_
    if turn is None:
        if "scan" not in _BEST:
            _BEST["scan"] = compile_(_best_keeps, SHIPPED["_best_keeps"])
        _BEST["scan"](keepv, cand, keep)
        return
    if "down" not in _BEST:
        _BEST["down"] = compile_(_best_keeps_down, SHIPPED["_best_keeps_down"])
    K = len(turn.adds)
    place = np.zeros((cand.shape[0], K + 1), dtype=np.int64)  # (roll, keep) -> its place among the roll's candidates
    for c in range(cand.shape[1] - 1, -1, -1):
        place[np.arange(cand.shape[0]), cand[:, c]] = c
    n = len(turn.size_start) - 2
    _BEST["down"](keepv, np.ascontiguousarray(turn.removes), int(turn.size_start[n]), place, keep)


# the loops' types (shipped.spec): numba's signatures at use and the install's build (shipped.py) come from these
_TURN_REST = "i8.2 i8.1 b1 {st}.2 f8.2 i8.2 i8 i8.1"
SHIPPED = {
    "_turn": [spec("i8", f"i8.1 i8.1 f8.2 {kp} " + _TURN_REST.format(st=st)) for st in ("i2", "i8") for kp in ("u1.3", "u1.3r")],
    "_write": [spec("i8", "i8.1 i8.1 i8.1 i8.2 i8.3 b1.2 i8.1 b1.2 b1.1 b1.1 i8.1 i8.1 i8.1 i8 i8.1 i8.2 i8.1 i8.1")],
    "_best_keeps": [spec("i8", "f8.3 i8.2 u1.3")],
    "_best_keeps_down": [spec("i8", "f8.3 i8.2 i8 i8.2 u1.3")],
}


def compiled():
    """The compiled turn (numba, cached beside the solver's kernel), reading keeps as bytes (a policy
    table, policy.py, or the bytes of the states planned so far, plans.Plans.kbyte); or None: then
    bulk.py uses numpy."""
    global _COMPILED
    if os.environ.get("RULEBOOK_KERNEL", "").lower() == "numpy":
        return None
    if _COMPILED is None:
        from .numbajit import compiled as compile_
        _COMPILED = compile_(_turn, SHIPPED["_turn"])
    return _COMPILED or None


def turn(plans, dice, slot: np.ndarray, roll: np.ndarray, U: np.ndarray, can_stop: bool,
         rolls: np.ndarray) -> np.ndarray:
    """The final roll of each game's turn (`roll` is overwritten with it; `rolls` counts the rolls thrown)."""
    space = plans.space
    keep = plans.keep if plans.keep is not None else plans.kbyte
    compiled()(slot, roll, U, keep, plans.candidates, space.tt.roll_as_keep, bool(can_stop),
               dice.start, dice.scum, dice.out, dice.GRID, rolls)
    return roll


def compiled_write():
    """The compiled write (`write`), loaded or compiled once; None where the compiled turn is not there."""
    global _WRITE
    if compiled() is None:
        return None
    if _WRITE is None:
        from .numbajit import compiled as compile_
        _WRITE = compile_(_write, SHIPPED["_write"])
    return _WRITE or None


def write(plans, states: np.ndarray, boxes: np.ndarray, rolls: np.ndarray):
    """(points, write bonuses (nb, G), next states, the games whose points read the sheet) of writing each
    game's roll into its box, compiled (the same numbers as `Plans.write`'s numpy; the games in the last
    array are left to it: their points, bonuses and next states are not filled); None without numba."""
    kernel = compiled_write()
    if kernel is None:
        return None
    G = len(states)
    points, nxt, odd = np.empty(G, dtype=np.int64), np.empty(G, dtype=np.int64), np.empty(G, dtype=np.int64)
    bonus = np.empty((plans.nb, G), dtype=np.int64)
    n = kernel(np.ascontiguousarray(states, dtype=np.int64), np.ascontiguousarray(boxes, dtype=np.int64),
               np.ascontiguousarray(rolls, dtype=np.int64), plans.plain_points, plans.plain_bonus, plans.branching,
               plans.bits, plans.moves, plans.feat_total, plans.feat_atleast, plans.feat_limit, plans.feat_radix, plans.feat_size,
               int(plans.space.F), points, bonus, nxt, odd)
    return points, bonus, nxt, odd[:n]
