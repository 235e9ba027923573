"""Many bot games at once: every game advanced in lockstep with numpy over the games.

The per-game engine (`simulate.play_one` through `GameState`) stays the reference; this module
plays the same bots faster where a model allows it (`unsupported` says why not):

- Each seat is played on its own: greedy and optimal bots never look at another player's sheet,
  so a seat's games are its own turns, one after another. Ranks are worked out at the end.
- A turn-start state of a seat is the solver's (`solver.Space`: filled boxes plus tracked sheet
  quantities). For every state a *plan* is computed once, for a whole batch of new states at a
  time, the way the solver values states: per roll, the box the bot writes (points + write
  bonus + the value of the next state, from the solver's table for the optimal bot, zero for the
  greedy one), its points, write bonuses and the next state; per reroll layer and roll, the keep
  the bot chooses (`TurnTables.layers`, the same tie-breaks as `PlannerBot.choose`: the first box
  on the sheet, the larger keep). Plans are kept in a cache with a memory bound.
- Dice are drawn for all games at once from a numpy generator: a roll after keeping k is one
  uniform number looked up in the cumulative distribution of the rolls that keep can lead to.

Seed discipline: games are played in blocks of `BLOCK`; block b draws from
`numpy.random.default_rng([seed, b])`, seats in order. The results do not depend on `--jobs`, and
one seed always gives the same games. They are not the per-game engine's games (that one draws
die by die from `random.Random(simulate.game_seed(seed, i))`); tests check both agree in distribution (mean and
spread within a few standard errors) and in every decision where the two can be compared exactly.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..solver import lockstep
from ..solver.abstraction import NotSolvable, turn_shape
from ..model.errors import Message
from ..model.frozen import Model
from .dice import Dice, dice_for  # noqa: F401 (Dice re-exported: bulk.Dice)
from .plans import DENSE_SLOTS, Plans

BLOCK = 2000  # games per block (one generator per block)
KINDS = ("greedy", "optimal", "win")  # win: one seat at most (`winbulk.usable`)
RANDOM = "random"  # uniformly random legal actions: played in bulk where asked for (`allow_random`)


def unsupported(model: Model, kinds: list[str], allow_random: bool = False) -> Message | None:
    """Why these bots on this model cannot be played in bulk, as a whole sentence (None: they can).

    allow_random: random players too (compare and the engine benchmark; `simulate` plays them one
    by one, game i from `simulate.game_seed(seed, i)`)."""
    bad = sorted(set(k for k in kinds if k not in KINDS and not (allow_random and k == RANDOM)))
    if bad:
        return Message("bulk play takes greedy and optimal computer players only, not {kinds}", {"kinds": ", ".join(bad)})
    from . import winbulk
    if not winbulk.usable(model, kinds):
        return Message("bulk play takes at most one computer player that plays to win, and that player needs numba")
    if model.end_if is not None:
        return Message("bulk play cannot play a game that may end early (end_if)")
    if not model.simple_sheet or model.ranking is not None:
        return Message("bulk play takes only sheets where every box takes one entry and the grand total ranks the players")
    try:
        turn_shape(model)
    except NotSolvable as exc:
        return exc.msg
    turn = next(s for s in model.flow.walk() if s.kind == "each_player")
    inside = {id(s) for s in turn.walk()}
    if any(s.kind in ("roll", "keep", "write") and id(s) not in inside for s in model.flow.walk()):
        return Message("bulk play cannot play a game with steps outside the players' turns")
    from ..solver.solve import greedy_space
    try:
        space = greedy_space(model)  # (the model's Space, made once: bulk play's greedy plans use it too)
    except NotSolvable as exc:
        return exc.msg
    if space.roll_dependent:
        return Message("bulk play cannot play a game whose points depend on the roll number")
    return None


@dataclass
class SeatGames:
    """A seat's finished games: points per box (games × boxes, -1 where never written), write
    bonuses (games × write bonuses) and rolls thrown per game (a turn ends its rolls when the bot
    keeps every die at a keep that may stop, as the per-game engine's `Stop`)."""

    points: np.ndarray
    bonus: np.ndarray
    rolls: np.ndarray
    final: np.ndarray | None = None  # the final state of each game (the solver's index), where known


def play_seat(plans: Plans, dice: Dice, games: int, rng: np.random.Generator, trace: list | None = None) -> SeatGames:
    """`games` solitaire games of one bot, all turns in lockstep (trace: gets each turn's (states, points
    and write bonuses so far) after it, what a win seat reads, `winbulk.py`)."""
    space = plans.space
    n_boxes, rerolls = len(space.boxes), space.rerolls
    can_stop = any(s.kind == "keep" and s.can_stop for s in space.model.flow.walk())
    states = np.zeros(games, dtype=np.int64)
    points = np.full((games, n_boxes), -1, dtype=np.int64)
    bonus = np.zeros((games, plans.nb), dtype=np.int64)
    rolls = np.zeros(games, dtype=np.int64)
    rows = np.arange(games)
    fast = lockstep.compiled() is not None
    for _ in range(n_boxes):
        slot = plans.slots(states)
        roll = dice.roll_all(rng.random(games))
        rolls += 1
        if fast:  # the keeps and rerolls compiled, from the same numbers in the same order
            U = np.empty((rerolls, games))
            for j in range(rerolls):
                U[j] = rng.random(games)
            roll = lockstep.turn(plans, dice, slot, roll, U, can_stop, rolls)
            rerolls_left = 0
        else:
            rerolls_left = rerolls
        stopped = np.zeros(games, dtype=bool)
        for j in range(rerolls_left, 0, -1):
            keep = plans.keeps(slot, j, roll)
            every = plans.space.tt.roll_as_keep[roll]  # keeping every die
            if can_stop:  # a game that kept every die has stopped rolling: it keeps them to the end
                keep = np.where(stopped, every, keep)
                stopped |= keep == every
                rolls += ~stopped
            else:
                rolls += 1
            roll = dice.after_keep(keep, rng.random(games))
        box = plans.box[slot, roll]
        got, extra, states = plans.write(states, box, roll)
        points[rows, box] = got
        bonus += extra.T
        if trace is not None:
            trace.append((states, (trace[-1][1] if trace else 0.0) + got + extra.sum(axis=0)))
    return SeatGames(points, bonus, rolls, states)


def _play_random(plans: Plans, dice: Dice, games: int, rng: np.random.Generator) -> SeatGames:
    """`games` solitaire games of the random player: every decision a uniformly random legal action
    (the per-game engine's `legal_actions`: at a keep that may stop, stopping or any distinct keep
    short of every die; at a keep that may not, any distinct keep; at a write, any box the rules
    allow), drawn with one uniform number per decision and per roll for every game at once (a game
    that has stopped still draws, and ignores, its numbers)."""
    space, tt = plans.space, plans.space.tt
    n_boxes, rerolls = len(space.boxes), space.rerolls
    can_stop = any(s.kind == "keep" and s.can_stop for s in space.model.flow.walk())
    every_keep = tt.roll_as_keep
    options = []  # per roll: its distinct keeps in the engine's order (short of every die, where it may stop)
    for r, dice_r in enumerate(tt.rolls):
        subs = sorted((k for k in tt.sub_index[r].tolist() if k < len(tt.keeps)),
                      key=lambda k: (len(tt.keeps[k]), tt.keeps[k]))
        options.append([k for k in subs if not (can_stop and k == every_keep[r])])
    width = max(map(len, options))
    table = np.array([o + [o[-1]] * (width - len(o)) for o in options], dtype=np.int64)
    count = np.array([len(o) + can_stop for o in options], dtype=np.int64)  # + stopping
    states = np.zeros(games, dtype=np.int64)
    points = np.full((games, n_boxes), -1, dtype=np.int64)
    bonus = np.zeros((games, plans.nb), dtype=np.int64)
    rolls = np.zeros(games, dtype=np.int64)
    rows = np.arange(games)
    for _ in range(n_boxes):
        roll = dice.roll_all(rng.random(games))
        rolls += 1
        stopped = np.zeros(games, dtype=bool)
        for _j in range(rerolls):
            pick = (rng.random(games) * count[roll]).astype(np.int64)
            keep = table[roll, np.minimum(pick, width - 1)]
            if can_stop:
                stopped |= pick == count[roll] - 1  # the last option: stopping
                keep = np.where(stopped, every_keep[roll], keep)
                rolls += ~stopped
            else:
                rolls += 1
            roll = dice.after_keep(keep, rng.random(games))
        legal = plans.legal_now(states, roll)  # (games, boxes)
        if not legal.any(axis=1).all():
            raise NotSolvable("for some roll and sheet the write rule allows no box; the solver cannot value that",
                              space.model.flow.pos)
        pick = (rng.random(games) * legal.sum(axis=1)).astype(np.int64)
        box = (np.cumsum(legal, axis=1) > pick[:, None]).argmax(axis=1)
        got, extra, states = plans.write(states, box, roll)
        points[rows, box] = got
        bonus += extra.T
    return SeatGames(points, bonus, rolls, states)


_PLANS: dict[tuple[str, str], Plans] = {}


def plans_for(model: Model, kind: str, build_policy: bool = False) -> Plans:
    """The cached plans of a bot kind on a model (optimal: from the solver's table, and from its
    policy tables where they are stored; build_policy: build and store them if they are not)."""
    from ..solver.cache import cache_key
    from ..solver.solve import greedy_space, solved
    key = (cache_key(model), kind)
    if key not in _PLANS:
        if kind == "optimal":
            space, table = solved(model)
            values = table.values
        else:
            space = greedy_space(model)  # (the greedy bot's Space, made once per model like the solver's)
            values = np.zeros((1 << space.n) * space.F)
        _PLANS[key] = Plans(space, values, future=kind == "optimal")
    plans = _PLANS[key]
    if kind == "optimal" and plans.keep is None and (build_policy or not plans.policy_tried):
        plans.policy_tried = True
        _with_policy(model, plans, build_policy)
    return plans


def policy_tables(model: Model, space=None):
    """The optimal bot's policy tables of `model` (slot, box, keep; policy.py): stored, or built now and
    stored beside its table (about two solves' work, once); None where they do not fit or cannot be used.
    `space`: the model's solver space, if at hand (stored tables are then read without the bot's plans)."""
    from ..solver import policy
    tables = policy.stored(model, space) if space is not None else None
    if tables is None:
        plans = plans_for(model, "optimal", build_policy=True)
        tables = (plans.dense, plans.box, plans.keep) if plans.keep is not None else None
    return tables


POLICY_GAMES = 50_000  # from this many games on, bulk play builds the policy tables first (about 2 solves' work)


def _with_policy(model: Model, plans: Plans, build: bool) -> None:
    """Policy tables for the optimal bot, read or built once beside the table, where they fit."""
    from ..solver import policy
    from ..solver.cache import cache_path
    from ..solver.tablefile import BadTable, read_header
    if not plans.planner.usable or lockstep.compiled() is None or plans.space.entries > DENSE_SLOTS:
        return
    path = cache_path(model)
    try:
        digest = read_header(path).digest
    except BadTable:
        path, digest = None, ""
    tables = policy.load(path, digest) if path is not None else None
    if tables is None and build:
        tables = policy.build(plans, path, digest)
    if tables is not None:
        plans.use_policy(tables)


def play_block(model: Model, kinds: list[str], games: int, seed: int, block: int) -> list[SeatGames]:
    """One block of games: seat by seat, from the block's own generator."""
    rng = np.random.default_rng([seed, block])
    if "win" in kinds:
        return _play_with_win(model, kinds, games, rng)
    out = []
    for kind in kinds:
        plans = plans_for(model, "greedy" if kind == RANDOM else kind)  # random: the tables, no plans
        play = _play_random if kind == RANDOM else play_seat
        out.append(play(plans, dice_for(plans.space.tt), games, rng))
    return out


def moments_of(model: Model):
    """(optimal plans, mean, variance of the points still to come) of the model, made once per process."""
    from ..solver.moments import remaining_moments
    plans = plans_for(model, "optimal")
    mean, var = remaining_moments(plans.space, plans.V)
    return plans, mean, var


def _play_with_win(model: Model, kinds: list[str], games: int, rng) -> list[SeatGames]:
    """The seats' games of a block with a win seat among them (`winbulk.py`): the others first, turn by
    turn kept, then the win seat against them; alone, the win seat is the optimal player."""
    from .winbulk import KIND, play_win_seat
    me = kinds.index(KIND)
    plans, mean, var = moments_of(model)
    out, traces = [None] * len(kinds), {}
    for q, kind in enumerate(kinds):
        if q != me:
            other = plans_for(model, kind)
            traces[q] = []
            out[q] = play_seat(other, dice_for(other.space.tt), games, rng, trace=traces[q])
    dice = dice_for(plans.space.tt)
    if not traces:
        out[me] = play_seat(plans, dice, games, rng)
    else:
        out[me] = SeatGames(*play_win_seat(plans, dice, mean, var, games, rng, me, traces))
    return out


class _Draws:
    """Uniform numbers for several blocks played as one: each block's share from its own generator,
    in the order a block played alone draws them, so the games are the blocks' own."""

    def __init__(self, rngs: list[np.random.Generator], sizes: list[int]):
        self.rngs, self.sizes, self.games = rngs, sizes, sum(sizes)

    def random(self, games: int) -> np.ndarray:
        assert games == self.games
        out, lo = np.empty(games), 0
        for rng, n in zip(self.rngs, self.sizes):  # (drawn into their place: no array per block, no concatenation)
            rng.random(n, out=out[lo:lo + n])
            lo += n
        return out


def play_blocks(model: Model, kinds: list[str], sizes: list[int], seed: int, first: int) -> list[list[SeatGames]]:
    """Blocks first, first + 1, … (of these sizes) played in one lockstep: the games of
    `play_block` for each, with the Python work of a turn shared by all of them."""
    if len(sizes) == 1:
        return [play_block(model, kinds, sizes[0], seed, first)]
    draws = _Draws([np.random.default_rng([seed, first + i]) for i in range(len(sizes))], sizes)
    seats = []
    if "win" in kinds:
        seats = _play_with_win(model, kinds, draws.games, draws)
    for kind in kinds if not seats else ():
        plans = plans_for(model, "greedy" if kind == RANDOM else kind)
        play = _play_random if kind == RANDOM else play_seat
        seats.append(play(plans, dice_for(plans.space.tt), draws.games, draws))
    cuts = np.cumsum(sizes)[:-1]

    def parts(a):
        return np.split(a, cuts) if a is not None else [None] * len(sizes)

    split = [list(zip(parts(sg.points), parts(sg.bonus), parts(sg.rolls), parts(sg.final))) for sg in seats]
    return [[SeatGames(*seat[i]) for seat in split] for i in range(len(sizes))]


GROUP = 50  # blocks played in one lockstep (100,000 games)


def results(model: Model, blocks: list[list[SeatGames]], names: list[str]):
    """The games as a sequence of `simulate.Result`s (`columns.Columns`: arrays, a Result built only
    when one is read): totals and bonuses the model's own scorer gives, ranks from the totals."""
    from .columns import Columns, ranks_of, seat_totals
    from ..model.scoring import Scorer
    scorer = Scorer.for_model(model)
    seats = len(names)
    space = _space_of(model)
    points, bonus, totals = [], [], []
    for p in range(seats):
        parts = [b[p] for b in blocks]
        finals = [s.final for s in parts]
        seat = SeatGames(np.concatenate([s.points for s in parts]) if parts else np.zeros((0, len(model.boxes)), dtype=np.int64),
                         np.concatenate([s.bonus for s in parts]) if parts else np.zeros((0, 0), dtype=np.int64),
                         np.concatenate([s.rolls for s in parts]) if parts else np.zeros(0, dtype=np.int64),
                         np.concatenate(finals) if parts and all(f is not None for f in finals) else None)
        t, b, _exact = seat_totals(model, scorer, space, seat)
        points.append(seat.points)
        bonus.append(b)
        totals.append(t)
    total = np.stack(totals, axis=1) if totals else np.zeros((0, 0), dtype=np.int64)
    return Columns(list(model.boxes), [b.id for b in model.bonuses], points, bonus, total,
                   ranks_of(total, model.winner == "lowest_total"))


def _space_of(model: Model):
    """The solver's space of the model (from a cached plan where there is one)."""
    from ..solver.space import Space
    from ..solver.cache import cache_key
    key = cache_key(model)
    for (k, _kind), plans in _PLANS.items():
        if k == key:
            return plans.space
    return Space(model)


def block_sizes(games: int) -> list[int]:
    """How many games each block plays: BLOCK, the last one the rest (block b: `play_block(…, b)`)."""
    return [min(BLOCK, games - lo) for lo in range(0, games, BLOCK)]


def run_games(model: Model, kinds: list[str], games: int, seed: int, jobs: int = 1, progress=None) -> list[list[SeatGames]]:
    """All games in blocks of BLOCK (block b from its own generator), over `jobs` processes."""
    sizes = block_sizes(games)
    done, out = 0, []
    for kind in kinds:  # the table (and policy tables, for many games) read once, before any worker forks
        if kind == "optimal":
            plans_for(model, kind, build_policy=games >= POLICY_GAMES)
        if kind == "win":  # and the moments of the rest
            moments_of(model)
    group = max(1, min(GROUP, -(-len(sizes) // (4 * max(jobs, 1)))))  # a few groups per worker
    groups = [(sizes[b:b + group], b) for b in range(0, len(sizes), group)]
    if jobs <= 1 or len(sizes) == 1:
        for part_sizes, b in groups:
            out.extend(play_blocks(model, kinds, part_sizes, seed, b))
            done += sum(part_sizes)
            if progress:
                progress(done, games)
        return out
    for kind in kinds:  # the table is read once, before the workers fork
        plans_for(model, {RANDOM: "greedy", "win": "optimal"}.get(kind, kind))
    lockstep.compiled_write()  # the compiled turn and write loaded once too, not in every worker
    global _FORKED
    _FORKED = model
    from ..model.workers import pool as quiet_pool
    with quiet_pool(jobs) as pool:
        for part in pool.imap(_forked_block, [(kinds, part_sizes, seed, b) for part_sizes, b in groups]):
            out.extend(part)
            done += sum(len(p[0].points) for p in part)
            if progress:
                progress(done, games)
    return out


_FORKED: Model | None = None  # the model, inherited by forked workers (no reload, caches shared)


def _forked_block(args):
    kinds, sizes, seed, block = args
    return play_blocks(_FORKED, kinds, sizes, seed, block)
