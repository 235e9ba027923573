"""Running the backward induction: limits and an honest estimate first, then layer by layer of
filled-box count (from the full sheet back to the empty one), on one or more cores, with a
checkpoint after every layer so an interrupted solve resumes where it stopped.

States with the same number of filled boxes only read fuller sheets, so a layer is split into
chunks that workers solve independently: threads when the compiled kernel runs them (it releases
the GIL; the calling thread is one of them), else forked processes sharing the table. States
whose tracked totals are settled (`settled.py`) are not solved but copied. The table is an array
in memory, an anonymous shared mapping (worker processes, no cache) or a memory-mapped `.npy` in
the cache directory (the checkpoint; it may be larger than memory).
"""
from __future__ import annotations

import json
import math
import mmap
import os
import time
from dataclasses import dataclass
from itertools import islice, product
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np

from ..model import cachedir
from . import kernel, kernelplan, settled, tablefile
from .abstraction import NotSolvable
from ..model.errors import Message, Number, RulebookError

if TYPE_CHECKING:
    from .space import Space, Table

MAX_STATES = 4_000_000  # the default of the budget's solver_states (interpreter/model/limits.py)
SLOTS_PER_STATE = 4  # the dense table may have at most this many slots per allowed state
MEMORY = 2 * 2**30  # bytes of memory a solve may use unless told otherwise
CHUNK = 12_000  # states per batch when computing write values
TURN_CHUNK = 256  # states per batch in the within-turn dynamic programming
PROBE = 4000  # states timed to estimate the whole solve
SHARE_MIN = 2048  # the smallest chunk of a layer shared among threads (a layer of fewer than twice this: one thread)


@dataclass(frozen=True)
class Limits:
    """What a solve may use: states, bytes of memory, worker processes."""

    max_states: int | None = None  # None: the budget's solver_states (`--limit solver_states=N`)
    memory: int = MEMORY
    jobs: int = 1

    @property
    def states(self) -> int:
        from ..model.limits import limits
        return self.max_states if self.max_states is not None else limits().solver_states


@dataclass(frozen=True)
class Estimate:
    """What a solve will take, worked out before it starts (time from timing a sample of states)."""

    states: int  # reachable turn-start states: the ones solved
    boxes: int
    feature_values: int
    table_bytes: int
    work_bytes: int  # memory besides the table, all jobs together
    seconds: float
    jobs: int
    on_disk: bool  # the table is memory-mapped from the cache directory

    @property
    def memory_bytes(self) -> int:
        """Memory the solve needs: the working arrays, plus the table unless it lives on disk."""
        return self.work_bytes + (0 if self.on_disk else self.table_bytes)

    def line(self) -> str:
        where = "memory-mapped from the cache" if self.on_disk else "in memory"
        return (f"{self.states:,} states; table {size(self.table_bytes)} {where}, working memory "
                f"{size(self.work_bytes)}; about {duration(self.seconds)} on {self.jobs} "
                f"core{'s' * (self.jobs != 1)}")


def size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n < 1024 or unit == "TB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024
    raise AssertionError


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:,.1f} s" if seconds < 10 else f"{seconds:,.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:,.0f} minutes"
    return f"{seconds / 3600:,.1f} hours"


