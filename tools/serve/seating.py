"""Who may do what at a table (a part of `Tables`): the keys of its links, starting the clock, seats
that stay their player's, and the votes of the others when someone is away from a table without a timer.

Every link grants one thing (docs/threat-model.md): the watch key lets its holder watch; an invite key
takes one open seat, once; a seat's token plays that seat. Each is 18 random bytes of its own, so
none can be derived from another. A private table shows nothing to whoever holds none of them.
"""
from __future__ import annotations

import hmac
import secrets
import time
from typing import Any

from ...interpreter.players.greedy import GreedyBot
from ...interpreter.play.game import Seat
from .errors import ServeError
from .table import Table, hash_token


class Seating:
    """Keys, the clock's start and votes: the part of `Tables` about who sits where."""

    # keys -------------------------------------------------------------------------------------
    def may_view(self, table: Table, key: Any = None, seat: Any = None, token: Any = None) -> bool:
        """A public table is seen by everybody; a private one only with one of its keys or a seat's token."""
        if not table.private:
            return True
        if isinstance(key, str) and key:
            key = key[:200]
            if table.watch_key and hmac.compare_digest(key, table.watch_key):
                return True
            if any(hmac.compare_digest(key, k) for k in table.invites.values()):
                return True
        if isinstance(token, str) and token and isinstance(seat, (int, str)) and str(seat).isdigit():
            i = int(seat)
            if 0 <= i < len(table.seats) and table.seats[i].token_hash:
                return hmac.compare_digest(hash_token(token[:200]), table.seats[i].token_hash)
        return False

    def watch_only(self, table: Table, key: Any) -> bool:
        return isinstance(key, str) and bool(table.watch_key) and hmac.compare_digest(key[:200], table.watch_key)

    async def new_invite(self, table_id: str, body: Any) -> Table:
        """A player asks for a new invite link for an open seat (`for`): the old one stops working."""
        table = await self.get(table_id)
        self.authorize(table, body)
        target = self._seat(table, body.get("for"))
        async with table.lock:
            info = table.seats[target]
            if not info.human or info.token_hash or target in table.reserved:
                raise ServeError(409, "seat {seat} ({name}) is not open", seat=target + 1, name=info.name)
            table.invites[target] = secrets.token_urlsafe(18)
            self._commit(table, force=True)
        return table

    # the clock ----------------------------------------------------------------------------------
    def _start_if_full(self, table: Table) -> None:
        if not table.started and not table.open_seats():
            table.started = True
            table.turn_started = time.time()

    async def start(self, table_id: str, body: Any) -> Table:
        """A player starts the table now: the computer plays the seats nobody has taken, and the clock runs."""
        table = await self.get(table_id)
        self.authorize(table, body)
        async with table.lock:
            for i in table.open_seats():
                if i in table.reserved:
                    continue
                info = table.seats[i]
                info.kind = "greedy"
                table.game.seats[i] = Seat(info.name, "greedy")
                table.game.bots[i] = GreedyBot()
                table.invites.pop(i, None)
            table.started = True
            table.turn_started = time.time()
            self._commit(table, force=True)
        self._kick(table)
        return table

    # seats that stay yours ------------------------------------------------------------------------
    def _back(self, table: Table, seat: int) -> None:
        """The person is back: the seat is theirs at once, and their turn's timer starts afresh."""
        table.robots.discard(seat)
        table.robot_since.pop(seat, None)
        table.turn_started = time.time()
        table.votes = {k: v for k, v in table.votes.items() if k != f"robot:{seat}"}
        table._snap = None

    def _robot(self, table: Table, seat: int) -> None:
        table.robots.add(seat)
        table.robot_since.setdefault(seat, table.seq)

    # votes ---------------------------------------------------------------------------------------
    async def vote(self, table_id: str, body: Any) -> Table:
        """{"seat", "token", "vote": "robot", "for": N} or {"vote": "end"}: at a table without a timer,
        the players who are here agree to let the computer play an absent seat, or to end the game with
        the standings so far. It is done when every person who is here (but the absent one) has voted."""
        table = await self.get(table_id)
        seat = self.authorize(table, body)
        kind = body.get("vote")
        async with table.lock:
            if table.over:
                raise ServeError(409, "the game is over")
            if table.turn_timer > 0:
                raise ServeError(409, "this table has a turn timer: the computer plays for whoever's time is up")
            absent = [i for i, s in enumerate(table.seats)
                      if s.human and s.token_hash and not table.present.get(i) and i not in table.robots]
            if kind == "robot":
                target = self._seat(table, body.get("for"))
                if target not in absent or target == seat:
                    raise ServeError(409, "{name} is here; only an absent player's seat can be given to the computer",
                                     name=table.seats[target].name)
                key = f"robot:{target}"
            elif kind == "end":
                if not absent:
                    raise ServeError(409, "everybody is here; the game goes on")
                key, target = "end", None
            else:
                raise ServeError(400, "'vote' must be 'robot' or 'end'")
            table.votes.setdefault(key, set()).add(seat)
            voters = {i for i, s in enumerate(table.seats) if s.human and s.token_hash and i != target
                      and i not in absent and i not in table.robots}
            if voters <= table.votes[key]:
                table.votes.pop(key)
                if target is not None:
                    self._robot(table, target)
                else:
                    table.ended = True
                    table.votes.clear()
            table._snap = None
            self._commit(table, force=True)
        self._kick(table)
        return table
