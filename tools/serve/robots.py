"""The computer at the tables (a part of `Tables`): the optimal and strong players seated once they are
ready (a greedy stand-in until then), and the driver that rolls the dice and moves the computer's
seats, paced for the people watching, and plays for a person whose turn timer ran out."""
from __future__ import annotations

import asyncio
import logging
import time

import anyio

from ...interpreter.engine.state import CHANCE, TERMINAL
from .table import Table

log = logging.getLogger("rulebook.serve")


class Robots:
    """The computer's part of `Tables` (its state is set up by `Tables.__init__`)."""

    async def _seat_optimal(self, table: Table) -> None:
        """Give the table's optimal and play-to-win seats their solved player, or a greedy stand-in until
        the variant is solved (both read the same table)."""
        seats = [i for i, s in enumerate(table.seats) if s.kind in ("optimal", "win")]
        if not seats:
            return
        status = self.solves.want(table.model, table.model_name, table.options,
                                  lambda: self._spawn(self._solved(table)))
        if status == "solved":
            await self._solved(table, announce=False)
        else:
            table.stand_in = set(seats)

    async def _solved(self, table: Table, announce: bool = True) -> None:
        from ...interpreter.players.optimal import OptimalBot
        from ...interpreter.players.win import WinBot
        kinds = {s.kind for s in table.seats} & {"optimal", "win"}
        made = {}
        try:
            for kind in sorted(kinds):
                made[kind] = await anyio.to_thread.run_sync(OptimalBot if kind == "optimal" else WinBot, table.model)
        except Exception:  # noqa: BLE001 - the greedy stand-in plays on
            log.exception("table %s: the solved player cannot be read", table.id)
            return
        async with table.lock:
            for i, s in enumerate(table.seats):
                if s.kind in made:
                    table.game.bots[i] = made[s.kind]
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
        from ...interpreter.players.strong import StrongBot, solved_parts
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

    def _drives(self, table: Table) -> bool:
        """The server has something to do at this table without anybody asking."""
        p = table.game.state.current_player()
        return not table.ended and (p == CHANCE or p in table.game.bots or p in table.robots
                                    or (table.turn_timer > 0 and table.started and p >= 0))

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
                    if p == TERMINAL or table.ended:
                        return
                    if p == CHANCE:
                        self._roll_pending(table)
                        self._commit(table)
                        continue
                    wait = None
                    if self._bot_for(table, p) is None:
                        # no timer, or the clock has not started (seats to be taken): wait for the person
                        if table.turn_timer <= 0 or not table.started or not table.seats[p].token_hash:
                            return
                        wait = table.turn_started + table.turn_timer - time.time()
                        if wait <= 0:  # the person's time is up: the computer plays for them
                            self._robot(table, p)
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
