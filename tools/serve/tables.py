"""Tables: a `Game` of a bundled model with seats, run by the server.

The server is the only authority: people send decisions (keep, stop, write) for their own seat,
proven by the seat's token; the engine checks every one; the server rolls the dice and moves the
computer players. Every move is written to SQLite before anybody is told about it, so a table goes
on after a restart exactly where it was, with the same dice to come.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import random
import re
import secrets
import threading
import time
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import anyio

from ...interpreter.actions import Action, Keep, Roll, Stop, Write, parse_action
from ...interpreter.errors import IllegalActionError, RulebookError, UsageError
from ...interpreter.game import Game, Seat
from ...interpreter.loader import bundled_models, load_model
from ...interpreter.model import Model
from ...interpreter.bots import BOTS, GreedyBot
from ...interpreter.state import CHANCE, TERMINAL, GameState
from ..terminal.view import round_of
from .hub import Hub
from .store import Store

log = logging.getLogger("rulebook.serve")

FORMAT = 1
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{6,40}")
NAME_MAX = 24
SEAT_KINDS = ("human", "greedy", "random", "optimal")
MAX_PACE_MS = 5000


class ServeError(Exception):
    """A request the server refuses: an HTTP status and a sentence saying why."""

    def __init__(self, status: int, message: str, hint: str | None = None):
        super().__init__(message)
        self.status, self.message, self.hint = status, message, hint

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": self.message, "status": self.status}
        if self.hint:
            out["hint"] = self.hint
        return out


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


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
    events: list[dict[str, Any]] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    driver: asyncio.Task | None = None
    broken: str | None = None
    updated: float = 0.0
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
                "finished": st.is_terminal(), "round": list(round_of(st)), "seq": self.seq}

    # saving ---------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        g = self.game
        version, internal, gauss = g.rng.getstate()
        return {"format": FORMAT, "model": self.model_name, "options": self.options, "model_hash": g.model.hash,
                "seed": g.seed, "seats": [s.to_json() for s in self.seats], "pace": self.pace,
                "created": self.created, "seq": self.seq, "rng": [version, list(internal), gauss],
                "state": g.state.to_json()}


def _snapshot(table: Table) -> dict[str, Any]:
    g = table.game
    st = g.state
    model = st.model
    step = st.step()
    terminal = st.is_terminal()
    p = st.player
    choices, can_write = [], False
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
        "players": [{"name": s.name, "kind": s.kind, "open": s.human and not s.token_hash} for s in table.seats],
        "player": None if terminal else p,
        "chance": current == CHANCE,
        "terminal": terminal,
        "step": None if step is None else {"id": step.id, "kind": step.kind, "can_stop": bool(step.can_stop)},
        "dice": list(st.dice),
        "kept": list(st.kept),
        "rolls_left": 0 if terminal else st.rolls_left(),
        "roll_number": st.roll_number,
        "round": list(round_of(st)),
        "sheets": [dict(s) for s in st.sheets],
        "totals": [st.totals(i) for i in range(n)],
        "progress": [{k: list(v) for k, v in st.scorer.progress(st.sheets[i]).items()} for i in range(n)],
        "choices": [{"box": c.box, "points": c.points, "bonus": c.bonus} for c in choices],
        "can_write": can_write,
        "broken": table.broken,
    }
    if terminal:
        seat_of = {s.name: i for i, s in enumerate(table.seats)}
        out["ranking"] = [{"rank": r, "name": name, "seat": seat_of.get(name), "total": total}
                          for r, name, total in st.ranking()]
    return out


def _event_json(seq: int, player: int, action: Action, kept_before: tuple[int, ...], state: GameState,
                points: int | None, bonus: int) -> dict[str, Any]:
    out: dict[str, Any] = {"seq": seq, "player": player, "move": str(action)}
    if isinstance(action, Roll):
        out.update(type="roll", faces=list(action.faces), kept=list(kept_before), dice=list(state.dice))
    elif isinstance(action, Keep):
        out.update(type="keep", dice=list(action.dice))
    elif isinstance(action, Stop):
        out.update(type="stop")
    else:
        out.update(type="write", box=action.box, points=points, bonus=bonus)
    return out


# checking what people send ------------------------------------------------------------------

def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ServeError(400, f"'{what}' must be a whole number, not {_show(value)}")
    return value


def _str(value: Any, what: str, limit: int = 200) -> str:
    if not isinstance(value, str):
        raise ServeError(400, f"'{what}' must be a string, not {_show(value)}")
    if len(value) > limit:
        raise ServeError(400, f"'{what}' is too long (at most {limit} characters)")
    return value


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def clean_name(value: Any, what: str = "name") -> str:
    """A player's name: 1 to 24 printable characters, spaces squeezed."""
    name = " ".join(_str(value, what, 200).split())
    if not name:
        raise ServeError(400, f"the {what} is empty")
    if len(name) > NAME_MAX:
        raise ServeError(400, f"the {what} '{name[:NAME_MAX]}…' is longer than {NAME_MAX} characters")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise ServeError(400, f"the {what} contains control characters")
    return name


