"""The exact chance to win with optimal play by every player, for a game whose whole state space is small.

The states come from `joint.Explorer` (every joint state reachable from the start for the players at
the table). Each player's chance to win is the fixed point of
    ended game: the player's share of the win (the players ranked first share it equally),
    a roll: the mean over its outcomes, weighted by their probabilities,
    a decision: the successor whose chance is highest for the player who decides,
found by value iteration (the graph has cycles: a bust returns to an earlier position). The graph is
cut into its strongly connected parts (Tarjan), solved one after the other, every part after the parts
it leads to; in a part, sweeps over its states (Gauss-Seidel: a state sees the values of this sweep)
stop when no value changed by more than `TOLERANCE`. Pig's parts are a pair of scores with every turn
total of either player, so a sweep is a few hundred states, not the whole game.
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
    sweeps: int  # the most sweeps one part needed
    parts: int  # the strongly connected parts, solved one after the other (successors first)
    change: float  # the largest change of the last sweep
    probes: int  # steps the engine ran (the rest were replayed from them)
    explore_seconds: float
    iterate_seconds: float
    values: np.ndarray  # (states, players): every state's chances
    graph: Graph


def _parts(start, target, n, order, bounds):
    """Tarjan's strongly connected components, without recursion: `order` holds the states part by part,
    each part after every part it leads to (`bounds[c]` .. `bounds[c + 1]`); the number of parts."""
    index = np.full(n, -1, dtype=np.int64)
    low = np.zeros(n, dtype=np.int64)
    on = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    calls = np.empty(n, dtype=np.int64)
    edge = np.empty(n, dtype=np.int64)
    sp = csp = counter = placed = parts = 0
    for root in range(n):
        if index[root] != -1:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack[sp] = root
        sp += 1
        on[root] = True
        calls[0], edge[0], csp = root, start[root], 1
        while csp > 0:
            v, e = calls[csp - 1], edge[csp - 1]
            if e < start[v + 1]:
                edge[csp - 1] = e + 1
                w = target[e]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack[sp] = w
                    sp += 1
                    on[w] = True
                    calls[csp], edge[csp] = w, start[w]
                    csp += 1
                elif on[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            if low[v] == index[v]:
                bounds[parts] = placed
                parts += 1
                while True:
                    sp -= 1
                    w = stack[sp]
                    on[w] = False
                    order[placed] = w
                    placed += 1
                    if w == v:
                        break
            csp -= 1
            if csp > 0 and low[v] < low[calls[csp - 1]]:
                low[calls[csp - 1]] = low[v]
    bounds[parts] = placed
    return parts


def _sweeps(kind, actor, start, target, prob, V, tol, most, out):
    """Value iteration part by part (`_parts`: a part's successors outside it are final when it is done),
    Gauss-Seidel sweeps in each until its largest change is below `tol` (at most `most`). Returns the most
    sweeps any part needed; `out` gets the largest last change and the number of parts."""
    n, m = V.shape
    order = np.empty(n, dtype=np.int64)
    bounds = np.empty(n + 1, dtype=np.int64)
    parts = _parts(start, target, n, order, bounds)
    best = np.empty(m)
    worst = 0.0
    longest = 0
    for c in range(parts):
        lo, hi = bounds[c], bounds[c + 1]
        for sweep in range(1, most + 1):
            change = 0.0
            for at in range(lo, hi):
                s = order[at]
                k = kind[s]
                if k == 0:
                    continue
                if k == 1:
                    for p in range(m):
                        best[p] = 0.0
                    for e in range(start[s], start[s + 1]):
                        t = target[e]
                        for p in range(m):
                            best[p] += prob[e] * V[t, p]
                else:
                    a = actor[s]
                    pick = target[start[s]]
                    for e in range(start[s] + 1, start[s + 1]):
                        if V[target[e], a] > V[pick, a]:
                            pick = target[e]
                    for p in range(m):
                        best[p] = V[pick, p]
                for p in range(m):
                    d = abs(best[p] - V[s, p])
                    if d > change:
                        change = d
                    V[s, p] = best[p]
            if change < tol:
                break
            if hi - lo == 1 and not _loops(start, target, order[lo]):  # one state: its value is final at once
                change = 0.0
                break
        if sweep > longest:
            longest = sweep
        if change > worst:
            worst = change
    out[0] = worst
    out[1] = parts
    return longest


def _loops(start, target, s):
    for e in range(start[s], start[s + 1]):
        if target[e] == s:
            return True
    return False


def _signature(numba):
    i64, f64 = numba.int64, numba.float64
    a1 = i64[::1]
    return i64(a1, a1, a1, a1, f64[::1], f64[:, ::1], f64, i64, f64[::1])


def _parts_signature(numba):
    i64 = numba.int64
    return i64(i64[::1], i64[::1], i64, i64[::1], i64[::1])


def _loops_signature(numba):
    i64 = numba.int64
    return numba.boolean(i64[::1], i64[::1], i64)


_COMPILED = None


def _kernel():
    global _COMPILED
    if _COMPILED is None:
        from .kernel import jit
        inner = [jit(f, sig) for f, sig in ((_parts, _parts_signature), (_loops, _loops_signature))]
        if all(inner):
            globals().update(_parts=inner[0], _loops=inner[1])  # the compiled sweeps call the compiled helpers
            _COMPILED = jit(_sweeps, _signature)
        else:
            _COMPILED = False
    return _COMPILED or _sweeps


def iterate(g: Graph, tol: float = TOLERANCE, most: int = MAX_SWEEPS) -> tuple[np.ndarray, int, float]:
    """Every state's chances to win, (states, players); the sweeps made and the last sweep's largest change."""
    kind = np.asarray(g.kind, dtype=np.int64)
    if g.states == 0:
        return np.zeros((0, g.players)), 0, 0.0
    V = np.zeros((g.states, g.players))
    for s, share in g.payoff.items():
        V[s] = share
    out = np.zeros(2)
    sweeps = _kernel()(kind, np.asarray(g.actor, dtype=np.int64), np.asarray(g.start, dtype=np.int64),
                       np.asarray(g.target, dtype=np.int64), np.asarray(g.prob, dtype=np.float64), V,
                       float(tol), int(most), out)
    g.parts = int(out[1])
    return V, int(sweeps), float(out[0])


def win_chances(model: Model, players: int = 2, max_states: int | None = None, progress=None,
                explored_hook=None) -> WinChances:
    """Each player's exact chance to win with optimal play by all (NotSolvable if the game is too big).

    `progress(done, None)`: the states explored so far, now and then. `explored_hook(explorer, graph)`
    is called after the walk, before the values are iterated (the states are then in `explorer.order`)."""
    check_size(model, players, max_states)
    began = time.perf_counter()
    explorer = Explorer(model, players)
    graph = explorer.explore(max_states, progress, keep=explored_hook is not None)
    if explored_hook is not None:
        explored_hook(explorer, graph)
        explorer.order = None
    del explorer
    explored = time.perf_counter()
    V, sweeps, change = iterate(graph)
    if change >= TOLERANCE:
        raise NotSolvable("the chances to win did not settle in {sweeps} sweeps (the last changed a value by {change})",
                          model.flow.pos, sweeps=Number(sweeps), change=f"{change:.3g}")
    return WinChances(tuple(float(v) for v in V[0]), graph.states, graph.edges, sweeps, graph.parts, change, graph.probes,
                      explored - began, time.perf_counter() - explored, V, graph)
