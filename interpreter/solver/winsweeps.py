"""The loops of `winchance.iterate`, compiled with numba (numpy alone for the build: no import of the
interpreter): Tarjan's strongly connected parts of the game graph, then Gauss-Seidel sweeps part by part.
`compiled()` gives the copy compiled at install (`shipped.py`), else numba's, else the plain function."""
from __future__ import annotations

import numpy as np

from .shipped import spec


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


# the compiled loops' types (numba's signatures at use, the install's build: shipped.py)
SHIPPED = {"_sweeps": [spec("i8", "i8.1 i8.1 i8.1 i8.1 f8.1 f8.2 f8 i8 f8.1")],
           "_parts": [spec("i8", "i8.1 i8.1 i8 i8.1 i8.1")],
           "_loops": [spec("b1", "i8.1 i8.1 i8")]}

_COMPILED = None


def compiled():
    """`_sweeps` compiled: at install (`shipped.py`), else by numba at use; the plain function without numba."""
    global _COMPILED
    if _COMPILED is None:
        from .numbajit import at_use
        from .shipped import load
        _COMPILED = load(_sweeps, SHIPPED["_sweeps"])
        if _COMPILED is None:
            inner = [at_use(f, SHIPPED[f.__name__]) for f in (_parts, _loops)]
            if all(inner):
                globals().update(_parts=inner[0], _loops=inner[1])  # the compiled sweeps call the compiled helpers
                _COMPILED = at_use(_sweeps, SHIPPED["_sweeps"])
            else:
                _COMPILED = False
    return _COMPILED or _sweeps
