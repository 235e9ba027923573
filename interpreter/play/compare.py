"""Rule variants side by side: what a change of the rules does to the game.

For each variant (options of one model, or another model file) `measure` works out:
- the best play's expected final score: exact from the solver where the model is solvable, else the
  mean of the strongest bot there is (`strong` where it exists, else `greedy`), labelled as such;
- the spread and distribution of final scores: exact where the solver reads the model and its exact
  distribution of the final score can be worked out (`solver.distribution`, `exact_spread`), else from
  simulated games of that player; how often each box is scratched (scored 0), how often each bonus is
  earned, from simulated games;
- the skill gap: the means of optimal (or the best bot), greedy and random play;
- how often the first player wins a two-player game between two equal players;
- how long a game is: turns and rolls per player.

Results are kept in the solver's cache folder, keyed by the model's hash, its options, the number of
games and the seed, so asking again is instant.
"""
from __future__ import annotations

import hashlib
import json
import random
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..solver.abstraction import NotSolvable
from ..engine.actions import Roll, Write
from ..players.registry import BOTS, make_bot
from .simulate import game_seed
from ..model.errors import UsageError
from ..model.frozen import Model
from ..engine.state import CHANCE, GameState

VERSION = 6  # 2: greedy and optimal games played in bulk, 3: random ones too (other games, the same statistics),
# 4: the exact distribution of the final score where the solver reads the model, 5: game i from game_seed(seed, i),
# 6: the first player's and the second's share with their standard errors
Progress = Callable[[str, int, int], None]  # (stage, done, total); stages: STAGES
STAGES = ("solving", "best", "greedy", "random", "two_players")
EXACT_STATES = 2_000_000  # the exact distribution of the final score up to this many solver states (the biggest bundled table: 536,448)


@dataclass(frozen=True)
class Variant:
    """One side of a comparison: a model (bundled name or file) with chosen options."""

    label: str
    model: str
    options: dict[str, str] = field(default_factory=dict)


@dataclass
class Games:
    """What a number of games of one kind of player showed."""

    player: str
    games: int
    mean: float
    stdev: float
    stderr: float
    percentiles: dict[str, float]
    totals: list[int]
    zero_rate: dict[str, float]
    bonus_rate: dict[str, float]
    turns: float  # per player and game
    rolls: float  # per player and game


@dataclass
class Measures:
    """Everything `compare` reports about one variant."""

    label: str
    model: str
    name: dict[str, str]
    options: dict[str, Any]
    player: str  # who played the score games: optimal, strong or greedy
    exact: bool  # expected_score comes from the solver
    expected_score: float
    stdev: float
    percentiles: dict[str, float]
    totals: list[int]
    zero_rate: dict[str, float]
    bonus_rate: dict[str, float]
    skill: dict[str, float]  # means of the best player (`player`), greedy and random, and the gaps
    first_player: dict[str, float] | None
    turns: float
    rolls: float
    games: int
    seed: int
    unsolvable: str | None = None
    states: int | None = None
    exact_spread: bool = False  # stdev, percentiles and distribution are exact (the solver's), not sampled
    distribution: dict[str, float] | None = None  # final score (a string) -> probability, where exact
    versus: dict[str, Any] | None = None  # two kinds of player against each other (`head_to_head`), where asked

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def parse_variant(text: str) -> dict[str, str]:
    """'a=1,b=x' → {'a': '1', 'b': 'x'}; refuses a pair without '='."""
    out: dict[str, str] = {}
    for pair in text.split(","):
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError("--variant needs NAME=VALUE[,NAME=VALUE…], not '{text}'", text=text)
        out[name.strip()] = value.strip()
    return out


def best_heuristic() -> str:
    """The strongest bot that needs no solver."""
    return "strong" if "strong" in BOTS else "greedy"


# playing ---------------------------------------------------------------------------------------

@dataclass
class _Game:
    totals: list[int]
    sheets: list[dict[str, int]]
    bonuses: list[dict[str, int]]
    ranks: list[int]
    turns: list[int]
    rolls: list[int]


