"""One table: a `Game` of a model with its seats (`SeatInfo`, `Table`), what everybody sees of it
(`Table.snapshot`), its events as the clients get them (`event_json`), and how it is saved."""
from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field
from typing import Any

from ...interpreter.engine.actions import Action, Announce, Keep, Roll, RollOn, Stop
from ...interpreter.play.game import Game, Seat
from ...interpreter.model.frozen import Model
from ...interpreter.engine.state import CHANCE, GameState
from ..terminal.view import round_of

FORMAT = 1


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def seed_commitment(seed: int) -> str:
    """What a table publishes about its seed at the start: SHA-256 of the seed in decimal.

    The server's own seeds have 128 random bits, so the commitment gives nothing away; the seed
    itself is shown when the game is over, and anybody can check both (`rulebook replay`)."""
    return hashlib.sha256(str(seed).encode("ascii")).hexdigest()


def new_game(model: Model, seats: list[SeatInfo], seed: int) -> Game:
    """The engine's game; an optimal or strong seat starts with a greedy player (see Tables._seat_optimal)."""
    return Game(model, [Seat(s.name, "greedy" if s.kind in ("optimal", "strong", "win") else s.kind) for s in seats], seed)


@dataclass
class SeatInfo:
    name: str
    kind: str
    token_hash: str | None = None

    @property
    def human(self) -> bool:
        return self.kind == "human"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "token_hash": self.token_hash}


@dataclass
class Table:
    id: str
    model_name: str
    options: dict[str, str]
    game: Game
    seats: list[SeatInfo]
    pace: float  # seconds before each computer move
    created: float
    practice: bool = False   # the seed was chosen by the one person at the table
    private: bool = False    # not listed; joined by link only
    hints: bool = True       # the players may ask for hints
    turn_timer: float = 0.0  # seconds a person has for a turn (0: no timer)
    events: list[dict[str, Any]] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    driver: asyncio.Task | None = None
    broken: str | None = None
    updated: float = 0.0
    stand_in: set[int] = field(default_factory=set)  # optimal seats playing greedily until solved
    robots: set[int] = field(default_factory=set)    # people's seats the computer plays for now
    rematch: str | None = None                       # the table of the next game with the same seats
    present: dict[int, int] = field(default_factory=dict)  # live connections per person's seat
    turn_started: float = 0.0                        # when the turn now under way began (time.time())
    turn_key: tuple = ()
    timer_sleep: bool = False                        # the driver only waits for the turn timer
    # capabilities (see docs/threat-model.md): the watch key, an invite key per open seat, and the
    # rematch seats kept for their players (seat -> hash of the token of their seat at the last table)
    watch_key: str = ""
    invites: dict[int, str] = field(default_factory=dict)
    reserved: dict[int, str] = field(default_factory=dict)
    started: bool = True                             # the clock runs (every seat taken, or started)
    ended: bool = False                              # ended early by a vote, with the standings so far
    votes: dict[str, set[int]] = field(default_factory=dict)  # "robot:SEAT" or "end" -> who voted for it
    robot_since: dict[int, int] = field(default_factory=dict)  # seat -> seq when the computer took it
    _pending: list[dict[str, Any]] = field(default_factory=list)
    _snap: dict[str, Any] | None = None

    @property
    def model(self) -> Model:
        return self.game.model

    @property
    def seq(self) -> int:
        return len(self.events)

    def open_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.human and not s.token_hash]

    @property
    def over(self) -> bool:
        return self.ended or self.game.state.is_terminal()

    # what everybody sees ------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The public view of the table (the same for players and spectators)."""
        if self._snap is None:
            self._snap = _snapshot(self)
        return self._snap

    def summary(self) -> dict[str, Any]:
        st = self.game.state
        return {"id": self.id, "model": self.model.id, "players": [s.name for s in self.seats],
                "kinds": [s.kind for s in self.seats], "open_seats": self.open_seats(),
                "finished": self.over, "round": list(round_of(st)), "seq": self.seq}

    # saving ---------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        g = self.game
        version, internal, gauss = g.rng.getstate()
        return {"format": FORMAT, "model": self.model_name, "options": self.options, "model_hash": g.model.hash,
                "seed": g.seed, "seats": [s.to_json() for s in self.seats], "pace": self.pace,
                "created": self.created, "seq": self.seq, "rng": [version, list(internal), gauss],
                "state": g.state.to_json(), "practice": self.practice, "private": self.private,
                "hints": self.hints, "turn_timer": self.turn_timer, "robots": sorted(self.robots),
                "rematch": self.rematch, "watch_key": self.watch_key, "invites": self.invites,
                "reserved": self.reserved, "started": self.started, "ended": self.ended,
                "robot_since": self.robot_since}


