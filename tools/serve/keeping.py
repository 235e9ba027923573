"""Keeping the tables (a part of `Tables`): loading them at the start and when asked for, restoring a
saved table, forgetting finished ones nobody watches, sweeping expired ones, and stopping."""
from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import anyio

from ...interpreter.model.errors import RulebookError, UsageError
from ...interpreter.engine.state import GameState
from .checks import check_table_id, clip
from .errors import ServeError
from .table import FORMAT, SeatInfo, Table, new_game

log = logging.getLogger("rulebook.serve")


class Keeping:
    """The keeping part of `Tables` (its state is set up by `Tables.__init__`)."""

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
            raise ServeError(409, "table {table} cannot be continued: {reason}", table=table_id, reason=message) from None
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
        game = new_game(model, seats, int(data["seed"]))
        version, internal, gauss = data["rng"]
        game.rng.setstate((int(version), tuple(int(x) for x in internal), gauss))
        game.state = GameState.from_json(model, data["state"])
        table = Table(table_id, data["model"], dict(data["options"]), game, seats, float(data["pace"]),
                      float(data["created"]), practice=bool(data.get("practice", False)),
                      private=bool(data.get("private", False)), hints=bool(data.get("hints", True)),
                      turn_timer=float(data.get("turn_timer", 0.0)),
                      robots={int(i) for i in data.get("robots", [])}, rematch=data.get("rematch"),
                      watch_key=str(data.get("watch_key") or ""),
                      invites={int(k): str(v) for k, v in (data.get("invites") or {}).items()},
                      reserved={int(k): str(v) for k, v in (data.get("reserved") or {}).items()},
                      started=bool(data.get("started", True)), ended=bool(data.get("ended", False)),
                      robot_since={int(k): int(v) for k, v in (data.get("robot_since") or {}).items()})
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
                raise ServeError(404, "there is no table '{table}'", table=clip(table_id))
            self._kick(table)
        return table

    def _evict(self, keep: int = 200) -> None:
        """Forget the oldest finished tables nobody watches (they are read again from disk if asked for)."""
        done = [t for t in self._tables.values()
                if t.over and not self.hub.watchers(t.id) and not t.lock.locked()]
        for t in sorted(done, key=lambda t: t.updated)[:max(0, len(done) - keep)]:
            del self._tables[t.id]

    def recent(self, limit: int = 12) -> list[Table]:
        live = [t for t in self._tables.values() if not t.over and not t.broken
                and not t.private]
        return sorted(live, key=lambda t: -t.updated)[:limit]
