"""The live stream of a table: every update, in order, to everybody connected to it.

Each connection has its own bounded queue. A connection that falls too far behind is closed; its
browser reconnects with the last sequence number it saw and catches up from the table's events,
so a slow reader never holds up the table or the other readers, and nothing is lost.
"""
from __future__ import annotations

import asyncio
import json
from typing import Any

QUEUE_SIZE = 2000


class Subscriber:
    def __init__(self, table_id: str):
        self.table_id = table_id
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE_SIZE)
        self.lagging = False

    def put(self, text: str) -> None:
        if self.lagging:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.stop()  # the connection is closed; the browser catches up when it reconnects

    def stop(self) -> None:
        """Drop what is queued and tell the connection to close."""
        self.lagging = True
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)


class Hub:
    def __init__(self):
        self._subs: dict[str, set[Subscriber]] = {}

    def subscribe(self, table_id: str) -> Subscriber:
        sub = Subscriber(table_id)
        self._subs.setdefault(table_id, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        subs = self._subs.get(sub.table_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subs[sub.table_id]

    def watchers(self, table_id: str) -> int:
        return len(self._subs.get(table_id, ()))

    def publish(self, table_id: str, message: dict[str, Any]) -> None:
        subs = self._subs.get(table_id)
        if not subs:
            return
        text = json.dumps(message, separators=(",", ":"))
        for sub in list(subs):
            sub.put(text)

    def close_table(self, table_id: str) -> None:
        """Close every connection to one table (it is gone)."""
        for sub in list(self._subs.get(table_id, ())):
            sub.stop()

    def close_all(self) -> None:
        for subs in self._subs.values():
            for sub in subs:
                sub.stop()