def _play(model: Model, bots: list, seed: int) -> _Game:
    """One game among bots, dice and bots drawing from one RNG seeded with `seed`."""
    rng = random.Random(seed)
    n = len(bots)
    state = GameState(model, [f"p{i}" for i in range(n)])
    for b in bots:
        if hasattr(b, "rng"):
            b.rng = rng
    turns, rolls = [0] * n, [0] * n
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            rolls[state.player] += 1
            faces = tuple(rng.randint(1, f) for f in state.faces_to_roll())  # (dice that differ: group after group)
            state.apply(Roll(faces if model.grouped else tuple(sorted(faces))))
        else:
            p = state.player
            action = bots[state.current_player()].choose(state)  # the player asked (by: others/all)
            if isinstance(action, Write) and state.current_player() == p:
                turns[p] += 1
            state.apply(action)
    totals = [state.totals(p) for p in range(n)]
    ranks = {name: rank for rank, name, _ in state.ranking()}
    return _Game([t["total"] for t in totals], [dict(s) for s in state.sheets],
                 [{b.id: t[b.id] for b in model.bonuses} for t in totals],
                 [ranks[f"p{i}"] for i in range(n)], turns, rolls)


def bulk_reason(model: Model, kinds: list[str]):
    """Why these players cannot be played in bulk here (None: they can; see bulk.unsupported)."""
    from . import bulk
    return bulk.unsupported(model, kinds, allow_random=True)


def _bulk_play(model: Model, kinds: list[str], games: int, seed: int,
               update: Callable[[int, int], None] | None) -> list[_Game]:
    """Games played in lockstep by `bulk` (its own seeding: block b from numpy's default_rng([seed, b]))."""
    from . import bulk
    blocks = bulk.run_games(model, kinds, games, seed, progress=update)
    results = bulk.results(model, blocks, [f"p{i}" for i in range(len(kinds))])
    rolls = [[int(r) for b in blocks for r in b[seat].rolls] for seat in range(len(kinds))]
    turns = len(model.cells)  # one write per cell: bulk plays only sheets of one entry per box
    return [_Game(r.totals, r.sheets, r.bonuses, r.ranks, [turns] * len(kinds), [rolls[s][g] for s in range(len(kinds))])
            for g, r in enumerate(results)]


def play_games(model: Model, kind: str, games: int, seed: int, update: Callable[[int, int], None] | None = None,
               engine: str = "auto") -> Games:
    """`games` solitaire games of one kind of player (for a game of at least two players, games of
    the fewest it takes, all of that kind, measured on the first). engine "game": one by one through the engine,
    game i from `simulate.game_seed(seed, i)`; "bulk": all at once (greedy, optimal and random players where `bulk` takes
    the model); "auto": bulk where it can."""
    seats = max(1, model.min_players)  # a game for at least two: the first of the fewest players it takes
    if engine != "game" and seats == 1 and bulk_reason(model, [kind]) is None:
        results = _bulk_play(model, [kind], games, seed, update)
    else:
        bot = make_bot(kind, model, random.Random(seed))
        results = []
        for i in range(games):
            results.append(_play(model, [bot] * seats, game_seed(seed, i)))
            if update and (i % 10 == 9 or i == games - 1):
                update(i + 1, games)
    totals = sorted(g.totals[0] for g in results)
    sd = statistics.stdev(totals) if games > 1 else 0.0
    return Games(
        player=kind, games=games, mean=statistics.fmean(totals), stdev=sd, stderr=sd / games ** 0.5,
        percentiles={f"p{q}": _percentile(totals, q) for q in (5, 25, 50, 75, 95)},
        totals=[g.totals[0] for g in results],
        zero_rate=_zero_rates(model, results),
        bonus_rate={b.id: sum(1 for g in results if g.bonuses[0][b.id] > 0) / games for b in model.bonuses},
        turns=statistics.fmean(g.turns[0] for g in results),
        rolls=statistics.fmean(g.rolls[0] for g in results))


def _cells_of(model: Model) -> dict[str, list[str]]:
    """Each box's cells: itself on a plain sheet; `box#k` / `box@column` where a box has several."""
    targets = getattr(model, "targets", None)
    if not targets:
        return {b: [b] for b in model.boxes}
    out: dict[str, list[str]] = {b: [] for b in model.boxes}
    for t in targets.values():
        out[t.box].extend(t.cells)
    return {b: cells or [b] for b, cells in out.items()}


