"""Play in the browser: tables for any bundled game, online players, spectators and live updates."""
from __future__ import annotations

import ipaddress
import sys
from pathlib import Path

from ...interpreter.model.errors import UsageError
from ..serve.limits import LOCAL_HOSTS, Limits


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
    db = p.add_argument("--db", type=Path, default=None,
                        help="SQLite file with the tables, kept across restarts (default %(usual)s)")
    db.usual = default_db()  # shown by the help text, which stays the same on every machine
    p.add_argument("--bot-delay", type=int, default=700, metavar="MS",
                   help="default pause before each computer move, in milliseconds (default 700)")
    p.add_argument("--log-level", default="warning", choices=("critical", "error", "warning", "info", "debug"))
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="a host name the server answers for, also in the links it gives out (repeatable; "
                        "default: localhost, 127.0.0.1 and ::1; '*' answers for any name)")
    p.add_argument("--forwarded-allow-ips", default=None, metavar="IPS",
                   help="behind a reverse proxy: the proxy's addresses, whose X-Forwarded-For is believed "
                        "(the quotas count per visitor address)")
    d = Limits()
    p.add_argument("--tables-per-hour", type=int, default=d.tables_per_client, metavar="N",
                   help="new tables one address may open per hour (default %(default)s)")
    p.add_argument("--moves-per-minute", type=int, default=d.moves_per_client, metavar="N",
                   help="moves and hints one address may send per minute (default %(default)s)")
    p.add_argument("--connections-per-client", type=int, default=d.sockets_per_client, metavar="N",
                   help="live connections one address may hold open (default %(default)s)")
    p.add_argument("--max-tables", type=int, default=d.max_tables, metavar="N",
                   help="unfinished tables on the server (default %(default)s)")
    p.add_argument("--abandoned-after", type=float, default=d.abandoned_after / 3600, metavar="HOURS",
                   help="delete an unfinished table nobody moved in this long (default %(default)g)")
    p.add_argument("--finished-kept", type=float, default=d.finished_kept / 3600, metavar="HOURS",
                   help="delete a finished table this long after its end (default %(default)g)")
    p.add_argument("--turn-timer", type=int, default=0, metavar="SECONDS",
                   help="default time for a person's turn before a computer takes the seat over (default 0: no timer)")
    p.add_argument("--solves", type=int, default=d.solve_workers, metavar="N",
                   help="optimal-player solves at once, each in its own process (default %(default)s)")


def run(args) -> int:
    try:
        import uvicorn
    except ImportError:
        raise UsageError("rulebook serve needs uvicorn and starlette", "pip install 'rulebook' again, or pip install uvicorn starlette websockets") from None
    from ..serve import create_app
    from ..serve.server import config as server_config

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
    for name, value, low in (("--tables-per-hour", args.tables_per_hour, 1), ("--moves-per-minute", args.moves_per_minute, 1),
                             ("--connections-per-client", args.connections_per_client, 1), ("--max-tables", args.max_tables, 1),
                             ("--abandoned-after", args.abandoned_after, 0.01), ("--finished-kept", args.finished_kept, 0),
                             ("--turn-timer", args.turn_timer, 0), ("--solves", args.solves, 1)):
        if value < low:
            raise UsageError(f"{name} must be at least {low:g}, not {value:g}")
    limits = Limits(tables_per_client=args.tables_per_hour, moves_per_client=args.moves_per_minute,
                    sockets_per_client=args.connections_per_client, max_tables=args.max_tables,
                    abandoned_after=args.abandoned_after * 3600, finished_kept=args.finished_kept * 3600,
                    turn_timer=float(args.turn_timer), solve_workers=args.solves)
    hosts = tuple(h.strip().strip("[]").lower() for h in args.allowed_host) or LOCAL_HOSTS
    if not local and not args.allowed_host:
        print("rulebook serve: only localhost names are allowed in the Host header; "
              "add --allowed-host NAME for the name people will use", file=sys.stderr, flush=True)
    app = create_app(db, pace=args.bot_delay / 1000, limits=limits, allowed_hosts=hosts)
    more = {}
    if args.forwarded_allow_ips:
        more = {"proxy_headers": True, "forwarded_allow_ips": args.forwarded_allow_ips}
    config = server_config(app, args.host, args.port, args.log_level, **more)
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
