"""The whole game's states for the players at the table, explored from the start (`win` for games of no fixed length).

A joint state is everything the engine's position holds that some rule can read: the step due, whose
turn it is, the dice where a rule still reads them, the sheets, and every player's counters. What
nothing reads is dropped, so states that differ only in bookkeeping merge: the turns begun, the roll
number (unless an expression reads it), the passes of a repeat without `times`, the dice at a step
whose every way on rolls all dice or starts a turn, the turn counters of players whose turn it is
not, and counters no expression reads. An ended game is one state per outcome: the share of the win
each player gets (`payoff`).

Speed: the engine is asked once per *transition structure*, not once per state. A step is run on a
probe (`_Probe`, a GameState whose counters record what is read and how they change); what it did
is kept as the next position and the changes to the counters (set to a value, or add amounts), keyed
by the values of the counters it read (`_Memo`). Every other state of the same position whose read
counters agree takes the same way, so its successor is those changes applied to its counters, with
no engine call. Pig to 100 asks the engine about 20,000 times for its million states.

A move that ends the game at once with the mover the sole winner is taken whenever it is there (no
chance to win is higher): the other moves are not explored. This keeps a push-your-luck game finite
where the rules let a player roll on for ever.
"""
from __future__ import annotations

import dataclasses
from array import array
from dataclasses import dataclass

from ..engine.program import BANK, ROLL, UNBOUNDED, End, Leaf, Loop, Start, Turns
from ..engine.state import GameState
from ..model.dsl.compiler import Compiled
from ..model.errors import Message, Number
from ..model.frozen import Model
from ..model.limits import hint_for, limits
from .abstraction import NotSolvable, _nodes

TERMINAL, CHANCE, DECISION = 0, 1, 2


def expressions(model: Model) -> list[Compiled]:
    """Every compiled expression of the model (boxes, bonuses, steps and their effects, the end, the ranking)."""
    out: list[Compiled] = []
    seen: set[int] = set()

    def visit(obj) -> None:
        if isinstance(obj, Compiled):
            out.append(obj)
        elif isinstance(obj, (list, tuple)):
            for x in obj:
                visit(x)
        elif isinstance(obj, dict):
            for x in obj.values():
                visit(x)
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type) and id(obj) not in seen:
            seen.add(id(obj))
            for f in dataclasses.fields(obj):
                if f.name not in ("pos", "source", "name", "rule", "path"):
                    visit(getattr(obj, f.name))

    for part in (model.boxes, model.bonuses, list(model.flow.walk()), model.end_if, model.ranking, model.ahead_if,
                 model.definitions):
        visit(part)
    return out


def counters_read(exprs: list[Compiled]) -> set[str]:
    """The counter ids the expressions read (following named definitions)."""
    seen: set[int] = set()
    return {node.value for e in exprs for node, _ in _nodes(e.ast, seen) if node.op == "counter"}


class _Reads(dict):
    """The counters an expression sees; every read is noted in the probe (as a flat index)."""

    __slots__ = ("probe", "where")

    def __getitem__(self, name):
        self.probe._read.add(self.where[name])
        return dict.__getitem__(self, name)


class _Store(dict):
    """A player's (or the game's) counters on the probe: the engine reads one only to add to it."""

    __slots__ = ("probe", "where", "pending")

    def __getitem__(self, name):
        self.pending = name
        return dict.__getitem__(self, name)

    def __setitem__(self, name, value):
        self.probe._wrote(self.where[name], dict.__getitem__(self, name), value, getattr(self, "pending", None) == name)
        self.pending = None
        dict.__setitem__(self, name, value)


class _Probe(GameState):
    """A GameState that records which counters its expressions read and how its counters change."""

    def counters_of(self, player: int):
        if not self.model.counters:
            return None
        seen = _Reads({**self.game_counters, **self.counter_values[player]})
        seen.probe, seen.where = self, self._where_of[player]
        return seen

    def _wrote(self, i: int, old: int, new: int, adds: bool) -> None:
        kind, amounts = self._ops.get(i, (None, ()))
        if kind == "set":
            return
        lo, hi = self._bounds[i]
        if adds and new != lo and new != hi:  # no bound stopped it: an amount added
            self._ops[i] = ("add", amounts + (new - old,))
        elif adds:  # it may have stopped at a bound: the old value decides, so it counts as read
            self._read.add(i)
            self._ops[i] = ("set", ())
        else:
            self._ops[i] = ("set", ())


