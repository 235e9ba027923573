"""Large runs on a Dask cluster: blocks of games and compared variants as Dask tasks
(`rulebook simulate … --scheduler ADDRESS`, `rulebook compare … --scheduler ADDRESS`; docs/research.md).

What travels to a worker is the model's text, its file name (for messages), its options as
strings, the seats and the seeds: plain values. Each worker loads the model from the text (once per
process and text) and runs the very function a local run runs for the same block: `bulk.play_block`
for a block of games played in bulk (block b from `numpy.random.default_rng([seed, b])`),
`simulate.play_batch` for games played one by one (game i from `random.Random(game_seed(seed, i))`),
`compare.measure` for a variant. What comes back are the results (sheets, points, rolls, measures).
So one seed gives the same numbers on a cluster as on one machine, however many workers there are.
Workers need rulebook installed (with its model files only for bundled names: the text travels).
"""
from __future__ import annotations

import threading
from functools import lru_cache
from typing import Callable

from ..model.errors import UsageError
from ..model.frozen import Model

# games per task where games are played one by one (any split gives the same games)
GAME_BATCH = 200
# one task at a time per worker process: the engine's and bulk play's caches (plans, tables) are per
# process and not made for threads, so a worker with several threads runs its tasks in turn
_ONE_AT_A_TIME = threading.Lock()


def connect(address: str):
    """A client of the scheduler at `address`; UsageError without Dask or without an answer."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise UsageError("--scheduler needs Dask: install rulebook with the extra [dask]",
                         hint="pip install 'rulebook[dask]'") from None
    try:
        return Client(address)  # waits as long as Dask's distributed.comm.timeouts.connect (30 s; DASK_… variables)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        raise UsageError("cannot reach the Dask scheduler at {address}: {reason}", address=address,
                         reason=str(exc) or type(exc).__name__) from None


def carried(model: Model) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """What travels for a model: its text, its file name and its bound options as strings."""
    options = tuple(sorted((k, str(v).lower() if isinstance(v, bool) else str(v)) for k, v in model.option_values.items()))
    return model.source, model.path, options


@lru_cache(maxsize=16)
def loaded(source: str, file: str, options: tuple[tuple[str, str], ...]) -> Model:
    """A worker's model, loaded from the text that travelled (once per process, text and options)."""
    from ..model.loader import load_source
    return load_source(source, file, dict(options))


def bulk_block(text, kinds: list[str], size: int, seed: int, block: int):
    """One block of bulk games on a worker: `bulk.play_block`, as a local run plays it (the arrays
    come back; the client makes them results as a local run does, `bulk.results`)."""
    from ..play import bulk
    with _ONE_AT_A_TIME:
        return bulk.play_block(loaded(*text), kinds, size, seed, block)


def game_batch(text, seats, seeds: list[int]):
    """Games one by one on a worker: `simulate.play_batch`, as a local run plays them."""
    from ..play.simulate import play_batch
    with _ONE_AT_A_TIME:
        return play_batch(loaded(*text), seats, seeds)


def measure_variant(text, label: str, games: int, seed: int):
    """One variant's measures on a worker: `compare.measure` (the caller keeps the cache)."""
    from ..play.compare import measure
    with _ONE_AT_A_TIME:
        return measure(loaded(*text), label, games, seed, None, use_cache=False)


def run_tasks(address: str, fn: Callable, tasks: list[tuple], progress: Callable[[int], None] | None = None) -> list:
    """fn(*task) for every task on the cluster; the results in the tasks' order."""
    client = connect(address)
    try:
        from dask.distributed import as_completed
        futures = [client.submit(fn, *task, pure=False) for task in tasks]
        where = {f.key: i for i, f in enumerate(futures)}
        out: list = [None] * len(futures)
        for future in as_completed(futures):
            out[where[future.key]] = future.result()
            if progress:
                progress(where[future.key])
        return out
    finally:
        client.close()


def run_games(model: Model, seats, games: int, seed: int, address: str, progress=None, engine: str = "auto"):
    """`simulate.run_games` on a cluster: the same games, block by block or batch by batch."""
    from ..play import bulk
    from ..play.simulate import results_of_blocks
    text = carried(model)
    kinds = [s.kind for s in seats]
    if engine != "game" and bulk.unsupported(model, kinds) is None:
        sizes = bulk.block_sizes(games)
        done = [0]

        def tick(i):
            done[0] += sizes[i]
            if progress:
                progress(done[0], games)
        blocks = run_tasks(address, bulk_block, [(text, kinds, size, seed, b) for b, size in enumerate(sizes)], tick)
        return results_of_blocks(model, blocks, seats)
    if engine == "bulk":
        raise UsageError(bulk.unsupported(model, kinds), hint="play them one by one with --engine game")
    from ..play.simulate import game_seeds
    seeds = game_seeds(seed, games)
    batches = [seeds[i:i + GAME_BATCH] for i in range(0, games, GAME_BATCH)]
    done = [0]

    def tick(i):
        done[0] += len(batches[i])
        if progress:
            progress(done[0], games)
    parts = run_tasks(address, game_batch, [(text, seats, b) for b in batches], tick)
    return [r for part in parts for r in part]


def measure_variants(models: list[tuple[str, Model]], games: int, seed: int, address: str, progress=None) -> list:
    """`compare.measure` of each (label, model) on the cluster, one task per variant, in order."""
    return run_tasks(address, measure_variant, [(carried(m), label, games, seed) for label, m in models], progress)
