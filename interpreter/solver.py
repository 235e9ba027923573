"""Optimal solitaire play by backward induction over turn-start states, derived from the model.

A turn-start state is which boxes are filled plus the features of `abstraction.features` (capped
section totals, yes/no box values). For every state, from the fullest sheet back to the empty one,
the expected final score is the expected best write after optimal keeps (`turn.TurnTables`).
Everything is vectorized with numpy over batches of states.
"""
from __future__ import annotations

import hashlib
import math
import json
import time
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Callable

import numpy as np

from .abstraction import (SENTINEL, Explorer, Feature, NotSolvable, Tree, features, scoring_expressions,
                          turn_can_stop, turn_shape)
from .dsl.compiler import Context
from . import tablefile
from .errors import RulebookError
from .limits import hint_for, limits
from .model import Model
from .players import PlannerBot
from .state import GameState
from .turn import turn_tables

VERSION = 2  # part of the cache key: bump when the meaning of a table's entries changes
CHUNK = 12_000  # states per batch when computing write values
TURN_CHUNK = 256  # states per batch in the within-turn dynamic programming


@dataclass
class Table:
    """The solved game: the expected final score from every turn-start state."""

    values: np.ndarray  # indexed by mask * F + feature index; NaN where unreachable
    features: list[Feature]
    states: int
    seconds: float

    @property
    def expected_score(self) -> float:
        return float(self.values[0])


def check_size(model: Model, boxes: int, sizes: list[int], rerolls: int) -> None:
    """Refuse a model whose solve would not fit the budget: its turn-start states (every subset of
    boxes times every value of the tracked sheet quantities) and the work per state (every roll into
    every box, every keep for every face), both counted exactly before anything is built."""
    budget = limits()
    states = (1 << min(boxes, 4096)) * math.prod(sizes)
    if states > budget.solver_states:
        raise NotSolvable("the solver would need up to {states} states ({boxes} boxes, {values} values of the tracked "
                          "sheet quantities); the limit is {limit} states", model.flow.pos, hint_for("solver_states"),
                          states=_short(states), boxes=boxes, values=_short(math.prod(sizes)), limit=budget.solver_states)
    rolls = math.comb(model.n_dice + model.faces - 1, model.n_dice)
    keeps = math.comb(model.n_dice + model.faces, model.n_dice)
    per_state = rolls * boxes + keeps * model.faces * max(rerolls, 1)
    if states * per_state > budget.solver_work:
        raise NotSolvable("the solver would do {work} steps of work ({states} states, {per_state} each); the limit is "
                          "{limit}", model.flow.pos, hint_for("solver_work"), work=_short(states * per_state),
                          states=states, per_state=per_state, limit=budget.solver_work)


def _short(n: int) -> str:
    """A count for a message: 1,234,567 or, past 15 digits, about 10^N."""
    return f"{n:,}" if n < 10**15 else f"about 10^{len(str(n)) - 1}"


