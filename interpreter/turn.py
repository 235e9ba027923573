"""Within-turn dynamic programming over rolls and keeps, vectorized with numpy.

A turn is: roll all dice, then up to `rerolls` times keep some dice and roll the others, then write.
Given the value of writing each possible final roll, `TurnTables.layers` gives the value of every
keep at every reroll layer; bots and the solver both use it.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .dice import chance_outcomes, index_of, keeps, multisets, outcomes


class TurnTables:
    """Static tables for n dice with f faces: rolls (R), keeps (K) and the moves between them."""

    def __init__(self, n: int, faces: int):
        self.n, self.faces = n, faces
        self.rolls = multisets(n, faces)
        self.keeps = keeps(n, faces)
        self.roll_index = index_of(n, faces)
        self.keep_index = {k: i for i, k in enumerate(self.keeps)}
        R, K = len(self.rolls), len(self.keeps)
        total = faces**n
        self.p_all = np.array([w / total for _, w in outcomes(n, faces)])
        T = np.zeros((K, R))
        for ki, k in enumerate(self.keeps):
            for r, p in chance_outcomes(k, n, faces):
                T[ki, self.roll_index[r]] += p
        self.T_t = np.ascontiguousarray(T.T)  # (R, K): values over rolls @ T_t -> values over keeps
        # keeps grouped by size; each keep's children are the keeps with one die fewer
        self.by_size = []
        for s in range(n + 1):
            idx = [i for i, k in enumerate(self.keeps) if len(k) == s]
            children = np.full((len(idx), max(faces, 1)), -1, dtype=np.int64)
            for row, i in enumerate(idx):
                k = self.keeps[i]
                for c, f in enumerate(sorted(set(k))):
                    j = list(k)
                    j.remove(f)
                    children[row, c] = self.keep_index[tuple(j)]
            self.by_size.append((np.array(idx, dtype=np.int64), children))
        self.roll_as_keep = np.array([self.keep_index[r] for r in self.rolls], dtype=np.int64)

    def best_subkeep(self, keep_values: np.ndarray) -> np.ndarray:
        """For every keep k: the best value over all keeps contained in k (k itself included)."""
        W = keep_values.copy()
        S = W.shape[0]
        pad = np.full((S, 1), -np.inf)
        for s in range(1, self.n + 1):
            idx, children = self.by_size[s]
            Wp = np.concatenate([W, pad], axis=1)  # index -1 -> -inf
            best_child = Wp[:, children].max(axis=2)
            W[:, idx] = np.maximum(W[:, idx], best_child)
        return W

    def layers(self, write_values: np.ndarray, rerolls: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per reroll layer (1..rerolls rerolls left): (keep values (S,K), roll values (S,R)).

        write_values: (S, R), the value of writing each final roll. Layer 0 is (None, write_values).
        """
        V = np.atleast_2d(write_values)
        out = [(None, V)]
        for _ in range(rerolls):
            Kv = V @ self.T_t
            V = self.best_subkeep(Kv)[:, self.roll_as_keep]
            out.append((Kv, V))
        return out

    def start_value(self, write_values: np.ndarray, rerolls: int) -> np.ndarray:
        """Expected value at the start of a turn (before the first roll), per row of write_values."""
        return self.layers(write_values, rerolls)[-1][1] @ self.p_all


@lru_cache(maxsize=8)
def turn_tables(n: int, faces: int) -> TurnTables:
    return TurnTables(n, faces)