def check_table_id(table_id: str) -> str:
    if not TABLE_ID.fullmatch(table_id or ""):
        raise ServeError(404, f"there is no table '{_clip(table_id)}'")
    return table_id


def _clip(text: str, n: int = 40) -> str:
    text = "".join(c if c.isprintable() else "?" for c in str(text))
    return text if len(text) <= n else text[:n] + "…"


# hints ------------------------------------------------------------------------------------------

def is_solved(model: Model) -> bool:
    """The optimal player's table for this model is on disk (so a hint costs no solving)."""
    try:
        from ...interpreter import solver
        return solver.cache_path(model).exists()
    except Exception:  # noqa: BLE001 - no solver, no optimal hints
        return False


def compute_hint(state: GameState, top: int = 3) -> dict[str, Any]:
    """The best few decisions for the player to move, by the optimal bot where solved, else greedy."""
    bot, optimal = GreedyBot(), False
    if is_solved(state.model):
        try:
            from ...interpreter.solver import OptimalBot
            bot, optimal = OptimalBot(state.model), True
        except (ImportError, RulebookError):
            pass
    step = state.step()
    base = (sum(state.sheets[state.player].values()) + sum(state.awards[state.player].values())) if optimal else 0
    options = []
    if step.kind == "write":
        values = bot.write_values(state)
        for box, v in sorted(values.items(), key=lambda kv: -kv[1])[:top]:
            options.append({"action": str(Write(box)), "type": "write", "box": box, "value": round(base + v, 2)})
    else:
        values = bot.keep_values(state)
        for k, v in sorted(values.items(), key=lambda kv: (-kv[1], -len(kv[0])))[:top]:
            if len(k) == len(state.dice):
                action = Stop() if step.can_stop else Keep(k)
                options.append({"action": str(action), "type": "stop" if step.can_stop else "keep",
                                "dice": list(k), "value": round(base + v, 2)})
            else:
                options.append({"action": str(Keep(k)), "type": "keep", "dice": list(k), "value": round(base + v, 2)})
    return {"optimal": optimal, "options": options}


# the tables -------------------------------------------------------------------------------------

