"""Tables: a `Game` of a bundled model with seats, run by the server.

The server is the only authority: people send decisions (keep, stop, write) for their own seat,
proven by the seat's token; the engine checks every one; the server rolls the dice and moves the
computer players. Every move is written to SQLite before anybody is told about it, so a table goes
on after a restart exactly where it was, with the same dice to come.
"""
from __future__ import annotations

import asyncio
import hmac
import secrets
import threading
import time
from typing import Any

import anyio

from ...interpreter.engine.actions import Action, Roll, parse_action
from ...interpreter.model.errors import IllegalActionError, RulebookError, UsageError
from ...interpreter.play.game import Seat
from ...interpreter.model.loader import bundled_models, load_model, load_source
from ...interpreter.model.frozen import Model
from ...interpreter.players.registry import GreedyBot
from ...interpreter.engine.state import CHANCE, GameState
from .checks import (MAX_PACE_MS, MAX_SEED, MAX_TURN_SECONDS, SEAT_KINDS, SPEC_FIELDS, check_bool, check_int,
                     check_str, check_table_id, clean_name, clip)
from .errors import ServeError
from .hints import compute_hint
from .hub import Hub
from .keeping import Keeping
from .limits import Limits
from .robots import Robots
from .seating import Seating
from .solving import SolveQueue, is_solved
from .store import Store
from .table import SeatInfo, Table, event_json, hash_token, new_game, seed_commitment

__all__ = ["SEAT_KINDS", "SeatInfo", "ServeError", "Table", "Tables", "check_table_id", "clean_name", "compute_hint",
           "seed_commitment"]