def _zero_rates(model: Model, results: list[_Game]) -> dict[str, float]:
    """Per box: the share of its entries (cells, over all games) written with 0."""
    out = {}
    for box, cells in _cells_of(model).items():
        zeros = sum(1 for g in results for c in cells if g.sheets[0].get(c) == 0)
        out[box] = zeros / (len(results) * len(cells))
    return out


def first_player_wins(model: Model, kind: str, games: int, seed: int,
                      update: Callable[[int, int], None] | None = None, engine: str = "auto") -> dict[str, float] | None:
    """Two equal players: how often the first one wins alone, the second alone, or they tie."""
    if not model.min_players <= 2 <= model.max_players:
        return None
    if engine != "game" and bulk_reason(model, [kind, kind]) is None:
        played = iter(_bulk_play(model, [kind, kind], games, seed, update))
        update = None
    else:
        bots = [make_bot(kind, model, random.Random(seed)), make_bot(kind, model, random.Random(seed + 1))]
        played = (_play(model, bots, game_seed(seed, i)) for i in range(games))
    first = second = ties = 0
    for i in range(games):
        g = next(played)
        if g.ranks[0] == g.ranks[1]:
            ties += 1
        elif g.ranks[0] < g.ranks[1]:
            first += 1
        else:
            second += 1
        if update and (i % 10 == 9 or i == games - 1):
            update(i + 1, games)
    return {"games": games, "first": first / games, "second": second / games, "tie": ties / games,
            "first_stderr": _stderr(first / games, games), "second_stderr": _stderr(second / games, games)}


def _stderr(p: float, n: int) -> float:
    """The standard error of a share p of n games (binomial)."""
    return (p * (1 - p) / n) ** 0.5 if n else 0.0


