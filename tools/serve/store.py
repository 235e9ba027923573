"""Tables on disk: one SQLite file (standard library `sqlite3`), written after every move.

A table row holds everything needed to go on after a restart (model, options, seats with the
hashes of their tokens, the dice generator and the game state); the events table holds every move
in order, so a reconnecting browser catches up and nothing is lost.
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Iterator

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    data TEXT NOT NULL,
    drive INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE INDEX IF NOT EXISTS tables_by_update ON tables (finished, updated);
"""


class Store:
    """A small, thread-safe wrapper around one SQLite connection."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        with self._lock:
            db = self._db
            if not db.execute("SELECT name FROM sqlite_master WHERE name = 'tables'").fetchone():
                db.execute("PRAGMA auto_vacuum=INCREMENTAL")  # deleted tables give their pages back
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            columns = [r[1] for r in db.execute("PRAGMA table_info(tables)")]
            if columns and "drive" not in columns:  # a file from before expiry: one column more
                db.execute("ALTER TABLE tables ADD COLUMN drive INTEGER NOT NULL DEFAULT 1")
            db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def create(self, table_id: str, data: dict[str, Any]) -> None:
        now = time.time()
        with self._lock:
            self._db.execute("INSERT INTO tables (id, created, updated, finished, data) VALUES (?, ?, ?, 0, ?)",
                             (table_id, now, now, json.dumps(data)))

    def save(self, table_id: str, data: dict[str, Any], finished: bool,
             events: list[tuple[int, dict[str, Any]]] = (), drive: bool = True) -> None:
        """The table's new data and the events that led to it, in one transaction.

        `drive`: the server has something to do at this table without anybody asking (a computer
        or the dice to move, a turn timer running), so it is loaded when the server starts."""
        with self._lock:
            db = self._db
            db.execute("BEGIN")
            try:
                db.execute("UPDATE tables SET data = ?, updated = ?, finished = ?, drive = ? WHERE id = ?",
                           (json.dumps(data), time.time(), int(finished), int(drive and not finished), table_id))
                db.executemany("INSERT INTO events (table_id, seq, data) VALUES (?, ?, ?)",
                               [(table_id, seq, json.dumps(ev)) for seq, ev in events])
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def load(self, table_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT data FROM tables WHERE id = ?", (table_id,)).fetchone()
        return json.loads(row[0]) if row else None

    def ids(self, finished: bool | None = None) -> list[str]:
        """Table ids, oldest first; only the finished or unfinished ones if asked."""
        query, args = "SELECT id FROM tables", ()
        if finished is not None:
            query, args = query + " WHERE finished = ?", (int(finished),)
        with self._lock:
            return [r[0] for r in self._db.execute(query + " ORDER BY created", args)]

    def to_drive(self) -> list[str]:
        """The unfinished tables where the server has something to do, oldest first."""
        with self._lock:
            return [r[0] for r in self._db.execute(
                "SELECT id FROM tables WHERE finished = 0 AND drive = 1 ORDER BY updated")]

    def count_unfinished(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM tables WHERE finished = 0").fetchone()[0]

    def expired(self, abandoned_before: float, finished_before: float) -> list[str]:
        """Unfinished tables untouched since `abandoned_before`, finished ones since `finished_before`."""
        with self._lock:
            return [r[0] for r in self._db.execute(
                "SELECT id FROM tables WHERE (finished = 0 AND updated < ?) OR (finished = 1 AND updated < ?)",
                (abandoned_before, finished_before))]

    def delete(self, ids: list[str]) -> int:
        """Forget these tables and their events; give the freed pages back to the file system."""
        if not ids:
            return 0
        with self._lock:
            db = self._db
            db.execute("BEGIN")
            try:
                for i in range(0, len(ids), 500):
                    chunk = ids[i:i + 500]
                    marks = ",".join("?" * len(chunk))
                    db.execute(f"DELETE FROM events WHERE table_id IN ({marks})", chunk)
                    db.execute(f"DELETE FROM tables WHERE id IN ({marks})", chunk)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            if db.execute("PRAGMA auto_vacuum").fetchone()[0] == 0:
                db.execute("PRAGMA auto_vacuum=INCREMENTAL")  # a file made before: converted once
                db.execute("VACUUM")
            db.executescript("PRAGMA incremental_vacuum;")  # run to the end (each step frees a page)
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return len(ids)

    def events(self, table_id: str, since: int = 0) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT data FROM events WHERE table_id = ? AND seq > ? ORDER BY seq",
                                    (table_id, since)).fetchall()
        return [json.loads(r[0]) for r in rows]

    def rows(self) -> Iterator[tuple[str, float, int]]:
        with self._lock:
            rows = self._db.execute("SELECT id, updated, finished FROM tables ORDER BY updated DESC").fetchall()
        yield from rows
