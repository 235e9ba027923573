"""Many games between computer players, with statistics: means, spreads, zeros, bonus rates.

Two engines play them. The per-game engine (`play_one`, through `GameState`) is the reference:
game i draws its dice die by die and its bots' choices from `random.Random(game_seed(seed, i))`, a
hash of (seed, i), so that two run seeds play independent games (seed + i made seeds 11 and 12 replay
nearly the same games). Where every
seat is a greedy or optimal bot and the model allows it (`bulk.unsupported`), `run_games` plays
them in bulk instead (`bulk.py`: all games in lockstep with numpy, dice from
`numpy.random.default_rng([seed, block])`): the same bots and the same statistics, other dice.
Both are reproducible from the seed and independent of `jobs`; tests check they agree.
"""
from __future__ import annotations

import random
import statistics
from dataclasses import dataclass, field
from typing import Callable

from .game import Seat
from ..model.frozen import Model
from ..players.registry import make_bot
from ..engine.state import CHANCE, GameState
from ..engine.actions import Roll
from .results import Result


def game_seed(seed: int, i: int) -> int:
    """Game i's own seed in a run seeded `seed`: 64 bits of SHA-256 of both, so neighbouring run seeds
    (or games) share no game, and one run seed always gives the same games."""
    import hashlib
    return int.from_bytes(hashlib.sha256(f"rulebook-game:{seed}:{i}".encode()).digest()[:8], "big")


def game_seeds(seed: int, games: int) -> list[int]:
    """The seeds of a run's games 0 … games-1 (`game_seed`)."""
    return [game_seed(seed, i) for i in range(games)]


def spread_stderr(values) -> float:
    """The standard error of a sample's standard deviation, from its fourth moment: sqrt((m4 - s^4) / n) / 2s.
    A score with rare big bonuses has heavy tails, and then the normal s / sqrt(2n) is far too small
    (a bundled game's greedy scores, kurtosis 9.9: 3.66 over 400 games, not 1.74)."""
    n = len(values)
    if n < 2:
        return float("inf")
    mean = statistics.fmean(values)
    s = statistics.stdev(values)
    if s == 0:
        return 0.0
    m4 = statistics.fmean([(v - mean) ** 4 for v in values])
    return max(m4 - s**4, 0.0) ** 0.5 / (2 * s * n**0.5)


def play_one(model: Model, seats: list[Seat], seed: int, bots=None) -> Result:
    """A whole game with bots only, dice and bots drawing from one RNG seeded with `seed`."""
    rng = random.Random(seed)
    state = GameState(model, [s.name for s in seats])
    bots = bots or [make_bot(s.kind, model, rng) for s in seats]
    for b in bots:
        if hasattr(b, "rng"):
            b.rng = rng
    faces = model.faces
    # dice that differ: each die drawn with its group's faces, group after group (the engine sorts each group)
    grouped = model.grouped
    while not state.is_terminal():
        p = state.current_player()
        if p == CHANCE:
            if grouped:
                state.apply(Roll(tuple(rng.randint(1, f) for f in state.faces_to_roll())))
                continue
            m = state.dice_to_roll()
            state.apply(Roll(tuple(sorted(rng.randint(1, faces) for _ in range(m)))))
        else:
            state.apply(bots[p].choose(state))  # the player asked (at a step every player takes, not only the active one)
    totals = [state.totals(p) for p in range(len(seats))]
    ranks = {name: rank for rank, name, _ in state.ranking()}
    finals = None if model.ranking is None else [f[0] for f in state.final_scores()]
    return Result([dict(s) for s in state.sheets],
                  [{b.id: t[b.id] for b in model.bonuses} for t in totals],
                  [t["total"] for t in totals], [ranks[s.name] for s in seats], finals)


def play_batch(model: Model, seats: list[Seat], seeds: list[int]) -> list[Result]:
    """Games one by one, game i from its seed: what a worker process (or a Dask task) plays."""
    bots = [make_bot(s.kind, model, random.Random(0)) for s in seats]
    return [play_one(model, seats, seed, bots) for seed in seeds]


def _worker(args):
    model_ref, options, seats, seeds = args
    from ..model.loader import load_model
    return play_batch(load_model(model_ref, options), seats, seeds)


def results_of_blocks(model: Model, blocks, seats: list[Seat]) -> list[Result]:
    """Bulk blocks (`bulk.play_block`) as results, seats named."""
    from . import bulk
    return bulk.results(model, blocks, [s.name for s in seats])


ENGINES = ("auto", "bulk", "game")


