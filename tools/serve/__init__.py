"""`rulebook serve`: play any bundled model in the browser, with tables, online players and spectators.

- `store`: tables and their events in SQLite (standard library), so tables survive a restart.
- `tables`: a table is a `Game` with seats; every action goes through the engine on the server.
- `hub`: the WebSocket fan-out, one ordered stream of updates per table.
- `limits`: per-client quotas, bounded JSON numbers, the Host allow-list.
- `solving`: the shared, bounded queue of optimal-player solves (each in its own process).
- `server`: uvicorn as `rulebook serve` runs it (a deadline for every request header).
- `app`: the Starlette application (pages, JSON API, WebSocket, static files and rule pages).
"""
from .app import create_app

__all__ = ["create_app"]
