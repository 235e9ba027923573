"""uvicorn as `rulebook serve` runs it: HTTP/1.1 (h11) with a deadline for each request header.

uvicorn closes a connection that stays idle (`timeout_keep_alive`), but a client that sends its
request header a byte at a time keeps the connection, and a server slot, for as long as it likes.
Here every request header must be complete within `header_timeout` seconds of the connection
opening or of the previous response; otherwise the connection is closed. WebSocket connections
are pinged and closed when the pings go unanswered.
"""
from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT = 10.0
IDLE_TIMEOUT = 15


class GuardedH11Protocol(H11Protocol):
    header_timeout: float = HEADER_TIMEOUT

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_header_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        deadline = getattr(self, "_header_deadline", None)
        if deadline is not None:
            deadline.cancel()
        super().connection_lost(exc)

    def _arm_header_deadline(self) -> None:
        old = getattr(self, "_header_deadline", None)
        if old is not None:
            old.cancel()
        self._header_deadline = self.loop.call_later(self.header_timeout, self._header_late)

    def _header_late(self) -> None:
        """No complete request header in time (a request being answered has its header)."""
        self._header_deadline = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return
        self.transport.close()


def protocol(header_timeout: float) -> type[GuardedH11Protocol]:
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {"header_timeout": header_timeout})


def config(app, host: str, port: int, log_level: str = "warning", header_timeout: float = HEADER_TIMEOUT,
           idle_timeout: int = IDLE_TIMEOUT, **more):
    """The uvicorn.Config of `rulebook serve` (also used by the tests and the load script)."""
    import uvicorn
    return uvicorn.Config(app, host=host, port=port, log_level=log_level, ws="auto", lifespan="on",
                          http=protocol(header_timeout), timeout_keep_alive=idle_timeout,
                          ws_ping_interval=20.0, ws_ping_timeout=20.0, **more)
