"""A spike, not a benchmark of shipped code: the per-step engine rebuilt around *positions*, measured.

    python -m benchmarks.spike_positions [--rounds R] [--games N]

Issue 26 asks the per-step engine (`GameState`, move by move) to be at least as fast as the
hand-written baseline. This file measured the design of positions before it was built into the engine
(interpreter/engine/positions.py, 2026-12-06): one interned position per (leaf, node of the dice, pass)
and per (leaf, roll beside the kept dice, pass), so that `legal_actions` is the position's list,
`sample_chance` its draw table, a roll or keep the next position, and the roll number the pass. It covers
Yahtzee's flow only (a roll of all dice, then two passes of keep and roll, then a write: the leaves are
read from the compiled program and checked), one player, and its write path does what the engine's
does. It plays the baseline's games exactly (checked on every run), and the output gives its speed and
the engine's, both against the baseline, in the same interleaved rounds.

It stays as a yardstick of what the design costs at least: it leaves out what the engine must carry
(fields that code may set by hand, saves, clone, other flows, several players).
"""
from __future__ import annotations

import argparse
import random
import statistics
import time
from bisect import bisect_right

from rulebook.interpreter import load_model
from rulebook.interpreter.engine.actions import Action, Roll, Write
from rulebook.interpreter.engine.program import KEEP, ROLL, WRITE, Leaf, Loop
from rulebook.interpreter.engine.state import CHANCE, TERMINAL, tables

from . import baseline_yahtzee, machine
from .bench_engine import drive, engine_game


class KeepAt:
    """A keep leaf with the node of the dice, in pass `p` of the repeat."""

    __slots__ = ("op", "node", "dice", "legal", "p", "rolls", "nexts")

    def __init__(self, op: Leaf, node: tuple, p: int):
        self.op, self.node, self.dice, self.legal, self.p = op, node, node[4], node[op.keep_slot], p
        self.rolls = None  # (not a roll)
        self.nexts: dict[int, RollAt] = {}  # id of the roll beside the kept dice -> its position


class RollAt:
    """A roll leaf with the roll beside the kept dice (its outcomes, their nodes), in pass `p` (-1: the first roll)."""

    __slots__ = ("op", "after", "cum", "rolls", "total", "nodes", "p", "legal", "nexts")

    def __init__(self, op: Leaf, after: tuple, p: int):
        self.op, self.after, self.cum, self.rolls, self.total, self.nodes = op, after, after[1], after[2], after[3], after[4]
        self.p, self.legal = p, None
        self.nexts: list = [None] * len(self.rolls)  # per outcome: the next keep's position, or the node (a write)


class Flow:
    """Yahtzee's compiled flow, read from the program: first roll, keep, roll (a repeat of `passes`), write."""

    def __init__(self, model):
        self.t = t = tables(model).precompute()
        leaves = [op for op in t.program if type(op) is Leaf]
        loops = [op for op in t.program if type(op) is Loop]
        kinds = [op.kind for op in leaves]
        if kinds != [ROLL, KEEP, ROLL, WRITE] or not leaves[0].all_dice or leaves[3].plan_slot is None:
            raise SystemExit(f"the spike covers Yahtzee's flow only, not {model.id}'s")
        self.roll0, self.keep, self.roll, self.write = leaves
        self.repeat, self.rounds = loops[0], loops[1]
        self.start = RollAt(self.roll0, t.after(()), -1)
        self._keeps: dict[tuple, KeepAt] = {}
        self._rolls: dict[tuple, RollAt] = {}

    def keep_at(self, node: tuple, p: int) -> KeepAt:
        found = self._keeps.get((id(node), p))
        if found is None:
            found = self._keeps[(id(node), p)] = KeepAt(self.keep, node, p)
        return found

    def roll_at(self, after: tuple, p: int) -> RollAt:
        found = self._rolls.get((id(after), p))
        if found is None:
            found = self._rolls[(id(after), p)] = RollAt(self.roll, after, p)
        return found


