"""Many bot games at once: every game advanced in lockstep with numpy over the games.

The per-game engine (`simulate.play_one` through `GameState`) stays the reference; this module
plays the same bots faster where a model allows it (`unsupported` says why not):

- Each seat is played on its own: greedy and optimal bots never look at another player's sheet,
  so a seat's games are its own turns, one after another. Ranks are worked out at the end.
- A turn-start state of a seat is the solver's (`solver.Space`: filled boxes plus tracked sheet
  quantities). For every state a *plan* is computed once, for a whole batch of new states at a
  time, the way the solver values states: per roll, the box the bot writes (points + write
  bonus + the value of the next state, from the solver's table for the optimal bot, zero for the
  greedy one), its points, write bonuses and the next state; per reroll layer and roll, the keep
  the bot chooses (`TurnTables.layers`, the same tie-breaks as `PlannerBot.choose`: the first box
  on the sheet, the larger keep). Plans are kept in a cache with a memory bound.
- Dice are drawn for all games at once from a numpy generator: a roll after keeping k is one
  uniform number looked up in the cumulative distribution of the rolls that keep can lead to.

Seed discipline: games are played in blocks of `BLOCK`; block b draws from
`numpy.random.default_rng([seed, b])`, seats in order. The results do not depend on `--jobs`, and
one seed always gives the same games. They are not the per-game engine's games (that one draws
die by die from `random.Random(seed + i)`); tests check both agree in distribution (mean and
spread within a few standard errors) and in every decision where the two can be compared exactly.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .abstraction import NotSolvable, turn_shape
from .errors import Message
from .model import Model

BLOCK = 2000  # games per block (one generator per block)
PLAN_CHUNK = 512  # new states planned per numpy batch
CACHE_BYTES = 256 * 2**20  # the plan cache's memory bound per bot kind
KINDS = ("greedy", "optimal")


def unsupported(model: Model, kinds: list[str]) -> Message | None:
    """Why these bots on this model cannot be played in bulk, as a whole sentence (None: they can)."""
    bad = sorted(set(k for k in kinds if k not in KINDS))
    if bad:
        return Message("bulk play takes greedy and optimal computer players only, not {kinds}", {"kinds": ", ".join(bad)})
    if model.end_if is not None:
        return Message("bulk play cannot play a game that may end early (end_if)")
    try:
        turn_shape(model)
    except NotSolvable as exc:
        return exc.msg
    turn = next(s for s in model.flow.walk() if s.kind == "each_player")
    inside = {id(s) for s in turn.walk()}
    if any(s.kind in ("roll", "keep", "write") and id(s) not in inside for s in model.flow.walk()):
        return Message("bulk play cannot play a game with steps outside the players' turns")
    from .solver import Space
    try:
        space = Space(model)
    except NotSolvable as exc:
        return exc.msg
    if space.roll_dependent:
        return Message("bulk play cannot play a game whose points depend on the roll number")
    return None


class Plans:
    """Per turn-start state: what the bot does with every roll (computed in batches, cached).

    Arrays are indexed [slot, roll] (and [slot, layer, roll] for keeps); `slots(states)` gives
    the slot of each state, planning the new ones. When the cache reaches its memory bound it
    starts over (the states of one turn are always all present).
    """

    def __init__(self, space, values: np.ndarray, max_bytes: int = CACHE_BYTES):
        self.space, self.V = space, values
        tt = space.tt
        self.R, self.K = len(tt.rolls), len(tt.keeps)
        self.nb = len(space.write_bonuses)
        per_state = self.R * (2 + 4 + 8 + 4 * self.nb) + 8 * (self.K + 1) * space.rerolls
        self.capacity = max(PLAN_CHUNK, max_bytes // per_state)
        self.box = np.zeros((0, self.R), dtype=np.int16)
        self.points = np.zeros((0, self.R), dtype=np.int32)  # (at most 2**31 points in one box)
        self.next = np.zeros((0, self.R), dtype=np.int64)
        self.bonus = np.zeros((0, self.nb, self.R), dtype=np.int32)
        self.keepv = np.zeros((0, space.rerolls, self.K + 1))  # keep values per layer, -inf at K
        self.index: dict[int, int] = {}
        self.used = 0
        self._plain: dict[str, tuple] = {}
        # candidate keeps per roll, larger first (padded with K, whose value is -inf)
        self.candidates = np.ascontiguousarray(tt.sub_index[:, ::-1])

    def _grow(self, need: int) -> None:
        if self.used + need > len(self.box):
            size = min(self.capacity, max(self.used + need, 2 * len(self.box), PLAN_CHUNK))
            size = max(size, self.used + need)
            for name in ("box", "points", "next", "bonus", "keepv"):
                old = getattr(self, name)
                new = np.zeros((size,) + old.shape[1:], dtype=old.dtype)
                new[:self.used] = old[:self.used]
                setattr(self, name, new)

    def slots(self, states: np.ndarray) -> np.ndarray:
        """The slot of each state (an array of state indexes), planning those not cached."""
        unique, inverse = np.unique(states, return_inverse=True)
        index = self.index
        if len(index) + len(unique) > self.capacity:  # the memory bound: start over
            index.clear()
            self.used = 0
        slot_of = np.empty(len(unique), dtype=np.int64)
        new = []
        for i, s in enumerate(unique.tolist()):
            slot = index.get(s)
            if slot is None:
                new.append(i)
            else:
                slot_of[i] = slot
        if new:
            new_states = unique[new]
            self._grow(len(new_states))
            start = self.used
            for lo in range(0, len(new_states), PLAN_CHUNK):
                self._plan(new_states[lo:lo + PLAN_CHUNK], start + lo)
            self.used += len(new_states)
            slot_of[new] = np.arange(start, start + len(new_states))
            for s, slot in zip(new_states.tolist(), range(start, start + len(new_states))):
                index[s] = slot
        return slot_of[inverse]

    def decode(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(masks, features) of state indexes (mask * F + features in mixed radix)."""
        space = self.space
        masks, rest = np.divmod(states, space.F)
        feats = np.empty((len(states), len(space.feats)), dtype=np.int64)
        for i, (r, size) in enumerate(zip(space.radix, space.sizes)):
            feats[:, i] = (rest // r) % size
        return masks, feats

    def _next_index(self, b: str, masks: np.ndarray, f: np.ndarray, points) -> np.ndarray:
        """The state after writing `points` (a number or an array over the states) into box b."""
        space = self.space
        idx = (masks | space.bit[b]) * space.F
        for i in space.staying[b]:
            idx = idx + f[:, i] * space.radix[i]
        for i, ft in space.moving[b]:
            if ft.kind == "total":
                idx = idx + np.minimum(ft.limit, f[:, i] + np.maximum(points, 0)) * space.radix[i]
            else:
                idx = idx + (np.asarray(points) == ft.limit).astype(np.int64) * space.radix[i]
        return idx

    def _plain_rows(self, b: str) -> tuple[np.ndarray, list[np.ndarray]]:
        """For box b's rolls that do not depend on the sheet: their points, and each write bonus."""
        got = self._plain.get(b)
        if got is None:
            points_t, _, bonus_t, plain_t = self.space._at(None)
            plain = plain_t[b]
            got = self._plain[b] = (np.asarray(plain.distinct, dtype=np.int32)[plain.which],
                                    [np.array([bonus_t[b][r][k].value for r in plain.rows.tolist()], dtype=np.int32)
                                     for k in range(self.nb)])
        return got

    def _plan(self, states: np.ndarray, at: int) -> None:
        """Plan a batch of new states into slots at, at + 1, …"""
        space, V, S, R = self.space, self.V, len(states), self.R
        masks, f = self.decode(states)
        atoms = space.atoms(masks, f)
        points_t, legal_t, bonus_t, plain_t = space._at(None)
        B = len(space.boxes)
        value = np.full((B, R, S), -np.inf)
        pts = np.zeros((B, R, S), dtype=np.int32)
        nxt = np.zeros((B, R, S), dtype=np.int64)
        bon = np.zeros((self.nb, B, R, S), dtype=np.int32)
        for bi, b in enumerate(space.boxes):
            open_ = (masks & space.bit[b]) == 0
            if not open_.any():
                continue
            plain = plain_t[b]
            if len(plain.rows):  # rolls whose points and bonus do not depend on the sheet: one row per distinct points
                ahead = np.stack([self._next_index(b, masks, f, p) for p in plain.distinct])  # (D, S)
                nxt[bi, plain.rows] = ahead[plain.which]
                value[bi, plain.rows] = V[ahead][plain.which] + plain.gain[:, None]
                points_row, bonus_rows = self._plain_rows(b)
                pts[bi, plain.rows] = points_row[:, None]
                for k in range(self.nb):
                    bon[k, bi, plain.rows] = bonus_rows[k][:, None]
                value[bi, plain.refused] = -np.inf
            for r in plain.branching:
                p = np.broadcast_to(space.evaluate(points_t[b][r], atoms, S), (S,))
                extra = [np.broadcast_to(space.evaluate(t, atoms, S), (S,)) for t in bonus_t[b][r]]
                allowed = np.broadcast_to(space.evaluate(legal_t[b][r], atoms, S), (S,))
                n = self._next_index(b, masks, f, p)
                nxt[bi, r], pts[bi, r] = n, p
                for k, e in enumerate(extra):
                    bon[k, bi, r] = e
                value[bi, r] = np.where(allowed, p + sum(extra) + V[n], -np.inf)
            value[bi][:, ~open_] = -np.inf
        best = value.max(axis=0)  # (R, S)
        if np.isinf(best).any():
            raise NotSolvable("for some roll and sheet the write rule allows no box; the solver cannot value that",
                              space.model.flow.pos)
        box = np.zeros((R, S), dtype=np.int64)
        for bi in range(B - 1, -1, -1):  # the first best box on the sheet
            box[value[bi] == best] = bi
        sl = slice(at, at + S)
        self.box[sl] = box.T
        self.points[sl] = np.take_along_axis(pts, box[None], axis=0)[0].T
        self.next[sl] = np.take_along_axis(nxt, box[None], axis=0)[0].T
        for k in range(self.nb):
            self.bonus[sl, k] = np.take_along_axis(bon[k], box[None], axis=0)[0].T
        layers = space.tt.layers(best, space.rerolls)
        for j in range(1, space.rerolls + 1):
            self.keepv[sl, j - 1, :-1] = layers[j][0].T
        self.keepv[sl, :, -1] = -np.inf

    def keeps(self, slot: np.ndarray, layer: int, roll: np.ndarray) -> np.ndarray:
        """The keep each game chooses with `layer` rerolls left: the best of the roll's keeps,
        the first of the larger keeps on a tie (as `PlannerBot.choose`)."""
        cand = self.candidates[roll]  # (G, width)
        values = self.keepv[slot[:, None], layer - 1, cand]
        return cand[np.arange(len(roll)), values.argmax(axis=1)]


@dataclass
class SeatGames:
    """A seat's finished games: points per box (games × boxes, -1 where never written) and write bonuses."""

    points: np.ndarray
    bonus: np.ndarray


class Dice:
    """Draws for many games at once: the first roll, and the roll after each keep."""

    def __init__(self, tt):
        self.first = np.cumsum(tt.p_all)
        self.first /= self.first[-1]
        self.cum = np.cumsum(tt.T, axis=1)
        self.cum /= self.cum[:, -1:]

    def roll_all(self, u: np.ndarray) -> np.ndarray:
        return np.minimum(np.searchsorted(self.first, u, side="right"), len(self.first) - 1)

    def after_keep(self, keeps: np.ndarray, u: np.ndarray) -> np.ndarray:
        rows = self.cum[keeps]
        return np.minimum((rows <= u[:, None]).sum(axis=1), rows.shape[1] - 1)


def play_seat(plans: Plans, dice: Dice, games: int, rng: np.random.Generator) -> SeatGames:
    """`games` solitaire games of one bot, all turns in lockstep."""
    space = plans.space
    n_boxes, rerolls = len(space.boxes), space.rerolls
    states = np.zeros(games, dtype=np.int64)
    points = np.full((games, n_boxes), -1, dtype=np.int64)
    bonus = np.zeros((games, plans.nb), dtype=np.int64)
    rows = np.arange(games)
    for _ in range(n_boxes):
        slot = plans.slots(states)
        roll = dice.roll_all(rng.random(games))
        for j in range(rerolls, 0, -1):
            keep = plans.keeps(slot, j, roll)
            roll = dice.after_keep(keep, rng.random(games))
        box = plans.box[slot, roll]
        points[rows, box] = plans.points[slot, roll]
        bonus += plans.bonus[slot, :, roll]
        states = plans.next[slot, roll]
    return SeatGames(points, bonus)


_PLANS: dict[tuple[str, str], Plans] = {}


def plans_for(model: Model, kind: str) -> Plans:
    """The cached plans of a bot kind on a model (optimal: from the solver's table)."""
    from .solver import _SPACE_ONLY, cache_key, solved, Space
    key = (cache_key(model), kind)
    if key not in _PLANS:
        if kind == "optimal":
            space, table = solved(model)
            values = table.values
        else:
            space = Space(model)
            values = np.zeros((1 << space.n) * space.F)
        _PLANS[key] = Plans(space, values)
    return _PLANS[key]


def play_block(model: Model, kinds: list[str], games: int, seed: int, block: int) -> list[SeatGames]:
    """One block of games: seat by seat, from the block's own generator."""
    rng = np.random.default_rng([seed, block])
    out = []
    for kind in kinds:
        plans = plans_for(model, kind)
        out.append(play_seat(plans, Dice(plans.space.tt), games, rng))
    return out


def results(model: Model, blocks: list[list[SeatGames]], names: list[str]):
    """The games as `simulate.Result`s (totals and ranks by the model's own scorer)."""
    from .scoring import Scorer
    from .simulate import Result
    scorer = Scorer.for_model(model)
    space_boxes = list(model.boxes)
    write_ids = [b.id for b in model.bonuses if b.when == "write"]
    bonus_ids = [b.id for b in model.bonuses]
    lowest = model.winner == "lowest_total"
    out = []
    for seats in blocks:
        per_seat = [(s.points.tolist(), s.bonus.tolist()) for s in seats]
        for g in range(len(per_seat[0][0])):
            sheets, bonuses, totals = [], [], []
            for points, bonus in per_seat:
                sheet = dict(zip(space_boxes, points[g]))
                t = scorer.totals(sheet, dict(zip(write_ids, bonus[g])))
                sheets.append(sheet)
                bonuses.append({b: t[b] for b in bonus_ids})
                totals.append(t["total"])
            order = sorted(totals, reverse=not lowest)
            ranks = [order.index(t) + 1 for t in totals]  # equal totals share a rank
            out.append(Result(sheets, bonuses, totals, ranks))
    return out


def run_games(model: Model, kinds: list[str], games: int, seed: int, jobs: int = 1, progress=None) -> list[list[SeatGames]]:
    """All games in blocks of BLOCK (block b from its own generator), over `jobs` processes."""
    sizes = [min(BLOCK, games - lo) for lo in range(0, games, BLOCK)]
    done, out = 0, []
    if jobs <= 1 or len(sizes) == 1:
        for b, size in enumerate(sizes):
            out.append(play_block(model, kinds, size, seed, b))
            done += size
            if progress:
                progress(done, games)
        return out
    import multiprocessing
    for kind in kinds:  # the table is read once, before the workers fork
        plans_for(model, kind)
    global _FORKED
    _FORKED = model
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for part in pool.imap(_forked_block, [(kinds, size, seed, b) for b, size in enumerate(sizes)]):
            out.append(part)
            done += len(part[0].points)
            if progress:
                progress(done, games)
    return out


_FORKED: Model | None = None  # the model, inherited by forked workers (no reload, caches shared)


def _forked_block(args):
    kinds, size, seed, block = args
    return play_block(_FORKED, kinds, size, seed, block)
