"""Bulk games as columns: totals, bonuses and ranks of millions of games without a Python object per game.

`bulk.results` gives a `Columns`: a sequence of `simulate.Result` (built only when one is asked
for) over numpy arrays, and `summarize` reads the arrays. The totals are the model's own scorer's,
worked out once per final turn-start state: a game's total is the points its counted boxes add
(times their column multiplier), plus its write bonuses, plus what the end bonuses give its final
state (the solver's premise: the features of the state decide them). Two games of every final state
are scored by the scorer itself; if any of them disagrees with this sum, every game is scored one
by one (`exact` is then False), so the figures are always the scorer's.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class Columns(Sequence):
    """Per game and seat: points per box (`points[p]`: games × boxes), bonuses (`bonus[p]`: games ×
    bonuses, the model's order), totals and ranks (games × seats)."""

    def __init__(self, boxes: list[str], bonus_ids: list[str], points: list[np.ndarray], bonus: list[np.ndarray],
                 totals: np.ndarray, ranks: np.ndarray):
        self.boxes, self.bonus_ids = boxes, bonus_ids
        self.points, self.bonus, self.totals, self.ranks = points, bonus, totals, ranks

    def __len__(self) -> int:
        return len(self.totals)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        from .results import Result
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        seats = range(len(self.points))
        return Result([dict(zip(self.boxes, self.points[p][i].tolist())) for p in seats],
                      [dict(zip(self.bonus_ids, self.bonus[p][i].tolist())) for p in seats],
                      self.totals[i].tolist(), self.ranks[i].tolist())

    def __eq__(self, other):
        return list(self) == list(other)


def seat_totals(model, scorer, space, seat) -> tuple[np.ndarray, np.ndarray, bool]:
    """(totals, bonuses (games × the model's bonuses), exact) of one seat's games (`bulk.SeatGames`)."""
    boxes = list(model.boxes)
    write_ids = [b.id for b in model.bonuses if b.when == "write"]
    bonus_ids = [b.id for b in model.bonuses]
    points, wbonus = seat.points, seat.bonus
    G = len(points)
    weight = np.array([space.mult.get(b, 1) * bool(space.counts.get(b, False)) for b in boxes], dtype=np.int64)
    counted = _counted(points, weight)
    written = wbonus.sum(axis=1) if wbonus.shape[1] else np.zeros(G, dtype=np.int64)
    where_w = [bonus_ids.index(b) for b in write_ids]
    bonus = np.zeros((G, len(bonus_ids)), dtype=np.int64)
    if where_w:
        bonus[:, where_w] = wbonus

    def score(g: int) -> dict:
        return scorer.totals(dict(zip(boxes, points[g].tolist())), dict(zip(write_ids, wbonus[g].tolist())))

    if seat.final is not None and G:
        states, first, inverse = np.unique(seat.final, return_index=True, return_inverse=True)
        # a second game of each final state, where there is one, checks the first
        last = np.full(len(states), -1, dtype=np.int64)
        last[inverse] = np.arange(G)
        rest = np.empty(len(states), dtype=np.int64)
        ends = np.empty((len(states), len(bonus_ids)), dtype=np.int64)
        ok = True
        for k in range(len(states)):
            for g in dict.fromkeys((int(first[k]), int(last[k]))):  # (the first game first)
                t = score(g)
                r = t["total"] - int(counted[g]) - int(written[g])
                e = [t[b] for b in bonus_ids]
                if g == first[k]:
                    rest[k], ends[k] = r, e
                elif r != rest[k] or any(e[i] != ends[k][i] for i in range(len(e)) if i not in where_w):
                    ok = False
            if not ok:
                break
        if ok:
            end_cols = [i for i in range(len(bonus_ids)) if i not in where_w]
            if end_cols:
                bonus[:, end_cols] = ends[inverse][:, end_cols]
            return counted + written + rest[inverse], bonus, True
    totals = np.empty(G, dtype=np.int64)
    for g in range(G):
        t = score(g)
        totals[g] = t["total"]
        bonus[g] = [t[b] for b in bonus_ids]
    return totals, bonus, False


def _counted(points: np.ndarray, weight: np.ndarray, chunk: int = 1 << 15) -> np.ndarray:
    """points.clip(min=0) @ weight, a chunk of games at a time through one buffer: the clipped copy of a
    million games' points is 100 MB of fresh memory, whose first touch cost more than the sums."""
    G = len(points)
    counted = np.empty(G, dtype=np.result_type(points, weight))
    buf = np.empty((min(G, chunk),) + points.shape[1:], dtype=points.dtype)
    for lo in range(0, G, chunk):
        part = points[lo:lo + chunk]
        clipped = np.maximum(part, 0, out=buf[:len(part)])
        counted[lo:lo + len(part)] = clipped @ weight
    return counted


def ranks_of(totals: np.ndarray, lowest: bool) -> np.ndarray:
    """Per game and seat: 1 + the seats with a better total (equal totals share a rank)."""
    better = (totals[:, None, :] < totals[:, :, None]) if lowest else (totals[:, None, :] > totals[:, :, None])
    return 1 + better.sum(axis=2)


def summary_of(model, seat_index: int, cols: Columns) -> dict:
    """What `simulate.summarize` reports of one seat, from the columns."""
    import math
    p = seat_index
    n = len(cols)
    totals = np.sort(cols.totals[:, p])
    mean = math.fsum(totals.tolist()) / n
    sd = float(np.sqrt(((totals - mean) ** 2).sum() / (n - 1))) if n > 1 else 0.0
    pct = {}
    for q in (5, 25, 50, 75, 95):
        k = (n - 1) * q / 100
        lo, hi = int(k), min(int(k) + 1, n - 1)
        pct[f"p{q}"] = float(totals[lo] + (totals[hi] - totals[lo]) * (k - lo))
    col = {b: i for i, b in enumerate(cols.boxes)}
    pts = cols.points[p]
    zero = {}
    for t in model.targets.values():
        z = sum(int((pts[:, col[c]] == 0).sum()) if c in col else n for c in t.cells)
        zero[t.id] = z / (n * len(t.cells))
    bon = cols.bonus[p]
    brate = {b: int((bon[:, i] > 0).sum()) / n for i, b in enumerate(cols.bonus_ids)}
    bmean = {b: math.fsum(bon[:, i].tolist()) / n for i, b in enumerate(cols.bonus_ids)}
    wins = int((cols.ranks[:, p] == 1).sum())
    return dict(mean=mean, stdev=sd, stderr=sd / n**0.5 if n else 0.0, percentiles=pct, wins=wins,
                zero_rate=zero, bonus_rate=brate, bonus_mean=bmean)
