"""Play in the browser: tables for any bundled game, online players, spectators and live updates."""
from __future__ import annotations

import ipaddress
import sys
from pathlib import Path

from ...interpreter.errors import UsageError


def default_db() -> Path:
    from platformdirs import user_data_dir
    return Path(user_data_dir("rulebook")) / "tables.sqlite3"


SQLITE_MAGIC = b"SQLite format 3\x00"


def check_db(db: Path, explicit: bool) -> None:
    """Refuse a --db that is not a SQLite file (or a new file in an existing folder) before serving."""
    if db.exists() and not db.is_file():
        raise UsageError("--db {db} is not a file", db=db)
    if db.is_file() and db.stat().st_size:
        try:
            with db.open("rb") as f:
                head = f.read(len(SQLITE_MAGIC))
        except OSError as exc:
            raise UsageError("--db {db} cannot be read: {reason}", db=db, reason=exc.strerror or exc) from None
        if head != SQLITE_MAGIC:
            raise UsageError("--db {db} is not a SQLite database; it was left as it is", db=db)
    elif explicit and not db.parent.is_dir():
        raise UsageError("--db {db}: the folder {folder} does not exist", db=db, folder=db.parent)
    import sqlite3
    from ..serve.store import Store
    try:
        Store(db).close()
    except (sqlite3.Error, OSError) as exc:
        raise UsageError("--db {db} cannot be used: {reason}", db=db, reason=str(exc)) from None


def add_arguments(p) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this computer only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--db", type=Path, default=None,
                   help=f"SQLite file with the tables, kept across restarts (default {default_db()})")
    p.add_argument("--bot-delay", type=int, default=700, metavar="MS",
                   help="default pause before each computer move, in milliseconds (default 700)")
    p.add_argument("--log-level", default="warning", choices=("critical", "error", "warning", "info", "debug"))


def run(args) -> int:
    try:
        import uvicorn
    except ImportError:
        raise UsageError("rulebook serve needs uvicorn and starlette", "pip install 'rulebook' again, or pip install uvicorn starlette websockets") from None
    from ..serve import create_app

    if not 0 <= args.port <= 65535:
        raise UsageError("--port must be from 0 to 65535, not {port}", port=args.port)
    if not 0 <= args.bot_delay <= 5000:
        raise UsageError("--bot-delay must be from 0 to 5000 ms, not {bot_delay}", bot_delay=args.bot_delay)
    db = args.db or default_db()
    check_db(db, explicit=args.db is not None)
    try:
        local = ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        local = args.host == "localhost"
    app = create_app(db, pace=args.bot_delay / 1000)
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level=args.log_level, ws="auto",
                            lifespan="on")
    server = uvicorn.Server(config)
    shown = f"[{args.host}]" if ":" in args.host else args.host

    original = server.startup

    async def startup(sockets=None):
        await original(sockets)
        port = server.servers[0].sockets[0].getsockname()[1] if server.servers else args.port
        print(f"rulebook serve: http://{shown}:{port}/  (tables in {db}; Ctrl+C stops)", file=sys.stderr, flush=True)
        if not local:
            print("rulebook serve: anyone who can reach this address can open the tables", file=sys.stderr, flush=True)

    server.startup = startup
    server.run()
    return 0