@dataclass
class Graph:
    """The explored game: per state its kind, the player who moves, its edges (CSR) and, if ended, the payoffs."""

    kind: array  # TERMINAL, CHANCE or DECISION
    actor: array  # the player who decides (-1: none)
    start: array  # edges of state s: start[s] .. start[s + 1]
    target: array
    prob: array
    payoff: dict[int, tuple[float, ...]]
    players: int
    probes: int  # how many times the engine was asked
    parts: int = 0  # strongly connected parts (set by the value iteration)

    @property
    def states(self) -> int:
        return len(self.kind)

    @property
    def edges(self) -> int:
        return len(self.target)


class Explorer:
    """Walks every joint state reachable from the start (see the module's text)."""

    def __init__(self, model: Model, players: int):
        self.model, self.n = model, players
        self.probe = _Probe(model, [f"P{p + 1}" for p in range(players)])
        t = self.t = self.probe._t
        exprs = expressions(model)
        read = counters_read(exprs)
        deps = set().union(*(e.deps for e in exprs)) if exprs else set()
        self.keep_roll_number = "turn" in deps
        self.loose = {op.slot for op in t.program if type(op) is Loop and op.times == UNBOUNDED}
        own = [c for c in model.counters if c.per != "game"]
        game = [c for c in model.counters if c.per == "game"]
        self.layout = [(p, c) for p in range(players) for c in own] + [(None, c) for c in game]
        where = {(p, c.id): i for i, (p, c) in enumerate(self.layout)}
        self.probe._where_of = [{**{c.id: where[(None, c.id)] for c in game}, **{c.id: where[(p, c.id)] for c in own}}
                                for p in range(players)]
        self.probe._bounds = [(c.least, c.most) for _, c in self.layout]
        self.start_of = [c.start for _, c in self.layout]
        ranked = counters_read([e for e in exprs if e is not None and self._ranks(e)])
        shared = any(e.players != "me" for s in model.flow.walk() for e in s.effects) or any(
            s.by != "active" for s in model.flow.walk() if s.kind == "write")
        # counters to put back to their start in every state of a player's turn: those nothing reads, and
        # the turn counters of the others (they start again with their turn), unless a rule could see them
        self.dead = [tuple(i for i, (q, c) in enumerate(self.layout)
                           if c.id not in read or (c.per == "turn" and q != p and not shared and c.id not in ranked))
                     for p in range(players)]
        self.dice_dead = {op.pc for op in t.program if type(op) is Leaf and self._dice_dead(op, exprs)}
        self.memo: dict = {}
        self.probes = 0
        self._payoffs: dict = {}

    def _ranks(self, e: Compiled) -> bool:
        r = self.model.ranking
        return e is self.model.ahead_if or (r is not None and (e is r.score or any(e is c for _, c in r.tie_breaks)))

    # a position as a key, and back ----------------------------------------------------------------
    def _dice_dead(self, op: Leaf, exprs) -> bool:
        """At a bank step that reads no dice, the dice are dead when every way on rolls all dice or starts a turn."""
        if op.kind is not BANK:
            return op.kind is ROLL and op.all_dice
        step = op.step
        own = [step.allowed] + [x for e in step.effects for x in (e.amount, e.when)] + [self.model.end_if]
        if any("dice" in x.deps for x in own if x is not None):
            return False
        return self._resets(op.after, 0) and self._resets(op.stop[0], 0)

    def _resets(self, pc: int, depth: int) -> bool:
        """Whether going on from instruction pc rolls all dice or starts a turn before any step reads the dice."""
        op = self.t.program[pc]
        if depth > len(self.t.program):
            return False
        if type(op) is Leaf:
            return op.kind is ROLL and op.all_dice
        if type(op) in (Start, End):
            return True
        if type(op) is Turns:
            return self._resets(pc + 1, depth + 1)  # the next player's turn starts, or the game goes on after the turns
        if type(op) is Loop and op.times == UNBOUNDED:
            return op.turn_start or (op.leaf is not None and self._resets(op.leaf.pc, depth + 1)) or (
                op.leaf is None and self._resets(op.body, depth + 1))
        return False

    def control(self, s: GameState) -> tuple:
        """The position without the counters (None once the game is over)."""
        op = s._op
        if op is None:
            return None
        dead = op.pc in self.dice_dead
        return (op.pc, s.player, s.acting, tuple(s._queue), tuple(s._written),
                () if dead else s.dice, () if dead else s.kept, () if dead else s.held, s.announced,
                s.roll_number if self.keep_roll_number else 0, s._ending,
                tuple(0 if i in self.loose else c for i, c in enumerate(s._counters)),
                tuple(tuple(sorted(x.items())) for x in s.sheets), tuple(tuple(sorted(x.items())) for x in s.awards))

    def restore(self, control: tuple, x: tuple) -> _Probe:
        s = self.probe
        (pc, s.player, s.acting, queue, written, dice, kept, held, s.announced, s.roll_number, s._ending, slots,
         sheets, awards) = control
        s._op = self.t.program[pc]
        if pc in self.dice_dead and not dice and s._op.kind is BANK:
            dice = self.t.chance(self.model.n_dice)[2][0].faces  # any roll: nothing reads it
        s.dice, s.kept, s.held = dice, kept, held
        s._queue, s._written, s._counters = list(queue), list(written), list(slots)
        s.sheets, s.awards = [dict(x) for x in sheets], [dict(x) for x in awards]
        s._full, s._options, s._plan, s.ended_by, s.turns_begun = s._all_filled(), None, None, None, 0
        s.counter_values = [self._store({c.id: x[i] for i, (q, c) in enumerate(self.layout) if q == p})
                            for p in range(self.n)]
        s.game_counters = self._store({c.id: x[i] for i, (q, c) in enumerate(self.layout) if q is None})
        return s

    def _store(self, values: dict) -> _Store:
        store = _Store(values)
        store.probe, store.where = self.probe, {}
        return store

    def _fix_where(self) -> None:
        s = self.probe
        for p, store in enumerate(s.counter_values):
            store.where = {cid: i for cid, i in s._where_of[p].items() if cid in store}
        s.game_counters.where = {cid: i for cid, i in s._where_of[0].items() if cid in s.game_counters}

    def counters(self, s: GameState) -> tuple:
        return tuple(s.game_counters[c.id] if p is None else s.counter_values[p][c.id] for p, c in self.layout)

    def payoff(self, s: GameState) -> tuple[float, ...]:
        """Each player's share of the win: the players ranked first share it equally."""
        firsts = [i for i, (rank, _, _) in enumerate(s.ranking()) if rank == 1]
        order = [s.players.index(name) for _, name, _ in s.ranking()]
        share = [0.0] * self.n
        for i in firsts:
            share[order[i]] = 1.0 / len(firsts)
        return tuple(share)

    # what a step does, asked of the engine once per way --------------------------------------------
    def _ask(self, cid: int, x: tuple, action):
        """Run one step (action None: list the moves) on the probe: (counters read, what came out)."""
        self.probes += 1
        s = self.restore(self.controls[cid], x)
        self._fix_where()
        s._read, s._ops = set(), {}
        if action is None:
            moves = s.chance_outcomes() if s.is_chance_node() else [(a, 1.0) for a in s.legal_actions()]
            kind = CHANCE if s.is_chance_node() else DECISION
            return tuple(sorted(s._read)), (kind, s.actor, tuple(moves))
        s.apply(action)
        after = self.control(s)
        x2 = self.counters(s)
        dead = () if after is None else self.dead[after[1]]
        sets, adds = [], []
        for i in range(len(x2)):
            if i in dead:
                sets.append((i, self.start_of[i]))
            elif i in s._read or s._ops.get(i, ("",))[0] == "set":
                sets.append((i, x2[i]))
            elif i in s._ops:
                adds.append((i, s._ops[i][1]) + self.probe._bounds[i])
        if after is None:  # the game is over: what decides the winner are the sheets and the counters
            after = ("end", tuple(tuple(sorted(x.items())) for x in s.sheets),
                     tuple(tuple(sorted(x.items())) for x in s.awards))
        return tuple(sorted(s._read)), (self.cid(after), tuple(sets), tuple(adds))

    def cid(self, control: tuple) -> int:
        """A position's number (positions are kept once; a state is its position's number and its counters)."""
        got = self._cids.get(control)
        if got is None:
            got = self._cids[control] = len(self.controls)
            self.controls.append(control)
            self.ended.append(control[0] == "end")
        return got

    def step(self, cid: int, x: tuple, action):
        """What the step does in this state: from the memo when the counters it reads agree, else from the engine."""
        ways = self.memo.get((cid, action))
        if ways is None:
            ways = self.memo[(cid, action)] = []
        for read, table in ways:
            hit = table.get(tuple([x[i] for i in read]))
            if hit is not None:
                return hit
        read, out = self._ask(cid, x, action)
        for known, table in ways:
            if known == read:
                break
        else:
            table = {}
            ways.append((read, table))
        table[tuple([x[i] for i in read])] = out
        return out

    @staticmethod
    def apply(x: tuple, sets: tuple, adds: tuple) -> tuple:
        x2 = list(x)
        for i, v in sets:
            x2[i] = v
        for i, amounts, lo, hi in adds:
            value = x2[i]
            for a in amounts:
                value += a
                if lo is not None and value < lo:
                    value = lo
                if hi is not None and value > hi:
                    value = hi
            x2[i] = value
        return tuple(x2)

    def final(self, cid: int, x: tuple) -> tuple[float, ...]:
        """The payoffs of an ended game with these sheets and counters (kept per sheets and counters)."""
        key = (cid, x)
        got = self._payoffs.get(key)
        if got is None:
            s, after = self.probe, self.controls[cid]
            s.sheets, s.awards = [dict(v) for v in after[1]], [dict(v) for v in after[2]]
            s.counter_values = [{c.id: x[i] for i, (q, c) in enumerate(self.layout) if q == p} for p in range(self.n)]
            s.game_counters = {c.id: x[i] for i, (q, c) in enumerate(self.layout) if q is None}
            s._read = set()
            got = self._payoffs[key] = self.payoff(s)
        return got

    # the walk ----------------------------------------------------------------------------------------
    def explore(self, max_states: int | None = None, progress=None, keep: bool = False) -> Graph:
        """Every state reachable from the start, breadth first; NotSolvable past `max_states` (the limit).

        `progress(done, None)` hears of the states explored now and then; with `keep`, `self.order`
        holds every state's (position number, counters) afterwards (an ended game: (-1, its payoffs)),
        which `jointtable.StateIndex` needs to find a live position among them."""
        cap = max_states if max_states is not None else limits().joint_states
        self._cids, self.controls, self.ended = {}, [], []
        s0 = GameState(self.model, self.probe.players)
        c0 = self.control(s0)
        x0 = self.apply(self.counters(s0), tuple((i, self.start_of[i]) for i in self.dead[c0[1]]), ())
        ids: dict = {(self.cid(c0), x0): 0}
        order = [(0, x0)]
        # compact arrays, not lists: Pig to 100 has 7.8 million edges (a list of ints would be 280 MB more)
        kind, actor, start, target, prob, payoff = array("b"), array("b"), array("q"), array("q"), array("d"), {}
        step, apply, final, ended = self.step, self.apply, self.final, self.ended
        i = 0
        while i < len(order):
            cid, x = order[i]
            start.append(len(target))
            if cid < 0:  # an ended game: its counters are the players' shares of the win
                kind.append(TERMINAL)
                actor.append(-1)
                payoff[i] = x
                i += 1
                continue
            k, who, moves = step(cid, x, None)
            kind.append(k)
            actor.append(who)
            out = []
            for move, p in moves:
                after, sets, adds = step(cid, x, move)
                x2 = apply(x, sets, adds)
                if ended[after]:
                    share = final(after, x2)
                    if k == DECISION and share[who] == 1.0:  # the mover wins at once: nothing is better
                        out = [(-1, share, p)]
                        break
                    out.append((-1, share, p))
                else:
                    out.append((after, x2, p))
            for key in out:
                j = ids.get(key[:2])
                if j is None:
                    j = ids[key[:2]] = len(order)
                    order.append(key[:2])
                    if j >= cap:
                        raise too_many(self.model, self.n, cap)
                target.append(j)
                prob.append(key[2])
            i += 1
            if progress is not None and i % 50_000 == 0:
                progress(i, None)
        start.append(len(target))
        self.order = order if keep else None
        return Graph(kind, actor, start, target, prob, payoff, self.n, self.probes)


def check_size(model: Model, players: int, max_states: int | None = None) -> None:
    """Refuse before any work a game whose sheets alone give too many joint states: every set of filled
    boxes on each player's sheet (2 ** (boxes x players)), each a state at least once."""
    cap = max_states if max_states is not None else limits().joint_states
    if model.cells and len(model.cells) * players >= cap.bit_length():
        raise NotSolvable("the chance to win needs the states of the whole game for {players} players: about "
                          "{states} (every set of filled boxes on every sheet); the limit is {limit}",
                          model.flow.pos, hint_for("joint_states"), players=players,
                          states=_short(2 ** (len(model.cells) * players)), limit=Number(cap))


def _short(n: int) -> Number | Message:
    return Number(n) if n < 10**15 else Message("about 10^{n}", {"n": len(str(n)) - 1})


def too_many(model: Model, players: int, cap: int) -> NotSolvable:
    return NotSolvable("the chance to win needs the states of the whole game for {players} players, and there are "
                       "more than {limit} of them, the limit", model.flow.pos, hint_for("joint_states"),
                       players=players, limit=Number(cap))