def parse_size(text: str) -> int:
    """'4G', '512M', '2.5GB', '1000000' → bytes."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    factor = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}.get(t[-1:], 1)
    try:
        value = float(t[:-1] if factor > 1 else t)
    except ValueError:
        raise ValueError(f"'{text}' is not a size (as in 4G or 512M)") from None
    return int(value * factor)


class _NoFuture:
    """A stand-in table that is worth zero everywhere (for timing a sample without allocating)."""

    def __getitem__(self, idx):
        return np.zeros(np.shape(idx))


def estimate(space: "Space", limits: Limits, on_disk: bool, probe: bool = True) -> Estimate:
    """Count the states exactly and time a sample of them from the widest layer."""
    counts = space.level_counts()
    states = sum(counts)
    R, K = len(space.tt.rolls), len(space.tt.keeps)
    widest = max(counts) if counts else 0
    per_job = min(batch_size(space), widest) * R * 8 * (len(space.roll_numbers) + 2) + TURN_CHUNK * K * 8 * 4
    work = limits.jobs * per_job + widest * 8 * (3 + len(space.feats))  # + a layer's masks, features, indices
    seconds = 0.0
    if probe and space.n:
        k = max(range(space.n), key=lambda j: counts[j])
        seconds = states * _seconds_per_state(space, k) / (limits.jobs * 0.9 if limits.jobs > 1 else 1)
    return Estimate(states, space.n, space.F, space.entries * 8, work, seconds, limits.jobs, on_disk)


def _seconds_per_state(space: "Space", k: int) -> float:
    """Time a sample of a layer (evenly spread over it when it is small enough to list)."""
    if space.level_counts()[k] <= 2_000_000:
        masks, feats = space.level(k)
        space.__dict__["_probed_level"] = (k, masks, feats)  # the solve lists it again: `_level` keeps it for it
        pick = np.linspace(0, len(masks) - 1, min(PROBE, len(masks))).astype(np.int64)
        masks, feats = masks[pick], feats[pick]
    else:  # whole fills, as a layer has them: every value of the tracked quantities for a few random fills
        codes, _ = space.sample(k, 64)
        ms, fs = [], []
        for code in np.unique(codes).tolist():
            combos = np.array(list(islice(product(*space.feature_domains(code)), PROBE)), dtype=np.int64)
            ms.append(np.full(len(combos), code, dtype=np.int64))
            fs.append(combos.reshape(len(combos), len(space.feats)))
            if sum(map(len, ms)) >= PROBE:
                break
        masks, feats = np.concatenate(ms), np.concatenate(fs)
    try:
        V = np.zeros(space.entries)  # zero pages cost nothing
    except MemoryError:
        V = _NoFuture()
    _solve_chunk(space, V, masks[:1], feats[:1], None)  # compile (or load) the kernel first
    start = time.perf_counter()
    _solve_chunk(space, V, masks, feats, None)
    return (time.perf_counter() - start) / len(masks)


def duration_message(seconds: float) -> Message:
    """A duration to show a person, in the unit that suits it (its number in the reader's language)."""
    if seconds < 90:
        return Message("{n} s", {"n": Number(round(seconds))})
    if seconds < 5400:
        return Message("{n} minutes", {"n": Number(round(seconds / 60))})
    return Message("{n} hours", {"n": Number(seconds / 3600, 1)})


_UNITS = (Message("{n} bytes"), Message("{n} KB"), Message("{n} MB"), Message("{n} GB"), Message("{n} TB"))


def size_message(n: float) -> Message:
    """A size to show a person (its number in the reader's language)."""
    for i, unit in enumerate(_UNITS):
        if n < 1024 or i == len(_UNITS) - 1:
            return Message(unit.text, {"n": Number(n, 1 if i else 0)})
        n /= 1024
    raise AssertionError


def refuse_beyond(space: "Space", est: Estimate, limits: Limits) -> None:
    """NotSolvable, saying what to change, if the solve needs more states or memory than allowed."""
    from ..model.limits import hint_for, limits as budget
    over = []
    if est.states > limits.states or est.table_bytes > 8 * SLOTS_PER_STATE * limits.states:
        over.append(f"--max-states {max(est.states, -(-est.table_bytes // (8 * SLOTS_PER_STATE)))}")
    if est.memory_bytes > limits.memory:
        over.append(f"--memory {math.ceil(est.memory_bytes / 2**30 * 10) / 10:g}G")
    if not over and limits.max_states is None:  # the work, unless the user raised the states on purpose
        R, K = len(space.tt.rolls), len(space.tt.keeps)
        work = est.states * (R * space.n + K * space.model.faces * max(space.rerolls, 1))
        if work > budget().solver_work:
            raise NotSolvable("the solver would do {work} steps of work ({states} states, {per_state} each); the limit is "
                              "{limit}", space.model.flow.pos, hint_for("solver_work"), work=Number(work),
                              states=Number(est.states), per_state=Number(work // max(est.states, 1)),
                              limit=Number(budget().solver_work))
    if not over:
        return
    hint = (Message("to solve it anyway, use {flags} (or keep the cache on, so the table lives on disk)")
            if not est.on_disk and est.table_bytes > limits.memory else Message("to solve it anyway, use {flags}"))
    raise NotSolvable("the solver would need {states} states ({boxes} boxes, {values} values of the tracked sheet "
                      "quantities): a table of {table} and {memory} of memory, about {time} on {jobs} core(s); "
                      "the limits are {max_states} states and {limit} of memory",
                      space.model.flow.pos, Message(hint.text, {"flags": " ".join(over)}),
                      states=Number(est.states), boxes=est.boxes, values=Number(est.feature_values),
                      table=size_message(est.table_bytes), memory=size_message(est.memory_bytes),
                      time=duration_message(est.seconds) if est.seconds else Message("an unknown time"),
                      jobs=est.jobs, max_states=Number(limits.states), limit=size_message(limits.memory))


class Interrupted(RulebookError):
    """A solve stopped by the user; its checkpoint (if any) lets the same command resume."""


# the work of one chunk ---------------------------------------------------------------------

def batch_size(space: "Space") -> int:
    """States per batch: CHUNK, or fewer so the batch's (rolls x states) arrays stay within solver_batch_bytes."""
    from ..model.limits import limits
    per_state = 8 * len(space.tt.rolls) * (len(space.roll_numbers) + 3)  # per roll number, the best, a box's, a temporary
    return max(1, min(CHUNK, limits().solver_batch_bytes // per_state))


def _solve_chunk(space: "Space", V, masks: np.ndarray, feats: np.ndarray, idx: np.ndarray | None) -> np.ndarray:
    """Start values of a batch of states with the same number of filled boxes, written to V[idx].

    Through the kernel (`kernel.solve_states`: compiled, or numpy with the same numbers) when the
    space can be laid out as its arrays; box by box with `Space.write_values` otherwise."""
    plan = kernelplan.plan(space) if isinstance(V, np.ndarray) else None
    if plan is None:
        return _solve_chunk_by_box(space, V, masks, feats, idx)
    out = np.empty(len(masks))
    with np.errstate(invalid="ignore"):
        status = kernel.solve_states(V, plan.write, plan.turn, plan.batch(masks, feats, idx), out)
    if status & kernel.NO_BOX and plan.part:  # a roll with no unit of the part: the relaxed rule, box by box
        return _solve_chunk_by_box(space, V, masks, feats, idx)
    if status & kernel.NO_BOX:
        raise NotSolvable("for some roll and sheet the write rule allows no box; the solver cannot value that",
                          space.model.flow.pos)
    if status & kernel.NAN_READ:
        raise RuntimeError("the solver read the value of a sheet it has not solved (a state space that misses "
                           "reachable states)")
    if idx is not None:
        V[idx] = out
    return out


def _solve_chunk_by_box(space: "Space", V, masks: np.ndarray, feats: np.ndarray, idx: np.ndarray | None) -> np.ndarray:
    """`_solve_chunk` box by box (`Space.write_values`, `TurnTables.start_value`): where the kernel cannot."""
    out = np.empty(len(masks))
    chunk = batch_size(space)
    for lo in range(0, len(masks), chunk):
        m, f = masks[lo:lo + chunk], feats[lo:lo + chunk]
        Ws = {rn: space.write_values(m, f, V, rn) for rn in space.roll_numbers}
        W = Ws[space.last_roll]
        for a in range(0, W.shape[1], TURN_CHUNK):  # small batches keep the turn in cache
            stop = None
            if space.roll_dependent and space.can_stop:
                def stop(j, a=a):  # writing at once, j rerolls before the end
                    return Ws[space.last_roll - j][:, a:a + TURN_CHUNK]
            out[lo + a:lo + min(a + TURN_CHUNK, W.shape[1])] = space.tt.start_value(W[:, a:a + TURN_CHUNK], space.rerolls, stop)
    if idx is not None:
        V[idx] = out
    return out


_JOB: dict = {}  # what forked workers inherit: the space and the table


class _Cursor:
    """A layer's states handed out in chunks to whichever thread asks next (guided: `step` states while
    plenty are left, then smaller, so the threads finish the layer together)."""

    def __init__(self, total: int, step: int, jobs: int):
        import threading
        self.lock = threading.Lock()
        self.total, self.step, self.jobs = total, step, jobs
        self.next = self.solved = 0

    def take(self, solved: int = 0) -> tuple[int, int] | None:
        """The next chunk (lo, hi), or None when none is left; `solved`: the states of the caller's last chunk."""
        with self.lock:
            self.solved += solved
            left = self.total - self.next
            if left <= 0:
                return None
            size = min(left, self.step, max(SHARE_MIN, -(-left // (2 * self.jobs))))
            lo = self.next
            self.next += size
            return lo, lo + size

    def stop(self) -> None:
        """Hand out nothing more (an interrupt, or a worker's error)."""
        with self.lock:
            self.next = self.total


class _Crew:
    """`jobs - 1` worker threads that solve each layer with the calling thread (for a kernel that releases the
    GIL): the caller takes chunks too rather than waiting for the others', and solves a small layer alone."""

    def __init__(self, jobs: int):
        import threading
        from queue import SimpleQueue  # (plain threads: concurrent.futures costs an import and a future per chunk)
        self.tasks: SimpleQueue = SimpleQueue()
        self.done: SimpleQueue = SimpleQueue()
        self.threads = [threading.Thread(target=self._serve, name=f"rulebook-solve-{i}", daemon=True)
                        for i in range(jobs - 1)]
        for thread in self.threads:
            thread.start()

    def _serve(self) -> None:
        while (task := self.tasks.get()) is not None:
            try:
                task()
                self.done.put(None)
            except BaseException as error:  # handed to the caller, which raises it
                self.done.put(error)

    def solve(self, space: "Space", V: np.ndarray, masks: np.ndarray, feats: np.ndarray, idx: np.ndarray,
              progress: Callable[[int], None] | None) -> None:
        """Solve these states into V; `progress(states solved)` after each of the caller's chunks."""
        helpers = len(self.threads) if len(masks) >= 2 * SHARE_MIN else 0  # a small layer: no handoffs at all
        cursor = _Cursor(len(masks), batch_size(space), helpers + 1)

        def drain(report: Callable[[int], None] | None = None) -> None:
            chunk = cursor.take()
            try:
                while chunk is not None:
                    lo, hi = chunk
                    _solve_chunk(space, V, masks[lo:hi], feats[lo:hi], idx[lo:hi])
                    chunk = cursor.take(hi - lo)
                    if report:
                        report(cursor.solved)
            except BaseException:
                cursor.stop()
                raise
        for _ in range(helpers):
            self.tasks.put(drain)
        try:
            drain(progress)
            errors = [self.done.get() for _ in range(helpers)]  # the layer's last chunks
        except BaseException:  # an interrupt: the workers end their chunk and stop (`close` waits for them)
            cursor.stop()
            raise
        for error in errors:
            if error is not None:
                raise error

    def close(self) -> None:
        for _ in self.threads:
            self.tasks.put(None)
        for thread in self.threads:
            thread.join()


def _work(task: tuple[np.ndarray, np.ndarray, np.ndarray]) -> int:
    masks, feats, idx = task
    _solve_chunk(_JOB["space"], _JOB["V"], masks, feats, idx)
    return len(masks)


def _level(space: "Space", k: int) -> tuple[np.ndarray, np.ndarray]:
    """`space.level(k)`, the layer the estimate listed for its sample taken over (once) rather than listed again."""
    probed = space.__dict__.get("_probed_level")
    if probed is not None and probed[0] == k:
        del space.__dict__["_probed_level"]
        return probed[1], probed[2]
    return space.level(k)


# the table and its checkpoint ------------------------------------------------------------------

def _shared(entries: int) -> np.ndarray:
    """An array of NaN in anonymous memory that forked workers share."""
    buf = mmap.mmap(-1, entries * 8)
    V = np.frombuffer(buf, dtype=np.float64)
    V[:] = np.nan
    return V


def _fill_nan(V: np.ndarray) -> None:
    step = 1 << 22
    for lo in range(0, len(V), step):
        V[lo:lo + step] = np.nan


class Checkpoint:
    """`<table>.partial.npy` (the table so far) and `.partial.json` (the key, the finished layers and
    a digest of each), so a solve can stop after any layer and go on later."""

    def __init__(self, final: Path, key: str, entries: int, warn: Callable[[str], None]):
        self.final, self.key, self.entries = final, key, entries
        self.npy = final.with_name(final.stem + ".partial.npy")
        self.meta = final.with_name(final.stem + ".partial.json")
        self.done: dict[int, str] = {}
        self.V = self._open(warn)

    def _open(self, warn) -> np.memmap:
        self.npy.parent.mkdir(parents=True, exist_ok=True)
        if self.meta.exists() and self.npy.exists():
            try:
                raw = cachedir.read_sealed(self.meta, 1 << 20)
                if raw is None:
                    raise ValueError("not sealed")
                meta = json.loads(raw)
                if not isinstance(meta, dict) or not isinstance(meta.get("layers", {}), dict):
                    raise ValueError("not a checkpoint")
                if not os.path.isfile(self.npy) or os.path.islink(self.npy):
                    raise ValueError("not a regular file")
                V = np.load(self.npy, mmap_mode="r+", allow_pickle=False)
                if meta.get("key") == self.key and V.shape == (self.entries,) and V.dtype == tablefile.DTYPE:
                    self.done = {int(k): d for k, d in meta.get("layers", {}).items()}
                    return V
                warn(f"{self.npy}: a checkpoint of another solve; starting afresh")
            except (OSError, ValueError, EOFError, TypeError):
                warn(f"{self.npy}: an unreadable checkpoint; starting afresh")
        V = np.lib.format.open_memmap(self.npy, mode="w+", dtype=tablefile.DTYPE, shape=(self.entries,))
        _fill_nan(V)
        self.done = {}
        self._write_meta()
        return V

    def verify(self, layer: int, idx: np.ndarray) -> bool:
        """Whether a finished layer's values are still the ones written (else it is solved again)."""
        return self.done.get(layer) == tablefile.digest(np.asarray(self.V[idx]))

    def finish_layer(self, layer: int, idx: np.ndarray) -> None:
        self.V.flush()
        self.done[layer] = tablefile.digest(np.asarray(self.V[idx]))
        self._write_meta()

    def _write_meta(self) -> None:
        data = json.dumps({"key": self.key, "entries": self.entries,
                           "layers": {str(k): d for k, d in self.done.items()}}).encode("utf-8")
        if not cachedir.write_sealed(self.meta, data):
            raise OSError(f"{self.meta} cannot be written")

    def complete(self) -> np.memmap:
        """Move the finished table to its final name; the values, memory-mapped from there."""
        self.V.flush()
        del self.V
        os.replace(self.npy, self.final)
        self.meta.unlink(missing_ok=True)
        return np.load(self.final, mmap_mode="r", allow_pickle=False)


# the driver -------------------------------------------------------------------------------------

def run(space: "Space", limits: Limits = Limits(), progress: Callable[[int, int], None] | None = None,
        checkpoint: tuple[Path, str] | None = None, warn: Callable[[str], None] | None = None,
        est: Estimate | None = None) -> tuple[np.ndarray, int, float]:
    """Solve every layer; (values, states, seconds). `checkpoint` = (final table path, cache key)."""
    from .cache import warn_stderr as _stderr
    warn = warn or _stderr
    est = est or estimate(space, limits, on_disk=checkpoint is not None, probe=False)
    refuse_beyond(space, est, limits)
    start = time.perf_counter()
    counts = space.level_counts()
    weight = [counts[k] * (space.n - k + 1) for k in range(space.n + 1)]  # work grows with open boxes
    total_work, done_work = sum(weight), 0
    cp = Checkpoint(checkpoint[0], checkpoint[1], space.entries, warn) if checkpoint else None
    # the compiled kernel releases the GIL: several jobs are threads sharing the table (nothing forked,
    # pickled or copied); the numpy kernel and the box-by-box path run in forked worker processes
    threads = limits.jobs > 1 and kernel.compiled() is not None and kernelplan.plan(space) is not None
    if cp is not None:
        V = cp.V
    elif limits.jobs > 1 and not threads:
        V = _shared(space.entries)
    else:
        V = np.full(space.entries, np.nan)
    pool = crew = None
    layer = space.n
    try:
        kernelplan.plan(space)  # laid out (and the kernel compiled) once, before workers start
        settled.plan(space)
        kernel.compiled()
        if limits.jobs > 1:
            if threads:
                crew = _Crew(limits.jobs)
            else:  # (multiprocessing imported only here)
                _JOB.update(space=space, V=V)
                from ..model.workers import pool as quiet_pool
                pool = quiet_pool(limits.jobs)
        for layer in range(space.n, -1, -1):
            masks, feats = _level(space, layer)
            idx = space.index(masks, feats)
            if cp is not None and layer in cp.done:
                if cp.verify(layer, idx):
                    done_work += weight[layer]
                    continue
                warn(f"{cp.npy}: layer {layer} of the checkpoint was changed; solving it again")
                for k in [k for k in cp.done if k <= layer]:
                    del cp.done[k]
            if layer == space.n:
                V[idx] = space.end_values(masks, feats)
            else:
                alone, to, source = settled.split(space, masks, feats, idx)  # settled totals: solved once
                whole = len(masks)
                masks, feats, sidx = masks[alone], feats[alone], idx[alone]
                if crew is not None:
                    def report(solved: int, done: int = done_work, share: int = weight[layer],
                               whole: int = whole) -> None:
                        progress(done + share * solved // whole, total_work)
                    crew.solve(space, V, masks, feats, sidx, report if progress else None)
                elif pool is None:
                    step = batch_size(space)
                    for lo in range(0, len(masks), step):
                        _solve_chunk(space, V, masks[lo:lo + step], feats[lo:lo + step], sidx[lo:lo + step])
                        if progress:
                            progress(done_work + weight[layer] * min(len(masks), lo + step) // whole, total_work)
                else:
                    step = max(TURN_CHUNK, min(batch_size(space), -(-len(masks) // (4 * limits.jobs))))
                    tasks = [(masks[lo:lo + step], feats[lo:lo + step], sidx[lo:lo + step])
                             for lo in range(0, len(masks), step)]
                    solved = 0
                    for n in pool.imap_unordered(_work, tasks):
                        solved += n
                        if progress:
                            progress(done_work + weight[layer] * solved // whole, total_work)
                V[to] = V[source]
            done_work += weight[layer]
            if cp is not None:
                cp.finish_layer(layer, idx)
            if progress:
                progress(done_work, total_work)
    except KeyboardInterrupt:
        if pool is not None:
            pool.kill()
            pool = None
        if cp is not None:
            solved = sum(counts[k] for k in cp.done)
            raise Interrupted(Message("interrupted with {open} boxes open; {saved} of {total} states are saved in {path}",
                                      {"open": space.n - layer, "saved": Number(solved), "total": Number(sum(counts)),
                                       "path": str(cp.npy)}),
                              hint=Message("run the same command again to resume")) from None
        raise Interrupted(Message("interrupted; nothing was saved (the cache was off)")) from None
    finally:
        if crew is not None:
            crew.close()
        if pool is not None:
            pool.close()
            pool.join()
        _JOB.clear()
    if cp is not None:
        V = cp.complete()
    return V, sum(counts), time.perf_counter() - start
