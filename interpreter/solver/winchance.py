"""The exact chance to win with optimal play by every player, for a game whose whole state space is small.

The states come from `joint.Explorer` (every joint state reachable from the start for the players at
the table). Each player's chance to win is the fixed point of
    ended game: the player's share of the win (the players ranked first share it equally),
    a roll: the mean over its outcomes, weighted by their probabilities,
    a decision: the successor whose chance is highest for the player who decides,
found by value iteration (the graph has cycles: a bust returns to an earlier position). A sweep runs
over the states from the last found to the first (Gauss-Seidel: a state sees the values of this
sweep), and the sweeps stop when no value changed by more than `TOLERANCE`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..model.errors import Number
from ..model.frozen import Model
from .abstraction import NotSolvable
from .joint import Explorer, Graph, check_size

TOLERANCE = 1e-12  # the largest change of a sweep that ends the iteration
MAX_SWEEPS = 100_000


@dataclass
class WinChances:
    chances: tuple[float, ...]  # each player's chance to win from the start, with optimal play by all
    states: int
    edges: int
    sweeps: int
    change: float  # the largest change of the last sweep
    probes: int  # steps the engine ran (the rest were replayed from them)
    explore_seconds: float
    iterate_seconds: float
    values: np.ndarray  # (states, players): every state's chances
    graph: Graph


def _sweeps(kind, actor, start, target, prob, V, order, tol, most, out):
    """Gauss-Seidel sweeps in `order` until the largest change is below `tol` (at most `most`); the sweeps made."""
    n = V.shape[1]
    best = np.empty(n)
    for sweep in range(1, most + 1):
        change = 0.0
        for s in order:
            k = kind[s]
            if k == 0:
                continue
            if k == 1:
                for p in range(n):
                    best[p] = 0.0
                for e in range(start[s], start[s + 1]):
                    t = target[e]
                    for p in range(n):
                        best[p] += prob[e] * V[t, p]
            else:
                a = actor[s]
                pick = target[start[s]]
                for e in range(start[s] + 1, start[s + 1]):
                    if V[target[e], a] > V[pick, a]:
                        pick = target[e]
                for p in range(n):
                    best[p] = V[pick, p]
            for p in range(n):
                d = abs(best[p] - V[s, p])
                if d > change:
                    change = d
                V[s, p] = best[p]
        out[0] = change
        if change < tol:
            return sweep
    return most


def _signature(numba):
    i64, f64 = numba.int64, numba.float64
    a1 = i64[::1]
    return i64(a1, a1, a1, a1, f64[::1], f64[:, ::1], a1, f64, i64, f64[::1])


_COMPILED = None


def _kernel():
    global _COMPILED
    if _COMPILED is None:
        from .kernel import jit
        _COMPILED = jit(_sweeps, _signature)
    return _COMPILED or _sweeps


def iterate(g: Graph, tol: float = TOLERANCE, most: int = MAX_SWEEPS) -> tuple[np.ndarray, int, float]:
    """Every state's chances to win, (states, players); the sweeps made and the last sweep's largest change."""
    kind = np.asarray(g.kind, dtype=np.int64)
    V = np.zeros((g.states, g.players))
    for s, share in g.payoff.items():
        V[s] = share
    order = np.arange(g.states - 1, -1, -1, dtype=np.int64)  # the states found last are nearest the end
    out = np.zeros(1)
    sweeps = _kernel()(kind, np.asarray(g.actor, dtype=np.int64), np.asarray(g.start, dtype=np.int64),
                       np.asarray(g.target, dtype=np.int64), np.asarray(g.prob, dtype=np.float64), V, order,
                       float(tol), int(most), out)
    return V, int(sweeps), float(out[0])


def win_chances(model: Model, players: int = 2, max_states: int | None = None) -> WinChances:
    """Each player's exact chance to win with optimal play by all (NotSolvable if the game is too big)."""
    check_size(model, players, max_states)
    began = time.perf_counter()
    graph = Explorer(model, players).explore(max_states)
    explored = time.perf_counter()
    V, sweeps, change = iterate(graph)
    if change >= TOLERANCE:
        raise NotSolvable("the chances to win did not settle in {sweeps} sweeps (the last changed a value by {change})",
                          model.flow.pos, sweeps=Number(sweeps), change=f"{change:.3g}")
    return WinChances(tuple(float(v) for v in V[0]), graph.states, graph.edges, sweeps, change, graph.probes,
                      explored - began, time.perf_counter() - explored, V, graph)
