"""The generic engine: a game state in the OpenSpiel shape, driven by the model's phase tree.

`current_player()` is a player index, CHANCE or TERMINAL. Decisions and dice rolls both go through
`apply()`; `chance_outcomes()` lists a roll's results with exact probabilities, so solvers and
tests can walk any model, and `sample_chance(rng)` draws one. The state serializes to JSON and back.

Speed: the phase tree is compiled once per model into a flat program (`_Tables`), and everything
that depends only on the model and the dice is computed once and kept: the legal keeps of every
roll, the chance tables, (`Scorer.for_model`) what each roll may be written into, and the write
actions of each set of open boxes. A state carries only its position, the dice, the players' sheets
(with a mask of each sheet's filled boxes) and memos of these tables; its fields are slots.
"""
from __future__ import annotations

from bisect import bisect_right

from .actions import Action, Roll, Stop
from ..model.errors import IllegalActionError
from ..model.frozen import Model, Step
from ..model.scoring import Option
from .program import CHANCE, TERMINAL, Leaf, tables
from .flow import Flow
from .keeping import Keeping
from .luck import Luck
from .saves import Saves
from .standing import Standing
from .writing import Writing
from .program import ANNOUNCE, BANK, KEEP, ROLL, WRITE
from .moves import NO_NODE as _NO_NODE, Moves

_NO_MARK = (None, -1, 0)  # no mask of filled boxes (see `GameState._marks`)
_NONE = (None,)