class Space:
    """States, their encoding, and per-box scoring as decision trees over atoms."""

    def __init__(self, model: Model):
        self.model = model
        self.rerolls = turn_shape(model)
        self.feats = features(model)
        self.boxes = list(model.boxes)
        self.bit = {b: 1 << i for i, b in enumerate(self.boxes)}
        self.n = len(self.boxes)
        self.sizes = [f.size for f in self.feats]
        check_size(model, self.n, self.sizes, self.rerolls)  # before any table is built
        self.F = math.prod(self.sizes)
        self.radix = [math.prod(self.sizes[i + 1:]) for i in range(len(self.sizes))]
        self.tt = turn_tables(model.n_dice, model.faces)
        self.explorer = Explorer(model, self.feats)
        self.section_bits = {s.id: sum(self.bit[b] for b in s.boxes) for s in model.sections}
        write = next(s for s in model.flow.walk() if s.kind == "write")
        self.allowed = write.allowed
        self.last_roll = self.rerolls + 1
        self.can_stop = turn_can_stop(model)
        self.roll_dependent = any("turn" in c.deps for _, c in scoring_expressions(model))
        self.roll_numbers = list(range(1, self.last_roll + 1)) if self.roll_dependent else [self.last_roll]
        self.write_bonuses = [b for b in model.bonuses if b.when == "write"]
        self.end_bonuses = [b for b in model.bonuses if b.when == "end"]
        self._trees()
        # per box: the features that writing it changes (position, feature), and those it leaves alone
        self.moving = {b: [(i, ft) for i, ft in enumerate(self.feats) if self._moves(b, ft)] for b in self.boxes}
        self.staying = {b: [i for i, ft in enumerate(self.feats) if not self._moves(b, ft)] for b in self.boxes}
        self._domains: dict[int, list[list[int]]] = {}
        self._feature_bits = 0
        for f in self.feats:
            self._feature_bits |= self.section_bits[f.name] if f.kind == "total" else self.bit[f.name]

    # decision trees per box and roll --------------------------------------------
    def _trees(self) -> None:
        """Per roll number (only the last one unless scoring reads it): trees per box and roll."""
        self.trees: dict[int, tuple[dict, dict, dict, dict]] = {}
        for rn in self.roll_numbers:
            points: dict[str, list[Tree]] = {}
            legal: dict[str, list[Tree]] = {}
            bonus: dict[str, list[list[Tree]]] = {}
            for b in self.boxes:
                score = self.model.boxes[b].score
                pts, leg, bon = [], [], []
                for r, dice in enumerate(self.tt.rolls):
                    ctx = Context(dice, r, tuple(dice.count(f) for f in range(1, self.model.faces + 1)), None, b, rn)
                    given = {("filled", b): False}
                    pts.append(self.explorer.explore(score, ctx, given))
                    leg.append(self.explorer.explore(self.allowed, ctx, given) if self.allowed else Tree(True))
                    bon.append([self.explorer.explore(x.points, ctx, given) for x in self.write_bonuses])
                points[b], legal[b], bonus[b] = pts, leg, bon
            plain = {b: _PlainRows(points[b], legal[b], bonus[b]) for b in self.boxes}
            self.trees[rn] = (points, legal, bonus, plain)
        self.possible_points = {b: sorted({v for t in self.trees[rn][0][b] for rn in self.roll_numbers for v in t.values()})
                                for b in self.boxes}

    def _moves(self, box: str, ft: Feature) -> bool:
        """Whether writing `box` can change the feature."""
        if ft.kind == "total":
            return bool(self.bit[box] & self.section_bits[ft.name])
        return ft.name == box

    def _at(self, roll_number: int | None):
        """The trees for writing after the given roll of a turn (default: the last roll)."""
        return self.trees[roll_number if self.roll_dependent and roll_number is not None else self.last_roll]

    # reachable states -------------------------------------------------------------
    def feature_domains(self, mask: int) -> list[list[int]]:
        """The values each feature can have on a sheet with these boxes filled."""
        key = mask & self._feature_bits
        if key not in self._domains:
            self._domains[key] = self._feature_domains(key)
        return self._domains[key]

    def _feature_domains(self, mask: int) -> list[list[int]]:
        out = []
        for f in self.feats:
            if f.kind == "total":
                sums = {0}
                for b in self.model.sections[[s.id for s in self.model.sections].index(f.name)].boxes:
                    if mask & self.bit[b]:
                        sums = {min(f.limit, s + v) for s in sums for v in self.possible_points[b] if v >= 0}
                out.append(sorted(sums))
            else:
                filled = mask & self.bit[f.name]
                out.append([0, 1] if filled and f.limit in self.possible_points[f.name] else [0])
        return out

    def level(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(masks, feature values) of every reachable state with k filled boxes."""
        masks, feats = [], []
        for mask in range(1 << self.n):
            if bin(mask).count("1") != k:
                continue
            for combo in product(*self.feature_domains(mask)):
                masks.append(mask)
                feats.append(combo)
        return np.array(masks, dtype=np.int64), np.array(feats, dtype=np.int64).reshape(len(masks), len(self.feats))

    def index(self, masks: np.ndarray, feats: np.ndarray) -> np.ndarray:
        idx = masks * self.F
        for i, r in enumerate(self.radix):
            idx = idx + feats[:, i] * r
        return idx

    # atoms of a batch of states ---------------------------------------------------
    def atoms(self, masks: np.ndarray, feats: np.ndarray) -> Callable[[tuple], np.ndarray]:
        cache: dict[tuple, np.ndarray] = {}

        def get(atom: tuple) -> np.ndarray:
            if atom in cache:
                return cache[atom]
            kind, name = atom
            if kind == "filled":
                a = (masks & self.bit[name]) != 0
            elif kind == "open":
                a = np.zeros(len(masks), dtype=np.int64)
                for b in self.model.sections[[s.id for s in self.model.sections].index(name)].boxes:
                    a += (masks & self.bit[b]) == 0
            elif kind == "total":
                i = next(i for i, f in enumerate(self.feats) if f.kind == "total" and f.name == name)
                a = feats[:, i]
            else:  # value: 0 while open, the matching constant, or a sentinel
                filled = (masks & self.bit[name]) != 0
                a = np.full(len(masks), SENTINEL, dtype=np.int64)
                for i, f in enumerate(self.feats):
                    if f.kind == "equals" and f.name == name:
                        a = np.where(feats[:, i] == 1, f.limit, a)
                a = np.where(filled, a, 0)
            cache[atom] = a
            return a
        return get

    @staticmethod
    def evaluate(tree: Tree, atoms, size: int):
        if tree.leaf:
            return tree.value
        a = atoms(tree.atom)
        out = None
        for v, sub in tree.branches.items():
            val = Space.evaluate(sub, atoms, size)
            out = np.where(a == v, val, 0 if out is None else out)
        return out

    def rows(self, trees: list[Tree], atoms, size: int, dtype) -> np.ndarray:
        """(R, S) values of per-roll trees for a batch (broadcastable (R, 1) when no tree branches)."""
        base = np.array([t.value if t.leaf else 0 for t in trees], dtype=dtype)[:, None]
        branching = [r for r, t in enumerate(trees) if not t.leaf]
        if not branching:
            return base
        out = np.repeat(base, size, axis=1)
        for r in branching:
            out[r] = Space.evaluate(trees[r], atoms, size)
        return out

    # one batch of states ------------------------------------------------------------
    def box_values(self, masks: np.ndarray, feats: np.ndarray, V: np.ndarray, box: str, roll_number: int | None = None):
        """(R, S) value of writing each roll into `box`, for every state of the batch.

        The value is points + write bonus + the table's value of the sheet that results; -inf where
        the write rule does not allow the box. Columns of states where the box is already filled
        are meaningless (the caller masks them). Rolls whose trees do not branch share one row per
        distinct number of points; the few rolls that branch on the sheet are done row by row.
        """
        m, f = masks, feats
        atoms = self.atoms(m, f)
        all_points, all_legal, all_bonus, all_plain = self._at(roll_number)
        points, legal = all_points[box], all_legal[box]
        bonus = all_bonus[box]  # per roll: one tree per write bonus
        base_next = (m | self.bit[box]) * self.F
        moving = self.moving[box]
        for i in self.staying[box]:
            base_next = base_next + f[:, i] * self.radix[i]

        def future(p):
            """V of the next sheet for `p` points (a number, or an array over the states)."""
            idx = base_next
            for i, ft in moving:
                if ft.kind == "total":
                    idx = idx + np.minimum(ft.limit, f[:, i] + np.maximum(p, 0)) * self.radix[i]
                else:
                    idx = idx + (np.asarray(p) == ft.limit).astype(np.int64) * self.radix[i]
            return V[idx]

        plain = all_plain[box]
        value = np.empty((len(points), len(m)))
        rows = np.stack([future(p) for p in plain.distinct]) if moving else V[base_next][None, :]
        if len(m) > 64:  # large batches: one row at a time, no temporaries
            for r, w, g in zip(plain.rows.tolist(), (plain.which if moving else np.zeros_like(plain.which)).tolist(),
                               plain.gain.tolist()):
                np.add(rows[w], g, out=value[r])
        else:  # a few states (a bot's decision): all rows at once
            value[plain.rows] = rows[plain.which if moving else 0] + plain.gain[:, None]
        value[plain.refused] = -np.inf
        for r in plain.branching:
            p = np.broadcast_to(Space.evaluate(points[r], atoms, len(m)), (len(m),))
            gain = p + sum(np.asarray(Space.evaluate(t, atoms, len(m))) for t in bonus[r])
            allowed = Space.evaluate(legal[r], atoms, len(m))
            value[r] = np.where(allowed, gain + future(p), -np.inf)
        return value

    def scalar_atoms(self, mask: int, fvals: list[int]):
        """`atoms` for one state, in plain numbers (memoized per call site)."""
        memo: dict = {}

        def atom(a: tuple):
            if a in memo:
                return memo[a]
            kind, name = a
            if kind == "filled":
                v = bool(mask & self.bit[name])
            elif kind == "open":
                v = bin(~mask & self.section_bits[name]).count("1")
            elif kind == "total":
                v = next(fvals[i] for i, f in enumerate(self.feats) if f.kind == "total" and f.name == name)
            elif not mask & self.bit[name]:
                v = 0
            else:
                v = next((f.limit for i, f in enumerate(self.feats)
                          if f.kind == "equals" and f.name == name and fvals[i]), SENTINEL)
            memo[a] = v
            return v
        return atom

    def box_row(self, mask: int, fvals: list[int], V: np.ndarray, box: str, roll_number: int | None = None) -> np.ndarray:
        """(R,) value of writing each roll into `box` for one state: `box_values` in plain numbers."""
        base = (mask | self.bit[box]) * self.F + sum(fvals[i] * self.radix[i] for i in self.staying[box])
        moving = self.moving[box]

        def index(p: int) -> int:
            idx = base
            for i, ft in moving:
                if ft.kind == "total":
                    idx += min(ft.limit, fvals[i] + max(p, 0)) * self.radix[i]
                else:
                    idx += (p == ft.limit) * self.radix[i]
            return idx

        all_points, all_legal, all_bonus, all_plain = self._at(roll_number)
        plain = all_plain[box]
        value = np.empty(len(self.tt.rolls))
        futures = V[[index(p) for p in plain.distinct]]
        value[plain.rows] = futures[plain.which] + plain.gain
        value[plain.refused] = -np.inf
        if plain.branching:
            atom = self.scalar_atoms(mask, fvals)
            points, legal, bonus = all_points[box], all_legal[box], all_bonus[box]
            for r in plain.branching:
                if _walk(legal[r], atom):
                    p = _walk(points[r], atom)
                    value[r] = p + sum(_walk(t, atom) for t in bonus[r]) + V[index(p)]
                else:
                    value[r] = -np.inf
        return value

    def write_values(self, masks: np.ndarray, feats: np.ndarray, V: np.ndarray, roll_number: int | None = None) -> np.ndarray:
        """(R, S): the best value of writing each final roll, given the table V of fuller sheets."""
        best = np.full((len(self.tt.rolls), len(masks)), -np.inf)
        with np.errstate(invalid="ignore"):
            for b in self.boxes:
                open_ = (masks & self.bit[b]) == 0
                if not open_.any():
                    continue
                value = self.box_values(masks, feats, V, b, roll_number)
                np.maximum(best, value, out=best, where=open_[None, :])
        if np.isinf(best).any() or np.isnan(best).any():
            raise NotSolvable("for some roll and sheet the write rule allows no box; the solver cannot value that",
                              self.model.flow.pos)
        return best

    def encode(self, sheet: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
        """A concrete sheet as a one-state batch (mask, features)."""
        mask = sum(self.bit[b] for b in sheet)
        values = []
        for f in self.feats:
            if f.kind == "total":
                boxes = next(s.boxes for s in self.model.sections if s.id == f.name)
                values.append(min(f.limit, max(0, sum(sheet.get(b, 0) for b in boxes))))
            else:
                values.append(int(sheet.get(f.name) == f.limit))
        return np.array([mask], dtype=np.int64), np.array([values], dtype=np.int64).reshape(1, len(self.feats))

    def end_values(self, masks: np.ndarray, feats: np.ndarray) -> np.ndarray:
        """The end bonuses of full sheets, per state."""
        out = np.zeros(len(masks))
        atoms = self.atoms(masks, feats)
        for bonus in self.end_bonuses:
            tree = self.explorer.explore(bonus.points, Context())
            out = out + Space.evaluate(tree, atoms, len(masks))
        return out


def _walk(tree: Tree, atom) -> object:
    """A tree's value for one state, given its atoms as plain numbers."""
    while not tree.leaf:
        tree = tree.branches[atom(tree.atom)]
    return tree.value


class _PlainRows:
    """For one box: the rolls whose points, legality and bonus do not depend on the sheet."""

    def __init__(self, points: list[Tree], legal: list[Tree], bonus: list[list[Tree]]):
        plain = [r for r in range(len(points))
                 if points[r].leaf and legal[r].leaf and all(t.leaf for t in bonus[r])]
        self.rows = np.array(plain, dtype=np.int64)
        self.branching = [r for r in range(len(points)) if r not in set(plain)]
        pts = np.array([points[r].value for r in plain], dtype=np.int64)
        self.gain = np.array([points[r].value + sum(t.value for t in bonus[r]) for r in plain], dtype=np.float64)
        self.distinct, self.which = np.unique(pts, return_inverse=True)
        self.distinct = [int(p) for p in self.distinct]
        self.refused = self.rows[[not legal[r].value for r in plain]] if plain else self.rows


def batch_size(rolls: int, roll_numbers: int) -> int:
    """States per batch: CHUNK, or fewer so the batch's (rolls x states) arrays stay within solver_batch_bytes."""
    per_state = 8 * rolls * (roll_numbers + 3)  # the write values per roll number, the best, one box's, a temporary
    return max(1, min(CHUNK, limits().solver_batch_bytes // per_state))


def solve(model: Model, progress: Callable[[int, int], None] | None = None, space: "Space | None" = None) -> Table:
    """Backward induction over every reachable turn-start state."""
    start = time.perf_counter()
    space = space or Space(model)
    V = np.full((1 << space.n) * space.F, np.nan)
    total_states = 0
    for k in range(space.n, -1, -1):
        masks, feats = space.level(k)
        total_states += len(masks)
        idx = space.index(masks, feats)
        if k == space.n:
            V[idx] = space.end_values(masks, feats)
        else:
            chunk = batch_size(len(space.tt.rolls), len(space.roll_numbers))
            for lo in range(0, len(masks), chunk):
                m, f = masks[lo:lo + chunk], feats[lo:lo + chunk]
                Ws = {rn: space.write_values(m, f, V, rn) for rn in space.roll_numbers}
                W = Ws[space.last_roll]
                ix = idx[lo:lo + chunk]
                for a in range(0, W.shape[1], TURN_CHUNK):  # small batches keep the turn in cache
                    stop = None
                    if space.roll_dependent and space.can_stop:
                        def stop(j, a=a):  # writing at once, j rerolls before the end
                            return Ws[space.last_roll - j][:, a:a + TURN_CHUNK]
                    V[ix[a:a + TURN_CHUNK]] = space.tt.start_value(W[:, a:a + TURN_CHUNK], space.rerolls, stop)
        if progress:
            progress(space.n - k + 1, space.n + 1)
    return Table(V, space.feats, total_states, time.perf_counter() - start)


# caching ------------------------------------------------------------------------------

def cache_dir() -> Path:
    """Where solved tables are kept: $RULEBOOK_CACHE, else the user's cache directory."""
    import os
    if os.environ.get("RULEBOOK_CACHE"):
        return Path(os.environ["RULEBOOK_CACHE"])
    from platformdirs import user_cache_dir
    return Path(user_cache_dir("rulebook"))


def cache_key(model: Model) -> str:
    opts = json.dumps(model.option_values, sort_keys=True)
    return hashlib.sha256(f"{VERSION}|{model.hash}|{opts}".encode()).hexdigest()[:20]


def cache_path(model: Model) -> Path:
    """The table's `.npy` file (its header is the `.json` beside it)."""
    return cache_dir() / f"{model.id}-{cache_key(model)}.npy"


def _options(model: Model) -> dict:
    return json.loads(json.dumps(model.option_values, sort_keys=True))


def load_cached(model: Model, space: "Space") -> Table:
    """The cached table if every check passes (`tablefile.check`); BadTable saying why otherwise."""
    path = cache_path(model)
    values, head = tablefile.check(path, model.hash, _options(model), ((1 << space.n) * space.F,))
    feats = [Feature(**f) for f in head.features]
    if feats != space.feats:
        raise tablefile.BadTable(f"{path.name} tracks other sheet quantities than the model needs")
    return Table(values, feats, head.states, head.seconds)


def store(model: Model, table: Table) -> None:
    """Write a solved table and its header into the cache (quietly skipped if the disk refuses)."""
    finite, _ = tablefile.count_finite(table.values)
    head = tablefile.Header(model=model.id, model_hash=model.hash, options=_options(model),
                            shape=list(table.values.shape), dtype=tablefile.DTYPE.str, states=table.states,
                            finite=finite, digest=tablefile.digest(table.values), seconds=table.seconds,
                            features=[f.__dict__ for f in table.features])
    try:
        tablefile.write(cache_path(model), table.values, head)
    except OSError:
        pass  # no cache, no harm


def load_or_solve(model: Model, progress: Callable[[int, int], None] | None = None,
                  use_cache: bool = True, warn: Callable[[str], None] | None = None,
                  space: "Space | None" = None) -> Table:
    """The solved table, from the disk cache when it passes its checks; computed and stored otherwise.

    A cache file that fails a check is never used: `warn` gets one line saying why, and the table
    is solved again and the file replaced.
    """
    space = space or Space(model)
    if use_cache and (cache_path(model).exists() or tablefile.header_path(cache_path(model)).exists()):
        try:
            return load_cached(model, space)
        except tablefile.BadTable as bad:
            (warn or _stderr)(f"{cache_path(model).parent}/{bad}; solving again")
    table = solve(model, progress, space=space)
    if use_cache:
        store(model, table)
    return table


def _stderr(line: str) -> None:
    import sys
    print(f"warning: {line}", file=sys.stderr)


# the optimal bot ----------------------------------------------------------------------------

_SPACES: dict[str, tuple[Space, Table]] = {}


def solved(model: Model, progress=None) -> tuple[Space, Table]:
    """The Space and Table of a model (cached in memory per model and options)."""
    key = cache_key(model)
    if key not in _SPACES:
        space = Space(model)
        _SPACES[key] = (space, load_or_solve(model, progress, space=space))
    return _SPACES[key]


_SPACE_ONLY: dict[str, tuple[Space, np.ndarray]] = {}


def greedy_space(model: Model) -> Space:
    """The Space of a model for the greedy bot (cached per model and options; NotSolvable if none)."""
    key = cache_key(model)
    if key not in _SPACE_ONLY:
        space = Space(model)
        _SPACE_ONLY[key] = (space, np.zeros((1 << space.n) * space.F))
    return _SPACE_ONLY[key][0]


def greedy_table(state: GameState, roll_number: int | None = None):
    """Points + write bonus of every open box for every roll (the greedy bot's table), via the Space."""
    greedy_space(state.model)
    space, zeros = _SPACE_ONLY[cache_key(state.model)]
    return _write_table(space, zeros, state, roll_number)


def _write_table(space: Space, V: np.ndarray, state: GameState, roll_number: int | None = None):
    """(open boxes, (B, R) values) for the player's sheet: one gather (writetable.py), not a loop over boxes."""
    from .writetable import encode, gather
    mask, fvals = encode(space, state.sheets[state.player])
    return gather(space, roll_number).table(mask, fvals, V)


class OptimalBot(PlannerBot):
    """Maximizes the expected final score, reading the solver's table."""

    def __init__(self, model: Model, progress=None):
        super().__init__()
        self.space, self.table = solved(model, progress)

    def write_table(self, state: GameState, roll_number: int | None = None):
        return _write_table(self.space, self.table.values, state, roll_number)

    def plan_key(self, state: GameState):
        """The turn-start state as the solver sees it: plans are shared by sheets that encode alike."""
        from .writetable import encode
        mask, fvals = encode(self.space, state.sheets[state.player])
        return mask, tuple(fvals)

    def roll_dependent(self, state: GameState) -> bool:
        return self.space.roll_dependent
