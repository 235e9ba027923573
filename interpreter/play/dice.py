"""Dice drawn for many bulk games at once (bulk.py): the first roll and the roll after each keep, each
from one uniform number per game."""
from __future__ import annotations

from functools import lru_cache

import numpy as np


class Dice:
    """Draws for many games at once: the first roll, and the roll after each keep.

    A roll after keep k is the first outcome whose cumulative probability exceeds one uniform u
    (the count of cumulative values <= u). Only the outcomes the keep can lead to are looked at,
    from a start found in a grid of GRID cells of [0, 1) and a step or two on from there: the same
    outcome as counting over every roll, without touching every roll. The first roll alike (`first_*`)."""

    GRID = 4096

    def __init__(self, tt):
        self.first = np.cumsum(tt.p_all)
        self.first /= self.first[-1]
        self.cum = np.cumsum(tt.T, axis=1)
        self.cum /= self.cum[:, -1:]
        K, R = self.cum.shape
        support = [np.flatnonzero(row > 0) for row in tt.T]
        width = max(map(len, support)) + 1
        self.out = np.full((K, width), R - 1, dtype=np.int64)  # the outcome for each count (clamped, as before)
        self.scum = np.full((K, width), np.inf)  # cumulative values at those outcomes (inf: past the last)
        grid = np.arange(self.GRID) / self.GRID
        self.start = np.empty((K, self.GRID), dtype=np.int16 if width < 2**15 else np.int64)
        for k, sup in enumerate(support):
            cum = self.cum[k]
            # the count of cumulative values <= u is the first outcome of the support whose value exceeds u
            self.out[k, :len(sup)] = sup
            self.scum[k, :len(sup)] = cum[sup]
            self.start[k] = np.searchsorted(self.scum[k, :len(sup)], grid, side="right")
        self.scum[:, -1] = np.inf
        self.first_scum = np.append(self.first, np.inf)
        self.first_start = np.searchsorted(self.first, grid, side="right").astype(np.int64)

    def roll_all(self, u: np.ndarray) -> np.ndarray:
        at = self.first_start[np.minimum((u * self.GRID).astype(np.int64), self.GRID - 1)]
        while True:
            step = self.first_scum[at] <= u
            if not step.any():
                return np.minimum(at, len(self.first) - 1)
            at += step

    def after_keep(self, keeps: np.ndarray, u: np.ndarray) -> np.ndarray:
        at = self.start[keeps, np.minimum((u * self.GRID).astype(np.int64), self.GRID - 1)].astype(np.int64)
        while True:
            step = self.scum[keeps, at] <= u
            if not step.any():
                return self.out[keeps, at]
            at += step


@lru_cache(maxsize=4)
def dice_for(tt) -> Dice:
    """The draws of one set of dice, built once (their grid is a few MB)."""
    return Dice(tt)
