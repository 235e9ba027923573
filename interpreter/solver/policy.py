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
    """(slot per state, box (states × rolls), keep (states × rerolls × rolls)) memory-mapped, or None."""
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
    return arrays


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
        best_keeps(keepv[:S], cand, part)
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
    bulk play does not take): the caller then plans as before."""

    def __init__(self, model, space, tables):
        from ..engine.actions import Keep, Stop, Write
        from .writetable import encode
        self.space, self.encode = space, encode
        self.dense, self.box, self.keep = (t.view(np.ndarray) for t in tables)
        self.Keep, self.Stop, self.Write = Keep, Stop, Write
        self.roll_index, self.keeps = space.tt.roll_index, space.tt.keeps
        self.cand = space.tt.sub_index[:, ::-1].tolist()  # (bulk play's candidates: larger keeps first)
        self.boxes = list(space.boxes)
        self.n_dice = model.n_dice
        self.radix, self.F = space.radix, space.F
        self.last_roll = space.last_roll
        self._quick = self._slot = None

    def slot(self, sheet) -> int:
        quick = tuple(sheet.items())
        if quick != self._quick:
            mask, fvals = self.encode(self.space, sheet)
            idx = mask * self.F + sum(v * r for v, r in zip(fvals, self.radix))
            self._quick, self._slot = quick, int(self.dense[idx])
        return self._slot

    def choose(self, state):
        step = state.step()
        kind = step.kind if step is not None else None
        if kind not in ("keep", "write"):
            return None
        s = self.slot(state.sheets[state.player])
        if s < 0:
            return None
        r = self.roll_index[state.dice]
        if kind == "write":
            return self.Write(self.boxes[int(self.box[s, r])])
        j = self.last_roll - state.roll_number  # (bulk play takes turns of a fixed shape: `state.rolls_left()`)
        if j < 1:
            return None
        best = self.keeps[self.cand[r][int(self.keep[s, j - 1, r])]]
        if len(best) == self.n_dice and step.can_stop:
            return self.Stop()
        return self.Keep(best)


def decider_for(model) -> Decider | None:
    """A Decider for the optimal bot on `model`, if its policy tables are stored (only bulk play builds
    them, for the models it takes; never built here)."""
    from .cache import cache_path
    from .solve import solved
    from .tablefile import BadTable, read_header
    from .cache import cache_key
    space, _table = solved(model)
    tables = _BUILT.get(cache_key(model))
    path = cache_path(model)
    try:
        digest = read_header(path).digest
    except BadTable:
        digest = None
    if tables is None and digest is not None and space.binary:
        tables = load(path, digest)
    return Decider(model, space, tables) if tables is not None else None