class SpikeState:
    """The four calls of the engine benchmark's driver on positions (one player)."""

    __slots__ = ("f", "pos", "op", "dice", "sheet", "mark", "plan", "plan_bits", "last_cell", "counters",
                 "player", "held", "announced", "turns_begun")

    def __init__(self, flow: Flow):
        self.f, self.pos, self.op, self.dice = flow, flow.start, flow.roll0, ()
        self.sheet: dict[str, int] = {}
        self.mark = (self.sheet, 0, 0)  # (the sheet, its size, the mask of its filled boxes), as the engine's
        self.plan, self.plan_bits, self.last_cell = None, 0, None
        self.counters = [0] * len(flow.t.slots)
        self.player, self.held, self.announced, self.turns_begun = 0, (), None, 1

    def current_player(self) -> int:
        pos = self.pos
        if pos is None:
            return TERMINAL if self.op is None else self.player
        return CHANCE if pos.rolls is not None else self.player

    def sample_chance(self, rng: random.Random) -> Roll:
        pos = self.pos
        return pos.rolls[bisect_right(pos.cum, rng.random() * pos.total)]

    def legal_actions(self) -> list[Action]:
        pos = self.pos
        if pos is not None:
            return pos.legal.copy()
        sheet, mark = self.sheet, self.mark  # the write: the plan's boxes still open, as the engine's
        mask = self.plan_bits & ~(mark[2] if mark[0] is sheet and mark[1] == len(sheet) else 0)
        t = self.f.t
        return t.low_writes[mask & 255] + t.high_writes[mask >> 8]

    def apply(self, action: Action) -> None:
        pos = self.pos
        if pos is None:
            self._write(action)
        elif pos.rolls is not None:  # a roll the tables handed out
            i = action._i
            if pos.rolls[i] is not action:
                raise ValueError("the spike takes the rolls it draws")
            nxt = pos.nexts[i]
            if nxt is None:
                node, p = pos.nodes[i], pos.p + 1
                nxt = pos.nexts[i] = self.f.keep_at(node, p) if p < self.f.repeat.times else node
            if type(nxt) is KeepAt:
                self.pos, self.op = nxt, self.f.keep
                if pos.p >= 0:
                    self.counters[self.f.repeat.slot] = nxt.p
                return
            self.counters[self.f.repeat.slot] = 0
            self._arrive(nxt)
        else:  # a keep the tables handed out, one of the node's
            at = action._at
            if at[0] is not self.f.t or at[3] not in pos.node[6]:
                raise ValueError("the spike takes the keeps it offers")
            if at[1] is None:  # stop
                self.counters[self.f.repeat.slot] = 0
                self._arrive(pos.node)
                return
            nxt = pos.nexts.get(id(at[2]))
            if nxt is None:
                nxt = pos.nexts[id(at[2])] = self.f.roll_at(at[2], pos.p)
            self.pos, self.op, self.dice = nxt, self.f.roll, pos.dice

    def _arrive(self, node: tuple) -> None:
        """At the write: its plan from the node of the dice (the engine's static plan, else its write map)."""
        self.pos, self.op, self.dice = None, self.f.write, node[4]
        found = node[5][self.f.write.plan_slot]
        if found is None:  # a plan that reads the sheet
            options = self.f.t.scorer.write_map(node[4], self.sheet, 3, self.f.write.step, None, None)
            found = (options, sum(self.f.t.bit[b] for b in options))
        self.plan, self.plan_bits = found

    def _write(self, action: Write) -> None:
        """The write and the turn's end, as the engine's plain write (one player)."""
        sheet, box = self.sheet, action.box
        choice, parts = self.plan[box]
        sheet[box] = choice.points
        size = len(sheet)
        mark = self.mark
        if mark[0] is sheet and mark[1] == size - 1:
            self.mark = (sheet, size, mark[2] | self.f.t.bit[box])
        self.last_cell = box
        counters, rounds = self.counters, self.f.rounds
        n = counters[rounds.slot] + 1
        if n >= rounds.times:
            self.pos = self.op = None
            return
        counters[rounds.slot] = n
        self.held, self.announced, self.dice = (), None, ()
        self.turns_begun += 1
        self.pos, self.op = self.f.start, self.f.roll0

    def returns(self) -> list[int]:
        return [self.f.t.scorer.total(self.sheet, {}, None)]


def spike_game(flow: Flow, rng: random.Random) -> int:
    """`bench_engine.drive` on a SpikeState."""
    return drive(SpikeState(flow), rng)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.spike_positions", description=__doc__.strip().splitlines()[0])
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--games", type=int, default=40, help="games per side and round")
    args = ap.parse_args(argv)
    before = machine.load()
    model = load_model("yahtzee")
    flow = Flow(model)
    sides = {"spike": lambda rng: spike_game(flow, rng), "engine": lambda rng: engine_game(model, rng),
             "baseline": baseline_yahtzee.play_game}
    for play in sides.values():
        for s in range(300):
            play(random.Random(-s - 1))
    same = all(spike_game(flow, random.Random(s)) == baseline_yahtzee.play_game(random.Random(s)) for s in range(500))
    ratios: dict[str, list[float]] = {"spike": [], "engine": []}
    for r in range(args.rounds):
        seconds = {}
        for side in (list(sides) if r % 2 == 0 else list(sides)[::-1]):
            rngs = [random.Random(r * args.games + i) for i in range(args.games)]
            start = time.process_time()
            for rng in rngs:
                sides[side](rng)
            seconds[side] = time.process_time() - start
        for side in ratios:
            ratios[side].append(seconds["baseline"] / max(seconds[side], 1e-9))
    print(f"the spike plays the baseline's games exactly: {'yes' if same else 'NO'} (500 games)")
    for side, values in ratios.items():
        q = statistics.quantiles(values, n=4)
        print(f"  {side}/baseline: median {statistics.median(values):.2f}x (quartiles {q[0]:.2f}-{q[2]:.2f}), "
              f"{args.rounds} interleaved rounds of {args.games} games, CPU time")
    print(f"  {machine.describe(before)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
