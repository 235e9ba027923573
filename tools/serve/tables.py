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
import re
import secrets
import threading
import time
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import anyio

from ...interpreter.actions import Action, Announce, Keep, Roll, Stop, Write, parse_action
from ...interpreter.errors import IllegalActionError, RulebookError, UsageError
from ...interpreter.game import Game, Seat
from ...interpreter.loader import bundled_models, load_model, load_source
from ...interpreter.model import Model
from ...interpreter.bots import BOTS, GreedyBot
from ...interpreter.state import CHANCE, TERMINAL, GameState
from ..terminal.view import round_of
from .hub import Hub
from .limits import Limits
from .solving import SolveQueue, is_solved
from .store import Store

log = logging.getLogger("rulebook.serve")

FORMAT = 1
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{6,40}")
NAME_MAX = 24
SEAT_KINDS = ("human", "greedy", "random", "optimal", "strong")
MAX_PACE_MS = 5000
MAX_SEED = 2**63
MAX_TURN_SECONDS = 3600


class ServeError(Exception):
    """A request the server refuses: an HTTP status and a sentence saying why.

    The sentence is an English template with named values (`ServeError(404, "there is no table
    '{table}'", table=…)`), said in the asker's language (en/de/nl catalogs) by `render(lang)`."""

    def __init__(self, status: int, message: str, hint: str | None = None, *,
                 headers: dict[str, str] | None = None, extra: dict[str, Any] | None = None, **params: Any):
        self.template, self.hint_template, self.params = message, hint, params
        self.status = status
        self.message = _fill(message, params)
        self.hint = _fill(hint, params) if hint else None
        super().__init__(self.message)
        self.headers = headers or {}
        self.extra = extra or {}  # more for the client, e.g. the table's state with a stale move

    def render(self, lang: str = "en") -> tuple[str, str | None]:
        """(message, hint) in one language; English where a translation is missing or broken."""
        if lang == "en":
            return self.message, self.hint
        from ..i18n import translator
        _ = translator(lang).gettext
        message = _fill(_(self.template), self.params, self.message)
        hint = _fill(_(self.hint_template), self.params, self.hint) if self.hint_template else None
        return message, hint

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        message, hint = self.render(lang)
        out: dict[str, Any] = {"error": message, "status": self.status}
        if hint:
            out["hint"] = hint
        out.update(self.extra)
        return out


def _fill(template: str, params: dict[str, Any], fallback: str | None = None) -> str:
    try:
        return template.format(**params) if params else template
    except (KeyError, IndexError, ValueError):
        return fallback if fallback is not None else template


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def seed_commitment(seed: int) -> str:
    """What a table publishes about its seed at the start: SHA-256 of the seed in decimal.

    The server's own seeds have 128 random bits, so the commitment gives nothing away; the seed
    itself is shown when the game is over, and anybody can check both (`rulebook replay`)."""
    return hashlib.sha256(str(seed).encode("ascii")).hexdigest()


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
                "state": g.state.to_json(), "practice": self.practice, "private": self.private,
                "hints": self.hints, "turn_timer": self.turn_timer, "robots": sorted(self.robots),
                "rematch": self.rematch}


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
        "players": [{"name": s.name, "kind": s.kind, "open": s.human and not s.token_hash,
                     "present": s.human and table.present.get(i, 0) > 0, "robot": i in table.robots}
                    for i, s in enumerate(table.seats)],
        "player": None if terminal else p,
        "chance": current == CHANCE,
        "terminal": terminal,
        "step": None if step is None else {"id": step.id, "kind": step.kind, "can_stop": bool(step.can_stop)},
        # an announce step: what may be announced (None: nothing); the box announced this turn
        "announce": [a.box for a in st.legal_actions()] if step is not None and step.kind == "announce" else [],
        "announced": st.announced,
        "dice": list(st.dice),
        "kept": list(st.kept),
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
        "broken": table.broken,
        "hints": table.hints,
        "private": table.private,
        "stand_in": sorted(table.stand_in),
        "rematch": table.rematch,
        # the turn timer: seconds for a person's turn, and when the one under way ends (server time)
        "turn_timer": table.turn_timer,
        "turn_ends": (table.turn_started + table.turn_timer
                      if table.turn_timer > 0 and not terminal and current >= 0 and current not in g.bots
                      and current not in table.robots else None),
        # fair dice: the seed's commitment from the start, the seed itself once the game is over
        "fair": {"commitment": seed_commitment(g.seed), "practice": table.practice,
                 "seed": str(g.seed) if terminal else None},
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
    elif isinstance(action, Announce):
        out.update(type="announce", box=action.box)
    else:
        out.update(type="write", box=action.box, points=points, bonus=bonus)
    return out


