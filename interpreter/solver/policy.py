"""Policy tables beside a solved table: the best box per (state, roll) and the best keep per (state,
rolls left, roll), for every state the solve reached, as bytes (bulk play and single decisions).

Built once from the table (every reached state planned by the compiled planner, turnplan.py, in
batches), stored as `.npy` files beside it (`<table>-policy-*.npy`, a `.json` header last, with the
table's digest), memory-mapped when read. A keep is stored as its position among the roll's
candidate keeps (`plans.Plans.candidates`, at most 255 of them), a box as its position on the sheet.
Used only where the tables fit in `MAX_BYTES` and the compiled planner is there; otherwise bulk play
plans turn-start states as it meets them (`plans.Plans`), as before.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

MAX_BYTES = 1 << 30  # policy tables larger than this are not built (bulk play plans as it goes)
BATCH = 2048  # states planned at a time while building
FORMAT = 1
MADV_POPULATE_READ, MADV_WILLNEED = 22, 3  # (Linux's numbers)
DENSE_IN_MEMORY = 64 << 20  # a state -> slot array up to this size is read into memory, not mapped


def size(space, states: int) -> int:
    """Bytes of the policy tables of `states` reached states."""
    R = len(space.tt.rolls)
    return states * R * (1 + space.rerolls) + space.entries * 4


def usable(space) -> bool:
    return space.rerolls >= 1 and space.tt.sub_index.shape[1] <= 255 and len(space.boxes) <= 127


def _paths(table_path: Path) -> dict[str, Path]:
    stem = table_path.with_suffix("")
    return {k: Path(f"{stem}-policy-{k}.npy") for k in ("slot", "box", "keep")} | {"head": Path(f"{stem}-policy.json")}


def load(table_path: Path, digest: str):
    """(slot per state, box (states × rolls), keep (states × rerolls × rolls)) memory-mapped, or None.
    Mapped once per process and table (bulk play and every bot share the mapping)."""
    key = (str(table_path), digest)
    if key not in _MAPPED:
        tables = _load(table_path, digest)
        if tables is None:
            return None
        _MAPPED[key] = tables
    return _MAPPED[key]


_MAPPED: dict = {}  # (table path, digest) -> the mapped policy tables


def _load(table_path: Path, digest: str):
    p = _paths(table_path)
    try:
        head = json.loads(p["head"].read_text(encoding="utf-8"))
        if head.get("format") != FORMAT or head.get("digest") != digest:
            return None
        arrays = [np.load(p[k], mmap_mode="r", allow_pickle=False) for k in ("slot", "box", "keep")]
    except (OSError, ValueError):
        return None
    if [list(a.shape) for a in arrays] != head.get("shapes"):
        return None
    _map_ahead(arrays)
    return arrays


_AHEAD: list = []  # the threads mapping policy tables ahead (`settle` waits for them)


def _map_ahead(arrays) -> None:
    """Map the pages of memory-mapped tables ahead and read a byte of each, in a thread (neither holds
    the interpreter's lock): a decision then does not wait on a page's first read, which on the shared
    virtual machine costs 10 µs (a page fault) to 150 µs (memory the host gave back), and bulk play pays
    the faults in bulk. Where the system cannot map ahead (not Linux, a kernel before 5.14) the pages
    are read ahead only, and come in as they are touched."""
    import sys
    import threading
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        madvise = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return
    madvise.argtypes, madvise.restype = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int], ctypes.c_int
    page = os.sysconf("SC_PAGE_SIZE")
    spans = []
    for a in arrays:
        if isinstance(a, np.memmap) and a.nbytes:
            addr = a.ctypes.data
            start = addr - addr % page
            spans.append((start, a.nbytes + addr - start, a))

    def run():
        for start, length, a in spans:
            if madvise(start, length, MADV_POPULATE_READ) != 0:
                madvise(start, length, MADV_WILLNEED)
        for _start, _length, a in spans:  # a byte of every page read once (numpy, outside the interpreter's lock)
            flat = a.reshape(-1).view(np.uint8)
            for lo in range(0, len(flat), 64 << 20):
                int(flat[lo:lo + (64 << 20):page].sum())
    thread = threading.Thread(target=run, name="policy-map-ahead", daemon=True)
    thread.start()
    _AHEAD.append(thread)


def settle() -> None:
    """Wait until the policy tables read so far are mapped (benchmarks: before any timing)."""
    while _AHEAD:
        _AHEAD.pop().join()


def build(plans, table_path: Path | None, digest: str, progress=None):
    """Plan every reached state of `plans` (a `plans.Plans` over a solved table) into policy tables;
    stored beside the table when `table_path` is given. None if they would not fit."""
    space, V = plans.space, plans.V
    full = space.codes - 1 if space.binary else None
    if full is None or not usable(space):
        return None
    reached = np.flatnonzero(np.isfinite(V))
    reached = reached[reached // space.F != full]  # (a full sheet has no turn)
    if size(space, len(reached)) > MAX_BYTES:
        return None
    R, L = len(space.tt.rolls), space.rerolls
    slot = np.full(space.entries, -1, dtype=np.int32)
    slot[reached] = np.arange(len(reached), dtype=np.int32)
    box = np.empty((len(reached), R), dtype=np.int8)
    keep = np.empty((len(reached), L, R), dtype=np.uint8)
    cand = plans.candidates
    keepv = np.empty((BATCH, L, plans.K + 1))
    for lo in range(0, len(reached), BATCH):
        states = reached[lo:lo + BATCH]
        S = len(states)
        masks, f = plans.decode(states)
        _, b, _, _, status = plans.planner.plan(masks, f, states, keepv=keepv[:S], tables=False)
        if status & 1:
            from .abstraction import NotSolvable
            raise NotSolvable("for some roll and sheet the write rule allows no box; the solver cannot value that",
                              space.model.flow.pos)
        box[lo:lo + S] = b
        keepv[:S, :, -1] = -np.inf
        part = np.empty((S, L, R), dtype=np.uint8)
        from .lockstep import best_keeps  # the first best candidate (larger keeps first), as plans.Plans.keeps
        best_keeps(keepv[:S], cand, part, plans.planner.kplan.turn)
        keep[lo:lo + S] = part
        if progress:
            progress(lo + S, len(reached))
    if table_path is not None:
        try:
            p = _paths(table_path)
            for k, a in (("slot", slot), ("box", box), ("keep", keep)):
                tmp = p[k].with_name(p[k].name + ".tmp.npy")
                np.save(tmp, a)
                os.replace(tmp, p[k])
            head = {"format": FORMAT, "digest": digest, "shapes": [list(slot.shape), list(box.shape), list(keep.shape)]}
            tmp = p["head"].with_name(p["head"].name + ".tmp")
            tmp.write_text(json.dumps(head), encoding="utf-8")
            os.replace(tmp, p["head"])
        except OSError:
            pass  # a cache folder that cannot be written: the tables stay in memory for this run
    from .cache import cache_key
    _BUILT[cache_key(space.model)] = (slot, box, keep)
    return slot, box, keep


_BUILT: dict = {}  # the policy tables built in this process, by the model's cache key (a table kept in memory has no files)


class Decider:
    """Single optimal decisions read from policy tables: the state's slot, then one byte.

    `choose(state)` is the action `PlannerBot.choose` takes (the same tie-breaks, they were stored
    from the same plans), or None where the tables do not answer (another kind of step, a model
    bulk play does not take): the caller then plans as before. Made once per process and tables
    (`decider_for`), shared by every bot: its one memo (the last sheet met, its offsets) is one tuple."""

    def __init__(self, model, space, tables):
        from ..engine.actions import Keep, Stop, Write
        from .writetable import encode
        self.space, self.encode = space, encode
        dense, box, keep = (t.view(np.ndarray) for t in tables)
        if dense.nbytes <= DENSE_IN_MEMORY:  # (read at once: a fresh state's slot is then no page fault)
            dense = np.array(dense)
        # flat views of the bytes: an index into one is a plain int, no numpy scalar on the way
        self.dense, self.box, self.keep = _flat(dense, dense.dtype.char), _flat(box, "b"), _flat(keep, "B")
        self.R, self.L = box.shape[1], keep.shape[1]
        self.roll_index = space.tt.roll_index
        cand = space.tt.sub_index[:, ::-1].tolist()  # (bulk play's candidates: larger keeps first)
        stop, n_dice = Stop(), model.n_dice
        keeps = [Keep(k) for k in space.tt.keeps] + [None]  # (a roll's short row of candidates is padded with K)
        # the action of each (roll, candidate): made once, an action is a frozen value
        stops = [stop if k is not None and len(k.dice) == n_dice else k for k in keeps]  # (keeping every die: stopping)
        self.keep_actions = [[keeps[i] for i in row] for row in cand]
        self.stop_actions = [[stops[i] for i in row] for row in cand]
        self.writes = [Write(b) for b in space.boxes]
        self.last_roll = space.last_roll
        self._memo = (None, -1, 0, 0)  # (the sheet last met, a copy; its slot; its box row and keep rows' offsets)
        self._encoder = self._plain_encoder(model, space)

    @staticmethod
    def _plain_encoder(model, space):
        """For a sheet whose cells are its boxes, held in two bits per box: a function sheet -> dense index
        (`writetable.encode` in a few Python steps), else None."""
        if not (space.binary and model.simple_sheet):
            return None
        bit, F = dict(space.place), space.F
        parts = []
        for f, r in zip(space.feats, space.radix):
            if f.kind == "total":
                parts.append((0, tuple(space.quantity[f.name]), f.limit, r))
            else:
                parts.append((1 if f.kind == "equals" else 2, f.name, f.limit, r))

        def index(sheet) -> int:
            mask = 0
            for b in sheet:
                mask |= bit.get(b, 0)
            idx = mask * F
            for kind, what, limit, r in parts:
                if kind == 0:
                    total = 0
                    for u in what:
                        total += sheet.get(u, 0)
                    idx += min(limit, max(0, total)) * r
                else:
                    p = sheet.get(what)
                    if p is not None and (p == limit if kind == 1 else p >= limit):
                        idx += r
            return idx
        return index

    def slot(self, sheet) -> int:
        """The sheet's slot in the tables (-1: a state they lack)."""
        return self._at(sheet)[1]

    def _at(self, sheet) -> tuple:
        memo = self._memo
        if sheet != memo[0]:  # (a new turn: the same sheet is met at each of its decisions)
            if self._encoder is not None:
                idx = self._encoder(sheet)
            else:
                mask, fvals = self.encode(self.space, sheet)
                idx = mask * self.space.F + sum(v * r for v, r in zip(fvals, self.space.radix))
            s = self.dense[idx]
            memo = self._memo = (dict(sheet), s, s * self.R, s * self.L * self.R)
        return memo

    def choose(self, state):
        step = state.step()
        if step is None:
            return None
        kind = step.kind
        if kind == "write":
            _, s, row, _ = self._at(state.sheets[state.player])
            if s < 0:
                return None
            return self.writes[self.box[row + self.roll_index[state.dice]]]
        if kind != "keep":
            return None
        _, s, _, rows = self._at(state.sheets[state.player])
        j = self.last_roll - state.roll_number  # (bulk play takes turns of a fixed shape: `state.rolls_left()`)
        if s < 0 or j < 1:
            return None
        r = self.roll_index[state.dice]
        return (self.stop_actions if step.can_stop else self.keep_actions)[r][self.keep[rows + (j - 1) * self.R + r]]


def _flat(a: np.ndarray, code: str) -> memoryview:
    """A C-ordered array as a flat memoryview of numbers of its type (`code`: struct's letter)."""
    return memoryview(np.ascontiguousarray(a)).cast("B").cast(code)


_DECIDERS: dict = {}  # (model's cache key) -> (its solved table, the Decider of its policy tables)


def decider_for(model) -> Decider | None:
    """The Decider of the optimal bot on `model`, if its policy tables are stored (only bulk play and
    the exact distribution build them, for the models they take; never built here). Made once per
    process and solved table, shared by every bot."""
    from .cache import cache_key
    from .solve import solved
    space, table = solved(model)
    key = cache_key(model)
    made = _DECIDERS.get(key)
    if made is None or made[0] is not table:
        tables = stored(model, space)
        if tables is None:
            return None
        made = _DECIDERS[key] = (table, Decider(model, space, tables))
    return made[1]


def stored(model, space):
    """The policy tables of the optimal bot on `model` (solved as `space`): built in this process, or
    stored beside its table; else None (never built here)."""
    from .cache import cache_key, cache_path
    from .tablefile import BadTable, read_header
    tables = _BUILT.get(cache_key(model))
    if tables is not None or not space.binary:
        return tables
    path = cache_path(model)
    try:
        digest = read_header(path).digest
    except BadTable:
        return None
    return load(path, digest)
