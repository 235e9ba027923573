"""A bot's plans for many turn-start states at once, cached under a memory bound: the box per roll and the keeps per layer, computed in batches the solver's way."""
from __future__ import annotations


import numpy as np

from ..solver.abstraction import NotSolvable


PLAN_CHUNK = 512  # new states planned per numpy batch


CACHE_BYTES = 256 * 2**20  # the plan cache's memory bound per bot kind


DENSE_SLOTS = 1 << 24  # up to this many states, plans are found through an array over every state


def unread_features(space) -> list[int]:
    """The positions of the space's features that no write reads (only end bonuses read them)."""
    from ..solver.abstraction import features
    read = {(f.kind, f.name) for f in features(space.model, writes_only=True)}
    return [i for i, f in enumerate(space.feats) if (f.kind, f.name) not in read]


class Plans:
    """Per turn-start state: the box the bot writes each roll into, and its keep values per layer.

    Computed for a whole batch of new states at a time and cached (`slots(states)` gives each
    state's slot). When the cache reaches its memory bound it starts over (the states of one turn
    are always all present). What a write scores and the state it leads to are worked out per
    game when it happens (`write`): from per-box tables for the rolls whose points do not depend
    on the sheet, from the solver's decision trees for the few that do.
    """

    def __init__(self, space, values: np.ndarray, max_bytes: int = CACHE_BYTES, future: bool = True):
        self.space, self.V = space, np.asarray(values).view(np.ndarray)  # (a memory map read as a plain array)
        # a bot blind to the future (values all zero): states that differ only in quantities no write
        # reads (only end bonuses do) have one plan, made for the state with those quantities at 0
        self.unread = [] if future else unread_features(space)
        tt = space.tt
        self.R, self.K = len(tt.rolls), len(tt.keeps)
        self.nb = len(space.write_bonuses)
        per_state = 2 * self.R + (8 * (self.K + 1) + self.R) * space.rerolls
        self.capacity = max(PLAN_CHUNK, max_bytes // per_state)
        self.box = np.zeros((0, self.R), dtype=np.int16)
        self.keepv = np.zeros((0, space.rerolls, self.K + 1))  # keep values per layer, -inf at K
        self.index: dict[int, int] = {}
        self.dense: np.ndarray | None = None  # slot per state, where the states are few enough (DENSE_SLOTS)
        self.keep: np.ndarray | None = None  # a policy table (policy.py): keep per (slot, rerolls left, roll)
        # the best keep of each planned state, layer and roll as a byte (its place among the roll's
        # candidates, as in a policy table): what the compiled turn reads (lockstep.py), where it is compiled
        self.kbyte = np.zeros((0, space.rerolls, self.R), dtype=np.uint8)
        self.policy_tried = False  # whether stored policy tables were looked for
        self.used = 0
        # candidate keeps per roll, larger first (padded with K, whose value is -inf)
        self.candidates = np.ascontiguousarray(tt.sub_index[:, ::-1])
        self._tables()
        from ..solver.turnplan import Planner
        self.planner = Planner(space, self.V)  # compiled plans where numba is there (the same numbers)

    def _tables(self) -> None:
        """Per (box, roll): points and write bonuses where they do not depend on the sheet, and
        whether they do; per (box, feature): whether writing the box moves the feature."""
        space, B, R = self.space, len(self.space.boxes), self.R
        points_t, legal_t, bonus_t, plain_t = space._at(None)
        self.plain_points = np.zeros((B, R), dtype=np.int64)
        self.plain_bonus = np.zeros((self.nb, B, R), dtype=np.int64)
        self.branching = np.zeros((B, R), dtype=bool)
        self.plain_ok = np.zeros((B, R), dtype=bool)  # plain rolls the write rule allows
        for bi, b in enumerate(space.boxes):
            plain = plain_t[b]
            rows = plain.rows
            self.plain_ok[bi, rows] = True
            if len(rows):
                self.plain_points[bi, rows] = np.asarray(plain.distinct, dtype=np.int64)[plain.which]
                for k in range(self.nb):
                    self.plain_bonus[k, bi, rows] = [bonus_t[b][r][k].value for r in rows.tolist()]
            self.branching[bi, plain.branching] = True
        self._tree_keys: dict[int, str] = {}  # a tree (kept alive by the Space) -> its structure, as text
        self.bits = np.array([space.bit[b] for b in space.boxes], dtype=np.int64)
        self.moves = np.array([[any(j == i for j, _ in space.moving[b]) for i in range(len(space.feats))]
                               for b in space.boxes], dtype=bool).reshape(B, len(space.feats))
        # the features as arrays (the compiled write, lockstep.write): total or not, at least or not, limit, radix, size
        self.feat_total = np.array([f.kind == "total" for f in space.feats], dtype=bool)
        self.feat_atleast = np.array([f.kind == "atleast" for f in space.feats], dtype=bool)
        self.feat_limit = np.array([f.limit for f in space.feats], dtype=np.int64)
        self.feat_radix, self.feat_size = np.array(space.radix, dtype=np.int64), np.array(space.sizes, dtype=np.int64)

    def _grow(self, need: int) -> None:
        """Room for `need` more plans: the arrays are made once at full capacity with np.empty, so
        memory is taken only as plans are written (the bound) and nothing is ever copied."""
        if len(self.box) < self.capacity:
            self.box = np.empty((self.capacity,) + self.box.shape[1:], dtype=self.box.dtype)
            self.keepv = np.empty((self.capacity,) + self.keepv.shape[1:], dtype=self.keepv.dtype)
            self.kbyte = np.empty((self.capacity,) + self.kbyte.shape[1:], dtype=np.uint8)

    def slots(self, states: np.ndarray) -> np.ndarray:
        """The slot of each state (an array of state indexes), planning those not cached."""
        if self.unread:
            states = self.planned_as(states)
        if self.space.entries <= DENSE_SLOTS:
            return self._dense_slots(states)
        unique, inverse = np.unique(states, return_inverse=True)
        index = self.index
        if len(index) + len(unique) > self.capacity:  # the memory bound: start over
            index.clear()
            self.used = 0
        slot_of = np.empty(len(unique), dtype=np.int64)
        new = []
        for i, s in enumerate(unique.tolist()):
            slot = index.get(s)
            if slot is None:
                new.append(i)
            else:
                slot_of[i] = slot
        if new:
            new_states = unique[new]
            self._grow(len(new_states))
            start = self.used
            for lo in range(0, len(new_states), PLAN_CHUNK):
                self._plan(new_states[lo:lo + PLAN_CHUNK], start + lo)
            self.used += len(new_states)
            slot_of[new] = np.arange(start, start + len(new_states))
            for s, slot in zip(new_states.tolist(), range(start, start + len(new_states))):
                index[s] = slot
        return slot_of[inverse]

    def planned_as(self, states: np.ndarray) -> np.ndarray:
        """The state each state is planned as: the quantities no write reads set to 0."""
        space, out = self.space, states
        for i in self.unread:
            r = space.radix[i]
            out = out - ((states // r) % space.sizes[i]) * r
        return out

    def use_policy(self, tables) -> None:
        """Read boxes and keeps from policy tables (policy.py) instead of planning."""
        self.dense, self.box, self.keep = (t.view(np.ndarray) for t in tables)  # (memory maps read as plain arrays)
        self.used = len(self.box)

    def _dense_slots(self, states: np.ndarray) -> np.ndarray:
        """`slots` through an array over every state (-1: not planned), no dictionary."""
        if self.dense is None:
            self.dense = np.full(self.space.entries, -1, dtype=np.int64)
        slot = self.dense[states].astype(np.int64)
        missing = slot < 0
        if missing.any() and self.keep is not None:  # a state the policy lacks: plan as they come
            self.keep, self.dense, self.used = None, None, 0
            self.box = np.zeros((0, self.R), dtype=np.int16)
            return self._dense_slots(states)
        if missing.any():
            new_states = np.unique(states[missing])
            if self.used + len(new_states) > self.capacity:  # the memory bound: start over
                self.dense.fill(-1)
                self.used = 0
                new_states = np.unique(states)
            self._grow(len(new_states))
            start = self.used
            for lo in range(0, len(new_states), PLAN_CHUNK):
                self._plan(new_states[lo:lo + PLAN_CHUNK], start + lo)
            self.used += len(new_states)
            self.dense[new_states] = np.arange(start, start + len(new_states))
            slot = self.dense[states]
        return slot

    def decode(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(masks, features) of state indexes (mask * F + features in mixed radix)."""
        space = self.space
        masks, rest = np.divmod(states, space.F)
        feats = np.empty((len(states), len(space.feats)), dtype=np.int64)
        for i, (r, size) in enumerate(zip(space.radix, space.sizes)):
            feats[:, i] = (rest // r) % size
        return masks, feats

    def next_state(self, masks: np.ndarray, f: np.ndarray, boxes: np.ndarray, points: np.ndarray) -> np.ndarray:
        """The state after writing `points` into `boxes` (box indexes), per game or state."""
        space = self.space
        idx = (masks | self.bits[boxes]) * space.F
        for i, ft in enumerate(space.feats):
            if ft.kind == "total":
                moved = np.minimum(ft.limit, f[:, i] + np.maximum(points, 0))
            else:
                moved = ft.holds(points)
            idx += np.where(self.moves[boxes, i], moved, f[:, i]) * space.radix[i]
        return idx

    def _plan(self, states: np.ndarray, at: int) -> None:
        """Plan a batch of new states into slots at, at + 1, …: the best box per roll (points +
        write bonus + V of the next state; the first on the sheet on a tie), then the keep values."""
        space, V, S, R = self.space, self.V, len(states), self.R
        masks, f = self.decode(states)
        if self.planner.usable:
            sl = slice(at, at + S)
            _, box, _, _, status = self.planner.plan(masks, f, states, keepv=self.keepv[sl], tables=False)
            if status & 1:
                raise NotSolvable("for some roll and sheet the write rule allows no box; the solver cannot value that",
                                  space.model.flow.pos)
            self.box[sl] = box
            self.keepv[sl, :, -1] = -np.inf
            self._keep_bytes(sl)
            return
        atoms = space.atoms(masks, f)
        points_t, legal_t, bonus_t, plain_t = space._at(None)
        best = np.full((R, S), -np.inf)
        box = np.zeros((R, S), dtype=np.int16)
        value = np.empty((R, S))
        memo: dict[str, np.ndarray] = {}

        keys = self._tree_keys

        def evaluate(tree):  # rolls often share a tree (the same rule for every face): once per batch
            if tree.leaf:
                return tree.value
            key = keys.get(id(tree))
            if key is None:
                key = keys[id(tree)] = repr(tree)
            if key not in memo:
                memo[key] = space.evaluate(tree, atoms, S)
            return memo[key]

        for bi, b in enumerate(space.boxes):
            open_ = (masks & space.bit[b]) == 0
            if not open_.any():
                continue
            plain = plain_t[b]
            base = (masks | space.bit[b]) * space.F
            for i in space.staying[b]:
                base = base + f[:, i] * space.radix[i]

            def ahead(p):  # the next states for p points (a number, or one per state)
                idx = base
                for i, ft in space.moving[b]:
                    if ft.kind == "total":
                        idx = idx + np.minimum(ft.limit, f[:, i] + np.maximum(p, 0)) * space.radix[i]
                    else:
                        idx = idx + ft.holds(p) * space.radix[i]
                return idx

            if len(plain.rows):  # one row of next states per distinct number of points
                value[plain.rows] = V[np.stack([ahead(p) for p in plain.distinct])][plain.which] + plain.gain[:, None]
                value[plain.refused] = -np.inf
            for r in plain.branching:
                p = np.broadcast_to(evaluate(points_t[b][r]), (S,))
                gain = p + sum(np.asarray(evaluate(t)) for t in bonus_t[b][r])
                allowed = np.broadcast_to(evaluate(legal_t[b][r]), (S,))
                value[r] = np.where(allowed, gain + V[ahead(p)], -np.inf)
            if not open_.all():
                value[:, ~open_] = -np.inf
            better = value > best
            np.copyto(best, value, where=better)
            box[better] = bi
        if np.isinf(best).any():
            raise NotSolvable("for some roll and sheet the write rule allows no box; the solver cannot value that",
                              space.model.flow.pos)
        sl = slice(at, at + S)
        self.box[sl] = box.T
        layers = space.tt.layers(best, space.rerolls)
        for j in range(1, space.rerolls + 1):
            self.keepv[sl, j - 1, :-1] = layers[j][0].T
        self.keepv[sl, :, -1] = -np.inf
        self._keep_bytes(sl)

    def _keep_bytes(self, sl: slice) -> None:
        """The best keeps of the states just planned, as bytes (where the compiled turn is there)."""
        from ..solver import lockstep
        if lockstep.compiled() is not None:
            lockstep.best_keeps(self.keepv[sl], self.candidates, self.kbyte[sl])

    def legal_now(self, states: np.ndarray, rolls: np.ndarray) -> np.ndarray:
        """(G, B): the boxes each game may write its roll into (open, and allowed by the write rule;
        rules that read the sheet are the solver's trees, evaluated per (box, roll) met)."""
        space = self.space
        masks, f = self.decode(states)
        is_open = (masks[:, None] & self.bits[None, :]) == 0
        legal = is_open & self.plain_ok[:, rolls].T
        odd = self.branching[:, rolls].T & is_open  # (G, B): open boxes whose rule reads the sheet
        kp = self.planner.kplan
        if kp is not None and odd.any():  # the kernel's table of those writes per group of sheet atoms
            w = kp.write
            gkey = kp.batch(masks, f, states).gkey
            for x in range(len(w.bq_box)):
                g = np.flatnonzero(rolls == w.bq_roll[x])
                if len(g):
                    b = w.bq_box[x]
                    legal[g, b] = is_open[g, b] & (w.bsel[0, w.bq_off[x] + gkey[w.bq_key[x], g]] >= 0)
            return legal
        games, boxes = np.nonzero(odd)
        if len(games):
            _, legal_t, _, _ = space._at(None)
            pairs = boxes * self.R + rolls[games]
            for pair in np.unique(pairs).tolist():
                sel = pairs == pair
                bi, r = divmod(pair, self.R)
                g = games[sel]
                atoms = space.atoms(masks[g], f[g])
                legal[g, bi] = np.broadcast_to(space.evaluate(legal_t[space.boxes[bi]][r], atoms, len(g)), (len(g),))
        return legal

    def keeps(self, slot: np.ndarray, layer: int, roll: np.ndarray) -> np.ndarray:
        """The keep each game chooses with `layer` rerolls left: the best of the roll's keeps,
        the first of the larger keeps on a tie (as `PlannerBot.choose`)."""
        cand = self.candidates[roll]  # (G, width)
        values = self.keepv[slot[:, None], layer - 1, cand]
        return cand[np.arange(len(roll)), values.argmax(axis=1)]

    def write(self, states: np.ndarray, boxes: np.ndarray, rolls: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Writing each game's roll into its box: (points, write bonuses (nb, G), next states)."""
        from ..solver import lockstep
        made = lockstep.write(self, states, boxes, rolls)
        if made is not None:  # compiled: the writes whose points do not read the sheet; the others here
            points, bonus, nxt, odd = made
            if len(odd):
                masks, f = self.decode(states[odd])
                points[odd], bonus[:, odd] = self._odd_writes(states[odd], boxes[odd], rolls[odd], masks, f)
                nxt[odd] = self.next_state(masks, f, boxes[odd].astype(np.int64), points[odd])
            return points, bonus, nxt
        points = self.plain_points[boxes, rolls]
        bonus = self.plain_bonus[:, boxes, rolls]
        masks, f = self.decode(states)
        odd = np.flatnonzero(self.branching[boxes, rolls])
        if len(odd):
            points[odd], bonus[:, odd] = self._odd_writes(states[odd], boxes[odd], rolls[odd], masks[odd], f[odd])
        return points, bonus, self.next_state(masks, f, boxes.astype(np.int64), points)

    def _odd_writes(self, states, boxes, rolls, masks, f) -> tuple[np.ndarray, np.ndarray]:
        """(points, write bonuses (nb, n)) of writes whose points read the sheet: the kernel's rows of
        those writes per group of sheet atoms, else the solver's trees per (box, roll) met."""
        pairs = boxes.astype(np.int64) * self.R + rolls
        kp = self.planner.kplan
        x = kp.query_of[pairs] if kp is not None and kp.wpoints.shape[0] == 1 else None
        if x is not None and (x >= 0).all():
            w = kp.write
            gkey = kp.batch(masks, f, states).gkey
            col = w.bq_off[x] + gkey[w.bq_key[x], np.arange(len(states))]
            return kp.wpoints[0, col], kp.wbonus[0][:, col]
        got = self._evaluate_writes(pairs, states)
        return got[0], got[1:]

    def _evaluate_writes(self, pairs: np.ndarray, states: np.ndarray) -> np.ndarray:
        """(1 + write bonuses, n): points and write bonuses of (box * R + roll, state) writes whose
        trees read the sheet."""
        space = self.space
        points_t, _, bonus_t, _ = space._at(None)
        masks, f = self.decode(states)
        got = np.empty((1 + self.nb, len(pairs)), dtype=np.int64)
        for pair in np.unique(pairs).tolist():
            at = np.flatnonzero(pairs == pair)
            bi, r = divmod(pair, self.R)
            b = space.boxes[bi]
            atoms = space.atoms(masks[at], f[at])
            got[0, at] = space.evaluate(points_t[b][r], atoms, len(at))
            for k, tree in enumerate(bonus_t[b][r]):
                got[1 + k, at] = space.evaluate(tree, atoms, len(at))
        return got