class GameState(Moves, Flow, Keeping, Writing, Luck, Saves, Standing):
    """One game of a model in progress.

    The position is a leaf instruction of the model's compiled phase tree plus a pass counter
    per container (see `_Tables`); `stack` shows it as the frames from the root of the tree down
    to the step that is due. Change a state only through `apply`.
    """

    # slotted: the engine reads and writes these on every move (and a slot is faster than a dict entry); those
    # of the hot paths first, so that a move touches few cache lines of the state
    __slots__ = ("_pos", "_op", "_dice", "player", "acting", "_counters", "_positions", "sheets", "_marks", "_plan",
                 "_plan_bits", "_options", "_full", "last_cell", "held", "announced", "turns_begun", "_n_players",
                 "_turn_counters", "_n_boxes", "_simple", "_ending", "_kept", "_roll_number", "_node", "_after", "_all",
                 "_t", "model", "players", "scorer", "_program", "_keeps", "_merge", "_writes",  # (fixed for the game)
                 "awards", "counter_values", "game_counters", "_queue", "_written", "ended_by")

    def __init__(self, model: Model, players: list[str]):
        if not model.min_players <= len(players) <= model.max_players:
            raise IllegalActionError("{game} is for {least} to {most} players, not {count}", game=model.name,
                                     least=model.min_players, most=model.max_players, count=len(players))
        self.model, self.players = model, list(players)
        self._t = t = tables(model)
        self._positions, self._pos = t.positions, None  # (no position yet: see `_settle`)
        self.scorer = t.scorer
        # each player's sheet, awards and counters (numbers that outlive a turn; the game's are below), and
        # (`_marks`) the sheet with its size and the mask of its filled boxes (see `_filled`): none filled yet
        mine = t.player_counters
        self.sheets, self.awards, self.counter_values, self._marks = sheets, awards, values, marks = [], [], [], []
        for _ in players:
            sheet = {}
            sheets.append(sheet)
            awards.append({})
            values.append(mine.copy())
            marks.append((sheet, 0, 0))
        self.game_counters: dict[str, int] = dict(t.game_counters)
        # counters of a turn (`per: turn`): each player's own, back to its start when their turn starts
        self._turn_counters = t.turn_counters
        self.player = 0
        # at a write step taken by several players (`by: others|all`) or one the player may pass:
        # the player asked now (None: the active player), those still to ask, the writes made
        self.acting: int | None = None
        self._queue: list[int] = []
        self._written: list[tuple[int, str]] = []
        self._dice: tuple[int, ...] = ()  # (read as `dice`)
        self._kept: tuple[int, ...] = ()  # (read as `kept`, unless a position says them)
        self.held: tuple[int, ...] = ()  # dice set aside this turn that stay aside (a keep step with `locked`)
        self.announced: str | None = None  # the write target announced this turn (an announce step)
        self._roll_number = 0  # (read as `roll_number`, unless a position says it)
        self.ended_by: int | None = None  # the player whose write met the model's end_if
        self.turns_begun = 0  # how many turns have begun (a look-ahead sees a turn end by it)
        self._ending: int | None = None  # once end_if held with `end: round|last_turn`: -1 (the round), or last turns left
        self.last_cell: str | None = None  # the cell the last write filled
        self._n_boxes = t.n_cells  # the sheet is full when every cell is
        self._program, self._keeps, self._merge = t.program, t._keeps, t.merge  # (saves a lookup per move)
        self._writes, self._n_players = t.writes, len(self.players)
        self._counters = [0] * len(t.slots)  # the pass through each container (0 outside it)
        self._simple = t.simple  # the sheet's cells are its boxes
        self._full = False  # every sheet is full (kept up to date by writes; a sheet of no boxes is never full)
        self._op: Leaf | None = None  # the leaf instruction due (None: the game is over)
        self._options: dict[str, Option] | None = None  # what the dice may be written into (at a write)
        self._plan: dict[str, Option] | None = None  # at a write, a static plan (see Scorer.write_plan)
        self._plan_bits = 0  # with a static plan: its boxes as a mask (see `_Tables.static_plan`)
        # memos of the fast paths (dice alike), each checked by identity before use, so that any
        # other way of changing the dice or the kept dice simply misses them: the node of the dice
        # (`_Tables.keeps`, valid while node[4] is self.dice), rolling beside the kept dice
        # (`_Tables.after`, valid while its [0] is self.kept) and rolling all dice (None: dice that differ)
        self._node: tuple = _NO_NODE
        self._all = t.roll_all
        self._after: tuple = self._all or _NO_NODE
        opening = t.opening  # a program that begins with a turn's leaf: it, and its position (as `_run(0)` finds them)
        if opening is None:
            self._run(0)
        else:
            self.turns_begun = 1
            if self._turn_counters:
                self._turn_begins()
            self._op, self._pos = opening

    def clone(self) -> "GameState":
        """An independent copy of the position (to look ahead: apply moves to it, not to this one)."""
        other = object.__new__(GameState)
        (other.model, other._t, other.scorer, other._turn_counters, other._n_boxes, other._program, other._keeps,
         other._merge, other._writes, other._n_players, other._simple, other._all, other._positions) = (
            self.model, self._t, self.scorer, self._turn_counters, self._n_boxes, self._program, self._keeps,
            self._merge, self._writes, self._n_players, self._simple, self._all, self._positions)
        (other.player, other.acting, other._dice, other._kept, other.held, other.announced, other._roll_number,
         other.ended_by, other.turns_begun, other._ending, other.last_cell, other._full, other._op, other._options,
         other._plan, other._plan_bits, other._node, other._after, other._pos) = (
            self.player, self.acting, self._dice, self._kept, self.held, self.announced, self._roll_number,
            self.ended_by, self.turns_begun, self._ending, self.last_cell, self._full, self._op, self._options,
            self._plan, self._plan_bits, self._node, self._after, self._pos)
        other.players = list(self.players)
        other.sheets = sheets = [dict(s) for s in self.sheets]
        other._marks = [(copy, size, bits) if old is mine else _NO_MARK  # (the masks of the copied sheets)
                        for copy, mine, (old, size, bits) in zip(sheets, self.sheets, self._marks)]
        other.awards = [dict(a) for a in self.awards]
        other.counter_values = [dict(c) for c in self.counter_values]
        other.game_counters = dict(self.game_counters)
        other._counters = list(self._counters)
        other._queue = list(self._queue)
        other._written = list(self._written)
        return other

    # the dice, the kept dice and the roll number: fields, or what the position says (see positions.py)
    @property
    def dice(self) -> tuple[int, ...]:
        """The dice showing (sorted; with dice that differ, group after group)."""
        return self._dice

    @dice.setter
    def dice(self, value: tuple[int, ...]) -> None:
        if self._pos is not None:
            self._settle()
        self._dice = value

    @property
    def kept(self) -> tuple[int, ...]:
        """The dice kept before the pending roll (with dice that differ: codes of group and face)."""
        pos = self._pos
        return self._kept if pos is None else pos.kept

    @kept.setter
    def kept(self, value: tuple[int, ...]) -> None:
        if self._pos is not None:
            self._settle()
        self._kept = value

    @property
    def roll_number(self) -> int:
        """How many rolls the player has made this turn."""
        pos = self._pos
        return self._roll_number if pos is None else pos.rn

    @roll_number.setter
    def roll_number(self, value: int) -> None:
        if self._pos is not None:
            self._settle()
        self._roll_number = value

    def _settle(self) -> None:
        """Leave the position (see positions.py): write back the fields it says, for the general paths."""
        pos = self._pos
        self._pos = None
        self._kept, self._roll_number = pos.kept, pos.rn
        if pos.plan is not None:  # a write's: its plan
            self._plan, self._plan_bits = pos.plan, pos.bits
        if pos.chance:
            self._after = pos.after
        else:
            self._node = pos.node

    # the OpenSpiel interface ----------------------------------------------
    def step(self) -> Step | None:
        """The leaf step waiting to be done (None when the game is over)."""
        op = self._op
        return None if op is None else op.step

    def current_player(self) -> int:
        pos = self._pos
        if pos is not None:  # (in a position the active player acts: see positions.py)
            return CHANCE if pos.chance else self.player
        op = self._op
        if op is None:
            return TERMINAL
        if op.chance:
            return CHANCE
        acting = self.acting
        return self.player if acting is None else acting

    @property
    def actor(self) -> int:
        """The player who decides now: the active player, or the one asked at a step several take."""
        acting = self.acting
        return self.player if acting is None else acting

    def is_terminal(self) -> bool:
        return self._op is None

    def is_chance_node(self) -> bool:
        op = self._op
        return op is not None and op.kind is ROLL

    def dice_to_roll(self) -> int:
        """How many dice the pending roll throws."""
        op = self._op
        return self.model.n_dice if op.all_dice or (op.luck and self.rolls_all(op)) else self.model.n_dice - len(self.kept)

    def chance_outcomes(self) -> list[tuple[Roll, float]]:
        """Each possible result of the pending roll with its probability."""
        if not self.is_chance_node():
            return []
        if self.kept and self._t.grouped and not self._op.all_dice:
            return list(self._t.group_chance(self.kept)[0])
        return list(self._t.chance(self.dice_to_roll())[0])

    def sample_chance(self, rng) -> Roll:
        """A result of the pending roll drawn with its probability, from one `rng.random()`.

        Drawn the way `random.choices` draws with weights: bisecting the cumulative weights of the
        outcomes (the distinct sorted results) at `rng.random()` times their total.
        """
        pos = self._pos
        if pos is not None and pos.chance:  # (see positions.py)
            return pos.rolls[bisect_right(pos.cum, rng.random() * pos.total)]
        try:
            cum, rolls, total = self._op.draws[len(self._kept)]  # a plain roll (see Leaf.draws)
        except (AttributeError, TypeError):  # no roll is due (or the game is over), or a roll of luck or dice that differ
            op = self._op
            if op is None or op.kind is not ROLL:
                raise IllegalActionError("no dice are to be rolled now") from None
            cum, rolls, total = self._luck_draw(op)
        return rolls[bisect_right(cum, rng.random() * total)]

    def legal_actions(self) -> list[Action]:
        pos = self._pos
        if pos is not None:
            legal = pos.legal
            if legal is not None:
                return legal.copy()  # a copy: the position's list stays as it is
            return self._open_writes(pos.bits, self.player)  # a write's position (the active player writes)
        op = self._op
        if op is None:
            return []
        if op.plain_keep:  # the keeps of the node of the dice
            entry = self._node
            if entry[4] is not self._dice:
                entry = self._node = self._keeps.get(self._dice) or self._t.keeps(self._dice)
            return entry[op.keep_slot].copy()  # a copy: the cached list stays as it is
        kind = op.kind
        if kind is WRITE:
            if self._plan is not None:  # the boxes of the static plan still open on the sheet
                acting = self.acting
                out = self._open_writes(self._plan_bits, self.player if acting is None else acting)
            else:
                out = list(map(self._writes.__getitem__, self._write_options()))
            if op.shared and op.step.optional and self._may_pass(op):
                out.insert(0, Stop())
            return out
        if kind is KEEP:  # a keep with a rule, or of dice that differ
            entry = self._t.ruled_keeps(op.step, self._dice, self.held) if op.ruled else \
                self._keeps.get(self._dice) or self._t.keeps(self._dice)
            return entry[op.keep_slot].copy()
        if kind is ANNOUNCE:
            return self._announce_options()
        if kind is BANK:
            return self._bank_options()
        return [a for a, _ in self.chance_outcomes()]

    def returns(self) -> list[int]:
        """Each player's final score: the grand total, or the model's own final score (`winner`)."""
        if self.model.ranking is None:
            counters = map(self.counters_of, range(self._n_players)) if self.model.counters else _NONE * self._n_players
            return list(map(self.scorer.total, self.sheets, self.awards, counters))
        return [self.final_scores()[p][0] for p in range(len(self.players))]

    # JSON -------------------------------------------------------------------------
