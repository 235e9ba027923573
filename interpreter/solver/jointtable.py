"""The exact chances to win kept for play: the joint solve (`winchance.py`) and a way to find a live game in it.

`joint_table(model, players)` explores and solves the whole game once per model, options and number of
players (kept in memory for the process) and keeps, beside every joint state's chances, an index of
the states: a live `GameState` is projected as the explorer projects its own positions (`control`,
and the counters with those nothing can read put back to their start, `Explorer.dead`), packed into
one integer and looked up in a sorted array (a few microseconds; 16 bytes a state).

`best_move(table, state)` is the move of the player to decide whose successor has the highest chance to
win for them: the edges of a decision in the graph are its legal moves in the engine's order, and the
first of the equally good is taken, exactly as the value iteration picks (so a seat that plays these
moves is the solver's own policy). Where the explorer cut a decision short (a move that ends the game
with the mover the sole winner), that move is found again by asking the explorer what each move does.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..engine.state import GameState
from ..model.frozen import Model
from .joint import DECISION, Explorer, Graph
from .winchance import win_chances


class StateIndex:
    """Joint states found by (position number, counters): the counters packed with the position into
    an int64 key (a mixed radix over the ranges the walk met), sorted once, found by bisection."""

    def __init__(self, order: list[tuple[int, tuple]]):
        live = [i for i, (cid, _) in enumerate(order) if cid >= 0]
        self.width = len(order[live[0]][1]) if live else 0
        cids = np.fromiter((order[i][0] for i in live), dtype=np.int64, count=len(live))
        X = np.array([order[i][1] for i in live], dtype=np.int64).reshape(len(live), self.width)
        self.lo = X.min(axis=0) if len(live) else np.zeros(self.width, dtype=np.int64)
        span = (X.max(axis=0) - self.lo + 1) if len(live) else np.ones(self.width, dtype=np.int64)
        self.mult = np.ones(self.width, dtype=np.int64)
        size = 1
        for k in range(self.width - 1, -1, -1):
            self.mult[k] = size
            size *= int(span[k])
        self.span, self.size = span, size
        if size * (int(cids.max()) + 1 if len(live) else 1) >= 2**62:  # too wide to pack: a dictionary
            self.keys = None
            self.where = {order[i]: i for i in live}
            return
        keys = cids * size + (X - self.lo) @ self.mult if self.width else cids
        rank = np.argsort(keys, kind="stable")
        self.keys, self.states = keys[rank], np.asarray(live, dtype=np.int64)[rank]

    def find(self, cid: int, x: tuple) -> int | None:
        """The state's number in the graph, or None if the walk never met it."""
        if self.keys is None:
            return self.where.get((cid, x))
        key = cid * self.size
        for k, v in enumerate(x):
            d = v - int(self.lo[k])
            if not 0 <= d < int(self.span[k]):
                return None
            key += d * int(self.mult[k])
        at = int(np.searchsorted(self.keys, key))
        return int(self.states[at]) if at < len(self.keys) and self.keys[at] == key else None

    @property
    def nbytes(self) -> int:
        return 0 if self.keys is None else self.keys.nbytes + self.states.nbytes