def head_to_head(model: Model, kinds: tuple[str, str], games: int, seed: int,
                 update: Callable[[int, int], None] | None = None) -> dict[str, Any] | None:
    """Two players of these kinds against each other (None: the game is not for two): half the games
    with the first kind seated first (run seed `seed`), half seated second (`seed + 1`; the games of
    neighbouring seeds are independent, `simulate.game_seed`), in bulk where bulk play takes the seats.
    The first kind's share of the games won, a tie counted half, with its standard error: over all
    games and per seat."""
    if not model.min_players <= 2 <= model.max_players:
        return None
    from .game import Seat
    from .simulate import run_games
    out: dict[str, Any] = {"players": list(kinds), "games": games}
    total = 0.0
    for order, n in (("first", (games + 1) // 2), ("second", games // 2)):
        seats = [Seat("a", kinds[0]), Seat("b", kinds[1])]
        me = 0 if order == "first" else 1
        if me:
            seats.reverse()
        won = 0.0
        if n:
            results = run_games(model, seats, n, seed + me, progress=update)
            ranks = getattr(results, "ranks", None)
            pairs = ranks.tolist() if ranks is not None else [r.ranks for r in results]
            won = sum(1.0 if r[me] < r[1 - me] else 0.5 if r[me] == r[1 - me] else 0.0 for r in pairs)
        total += won
        rate = won / n if n else 0.0
        out[order] = {"games": n, "win_rate": rate, "win_rate_stderr": _stderr(rate, n)}
    out["win_rate"] = total / games
    out["win_rate_stderr"] = _stderr(total / games, games)
    return out


def _percentile(sorted_values: list[int], q: int) -> float:
    k = (len(sorted_values) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


# one variant -----------------------------------------------------------------------------------

def measure(model: Model, label: str, games: int, seed: int, progress: Progress | None = None,
            use_cache: bool = True) -> Measures:
    """All measures of one variant (from the cache when it has them)."""
    if use_cache:
        cached = _cached(model, label, games, seed)
        if cached is not None:
            return cached

    def step(what: str):
        return (lambda done, total: progress(what, done, total)) if progress else None

    from ..solver.solve import solved
    from ..solver.space import Space
    unsolvable, expected, states = None, None, None
    try:
        Space(model)
    except NotSolvable as exc:
        unsolvable = exc.message
    dist = None
    if unsolvable is None:
        space, table = solved(model, step("solving"))
        expected, states = table.expected_score, table.states
        best = "optimal"
        if states <= EXACT_STATES:
            from ..solver.distribution import score_distribution
            try:
                dist = score_distribution(space, table.values)
            except UsageError:  # (fractions, points taken away, no compiled planner): sampled as before
                dist = None
    else:
        best = best_heuristic()
    top = play_games(model, best, games, seed, step("best"))
    greedy = top if best == "greedy" else play_games(model, "greedy", games, seed, step("greedy"))
    rand = play_games(model, "random", games, seed, step("random"))
    first = first_player_wins(model, best, games, seed, step("two_players"))
    top_mean = expected if expected is not None else top.mean
    skill = {"best": top_mean, "greedy": greedy.mean, "random": rand.mean,
             "best_minus_greedy": top_mean - greedy.mean, "greedy_minus_random": greedy.mean - rand.mean}
    out = Measures(
        label=label, model=model.id, name=dict(model.name),
        options={k: (str(v).lower() if isinstance(v, bool) else v) for k, v in model.option_values.items()},
        player=best, exact=expected is not None, expected_score=top_mean, stdev=top.stdev,
        percentiles=top.percentiles, totals=top.totals, zero_rate=top.zero_rate, bonus_rate=top.bonus_rate,
        skill=skill, first_player=first, turns=top.turns, rolls=top.rolls, games=games, seed=seed,
        unsolvable=unsolvable, states=states)
    if dist is not None:
        from ..solver.distribution import summary
        mean, pct = summary(dist)
        out.exact_spread = True
        out.stdev = sum(p * (x - mean) ** 2 for x, p in dist.items()) ** 0.5
        out.percentiles = {f"p{q}": float(v) for q, v in pct.items()}
        out.distribution = {str(x): p for x, p in dist.items()}
    if use_cache:
        _store(model, out)
    return out


def _cached(model: Model, label: str, games: int, seed: int) -> Measures | None:
    """A variant's measures from the cache (None: not there, or damaged and measured again)."""
    from ..model.cachedir import read_sealed
    raw = read_sealed(cache_file(model, games, seed), 1 << 20)  # None: missing, forged or damaged
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        data["label"] = label
        return Measures(**data)
    except (ValueError, TypeError, KeyError, RecursionError):
        return None


def _store(model: Model, out: Measures) -> None:
    from ..model.cachedir import write_sealed
    write_sealed(cache_file(model, out.games, out.seed), json.dumps(out.to_json()).encode("utf-8"))  # no cache, no harm


def cache_file(model: Model, games: int, seed: int) -> Path:
    """Where one variant's measures are kept (beside the solver's tables)."""
    from ..solver.cache import cache_dir
    opts = json.dumps(model.option_values, sort_keys=True, default=str)
    key = hashlib.sha256(f"{VERSION}|{model.hash}|{opts}|{games}|{seed}|{best_heuristic()}".encode()).hexdigest()[:20]
    return cache_dir() / f"compare-{model.id}-{key}.json"


def compare(variants: list[tuple[Variant, Model]], games: int, seed: int,
            progress: Callable[[Variant], Progress] | None = None, use_cache: bool = True,
            remote: Callable[[list[tuple[str, Model]]], list[Measures]] | None = None) -> list[Measures]:
    """The measures of every variant, in order. remote: measures the (label, model) pairs not in the cache
    elsewhere (`adapters/cluster.measure_variants` as tasks of a Dask scheduler), the same numbers as here."""
    if games < 1:
        raise UsageError("--games must be at least 1")
    if remote is None:
        return [measure(model, v.label, games, seed, progress(v) if progress else None, use_cache)
                for v, model in variants]
    out: list[Measures | None] = [_cached(m, v.label, games, seed) if use_cache else None for v, m in variants]
    missing = [i for i, m in enumerate(out) if m is None]
    measured = remote([(variants[i][0].label, variants[i][1]) for i in missing])
    for i, m in zip(missing, measured):
        out[i] = m
        if use_cache:
            _store(variants[i][1], m)
    return out