def _snapshot(table: Table) -> dict[str, Any]:
    g = table.game
    st = g.state
    model = st.model
    step = st.step()
    terminal = table.over
    p = st.actor  # who decides now (at a step every player takes, not only the one whose turn it is)
    choices, can_write = [], False
    if terminal:
        step = None
    if step is not None and step.kind == "write":
        choices, can_write = st.write_choices(), True
    elif step is not None and st.dice and len(st.dice) == model.n_dice:
        choices = st.scorer.choices(st.dice, st.sheets[p], st.roll_number)  # what the dice would score now
    current = st.current_player()
    n = len(st.players)
    out: dict[str, Any] = {
        "table": table.id,
        "model": model.id,
        "seq": table.seq,
        "players": [{"name": s.name, "kind": s.kind, "open": s.human and not s.token_hash,
                     "present": s.human and table.present.get(i, 0) > 0, "robot": i in table.robots,
                     "reserved": i in table.reserved} for i, s in enumerate(table.seats)],
        "player": None if terminal else p,
        "chance": current == CHANCE,
        "terminal": terminal,
        "step": None if step is None else {"id": step.id, "kind": step.kind, "can_stop": bool(step.can_stop)},
        # an announce step: what may be announced (None: nothing); the box announced this turn
        "announce": [a.box for a in st.legal_actions()] if step is not None and step.kind == "announce" else [],
        "announced": st.announced,
        "dice": list(st.dice),
        "kept": list(st.kept_faces),
        "rolls_left": 0 if terminal else st.rolls_left(),
        "roll_number": st.roll_number,
        "round": list(round_of(st)),
        "sheets": [dict(s) for s in st.sheets],
        "totals": [st.totals(i) for i in range(n)],
        # the model's own final score (winner: score), beside the grand total
        "finals": None if model.ranking is None else [f[0] for f in st.final_scores()],
        # the model's counters (numbers that outlive a turn): each player's own, and the game's
        "counters": [dict(c) for c in st.counter_values],
        "game_counters": dict(st.game_counters),
        "progress": [{k: list(v) for k, v in st.scorer.progress(st.sheets[i]).items()} for i in range(n)],
        "choices": [{"box": c.box, "points": c.points, "bonus": c.bonus} for c in choices],
        "can_write": can_write,
        "can_pass": step is not None and step.kind == "write" and any(isinstance(a, Stop) for a in st.legal_actions()),
        "active": None if terminal else st.player,
        "broken": table.broken,
        "hints": table.hints,
        "private": table.private,
        "stand_in": sorted(table.stand_in),
        "rematch": table.rematch,
        "started": table.started,
        "ended": table.ended,
        # votes at a table without a timer: let the computer play an absent seat, or end the game now
        "votes": {k: sorted(v) for k, v in table.votes.items()},
        # the turn timer: seconds for a person's turn, and when the one under way ends (server time)
        "turn_timer": table.turn_timer,
        "turn_ends": (table.turn_started + table.turn_timer
                      if table.turn_timer > 0 and table.started and not terminal and current >= 0 and current not in g.bots
                      and current not in table.robots else None),
        # fair dice: the seed's commitment from the start, the seed itself once the game is over
        "fair": {"commitment": seed_commitment(g.seed), "practice": table.practice,
                 "seed": str(g.seed) if terminal else None},
    }
    if terminal:
        seat_of = {s.name: i for i, s in enumerate(table.seats)}
        out["ranking"] = [{"rank": r, "name": name, "seat": seat_of.get(name), "total": total}
                          for r, name, total in st.ranking()]  # (after a vote to end: the standings so far)
    return out


def event_json(seq: int, player: int, action: Action, kept_before: tuple[int, ...], state: GameState,
                points: int | None, bonus: int) -> dict[str, Any]:
    out: dict[str, Any] = {"seq": seq, "player": player, "move": str(action)}
    if isinstance(action, Roll):
        out.update(type="roll", faces=list(action.faces), kept=list(kept_before), dice=list(state.dice))
    elif isinstance(action, Keep):
        out.update(type="keep", dice=list(action.dice))
    elif isinstance(action, Stop):
        out.update(type="stop")
    elif isinstance(action, Announce):
        out.update(type="announce", box=action.box)
    elif isinstance(action, RollOn):
        out.update(type="roll_on")
    else:
        out.update(type="write", box=action.box, points=points, bonus=bonus)
    return out