class Tables:
    """Every table of the server: in memory while in use, in SQLite always."""

    def __init__(self, store: Store, hub: Hub, pace: float = 0.7, max_tables: int = 1000):
        self.store, self.hub = store, hub
        self.default_pace = pace
        self.max_tables = max_tables
        self._tables: dict[str, Table] = {}
        self._models: dict[tuple, Model] = {}
        self._models_lock = threading.Lock()
        self._solve_lock = threading.Lock()
        self._stopping = False

    # models -----------------------------------------------------------------------
    def model(self, name: str, options: dict[str, str] | None = None) -> Model:
        """A bundled model (never a file path from a request) with options, loaded once."""
        if not isinstance(name, str) or name not in bundled_models():
            raise ServeError(404, f"there is no game '{_clip(name)}'",
                             f"games: {', '.join(bundled_models())}")
        key = (name, tuple(sorted((options or {}).items())))
        with self._models_lock:
            model = self._models.get(key)
            if model is None:
                try:
                    model = load_model(name, dict(options or {}))
                except UsageError as exc:
                    raise ServeError(422, exc.message, exc.hint) from None
                self._models[key] = model
        return model

    def _prepare_bots(self, model: Model, kinds: list[str]) -> None:
        """Solve the model for the optimal player once (it may take a while the first time)."""
        if "optimal" in kinds:
            from ...interpreter.solver import solved
            with self._solve_lock:
                solved(model)

    # start and stop ----------------------------------------------------------------
    async def start(self) -> None:
        """Load the unfinished tables and let their computer players go on."""
        for table_id in self.store.ids(finished=False):
            try:
                table = await self._load(table_id)
            except ServeError as exc:
                log.warning("table %s: %s", table_id, exc.message)
                continue
            if table is not None:
                self._kick(table)

    async def stop(self) -> None:
        self._stopping = True
        tasks = [t.driver for t in self._tables.values() if t.driver is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            try:
                await task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass

    async def _load(self, table_id: str) -> Table | None:
        data = self.store.load(table_id)
        if data is None:
            return None
        try:
            table = await anyio.to_thread.run_sync(self._restore, table_id, data)
        except (KeyError, TypeError, ValueError, RulebookError) as exc:
            message = exc.message if isinstance(exc, RulebookError) else f"{exc.__class__.__name__}"
            raise ServeError(409, f"table {table_id} cannot be continued: {message}") from None
        self._tables.setdefault(table_id, table)
        return self._tables[table_id]

    def _restore(self, table_id: str, data: dict[str, Any]) -> Table:
        if data.get("format") != FORMAT:
            raise ValueError("unknown format")
        model = self.model(data["model"], data["options"])
        if model.hash != data["model_hash"]:
            raise UsageError(f"the game's model has changed since this table was set up")
        seats = [SeatInfo(str(s["name"]), str(s["kind"]), s.get("token_hash")) for s in data["seats"]]
        self._prepare_bots(model, [s.kind for s in seats])
        game = Game(model, [Seat(s.name, s.kind) for s in seats], int(data["seed"]))
        version, internal, gauss = data["rng"]
        game.rng.setstate((int(version), tuple(int(x) for x in internal), gauss))
        game.state = GameState.from_json(model, data["state"])
        table = Table(table_id, data["model"], dict(data["options"]), game, seats, float(data["pace"]),
                      float(data["created"]))
        table.events = self.store.events(table_id)
        if len(table.events) != int(data["seq"]):
            raise ValueError("events missing")
        table.updated = time.time()
        return table

    # finding tables ------------------------------------------------------------------
    async def get(self, table_id: str) -> Table:
        check_table_id(table_id)
        table = self._tables.get(table_id)
        if table is None:
            table = await self._load(table_id)
            if table is None:
                raise ServeError(404, f"there is no table '{_clip(table_id)}'")
        return table

    def _evict(self, keep: int = 200) -> None:
        """Forget the oldest finished tables nobody watches (they are read again from disk if asked for)."""
        done = [t for t in self._tables.values()
                if t.game.state.is_terminal() and not self.hub.watchers(t.id) and not t.lock.locked()]
        for t in sorted(done, key=lambda t: t.updated)[:max(0, len(done) - keep)]:
            del self._tables[t.id]

    def recent(self, limit: int = 12) -> list[Table]:
        live = [t for t in self._tables.values() if not t.game.state.is_terminal() and not t.broken]
        return sorted(live, key=lambda t: -t.updated)[:limit]

    # creating ----------------------------------------------------------------------
    async def create(self, spec: Any) -> tuple[Table, int | None, str | None]:
        """A new table from {"model", "options", "seats": [{"name", "kind"}], "seed", "pace_ms", "claim"}.

        Returns (table, the seat the creator sits in, its token): the first person's seat, unless
        "claim" is false.
        """
        if not isinstance(spec, dict):
            raise ServeError(400, "the request body must be a JSON object")
        unknown = sorted(set(spec) - {"model", "options", "seats", "seed", "pace_ms", "claim"})
        if unknown:
            raise ServeError(400, f"unknown field '{_clip(unknown[0])}'",
                             "fields: model, options, seats, seed, pace_ms, claim")
        if sum(1 for t in self._tables.values() if not t.game.state.is_terminal()) >= self.max_tables:
            raise ServeError(503, "the server has too many tables in play; try again later")
        name = spec.get("model")
        if not isinstance(name, str):
            raise ServeError(400, "'model' must name a game")
        options = spec.get("options") or {}
        if not isinstance(options, dict):
            raise ServeError(400, "'options' must be an object of option names and values")
        opts: dict[str, str] = {}
        for k, v in options.items():
            if isinstance(v, bool):
                v = "true" if v else "false"
            elif isinstance(v, int):
                v = str(v)
            opts[_str(k, "option", 60)] = _str(v, f"options.{k}", 60)
        model = self.model(name, opts)
        seats_spec = spec.get("seats")
        if not isinstance(seats_spec, list) or not seats_spec:
            raise ServeError(400, "'seats' must be a list of {\"name\", \"kind\"}")
        if not model.min_players <= len(seats_spec) <= model.max_players:
            raise ServeError(422, f"{model.name['en']} is for {model.min_players} to {model.max_players} players, "
                                  f"not {len(seats_spec)}")
        seats: list[SeatInfo] = []
        for i, s in enumerate(seats_spec, 1):
            if not isinstance(s, dict):
                raise ServeError(400, f"seat {i} must be an object with a name and a kind")
            kind = s.get("kind", "human")
            if kind not in SEAT_KINDS:
                raise ServeError(422, f"seat {i}: unknown kind {_clip(repr(kind))}", f"kinds: {', '.join(SEAT_KINDS)}")
            seats.append(SeatInfo(clean_name(s.get("name", f"Player {i}"), f"name of seat {i}"), kind))
        names = [s.name.casefold() for s in seats]
        for s in seats:
            if names.count(s.name.casefold()) > 1:
                raise ServeError(422, f"two seats are called '{s.name}'; give each a different name")
        seed = spec.get("seed")
        seed = random.SystemRandom().randrange(2**31) if seed is None else _int(seed, "seed")
        pace_ms = spec.get("pace_ms")
        pace = self.default_pace if pace_ms is None else _int(pace_ms, "pace_ms") / 1000
        if not 0 <= pace <= MAX_PACE_MS / 1000:
            raise ServeError(400, f"'pace_ms' must be from 0 to {MAX_PACE_MS}")
        claim = spec.get("claim", True)
        if not isinstance(claim, bool):
            raise ServeError(400, "'claim' must be true or false")

        kinds = [s.kind for s in seats]
        if "optimal" in kinds:
            await anyio.to_thread.run_sync(self._prepare_bots, model, kinds)
        game = Game(model, [Seat(s.name, s.kind) for s in seats], seed)
        table_id = secrets.token_urlsafe(9)
        table = Table(table_id, name, opts, game, seats, pace, time.time(), updated=time.time())
        mine, token = None, None
        if claim:
            for i, s in enumerate(seats):
                if s.human:
                    token = secrets.token_urlsafe(18)
                    s.token_hash, mine = _hash(token), i
                    break
        self.store.create(table_id, table.to_json())
        self._evict()
        self._tables[table_id] = table
        async with table.lock:
            self._roll_pending(table)
            self._commit(table)
        self._kick(table)
        return table, mine, token

    # joining -----------------------------------------------------------------------
    async def claim(self, table_id: str, body: Any) -> tuple[Table, int, str]:
        """Take an open person's seat: {"seat": n, "name": optional new name} → a fresh token."""
        table = await self.get(table_id)
        if not isinstance(body, dict):
            raise ServeError(400, "the request body must be a JSON object")
        seat = self._seat(table, body.get("seat"))
        async with table.lock:
            info = table.seats[seat]
            if not info.human:
                raise ServeError(409, f"seat {seat + 1} ({info.name}) is played by the computer")
            if info.token_hash:
                raise ServeError(409, f"seat {seat + 1} ({info.name}) is taken already")
            if body.get("name") not in (None, ""):
                name = clean_name(body["name"])
                if any(s.name.casefold() == name.casefold() for i, s in enumerate(table.seats) if i != seat):
                    raise ServeError(409, f"another player is called '{name}' already; choose another name")
                info.name = name
                table.game.seats[seat] = Seat(name, info.kind)
                table.game.state.players[seat] = name
            token = secrets.token_urlsafe(18)
            info.token_hash = _hash(token)
            table._snap = None
            self._commit(table, force=True)
        return table, seat, token

    # acting ------------------------------------------------------------------------
    def _seat(self, table: Table, value: Any) -> int:
        seat = _int(value, "seat")
        if not 0 <= seat < len(table.seats):
            raise ServeError(400, f"there is no seat {seat} at this table (seats 0 to {len(table.seats) - 1})")
        return seat

    def authorize(self, table: Table, body: Any) -> int:
        """The seat a request may act for: its token must match (403 otherwise)."""
        if not isinstance(body, dict):
            raise ServeError(400, "the request body must be a JSON object")
        seat = self._seat(table, body.get("seat"))
        info = table.seats[seat]
        if not info.human:
            raise ServeError(403, f"seat {seat} ({info.name}) is played by the computer")
        token = body.get("token")
        if not isinstance(token, str) or not token:
            raise ServeError(403, f"a 'token' for seat {seat} is needed to play it")
        if not info.token_hash:
            raise ServeError(403, f"nobody has taken seat {seat} ({info.name}) yet", "take it with the join link")
        if not hmac.compare_digest(_hash(token[:200]), info.token_hash):
            raise ServeError(403, f"that is not the token of seat {seat} ({info.name})")
        return seat

    def _due(self, table: Table, seat: int) -> None:
        st = table.game.state
        if table.broken:
            raise ServeError(409, f"this table has stopped: {table.broken}")
        if st.is_terminal():
            raise ServeError(409, "the game is over")
        current = st.current_player()
        if current == CHANCE:
            raise ServeError(409, "wait: the dice are being rolled")
        if current != seat:
            raise ServeError(409, f"it is {st.players[current]}'s turn, not {st.players[seat]}'s")

    async def act(self, table_id: str, body: Any) -> tuple[Table, list[dict[str, Any]]]:
        """Carry out one decision for a seat: {"seat": n, "token": "…", "action": "keep 2 2 4"}.

        Returns the table and the events it caused (the decision and the rolls that followed), the
        last one with the state after them under "state".
        """
        table = await self.get(table_id)
        seat = self.authorize(table, body)
        text = _str(body.get("action"), "action")
        async with table.lock:
            self._due(table, seat)
            try:
                action = parse_action(text)
            except IllegalActionError as exc:
                raise ServeError(422, exc.message, exc.hint) from None
            if isinstance(action, Roll):
                raise ServeError(422, "the server rolls the dice; send keep, stop or write")
            try:
                self._apply(table, action)
            except IllegalActionError as exc:
                raise ServeError(422, exc.message, exc.hint) from None
            before = table.seq
            self._roll_pending(table)
            self._commit(table)
            events = table.events[before:]
            result = [dict(ev) for ev in events]
            result[-1]["state"] = table.snapshot()
        self._kick(table)
        return table, result

    async def hint(self, table_id: str, body: Any) -> dict[str, Any]:
        table = await self.get(table_id)
        seat = self.authorize(table, body)
        async with table.lock:
            self._due(table, seat)
            state = GameState.from_json(table.model, table.game.state.to_json())
        return await anyio.to_thread.run_sync(compute_hint, state)

    # the engine ------------------------------------------------------------------------
    def _apply(self, table: Table, action: Action) -> None:
        g = table.game
        st = g.state
        player, kept = st.player, st.kept
        ev = g.apply(action)  # IllegalActionError leaves the state as it was
        table._pending.append(_event_json(table.seq + len(table._pending) + 1, player, action, kept, st,
                                          ev.points, ev.bonus))

    def _roll_pending(self, table: Table) -> None:
        """Roll the dice for whoever is due now (rolls follow a decision at once)."""
        g = table.game
        while g.state.current_player() == CHANCE:
            self._apply(table, g.roll())

    def _commit(self, table: Table, force: bool = False) -> None:
        """Write the new moves to disk, then tell everyone watching."""
        pending, table._pending = table._pending, []
        if not pending and not force:
            return
        self.store.save(table.id, table.to_json() | {"seq": table.seq + len(pending)},
                        table.game.state.is_terminal(), [(ev["seq"], ev) for ev in pending])
        table.events.extend(pending)
        table._snap = None
        table.updated = time.time()
        snap = table.snapshot()
        now = time.time()  # "at": when it went out, for clients that measure how long delivery takes
        if not pending:
            self.hub.publish(table.id, {"type": "update", "seq": table.seq, "event": None, "state": snap, "at": now})
        for i, ev in enumerate(pending):
            last = i == len(pending) - 1
            # every event goes out in order; the state travels with the last one of a batch
            self.hub.publish(table.id, {"type": "update", "seq": ev["seq"], "event": ev,
                                        "state": snap if last else None, "at": now})

    def _kick(self, table: Table) -> None:
        """Make sure the computer players and the dice move on, paced for the people watching."""
        if self._stopping or table.broken:
            return
        if table.driver is None or table.driver.done():
            table.driver = asyncio.get_running_loop().create_task(self._drive(table))

    async def _drive(self, table: Table) -> None:
        g = table.game
        try:
            while True:
                async with table.lock:
                    st = g.state
                    p = st.current_player()
                    if p == TERMINAL or p not in g.bots and p != CHANCE:
                        return
                    if p == CHANCE:
                        self._roll_pending(table)
                        self._commit(table)
                        continue
                await asyncio.sleep(table.pace)  # a pause before each computer decision (also yields)
                async with table.lock:
                    st = g.state
                    p = st.current_player()
                    if p < 0 or p not in g.bots:
                        continue
                    bot = g.bots[p]
                    if table.seats[p].kind == "optimal":
                        action = await anyio.to_thread.run_sync(bot.choose, st)
                    else:
                        action = bot.choose(st)
                    self._apply(table, action)
                    self._roll_pending(table)
                    self._commit(table)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a table stops; the server goes on
            log.exception("table %s stopped", table.id)
            table._pending = []
            table.broken = f"{exc.__class__.__name__}: {exc}"
            table._snap = None
            self.hub.publish(table.id, {"type": "update", "seq": table.seq, "event": None, "state": table.snapshot()})