def run_games(model: Model, seats: list[Seat], games: int, seed: int, jobs: int = 1,
              progress: Callable[[int, int], None] | None = None, engine: str = "auto") -> list[Result]:
    """The games' results; they do not depend on the number of jobs, nor on where they are played
    (`adapters/cluster.py` plays the same blocks of games as tasks of a Dask scheduler).

    engine: "game" plays each game through the per-game engine (game i from game_seed(seed, i)); "bulk" all
    at once (`bulk.py`; UsageError if the seats or the model do not allow it); "auto" bulk where
    it can, else game by game.
    """
    if engine != "game":
        from . import bulk
        kinds = [s.kind for s in seats]
        why = bulk.unsupported(model, kinds)
        if why is None:
            blocks = bulk.run_games(model, kinds, games, seed, jobs, progress)
            return results_of_blocks(model, blocks, seats)
        if engine == "bulk":
            from ..model.errors import UsageError
            raise UsageError(why, hint="play them one by one with --engine game")
    seeds = game_seeds(seed, games)
    if jobs <= 1:
        bots = [make_bot(s.kind, model, random.Random(0)) for s in seats]
        out = []
        for i, s in enumerate(seeds):
            out.append(play_one(model, seats, s, bots))  # as play_batch, with progress
            if progress and (i % 10 == 9 or i == games - 1):
                progress(i + 1, games)
        return out
    options = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in model.option_values.items()}
    size = max(1, min(200, games // (jobs * 4) or 1))
    batches = [(model.path, options, seats, seeds[i:i + size]) for i in range(0, games, size)]
    out: list[Result] = []
    from ..model.workers import pool as quiet_pool
    with quiet_pool(jobs) as pool:
        for part in pool.imap(_worker, batches):
            out.extend(part)
            if progress:
                progress(len(out), games)
    return out


@dataclass
class Summary:
    player: str
    kind: str
    games: int
    mean: float
    stdev: float
    stderr: float
    percentiles: dict[str, float]
    wins: int
    zero_rate: dict[str, float] = field(default_factory=dict)
    bonus_rate: dict[str, float] = field(default_factory=dict)
    bonus_mean: dict[str, float] = field(default_factory=dict)
    # the model's own final score (Model.ranking) beside the grand total: its mean, spread and
    # percentiles like the total's; None for a model ranked by the grand total
    final: dict | None = None


def summarize(model: Model, seats: list[Seat], results: list[Result]) -> list[Summary]:
    from .columns import Columns, summary_of
    if isinstance(results, Columns) and len(results):  # bulk games: from the arrays
        return [Summary(seat.name, seat.kind, len(results), **summary_of(model, p, results)) for p, seat in enumerate(seats)]
    out = []
    n = len(results)
    for p, seat in enumerate(seats):
        totals = sorted(r.totals[p] for r in results)
        mean = statistics.fmean(totals)
        sd = statistics.stdev(totals) if n > 1 else 0.0
        pct = {f"p{q}": _percentile(totals, q) for q in (5, 25, 50, 75, 95)}
        # per write target: the share of its entries written as 0
        zero = {t.id: sum(1 for r in results for c in t.cells if r.sheets[p].get(c, 0) == 0) / (n * len(t.cells))
                for t in model.targets.values()}
        brate = {b.id: sum(1 for r in results if r.bonuses[p][b.id] > 0) / n for b in model.bonuses}
        bmean = {b.id: statistics.fmean(r.bonuses[p][b.id] for r in results) for b in model.bonuses}
        wins = sum(1 for r in results if r.ranks[p] == 1)
        out.append(Summary(seat.name, seat.kind, n, mean, sd, sd / n**0.5 if n else 0.0, pct, wins, zero, brate, bmean,
                           _final(model, [r.finals[p] for r in results if r.finals is not None])))
    return out


def _final(model: Model, finals: list[int]) -> dict | None:
    """Mean, spread and percentiles of the model's own final score (None without a ranking)."""
    if model.ranking is None or not finals:
        return None
    n = len(finals)
    finals = sorted(finals)
    sd = statistics.stdev(finals) if n > 1 else 0.0
    return {"name": dict(model.ranking.name), "mean": statistics.fmean(finals), "stdev": sd,
            "stderr": sd / n**0.5, "percentiles": {f"p{q}": _percentile(finals, q) for q in (5, 25, 50, 75, 95)}}


def _percentile(sorted_values: list[int], q: int) -> float:
    if not sorted_values:
        return 0.0
    k = (len(sorted_values) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)