# checking what people send ------------------------------------------------------------------

SPEC_FIELDS = ("model", "options", "seats", "seed", "pace_ms", "claim", "private", "hints", "turn_seconds")


def _game(model: Model, seats: list[SeatInfo], seed: int) -> Game:
    """The engine's game; an optimal or strong seat starts with a greedy player (see Tables._seat_optimal)."""
    return Game(model, [Seat(s.name, "greedy" if s.kind in ("optimal", "strong") else s.kind) for s in seats], seed)


def _bool(spec: dict[str, Any], key: str, default: bool) -> bool:
    value = spec.get(key, default)
    if not isinstance(value, bool):
        raise ServeError(400, "'{field}' must be true or false", field=key)
    return value


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ServeError(400, "'{field}' must be a whole number, not {value}", field=what, value=_show(value))
    return value


def _str(value: Any, what: str, limit: int = 200) -> str:
    if not isinstance(value, str):
        raise ServeError(400, "'{field}' must be a string, not {value}", field=what, value=_show(value))
    if len(value) > limit:
        raise ServeError(400, "'{field}' is too long (at most {limit} characters)", field=what, limit=limit)
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
        raise ServeError(404, "there is no table '{table}'", table=_clip(table_id))
    return table_id


def _clip(text: str, n: int = 40) -> str:
    text = "".join(c if c.isprintable() else "?" for c in str(text))
    return text if len(text) <= n else text[:n] + "…"


