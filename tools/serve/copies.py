"""Workshop copies on disk: their own tables in the server's SQLite file, bounded and expiring.

A copy is a model's YAML text, editable by whoever holds its edit token, or frozen (no token) once
it is played or compared. The store holds at most `max_copies` copies and `max_bytes` of text;
a copy nobody changed or played for `kept` seconds is deleted. Comparison results are kept beside
the copy they were computed for, so they survive a restart.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

COPY_ID_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
MAX_COPIES = 5_000               # copies on the server
MAX_BYTES = 200 * 1024 * 1024    # their text, all together
KEPT = 30 * 24 * 3600.0          # a copy nobody touched this long is deleted

SCHEMA = """
CREATE TABLE IF NOT EXISTS copies (
    id TEXT PRIMARY KEY,
    base TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    token_hash TEXT,
    source TEXT NOT NULL,
    ok INTEGER,
    model_id TEXT,
    errors TEXT,
    digest TEXT
);
CREATE INDEX IF NOT EXISTS copies_frozen ON copies (digest) WHERE token_hash IS NULL;
CREATE TABLE IF NOT EXISTS compares (
    copy_id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    result TEXT NOT NULL
);
"""


class WorkshopError(Exception):
    """A refused request: status and one sentence (an English template with named values, said in
    the asker's language by `render`)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None, **params: Any):
        self.template, self.params = message, params
        self.message = message.format(**params) if params else message
        super().__init__(self.message)
        self.status, self.headers = status, headers or {}

    def render(self, lang: str) -> str:
        if lang == "en":
            return self.message
        from ..i18n import translator
        text = translator(lang).gettext(self.template)
        try:
            return text.format(**self.params) if self.params else text
        except (KeyError, IndexError, ValueError):
            return self.message


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _digest(base: str, source: str) -> str:
    return hashlib.sha256(f"{base}\n{source}".encode("utf-8", "surrogatepass")).hexdigest()


class Copies:
    """Copies of models in the server's SQLite file (their own tables and connection)."""

    def __init__(self, path: str | Path, max_copies: int = MAX_COPIES, max_bytes: int = MAX_BYTES,
                 kept: float = KEPT):
        self.path = str(path)
        self.max_copies, self.max_bytes, self.kept = max_copies, max_bytes, kept
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        with self._lock:
            self._db.executescript(SCHEMA)
            columns = [r[1] for r in self._db.execute("PRAGMA table_info(copies)")]
            if "origin" not in columns:  # the editable copy a frozen one was made from
                self._db.execute("ALTER TABLE copies ADD COLUMN origin TEXT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def expire(self, now: float | None = None) -> int:
        """Delete the copies (and their comparisons) nobody touched in `kept` seconds."""
        before = (time.time() if now is None else now) - self.kept
        with self._lock:
            ids = [r[0] for r in self._db.execute("SELECT id FROM copies WHERE updated < ?", (before,))]
            for i in range(0, len(ids), 500):
                chunk = ids[i:i + 500]
                marks = ",".join("?" * len(chunk))
                self._db.execute(f"DELETE FROM compares WHERE copy_id IN ({marks})", chunk)
                self._db.execute(f"DELETE FROM copies WHERE id IN ({marks})", chunk)
        return len(ids)

    def create(self, base: str, source: str, editable: bool = True, ok: bool | None = None,
               model_id: str | None = None, origin: str | None = None) -> tuple[str, str | None]:
        """A new copy; returns (id, edit token) (no token for a frozen copy)."""
        self.expire()
        with self._lock:
            count, size = self._db.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(source)), 0) FROM copies").fetchone()
        if count >= self.max_copies or size + len(source) > self.max_bytes:
            raise WorkshopError(503, "the server holds too many copies; try again later", {"Retry-After": "3600"})
        copy_id = secrets.token_urlsafe(9)
        token = secrets.token_urlsafe(18) if editable else None
        now = time.time()
        with self._lock:
            self._db.execute("INSERT INTO copies (id, base, created, updated, token_hash, source, ok, model_id, errors, "
                             "digest, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)",
                             (copy_id, base, now, now, _hash(token) if token else None, source,
                              None if ok is None else int(ok), model_id, _digest(base, source), origin))
        return copy_id, token

    def find_frozen(self, base: str, source: str) -> str | None:
        """A frozen copy of exactly this text, if there is one (so pressing play twice makes one)."""
        with self._lock:
            row = self._db.execute("SELECT id FROM copies WHERE token_hash IS NULL AND digest = ? AND ok = 1 LIMIT 1",
                                   (_digest(base, source),)).fetchone()
        return row[0] if row else None

    def touch(self, copy_id: str) -> None:
        with self._lock:
            self._db.execute("UPDATE copies SET updated = ? WHERE id = ?", (time.time(), copy_id))

    def get(self, copy_id: str) -> dict[str, Any]:
        if not isinstance(copy_id, str) or not 6 <= len(copy_id) <= 40 or not set(copy_id) <= COPY_ID_CHARS:
            raise WorkshopError(404, "there is no such copy")
        with self._lock:
            row = self._db.execute("SELECT id, base, created, updated, token_hash, source, ok, model_id, errors, origin "
                                   "FROM copies WHERE id = ?", (copy_id,)).fetchone()
        if row is None:
            raise WorkshopError(404, "there is no copy '{copy}'", copy=copy_id)
        keys = ("id", "base", "created", "updated", "token_hash", "source", "ok", "model_id", "errors", "origin")
        data = dict(zip(keys, row))
        data["errors"] = json.loads(data["errors"]) if data["errors"] else []
        return data

    def save(self, copy_id: str, source: str, ok: bool | None, model_id: str | None, errors: list) -> None:
        base = self.get(copy_id)["base"]
        with self._lock:
            self._db.execute("UPDATE copies SET source = ?, ok = ?, model_id = ?, errors = ?, updated = ?, digest = ? "
                             "WHERE id = ?", (source, None if ok is None else int(ok), model_id, json.dumps(errors),
                                              time.time(), _digest(base, source), copy_id))

    def may_edit(self, copy: dict[str, Any], token: Any) -> bool:
        return bool(copy["token_hash"]) and isinstance(token, str) and hmac.compare_digest(
            _hash(token[:200]), copy["token_hash"])

    # comparisons -----------------------------------------------------------------------------
    def compare_result(self, copy_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT result FROM compares WHERE copy_id = ?", (copy_id,)).fetchone()
        return json.loads(row[0]) if row else None

    def save_compare(self, copy_id: str, result: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO compares (copy_id, created, result) VALUES (?, ?, ?)",
                             (copy_id, time.time(), json.dumps(result)))
