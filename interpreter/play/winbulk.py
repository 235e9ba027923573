"""The play-to-win seat (`players/win.py`) in bulk play: every game's turn planned at once, compiled.

The other seats (greedy or optimal) never look at another sheet, so their games are played first,
seat by seat (`bulk.play_seat`, `bulk._play_with_win`), each turn's state and points so far kept. Then the win seat plays its
turns in lockstep: at its turn t an opponent seated before it has played t + 1 turns, one after it t;
each game's plan (`solver/winplan.py`: the chance to win of every write, the box per roll, the keep
values per layer) is made for its own state, points and opponents, and its keeps and rerolls are
those of `solver/lockstep.py`. Dice come from the block's generator: the other seats' in seat order,
then the win seat's. With no opponent the seat is the optimal player, as `WinBot` is.
"""
from __future__ import annotations

import numpy as np

from ..model.frozen import Model
from ..solver.abstraction import NotSolvable

CHUNK = 4096  # games planned at one time (a plan's keep values are ~7 KB a game)
KIND = "win"


def usable(model: Model, kinds: list[str]) -> bool:
    """Whether bulk play can play these seats with a win seat among them: one win seat at most, the
    compiled planner and win planner there, points that do not depend on the roll number."""
    if kinds.count(KIND) > 1:
        return False
    from ..solver import lockstep, winplan
    if KIND in kinds and (winplan.compiled() is None or lockstep.compiled() is None):
        return False
    return True


def play_win_seat(plans, dice, mean: np.ndarray, var: np.ndarray, games: int, rng, me: int, traces: dict):
    """The win seat's games against opponents whose turns are in `traces` (seat → per turn (states,
    points so far) after it): (points per box, write bonuses, rolls thrown, final states), as `bulk.SeatGames`."""
    from ..solver import lockstep, winplan
    space = plans.space
    kp = plans.planner.kplan
    n_boxes, rerolls, R = len(space.boxes), space.rerolls, len(space.tt.rolls)
    can_stop = any(s.kind == "keep" and s.can_stop for s in space.model.flow.walk())
    states = np.zeros(games, dtype=np.int64)
    so_far = np.zeros(games)
    points = np.full((games, n_boxes), -1, dtype=np.int64)
    bonus = np.zeros((games, plans.nb), dtype=np.int64)
    rolls = np.zeros(games, dtype=np.int64)
    rows = np.arange(games)
    start = (np.zeros(games, dtype=np.int64), np.zeros(games))
    turn = lockstep.compiled()
    every = space.tt.roll_as_keep
    for t in range(n_boxes):
        seen = [(traces[q][t] if q < me else (traces[q][t - 1] if t else start)) for q in sorted(traces)]
        rmean = np.stack([pts + mean[st] for st, pts in seen], axis=1)
        rvar = np.stack([var[st] for st, _ in seen], axis=1)
        roll = dice.roll_all(rng.random(games))
        rolls += 1
        U = np.empty((rerolls, games))
        for j in range(rerolls):
            U[j] = rng.random(games)
        box = np.empty(games, dtype=np.int64)
        masks, feats = plans.decode(states)
        for lo in range(0, games, CHUNK):
            sl = slice(lo, lo + CHUNK)
            boxes, keepv, status = winplan.plan(kp, mean, var, masks[sl], feats[sl], states[sl], so_far[sl],
                                                rmean[sl], rvar[sl])
            if status & 1:
                raise NotSolvable("for some roll and sheet the write rule allows no box; the solver cannot value that",
                                  space.model.flow.pos)
            kbyte = np.empty((len(boxes), rerolls, R), dtype=np.uint8)
            lockstep.best_keeps(keepv, plans.candidates, kbyte)
            part = np.ascontiguousarray(roll[sl])
            counted = np.ascontiguousarray(rolls[sl])
            turn(np.arange(len(part), dtype=np.int64), part, np.ascontiguousarray(U[:, sl]), kbyte, plans.candidates,
                 every, bool(can_stop), dice.start, dice.scum, dice.out, dice.GRID, counted)
            roll[sl], rolls[sl] = part, counted
            box[sl] = boxes[np.arange(len(part)), part]
        got, extra, states = plans.write(states, box, roll)
        points[rows, box] = got
        bonus += extra.T
        so_far = so_far + got + extra.sum(axis=0)
    return points, bonus, rolls, states