# hints ------------------------------------------------------------------------------------------

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
    elif step.kind == "announce":
        values = bot.announce_values(state)
        for action, v in sorted(values.items(), key=lambda kv: -kv[1])[:top]:
            options.append({"action": str(action), "type": "announce", "box": action.box, "value": round(base + v, 2)})
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

    def __init__(self, store: Store, hub: Hub, pace: float = 0.7, limits: Limits | None = None,
                 solves: SolveQueue | None = None):
        self.store, self.hub = store, hub
        self.default_pace = pace
        self.limits = limits or Limits()
        self.solves = solves or SolveQueue(self.limits.solve_workers, self.limits.solve_waiting)
        self._tables: dict[str, Table] = {}
        self._models: dict[tuple, Model] = {}
        self._models_lock = threading.Lock()
        self._stopping = False
        self._background: list[asyncio.Task] = []
        self._stand_in = GreedyBot()  # plays for a person whose time ran out
        self._strong: dict[tuple, asyncio.Future] = {}  # variant -> its strong player's solved parts
        self._strong_limiter = anyio.CapacityLimiter(1)  # one variant's parts solved at a time
        self.copy_source = None  # workshop copies: copy id -> YAML text (set by the workshop)

    # models -----------------------------------------------------------------------
    def model(self, name: str, options: dict[str, str] | None = None) -> Model:
        """A bundled model (never a file path from a request) with options, loaded once; or a frozen
        workshop copy, 'copy:ID', whose text `copy_source` gives (checked in the sandbox first)."""
        if isinstance(name, str) and name.startswith("copy:") and self.copy_source is not None:
            return self._copy_model(name, options)
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

    async def _seat_optimal(self, table: Table) -> None:
        """Give the table's optimal seats the solved player, or a greedy stand-in until it is solved."""
        seats = [i for i, s in enumerate(table.seats) if s.kind == "optimal"]
        if not seats:
            return
        status = self.solves.want(table.model, table.model_name, table.options,
                                  lambda: self._spawn(self._solved(table)))
        if status == "solved":
            await self._solved(table, announce=False)
        else:
            table.stand_in = set(seats)

    async def _solved(self, table: Table, announce: bool = True) -> None:
        from ...interpreter.solver import OptimalBot
        try:
            bot = await anyio.to_thread.run_sync(OptimalBot, table.model)
        except Exception:  # noqa: BLE001 - the greedy stand-in plays on
            log.exception("table %s: the solved player cannot be read", table.id)
            return
        async with table.lock:
            for i, s in enumerate(table.seats):
                if s.kind == "optimal":
                    table.game.bots[i] = bot
            table.stand_in = set()
            table._snap = None
            if announce:
                self._commit(table, force=True)

    async def _seat_strong(self, table: Table) -> None:
        """Give the table's strong seats the strong player (its parts solved once per variant, one
        variant at a time, off the event loop), playing greedily until then."""
        seats = [i for i, s in enumerate(table.seats) if s.kind == "strong"]
        if seats:
            table.stand_in |= set(seats)
            self._spawn(self._strong_ready(table, seats))

    async def _strong_ready(self, table: Table, seats: list[int]) -> None:
        from ...interpreter.strong import StrongBot, solved_parts
        key = (table.model_name, tuple(sorted(table.options.items())))
        job = self._strong.get(key)
        if job is None:
            job = self._strong[key] = asyncio.ensure_future(
                anyio.to_thread.run_sync(solved_parts, table.model, limiter=self._strong_limiter))
        try:
            await asyncio.shield(job)
            bot = await anyio.to_thread.run_sync(StrongBot, table.model)  # (its parts are solved: quick)
        except Exception:  # noqa: BLE001 - the greedy stand-in plays on
            log.exception("table %s: the strong player cannot be made", table.id)
            return
        async with table.lock:
            for i in seats:
                table.game.bots[i] = bot
            table.stand_in -= set(seats)
            table._snap = None
            self._commit(table, force=True)

    def _spawn(self, coro) -> None:
        if self._stopping:
            coro.close()
            return
        task = asyncio.get_running_loop().create_task(coro)
        self._background.append(task)
        task.add_done_callback(lambda t: t in self._background and self._background.remove(t))

    def _copy_model(self, name: str, options: dict[str, str] | None) -> Model:
        key = (name, tuple(sorted((options or {}).items())))
        with self._models_lock:
            model = self._models.get(key)
        if model is None:
            try:
                source = self.copy_source(name[5:])
            except Exception as exc:  # noqa: BLE001 - the workshop says why (no such copy, not checked)
                raise ServeError(404, getattr(exc, "message", f"there is no game '{_clip(name)}'")) from None
            try:
                model = load_source(source, f"{name.replace(':', '-')}.yaml", dict(options or {}))
            except RulebookError as exc:
                raise ServeError(422, exc.message, exc.hint) from None
            with self._models_lock:
                self._models[key] = model
        return model

    # start and stop ----------------------------------------------------------------
    async def start(self) -> None:
        """Begin at once: the tables with something for the server to do are loaded in the
        background (any other table is read when somebody asks for it); expired tables are swept."""
        self._spawn(self._load_driven())
        self._spawn(self._sweeper())

    async def _load_driven(self) -> None:
        for table_id in await anyio.to_thread.run_sync(self.store.to_drive):
            if self._stopping:
                return
            try:
                table = await self._load(table_id)
            except ServeError as exc:
                log.warning("table %s: %s", table_id, exc.message)
                continue
            if table is not None:
                self._kick(table)

    async def _sweeper(self) -> None:
        while not self._stopping:
            try:
                await self.sweep()
            except Exception:  # noqa: BLE001 - try again next time
                log.exception("sweeping expired tables")
            await asyncio.sleep(max(1.0, self.limits.sweep_every))

    async def sweep(self, now: float | None = None) -> int:
        """Delete the tables nobody moved in `abandoned_after` and the finished ones older than
        `finished_kept`; returns how many."""
        now = time.time() if now is None else now
        ids = await anyio.to_thread.run_sync(self.store.expired, now - self.limits.abandoned_after,
                                             now - self.limits.finished_kept)
        for table_id in ids:
            table = self._tables.pop(table_id, None)
            if table is not None and table.driver is not None:
                table.driver.cancel()
            self.hub.close_table(table_id)
        await anyio.to_thread.run_sync(self.store.delete, ids)
        if ids:
            log.info("deleted %d expired tables", len(ids))
        return len(ids)

    async def stop(self) -> None:
        self._stopping = True
        for task in list(self._background):
            task.cancel()
        self.solves.close()
        tasks = [t.driver for t in self._tables.values() if t.driver is not None] + list(self._background)
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
        if table_id in self._tables:
            return self._tables[table_id]
        self._tables[table_id] = table
        await self._seat_optimal(table)
        await self._seat_strong(table)
        return table

    def _restore(self, table_id: str, data: dict[str, Any]) -> Table:
        if data.get("format") != FORMAT:
            raise ValueError("unknown format")
        model = self.model(data["model"], data["options"])
        if model.hash != data["model_hash"]:
            raise UsageError(f"the game's model has changed since this table was set up")
        seats = [SeatInfo(str(s["name"]), str(s["kind"]), s.get("token_hash")) for s in data["seats"]]
        game = _game(model, seats, int(data["seed"]))
        version, internal, gauss = data["rng"]
        game.rng.setstate((int(version), tuple(int(x) for x in internal), gauss))
        game.state = GameState.from_json(model, data["state"])
        table = Table(table_id, data["model"], dict(data["options"]), game, seats, float(data["pace"]),
                      float(data["created"]), practice=bool(data.get("practice", False)),
                      private=bool(data.get("private", False)), hints=bool(data.get("hints", True)),
                      turn_timer=float(data.get("turn_timer", 0.0)),
                      robots={int(i) for i in data.get("robots", [])}, rematch=data.get("rematch"))
        table.turn_started = time.time()  # a turn under way when the server stopped starts afresh
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
                raise ServeError(404, "there is no table '{table}'", table=_clip(table_id))
            self._kick(table)
        return table

    def _evict(self, keep: int = 200) -> None:
        """Forget the oldest finished tables nobody watches (they are read again from disk if asked for)."""
        done = [t for t in self._tables.values()
                if t.game.state.is_terminal() and not self.hub.watchers(t.id) and not t.lock.locked()]
        for t in sorted(done, key=lambda t: t.updated)[:max(0, len(done) - keep)]:
            del self._tables[t.id]

    def recent(self, limit: int = 12) -> list[Table]:
        live = [t for t in self._tables.values() if not t.game.state.is_terminal() and not t.broken
                and not t.private]
        return sorted(live, key=lambda t: -t.updated)[:limit]

    # creating ----------------------------------------------------------------------
    async def create(self, spec: Any) -> tuple[Table, int | None, str | None]:
        """A new table from {"model", "options", "seats": [{"name", "kind"}], "seed", "pace_ms", "claim",
        "private", "hints", "turn_seconds"}.

        Returns (table, the seat the creator sits in, its token): the first person's seat, unless
        "claim" is false. A seed is accepted only for practice (one person and computers): where
        people play each other, the server alone chooses it.
        """
        if not isinstance(spec, dict):
            raise ServeError(400, "the request body must be a JSON object")
        unknown = sorted(set(spec) - set(SPEC_FIELDS))
        if unknown:
            raise ServeError(400, "unknown field '{field}'", "fields: {fields}", field=_clip(unknown[0]),
                             fields=", ".join(SPEC_FIELDS))
        if self.store.count_unfinished() >= self.limits.max_tables:
            raise ServeError(503, "the server has too many tables in play; try again later",
                             headers={"Retry-After": "60"})
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
                raise ServeError(400, "seat {seat} must be an object with a name and a kind", seat=i)
            kind = s.get("kind", "human")
            if kind not in SEAT_KINDS:
                raise ServeError(422, f"seat {i}: unknown kind {_clip(repr(kind))}", f"kinds: {', '.join(SEAT_KINDS)}")
            seats.append(SeatInfo(clean_name(s.get("name", f"Player {i}"), f"name of seat {i}"), kind))
        names = [s.name.casefold() for s in seats]
        for s in seats:
            if names.count(s.name.casefold()) > 1:
                raise ServeError(422, "two seats are called '{name}'; give each a different name", name=s.name)
        seed = spec.get("seed")
        practice = seed is not None
        if practice:
            seed = _int(seed, "seed")
            if not 0 <= seed < MAX_SEED:
                raise ServeError(400, "'seed' must be from 0 to {max}", max=MAX_SEED - 1)
            if sum(1 for s in seats if s.human) > 1:
                raise ServeError(422, "a seed can be chosen only for practice (one person and computers)",
                                 "where people play each other, the server alone chooses the dice")
        else:
            seed = secrets.randbits(128)
        pace_ms = spec.get("pace_ms")
        pace = self.default_pace if pace_ms is None else _int(pace_ms, "pace_ms") / 1000
        if not 0 <= pace <= MAX_PACE_MS / 1000:
            raise ServeError(400, "'pace_ms' must be from 0 to {max}", max=MAX_PACE_MS)
        claim, private, hints = (_bool(spec, k, d) for k, d in (("claim", True), ("private", False), ("hints", True)))
        turn = spec.get("turn_seconds")
        turn_timer = self.limits.turn_timer if turn is None else _int(turn, "turn_seconds")
        if not 0 <= turn_timer <= MAX_TURN_SECONDS:
            raise ServeError(400, "'turn_seconds' must be from 0 (no timer) to {max}", max=MAX_TURN_SECONDS)

        game = _game(model, seats, seed)
        table_id = secrets.token_urlsafe(9)
        table = Table(table_id, name, opts, game, seats, pace, time.time(), updated=time.time(), practice=practice,
                      private=private, hints=hints, turn_timer=float(turn_timer))
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
        await self._seat_optimal(table)
        await self._seat_strong(table)
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
                raise ServeError(409, "seat {seat} ({name}) is played by the computer", seat=seat + 1, name=info.name)
            if info.token_hash:
                raise ServeError(409, "seat {seat} ({name}) is taken already", seat=seat + 1, name=info.name)
            if body.get("name") not in (None, ""):
                name = clean_name(body["name"])
                if any(s.name.casefold() == name.casefold() for i, s in enumerate(table.seats) if i != seat):
                    raise ServeError(409, "another player is called '{name}' already; choose another name", name=name)
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
            raise ServeError(400, "there is no seat {seat} at this table (seats 0 to {last})", seat=seat,
                             last=len(table.seats) - 1)
        return seat

    def authorize(self, table: Table, body: Any) -> int:
        """The seat a request may act for: its token must match (403 otherwise)."""
        if not isinstance(body, dict):
            raise ServeError(400, "the request body must be a JSON object")
        seat = self._seat(table, body.get("seat"))
        info = table.seats[seat]
        if not info.human:
            raise ServeError(403, "seat {seat} ({name}) is played by the computer", seat=seat, name=info.name)
        token = body.get("token")
        if not isinstance(token, str) or not token:
            raise ServeError(403, "a 'token' for seat {seat} is needed to play it", seat=seat)
        if not info.token_hash:
            raise ServeError(403, "nobody has taken seat {seat} ({name}) yet", "take it with the join link", seat=seat,
                             name=info.name)
        if not hmac.compare_digest(_hash(token[:200]), info.token_hash):
            raise ServeError(403, "that is not the token of seat {seat} ({name})", seat=seat, name=info.name)
        return seat

    def _due(self, table: Table, seat: int) -> None:
        st = table.game.state
        if table.broken:
            raise ServeError(409, "this table has stopped: {reason}", reason=table.broken)
        if st.is_terminal():
            raise ServeError(409, "the game is over")
        current = st.current_player()
        if current == CHANCE:
            raise ServeError(409, "wait: the dice are being rolled")
        if current != seat:
            raise ServeError(409, "it is {player}'s turn, not {other}'s", player=st.players[current],
                             other=st.players[seat])

    def _in_position(self, table: Table, body: dict[str, Any], required: bool = True) -> None:
        """A move is made in a position: the table's sequence number the player saw. Another one
        (a move sent twice, or after the table went on) is refused with the current state."""
        if body.get("seq") is None and not required:
            return
        seq = _int(body.get("seq"), "seq")
        if seq != table.seq:
            raise ServeError(409, "this move was made at position {seq}, but the table is at {now} now; nothing was changed",
                             seq=seq, now=table.seq, extra={"state": table.snapshot(), "seq": table.seq})

    async def act(self, table_id: str, body: Any) -> tuple[Table, list[dict[str, Any]]]:
        """Carry out one decision for a seat: {"seat": n, "token": "…", "seq": n, "action": "keep 2 2 4"}.

        "seq" is the table's sequence number the move was made at: each move is carried out once.
        Returns the table and the events it caused (the decision and the rolls that followed), the
        last one with the state after them under "state".
        """
        table = await self.get(table_id)
        seat = self.authorize(table, body)
        text = _str(body.get("action"), "action")
        async with table.lock:
            self._in_position(table, body)
            self._due(table, seat)
            table.robots.discard(seat)  # the person is back
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
        if not table.hints:
            raise ServeError(403, "hints are switched off at this table")
        async with table.lock:
            self._in_position(table, body, required=False)
            self._due(table, seat)
            state = GameState.from_json(table.model, table.game.state.to_json())
        return await anyio.to_thread.run_sync(compute_hint, state)

    async def take_back(self, table_id: str, body: Any) -> Table:
        """A person takes their seat back from the computer that played for them."""
        table = await self.get(table_id)
        seat = self.authorize(table, body)
        async with table.lock:
            if seat in table.robots:
                table.robots.discard(seat)
                table.turn_started = time.time()
                self._commit(table, force=True)
        self._kick(table)
        return table

    async def rematch(self, table_id: str, body: Any) -> tuple[Table, int, str]:
        """After the game: the same seats at a new table (new dice). The first person to ask sets
        it up; everybody who asks gets their own seat there, proven by their seat at this table."""
        table = await self.get(table_id)
        seat = self.authorize(table, body)
        if not table.game.state.is_terminal():
            raise ServeError(409, "a rematch can be asked for when the game is over")
        async with table.lock:
            if table.rematch is None:
                spec = {"model": table.model_name, "options": dict(table.options), "claim": False,
                        "seats": [{"name": s.name, "kind": s.kind} for s in table.seats],
                        "pace_ms": int(round(table.pace * 1000)), "private": table.private, "hints": table.hints,
                        "turn_seconds": int(table.turn_timer)}
                new, _, _ = await self.create(spec)
                table.rematch = new.id
                table._snap = None
                self._commit(table, force=True)
        new = await self.get(table.rematch)
        async with new.lock:
            info = new.seats[seat]
            if info.token_hash:
                raise ServeError(409, "seat {seat} ({name}) of the rematch is taken already", seat=seat + 1, name=info.name)
            token = secrets.token_urlsafe(18)
            info.token_hash = _hash(token)
            new._snap = None
            self._commit(new, force=True)
        return new, seat, token

    # presence and the live dice selection ---------------------------------------------
    def here(self, table: Table, seat: int, delta: int) -> None:
        """A connection of a person's seat opened (+1) or closed (-1); everybody sees who is here."""
        before = table.present.get(seat, 0) > 0
        n = table.present.get(seat, 0) + delta
        if n > 0:
            table.present[seat] = n
        else:
            table.present.pop(seat, None)
        if (n > 0) != before:
            table._snap = None
            self.hub.publish(table.id, {"type": "update", "seq": table.seq, "event": None,
                                        "state": table.snapshot(), "at": time.time()})

    def seat_of(self, table: Table, msg: dict[str, Any]) -> int:
        """The seat a live connection speaks for ({"type": "seat", "seat": n, "token": …})."""
        return self.authorize(table, msg)

    def select(self, table: Table, seat: int, dice: Any) -> None:
        """The player to move shows which dice they are choosing; everybody sees it at once."""
        st = table.game.state
        if st.current_player() != seat or st.step() is None or st.step().kind != "keep":
            return
        if not isinstance(dice, list) or len(dice) > len(st.dice) or not all(
                isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(st.dice) for i in dice):
            raise ServeError(400, "'dice' must list the positions of dice on the table")
        self.hub.publish(table.id, {"type": "select", "seat": seat, "seq": table.seq, "dice": sorted(set(dice))})

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
                        table.game.state.is_terminal(), [(ev["seq"], ev) for ev in pending], self._drives(table))
        table.events.extend(pending)
        table._snap = None
        table.updated = time.time()
        st = table.game.state
        key = (st.current_player(), st.player, st.round()[0]) if not st.is_terminal() else ()
        if key != table.turn_key and (not key or key[0] != CHANCE):
            table.turn_key, table.turn_started = key, time.time()
        snap = table.snapshot()
        now = time.time()  # "at": when it went out, for clients that measure how long delivery takes
        if not pending:
            self.hub.publish(table.id, {"type": "update", "seq": table.seq, "event": None, "state": snap, "at": now})
        for i, ev in enumerate(pending):
            last = i == len(pending) - 1
            # every event goes out in order; the state travels with the last one of a batch
            self.hub.publish(table.id, {"type": "update", "seq": ev["seq"], "event": ev,
                                        "state": snap if last else None, "at": now})

    def _drives(self, table: Table) -> bool:
        """The server has something to do at this table without anybody asking."""
        p = table.game.state.current_player()
        return p == CHANCE or p in table.game.bots or p in table.robots or (table.turn_timer > 0 and p >= 0)

    def _bot_for(self, table: Table, p: int):
        """Who plays seat p for the server: its computer player, or one standing in for a person."""
        bot = table.game.bots.get(p)
        if bot is None and p in table.robots:
            bot = self._stand_in
        return bot

    def _kick(self, table: Table) -> None:
        """Make sure the computer players and the dice move on, paced for the people watching."""
        if self._stopping or table.broken:
            return
        if table.driver is not None and not table.driver.done() and table.timer_sleep:
            table.driver.cancel()  # it only waits for a turn timer: look again now
            table.driver = None
        if table.driver is None or table.driver.done():
            table.driver = asyncio.get_running_loop().create_task(self._drive(table))

    async def _drive(self, table: Table) -> None:
        g = table.game
        try:
            while True:
                async with table.lock:
                    st = g.state
                    p = st.current_player()
                    if p == TERMINAL:
                        return
                    if p == CHANCE:
                        self._roll_pending(table)
                        self._commit(table)
                        continue
                    wait = None
                    if self._bot_for(table, p) is None:
                        if table.turn_timer <= 0:
                            return
                        wait = table.turn_started + table.turn_timer - time.time()
                        if wait <= 0:  # the person's time is up: the computer plays for them
                            table.robots.add(p)
                            self._commit(table, force=True)
                            continue
                if wait is not None:
                    table.timer_sleep = True
                    try:
                        await asyncio.sleep(wait)
                    finally:
                        table.timer_sleep = False
                    continue
                await asyncio.sleep(table.pace)  # a pause before each computer decision (also yields)
                async with table.lock:
                    st = g.state
                    p = st.current_player()
                    bot = self._bot_for(table, p) if p >= 0 else None
                    if bot is None:
                        continue
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
