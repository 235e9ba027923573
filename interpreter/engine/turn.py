"""Within-turn dynamic programming over rolls and keeps, vectorized with numpy.

A turn is: roll all dice, then up to `rerolls` times keep some dice and roll the others, then write.
Given the value of writing each possible final roll, `TurnTables.layers` gives the value of every
keep at every reroll layer; bots and the solver both use it.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..model.dice import chance_outcomes, index_of, keeps, multisets, outcomes


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
        self.T = T  # (K, R): T @ values over rolls -> values over keeps
        # Keeps are ordered by size, so each size is a slice. `removes[s]`: for each keep of size s,
        # the keeps with one die fewer (padded with K, a row of -inf). `adds[s]`: for each keep of
        # size s, the keep with one more die showing face d, for every face d.
        self.slices = []
        start = 0
        for s in range(n + 1):
            count = sum(1 for k in self.keeps if len(k) == s)
            self.slices.append(slice(start, start + count))
            start += count
        self.removes, self.adds = [], []
        for s in range(n + 1):
            group = self.keeps[self.slices[s]]
            rem = np.full((len(group), max(1, min(s, faces))), K, dtype=np.int64)
            add = np.zeros((len(group), faces), dtype=np.int64)
            for row, k in enumerate(group):
                for c, f in enumerate(sorted(set(k))):
                    j = list(k)
                    j.remove(f)
                    rem[row, c] = self.keep_index[tuple(j)]
                if s < n:
                    for d in range(1, faces + 1):
                        add[row, d - 1] = self.keep_index[tuple(sorted(k + (d,)))]
            self.removes.append([np.ascontiguousarray(rem[:, c]) for c in range(rem.shape[1])])
            self.adds.append([np.ascontiguousarray(add[:, d]) for d in range(faces)])
        self.roll_as_keep = np.array([self.keep_index[r] for r in self.rolls], dtype=np.int64)
        # for a few states at a time (a bot's decision): every roll's sub-keeps, padded with K (-inf)
        from ..model.dice import sub_multisets
        subs = [sorted(self.keep_index[k] for k in sub_multisets(r)) for r in self.rolls]
        self.sub_index = np.full((R, max(map(len, subs))), K, dtype=np.int64)
        for r, ks in enumerate(subs):
            self.sub_index[r, :len(ks)] = ks
        assert self.roll_as_keep.tolist() == list(range(self.slices[n].start, self.slices[n].stop))

    def keep_values(self, roll_values: np.ndarray) -> np.ndarray:
        """(K, S): the expected value of keeping each keep and rolling the other dice once.

        Rolling m dice is rolling one die m times, so a keep's value is the mean, over the faces of
        one more die, of the value of the keep with that die added.
        """
        S = roll_values.shape[1]
        A = np.empty((len(self.keeps), S))
        A[self.slices[self.n]] = roll_values
        for s in range(self.n - 1, -1, -1):
            acc = A[self.slices[s]]
            acc[:] = A[self.adds[s][0]]
            for column in self.adds[s][1:]:
                acc += A[column]
            acc *= 1.0 / self.faces
        return A

    def best_subkeep(self, keep_values: np.ndarray) -> np.ndarray:
        """For every keep k (rows): the best value over all keeps contained in k, k included.

        Arrays are (K, S): one row per keep, one column per state, so gathers copy whole rows.
        """
        S = keep_values.shape[1]
        W = np.empty((len(self.keeps) + 1, S))
        W[:-1] = keep_values
        W[-1] = -np.inf
        for s in range(1, self.n + 1):
            part = W[self.slices[s]]
            for column in self.removes[s]:
                np.maximum(part, W[column], out=part)
        return W[:-1]

    def layers(self, write_values: np.ndarray, rerolls: int, stop=None) -> list[tuple[np.ndarray | None, np.ndarray]]:
        """Per reroll layer j = 0..rerolls (j rerolls left): (keep values (K, S), roll values (R, S)).

        write_values: (R, S), the value of writing each final roll (layer 0 has no keep values).
        stop: if the player may stop rolling, `stop(j)` is the (R, S) value of writing at once with j
        rerolls left (it can differ by roll number); keeping every die then means stopping.
        """
        V = write_values if write_values.ndim == 2 else write_values[:, None]
        out: list[tuple[np.ndarray | None, np.ndarray]] = [(None, V)]
        if V.shape[1] == 1:  # one state (a bot's decision): 1-D products and gathers
            return out + self._layers_one(V[:, 0], rerolls, stop)
        few = V.shape[1] <= 4
        full = self.slices[self.n]
        for j in range(1, rerolls + 1):
            if few:  # one matrix product and one gather beat many small row operations
                Kv = self.T @ V
                if stop is not None:
                    Kv[full] = stop(j)
                V = np.vstack([Kv, np.full((1, V.shape[1]), -np.inf)])[self.sub_index].max(axis=1)
            else:
                Kv = self.keep_values(V)
                if stop is not None:
                    Kv[full] = stop(j)
                V = self.best_subkeep(Kv)[full]
            out.append((Kv, V))
        return out

    def _layers_one(self, v: np.ndarray, rerolls: int, stop) -> list[tuple[np.ndarray, np.ndarray]]:
        """`layers` for a single state, on 1-D arrays (returned as (K, 1) and (R, 1) views).

        The same additions in the same order as `keep_values` on a batch, so one state's values
        are bit for bit those of the batch (bulk play makes the very same choices)."""
        out = []
        K, n, inv = len(self.keeps), self.n, 1.0 / self.faces
        full = self.slices[n]
        for j in range(1, rerolls + 1):
            A = np.empty(K + 1)
            A[full] = v
            for s in range(n - 1, -1, -1):
                acc = A[self.slices[s]]
                adds = self.adds[s]
                np.take(A, adds[0], out=acc)
                for column in adds[1:]:
                    acc += A[column]
                acc *= inv
            if stop is not None:
                A[full] = stop(j)[:, 0]
            kv = A[:K].copy()
            A[K] = -np.inf
            for s in range(1, n + 1):  # the best sub-keep of every keep, as `best_subkeep`
                part = A[self.slices[s]]
                for column in self.removes[s]:
                    np.maximum(part, A[column], out=part)
            v = A[full].copy()
            out.append((kv[:, None], v[:, None]))
        return out

    def start_value(self, write_values: np.ndarray, rerolls: int, stop=None) -> np.ndarray:
        """Expected value at the start of a turn (before the first roll), per column of write_values."""
        return self.p_all @ self.layers(write_values, rerolls, stop)[-1][1]


@lru_cache(maxsize=8)
def turn_tables(n: int, faces: int) -> TurnTables:
    return TurnTables(n, faces)