@dataclass
class JointTable:
    """A solved game for a number of players: its graph, every state's chances (states x players), the index."""

    model: Model
    players: int
    explorer: Explorer
    graph: Graph
    values: np.ndarray
    index: StateIndex
    chances: tuple[float, ...]  # from the start, every player playing to win
    seconds: float

    def locate(self, state: GameState) -> int | None:
        """The graph's number of a live position (None: over, or a position the walk never met)."""
        ex = self.explorer
        control = ex.control(state)
        if control is None:
            return None
        cid = ex._cids.get(control)
        if cid is None:
            return None
        x = list(ex.counters(state))
        for i in ex.dead[control[1]]:
            x[i] = ex.start_of[i]
        return self.index.find(cid, tuple(x))

    def move_chances(self, state: GameState) -> list[float] | None:
        """The chance to win for the player to decide after each of `state.legal_actions()` (None: the
        position is not in the graph); a move that wins at once has chance 1."""
        s = self.locate(state)
        g = self.graph
        if s is None or g.kind[s] != DECISION:
            return None
        who = g.actor[s]
        lo, hi = g.start[s], g.start[s + 1]
        actions = state.legal_actions()
        if hi - lo == len(actions):
            return [float(self.values[g.target[e], who]) for e in range(lo, hi)]
        return self._cut_short(s, actions, who)

    def _cut_short(self, s: int, actions, who: int) -> list[float] | None:
        """A decision the walk cut short at its first move that wins at once (see `Explorer.explore`):
        that move gets 1, the moves before it their own chance where the walk met their successor."""
        ex = self.explorer
        cid, x = self._key(s)
        out = []
        for move in actions:
            after, sets, adds = ex.step(cid, x, move)
            x2 = ex.apply(x, sets, adds)
            if ex.ended[after]:
                share = ex.final(after, x2)[who]
                out.append(share)
                if share == 1.0:
                    return out + [0.0] * (len(actions) - len(out))  # never past the first win at once
                continue
            j = self.index.find(after, x2)
            out.append(-1.0 if j is None else float(self.values[j, who]))
        return None

    def _key(self, s: int) -> tuple[int, tuple]:
        """State s's (position number, counters), recovered from the index."""
        ix = self.index
        if ix.keys is None:
            return next(k for k, v in ix.where.items() if v == s)
        at = int(np.flatnonzero(ix.states == s)[0])
        key = int(ix.keys[at])
        cid, rest = divmod(key, ix.size)
        x = []
        for k in range(ix.width):
            d, rest = divmod(rest, int(ix.mult[k]))
            x.append(d + int(ix.lo[k]))
        return cid, tuple(x)


def best_index(chances: list[float]) -> int:
    """The first move of the highest chance (the value iteration's own tie-break)."""
    best = 0
    for i in range(1, len(chances)):
        if chances[i] > chances[best]:
            best = i
    return best


_TABLES: dict[tuple, JointTable] = {}


def joint_table(model: Model, players: int, progress=None, max_states: int | None = None) -> JointTable:
    """The solved game for `players` players (once per process, model, options and players; NotSolvable
    if it has more joint states than the limit)."""
    from .cache import cache_key
    key = (cache_key(model), players, max_states)
    got = _TABLES.get(key)
    if got is None:
        began = time.perf_counter()
        kept: dict = {}

        def hook(explorer: Explorer, graph: Graph) -> None:
            kept["explorer"], kept["index"] = explorer, StateIndex(explorer.order)

        result = win_chances(model, players, max_states, progress, hook)
        got = _TABLES[key] = JointTable(model, players, kept["explorer"], result.graph, result.values, kept["index"],
                                        result.chances, time.perf_counter() - began)
    return got


def against(table: JointTable, others: dict[int, object]) -> np.ndarray:
    """Every state's chances (states x players) when the players in `others` play by their bot (its
    `choose(state)`) and the rest play to win: each such decision becomes a roll that takes the bot's
    move for sure, and the values are iterated again. For a test or a measurement: the bot is asked once
    in every decision of its player (a position rebuilt by the explorer). ValueError where the bot takes a
    move the walk did not follow (past a move that wins at once)."""
    from array import array
    from .joint import CHANCE
    from .winchance import iterate
    g, ex = table.graph, table.explorer
    kind, prob = array("b", g.kind), array("d", g.prob)
    for s in range(g.states):
        who = g.actor[s]
        if g.kind[s] != DECISION or who not in others:
            continue
        cid, x = table._key(s)
        probe = ex.restore(ex.controls[cid], x)
        ex._fix_where()
        probe._read, probe._ops = set(), {}
        state = probe.clone()
        actions = state.legal_actions()
        pick = actions.index(others[who].choose(state))
        lo, hi = g.start[s], g.start[s + 1]
        if hi - lo != len(actions):
            chances = table._cut_short(s, actions, who)
            if chances is None or chances[pick] != 1.0:
                raise ValueError(f"state {s}: the bot's move was not explored")
            pick = 0
        kind[s] = CHANCE
        for e in range(lo, hi):
            prob[e] = 1.0 if e - lo == pick else 0.0
    V, _, _ = iterate(Graph(kind, g.actor, g.start, g.target, prob, g.payoff, g.players, g.probes))
    return V