class Tables(Keeping, Robots, Seating):
    """Every table of the server: in memory while in use, in SQLite always. (Loading, saving and
    sweeping them is in `Keeping`; the computer's seats and the dice in `Robots`.)"""

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
            raise ServeError(404, "there is no game '{game}'", "games: {games}", game=clip(name),
                             games=", ".join(bundled_models()))
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
                raise ServeError(404, getattr(exc, "message", f"there is no game '{clip(name)}'")) from None
            try:
                model = load_source(source, f"{name.replace(':', '-')}.yaml", dict(options or {}))
            except RulebookError as exc:
                raise ServeError(422, exc.message, exc.hint) from None
            with self._models_lock:
                self._models[key] = model
        return model

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
            raise ServeError(400, "unknown field '{field}'", "fields: {fields}", field=clip(unknown[0]),
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
            opts[check_str(k, "option", 60)] = check_str(v, f"options.{k}", 60)
        model = self.model(name, opts)
        seats_spec = spec.get("seats")
        if not isinstance(seats_spec, list) or not seats_spec:
            raise ServeError(400, "'seats' must be a list of {\"name\", \"kind\"}")
        if not model.min_players <= len(seats_spec) <= model.max_players:
            raise ServeError(422, "this game is for {least} to {most} players, not {count}", least=model.min_players,
                             most=model.max_players, count=len(seats_spec))
        seats: list[SeatInfo] = []
        for i, s in enumerate(seats_spec, 1):
            if not isinstance(s, dict):
                raise ServeError(400, "seat {seat} must be an object with a name and a kind", seat=i)
            kind = s.get("kind", "human")
            if kind not in SEAT_KINDS:
                raise ServeError(422, "seat {seat}: unknown kind '{kind}'", "kinds: {kinds}", seat=i,
                                 kind=clip(str(kind)), kinds=", ".join(SEAT_KINDS))
            seats.append(SeatInfo(clean_name(s.get("name", f"Player {i}"), f"seats[{i - 1}].name", seat=i), kind))
        names = [s.name.casefold() for s in seats]
        for s in seats:
            if names.count(s.name.casefold()) > 1:
                raise ServeError(422, "two seats are called '{name}'; give each a different name", name=s.name)
        seed = spec.get("seed")
        practice = seed is not None
        if practice:
            seed = check_int(seed, "seed")
            if not 0 <= seed < MAX_SEED:
                raise ServeError(400, "'seed' must be from 0 to {max}", max=MAX_SEED - 1)
            if sum(1 for s in seats if s.human) > 1:
                raise ServeError(422, "a seed can be chosen only for practice (one person and computers)",
                                 "where people play each other, the server alone chooses the dice")
        else:
            seed = secrets.randbits(128)
        pace_ms = spec.get("pace_ms")
        pace = self.default_pace if pace_ms is None else check_int(pace_ms, "pace_ms") / 1000
        if not 0 <= pace <= MAX_PACE_MS / 1000:
            raise ServeError(400, "'pace_ms' must be from 0 to {max}", max=MAX_PACE_MS)
        claim, private, hints = (check_bool(spec, k, d) for k, d in (("claim", True), ("private", False), ("hints", True)))
        turn = spec.get("turn_seconds")
        turn_timer = self.limits.turn_timer if turn is None else check_int(turn, "turn_seconds")
        if not 0 <= turn_timer <= MAX_TURN_SECONDS:
            raise ServeError(400, "'turn_seconds' must be from 0 (no timer) to {max}", max=MAX_TURN_SECONDS)

        game = new_game(model, seats, seed)
        table_id = secrets.token_urlsafe(9)
        table = Table(table_id, name, opts, game, seats, pace, time.time(), updated=time.time(), practice=practice,
                      private=private, hints=hints, turn_timer=float(turn_timer))
        mine, token = None, None
        if claim:
            for i, s in enumerate(seats):
                if s.human:
                    token = secrets.token_urlsafe(18)
                    s.token_hash, mine = hash_token(token), i
                    break
        # each link grants one thing, by a key of its own (none derived from another): watching, and
        # taking one open seat; the clock starts when every seat is taken (or the table is started)
        table.watch_key = secrets.token_urlsafe(18)
        table.invites = {i: secrets.token_urlsafe(18) for i in table.open_seats()}
        table.started = not table.open_seats()
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
        """Take an open person's seat: {"seat": n, "key": its invite key, "name": optional new name}
        → a fresh token. A private table's seat needs its invite key; a rematch seat is kept for its player."""
        table = await self.get(table_id)
        if not isinstance(body, dict):
            raise ServeError(400, "the request body must be a JSON object")
        seat = self._seat(table, body.get("seat"))
        async with table.lock:
            info = table.seats[seat]
            if not info.human:
                raise ServeError(409, "seat {seat} ({name}) is played by the computer", seat=seat + 1, name=info.name)
            if seat in table.reserved:
                raise ServeError(403, "seat {seat} ({name}) is kept for its player from the last game",
                                 seat=seat + 1, name=info.name)
            key = body.get("key")
            if table.private and not (isinstance(key, str) and seat in table.invites
                                      and hmac.compare_digest(key[:200], table.invites[seat])):
                raise ServeError(403, "this link does not let you take seat {seat} ({name})",
                                 "ask the players for a new invite link", seat=seat + 1, name=info.name)
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
            info.token_hash = hash_token(token)
            table.invites.pop(seat, None)  # the link has done its one thing
            self._start_if_full(table)
            table._snap = None
            self._commit(table, force=True)
        self._kick(table)
        return table, seat, token

    # acting ------------------------------------------------------------------------
    def _seat(self, table: Table, value: Any) -> int:
        seat = check_int(value, "seat")
        if not 0 <= seat < len(table.seats):
            raise ServeError(400, "there is no seat {seat} at this table (seats 1 to {last})", seat=seat + 1,
                             last=len(table.seats))
        return seat

    def authorize(self, table: Table, body: Any) -> int:
        """The seat a request may act for: its token must match (403 otherwise)."""
        if not isinstance(body, dict):
            raise ServeError(400, "the request body must be a JSON object")
        seat = self._seat(table, body.get("seat"))
        info = table.seats[seat]
        if not info.human:
            raise ServeError(403, "seat {seat} ({name}) is played by the computer", seat=seat + 1, name=info.name)
        token = body.get("token")
        if not isinstance(token, str) or not token:
            raise ServeError(403, "a 'token' for seat {seat} is needed to play it", seat=seat + 1)
        if not info.token_hash:
            raise ServeError(403, "nobody has taken seat {seat} ({name}) yet", "take it with the join link", seat=seat + 1,
                             name=info.name)
        if not hmac.compare_digest(hash_token(token[:200]), info.token_hash):
            raise ServeError(403, "that is not the token of seat {seat} ({name})", seat=seat + 1, name=info.name)
        return seat

    def _due(self, table: Table, seat: int) -> None:
        st = table.game.state
        if table.broken:
            raise ServeError(409, "this table has stopped: {reason}", reason=table.broken)
        if table.over:
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
        seq = check_int(body.get("seq"), "seq")
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
        text = check_str(body.get("action"), "action")
        async with table.lock:
            self._in_position(table, body)
            self._due(table, seat)
            if seat in table.robots:  # the person is back: the seat is theirs at once, with a fresh timer
                self._back(table, seat)
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

    async def review(self, table: Table, lang: str) -> dict[str, Any]:
        """The game's review (review.py) once it is over, from the solver's table for its variant."""
        if not table.over:
            raise ServeError(409, "a game can be reviewed once it is over")
        from ...interpreter.solver.abstraction import NotSolvable
        from ...interpreter.solver.space import Space
        try:
            Space(table.model)
        except NotSolvable:
            raise ServeError(409, "the solver cannot read this game, so its moves cannot be reviewed") from None
        if not is_solved(table.model):
            self.solves.want(table.model, table.model_name, table.options, lambda: None)
            raise ServeError(409, "the optimal player's table for this game is not computed yet; ask again in a minute")
        from .review import review_json
        async with table.lock:
            seats = [Seat(s.name, s.kind) for s in table.seats]
            moves = [ev["move"] for ev in table.events]
        return await anyio.to_thread.run_sync(review_json, table.model, seats, moves, lang)

    async def take_back(self, table_id: str, body: Any) -> Table:
        """A person takes their seat back from the computer that played for them."""
        table = await self.get(table_id)
        seat = self.authorize(table, body)
        async with table.lock:
            if seat in table.robots:
                self._back(table, seat)
                self._commit(table, force=True)
        self._kick(table)
        return table

    async def rematch(self, table_id: str, body: Any) -> tuple[Table, int, str]:
        """After the game: the same seats at a new table (new dice). The first person to ask sets
        it up; everybody who asks gets their own seat there, proven by their seat at this table."""
        table = await self.get(table_id)
        seat = self.authorize(table, body)
        if not table.over:
            raise ServeError(409, "a rematch can be asked for when the game is over")
        mine = table.seats[seat].token_hash
        async with table.lock:
            if table.rematch is None:
                spec = {"model": table.model_name, "options": dict(table.options), "claim": False,
                        "seats": [{"name": s.name, "kind": s.kind} for s in table.seats],
                        "pace_ms": int(round(table.pace * 1000)), "private": table.private, "hints": table.hints,
                        "turn_seconds": int(table.turn_timer)}
                new, _, _ = await self.create(spec)
                async with new.lock:  # every person's seat is kept for its player until they take it or give it up
                    new.reserved = {i: s.token_hash for i, s in enumerate(table.seats) if s.human and s.token_hash}
                    new.watch_key = table.watch_key  # whoever watched this game may watch the next
                    for i in new.reserved:
                        new.invites.pop(i, None)
                    self._commit(new, force=True)
                table.rematch = new.id
                table._snap = None
                self._commit(table, force=True)
        new = await self.get(table.rematch)
        async with new.lock:
            info = new.seats[seat]
            kept = new.reserved.get(seat)
            if info.token_hash and (kept is None or not hmac.compare_digest(kept, mine or "")):
                raise ServeError(409, "seat {seat} ({name}) of the rematch is taken already", seat=seat + 1, name=info.name)
            if body.get("give_up") is True:  # not playing again: the seat opens, by a new invite link
                if kept is not None and not info.token_hash:
                    new.reserved.pop(seat)
                    new.invites[seat] = secrets.token_urlsafe(18)
                    self._commit(new, force=True)
                return new, seat, ""
            token = secrets.token_urlsafe(18)  # (asked again by the same player: their seat, a fresh token)
            info.token_hash = hash_token(token)
            self._start_if_full(new)
            new._snap = None
            self._commit(new, force=True)
        self._kick(new)
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
        player, kept = st.player, st.kept_faces
        ev = g.apply(action)  # IllegalActionError leaves the state as it was
        out = event_json(table.seq + len(table._pending) + 1, player, action, kept, st, ev.points, ev.bonus)
        if player in table.robots and not isinstance(action, Roll):
            out["robot"] = True  # the computer's move for a person: logged and shown as the computer's
        table._pending.append(out)

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
                        table.over, [(ev["seq"], ev) for ev in pending], self._drives(table))
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
