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
from .winsweeps import compiled

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


def iterate(g: Graph, tol: float = TOLERANCE, most: int = MAX_SWEEPS) -> tuple[np.ndarray, int, float]:
    """Every state's chances to win, (states, players); the sweeps made and the last sweep's largest change."""
    kind = np.asarray(g.kind, dtype=np.int64)
    if g.states == 0:
        return np.zeros((0, g.players)), 0, 0.0
    V = np.zeros((g.states, g.players))
    for s, share in g.payoff.items():
        V[s] = share
    out = np.zeros(2)
    sweeps = compiled()(kind, np.asarray(g.actor, dtype=np.int64), np.asarray(g.start, dtype=np.int64),
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
