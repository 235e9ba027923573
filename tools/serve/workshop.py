"""The rules workshop: edit a copy of a game's model in the browser, see what the change does.

- "Edit a copy" (a form on every game's page) stores a copy of the model's YAML in SQLite and opens
  it at `/w/ID`, a link that can be shared. Whoever made the copy holds its edit token (kept in the
  browser's localStorage, like a seat's); anyone else sees it and may make a copy of their own.
- As you type, the editor sends the text to `/api/copies/ID/check`; it is checked exactly like a
  file by `rulebook check`, in a limited worker process (`sandbox`), and the answer carries the
  messages with their lines, the rule diagram and what each step decides (`steps`). The rule page
  of the copy is served at `/w/ID/page/…` from the same worker.
- "Play this version" freezes the text (a copy nobody can change) and opens a table with it; a copy
  that fails the check cannot be played. "Compare with the original" runs `compare` (solver and
  simulated games) in a worker with larger limits and shows the table; results are cached.
- Tap a step: the served rule pages get the same step panel as the workshop (`rule_page`).
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ...interpreter.loader import bundled_models
from ...interpreter.model import LANGUAGES
from ..i18n import translator
from .sandbox import MAX_SOURCE, Refused, Sandbox, check_size

COPY_ID_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
MAX_COPIES = 100_000
COMPARE_GAMES = 200  # simulated games per player and variant on the comparison page
COMPARE_SECONDS = 600.0

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
"""


class WorkshopError(Exception):
    """A refused request: status and one sentence (JSON under /api/, a page otherwise)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _digest(base: str, source: str) -> str:
    return hashlib.sha256(f"{base}\n{source}".encode("utf-8", "surrogatepass")).hexdigest()


class Copies:
    """Copies of models in the server's SQLite file (their own table and connection)."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        with self._lock:
            self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def create(self, base: str, source: str, editable: bool = True, ok: bool | None = None,
               model_id: str | None = None) -> tuple[str, str | None]:
        """A new copy; returns (id, edit token) (no token for a frozen copy)."""
        with self._lock:
            (count,) = self._db.execute("SELECT COUNT(*) FROM copies").fetchone()
        if count >= MAX_COPIES:
            raise WorkshopError(503, "the server holds too many copies; try again later")
        copy_id = secrets.token_urlsafe(9)
        token = secrets.token_urlsafe(18) if editable else None
        now = time.time()
        with self._lock:
            self._db.execute("INSERT INTO copies (id, base, created, updated, token_hash, source, ok, model_id, errors, "
                             "digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)",
                             (copy_id, base, now, now, _hash(token) if token else None, source,
                              None if ok is None else int(ok), model_id, _digest(base, source)))
        return copy_id, token

    def find_frozen(self, base: str, source: str) -> str | None:
        """A frozen copy of exactly this text, if there is one (so pressing play twice makes one)."""
        with self._lock:
            row = self._db.execute("SELECT id FROM copies WHERE token_hash IS NULL AND digest = ? AND ok = 1 LIMIT 1",
                                   (_digest(base, source),)).fetchone()
        return row[0] if row else None

    def get(self, copy_id: str) -> dict[str, Any]:
        if not isinstance(copy_id, str) or not 6 <= len(copy_id) <= 40 or not set(copy_id) <= COPY_ID_CHARS:
            raise WorkshopError(404, "there is no such copy")
        with self._lock:
            row = self._db.execute("SELECT id, base, created, updated, token_hash, source, ok, model_id, errors "
                                   "FROM copies WHERE id = ?", (copy_id,)).fetchone()
        if row is None:
            raise WorkshopError(404, f"there is no copy '{copy_id}'")
        keys = ("id", "base", "created", "updated", "token_hash", "source", "ok", "model_id", "errors")
        data = dict(zip(keys, row))
        data["errors"] = json.loads(data["errors"]) if data["errors"] else []
        return data

    def save(self, copy_id: str, source: str, ok: bool | None, model_id: str | None, errors: list) -> None:
        with self._lock:
            self._db.execute("UPDATE copies SET source = ?, ok = ?, model_id = ?, errors = ?, updated = ? WHERE id = ?",
                             (source, None if ok is None else int(ok), model_id, json.dumps(errors), time.time(),
                              copy_id))

    def may_edit(self, copy: dict[str, Any], token: Any) -> bool:
        return bool(copy["token_hash"]) and isinstance(token, str) and hmac.compare_digest(
            _hash(token[:200]), copy["token_hash"])


class Workshop:
    """The workshop's state: copies, the sandbox, and caches of rendered pages and comparisons."""

    def __init__(self, db_path: str | Path):
        self.db_path = db_path
        self._copies: Copies | None = None
        self._sandbox: Sandbox | None = None
        self._long: Sandbox | None = None  # comparisons, one at a time, never in the way of checks
        self._pages: OrderedDict[tuple, dict[str, Any]] = OrderedDict()
        self._compares: dict[str, dict[str, Any]] = {}
        self.tables = None

    @property
    def copies(self) -> Copies:
        if self._copies is None:
            self._copies = Copies(self.db_path)
        return self._copies

    @property
    def sandbox(self) -> Sandbox:
        if self._sandbox is None:
            self._sandbox = Sandbox()
        return self._sandbox

    @property
    def long_sandbox(self) -> Sandbox:
        if self._long is None:
            self._long = Sandbox(workers=1, warm=False)
        return self._long

    def attach(self, tables) -> None:
        """Let the tables play frozen copies: model name 'copy:ID'."""
        self.tables = tables
        tables.copy_source = self.frozen_source

    def frozen_source(self, copy_id: str) -> str:
        copy = self.copies.get(copy_id)
        if copy["token_hash"] or not copy["ok"]:
            raise WorkshopError(404, f"copy '{copy_id}' cannot be played")
        return copy["source"]

    async def close(self) -> None:
        for job in self._compares.values():
            task = job.get("task")
            if task is not None:
                task.cancel()
        for box in (self._sandbox, self._long):
            if box is not None:
                await box.close()
        if self._copies is not None:
            self._copies.close()

    # checking ------------------------------------------------------------------------------
    async def check(self, source: str, lang: str, render: bool = True) -> dict[str, Any]:
        """The sandbox's answer for a text (cached by text and language while it is recent)."""
        key = (hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest(), lang, render)
        hit = self._pages.get(key)
        if hit is not None:
            self._pages.move_to_end(key)
            return hit
        try:
            result = await self.sandbox.run({"source": source, "file": "copy.yaml", "lang": lang, "render": render})
        except Refused as exc:
            result = {"ok": False, "refused": True,
                      "errors": [{"line": None, "col": None, "message": exc.message, "text": f"copy.yaml: error: {exc.message}"}]}
        if result.get("refused"):
            return result  # refused (perhaps only because the machine was busy): asked again next time
        self._pages[key] = result
        while len(self._pages) > 64:
            self._pages.popitem(last=False)
        return result

    # comparing ----------------------------------------------------------------------------
    def compare_job(self, copy: dict[str, Any]) -> dict[str, Any]:
        """The comparison of a frozen copy with its original: started once, then polled."""
        key = copy["id"]
        job = self._compares.get(key)
        if job is None:
            job = {"state": "running", "result": None, "error": None}
            self._compares[key] = job
            job["task"] = asyncio.get_running_loop().create_task(self._compare(copy, job))
        return job

    async def _compare(self, copy: dict[str, Any], job: dict[str, Any]) -> None:
        base = copy["base"]
        job_spec = {"kind": "compare", "source": copy["source"], "file": f"{copy['model_id'] or 'copy'}.yaml",
                    "original": base if base in bundled_models() else None, "games": COMPARE_GAMES}
        try:
            result = await self.long_sandbox.run(job_spec, wall=COMPARE_SECONDS)
            if result.get("error"):
                job.update(state="failed", error=result["error"])
            else:
                job.update(state="done", result=result)
        except Refused as exc:
            job.update(state="failed", error=exc.message)
        except Exception as exc:  # noqa: BLE001 - the page says so; the server goes on
            job.update(state="failed", error=f"{exc.__class__.__name__}")


# request helpers ------------------------------------------------------------------------------------

async def read_body(request: Request, limit: int = MAX_SOURCE + 16 * 1024) -> dict[str, Any]:
    """A JSON object of at most `limit` bytes (refused before reading more)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise WorkshopError(415, f"send the request body as application/json, not '{kind[:40] or 'nothing'}'")
    length = request.headers.get("content-length")
    too_big = f"the request is larger than {limit // 1024} KB; a model may have at most {MAX_SOURCE // 1024} KB"
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise WorkshopError(413, too_big)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise WorkshopError(413, too_big)
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise WorkshopError(400, "the request body is not a JSON object") from None
    if not isinstance(data, dict):
        raise WorkshopError(400, "the request body is not a JSON object")
    return data


def _source(body: dict[str, Any]) -> str:
    source = body.get("source")
    if not isinstance(source, str):
        raise WorkshopError(400, "'source' must be the model's YAML text")
    try:
        check_size(source)
    except Refused as exc:
        raise WorkshopError(413, exc.message) from None
    return source


def _lang(value: Any) -> str:
    return value if value in LANGUAGES else "en"


def _error(exc: WorkshopError) -> JSONResponse:
    return JSONResponse({"error": exc.message, "status": exc.status}, status_code=exc.status)


# the routes ---------------------------------------------------------------------------------------------

def routes(workshop: Workshop, page: Callable, pick_lang: Callable, security_headers: dict[str, str],
           rule_files: Callable) -> list[Route]:
    """The workshop's pages and API, to be mounted by the app."""

    def api(handler):
        async def wrapped(request: Request):
            try:
                return await handler(request)
            except WorkshopError as exc:
                return _error(exc)
        return wrapped

    def html(handler):
        async def wrapped(request: Request):
            try:
                return await handler(request)
            except WorkshopError as exc:
                return page(request, "error.html.j2", status=exc.status, status_code=exc.status,
                            message=exc.message, hint=None)
        return wrapped

    async def new_copy(request: Request):
        """POST /workshop/{model}: a copy of a bundled model (or of another copy: 'copy:ID')."""
        lang = pick_lang(request)
        name = request.path_params["model"]
        if name.startswith("copy:"):
            source = workshop.copies.get(name[5:])["source"]
            base = workshop.copies.get(name[5:])["base"]
        else:
            path = bundled_models().get(name)
            if path is None:
                raise WorkshopError(404, f"there is no game '{name[:40]}'")
            source, base = path.read_text(encoding="utf-8"), name
        copy_id, token = workshop.copies.create(base, source)
        # the edit token travels in the fragment: never sent to a server, kept by the page's script
        return RedirectResponse(f"/w/{copy_id}?lang={lang}#edit={token}", status_code=303)

    async def workshop_page(request: Request):
        lang = pick_lang(request)
        copy = workshop.copies.get(request.path_params["id"])
        boot = {"copy": copy["id"], "base": copy["base"], "lang": lang, "source": copy["source"],
                "frozen": copy["token_hash"] is None, "texts": client_texts(lang),
                "errors": copy["errors"], "ok": copy["ok"]}
        base_name = copy["base"]
        return page(request, "workshop.html.j2", lang=lang, boot=boot, copy=copy, base=base_name)

    async def api_check(request: Request):
        """POST {source, token?, lang}: check (and, with the edit token, save) a text."""
        copy = workshop.copies.get(request.path_params["id"])
        body = await read_body(request)
        source = _source(body)
        lang = _lang(body.get("lang"))
        saved = False
        result = await workshop.check(source, lang)
        if workshop.copies.may_edit(copy, body.get("token")):
            model_id = (result.get("model") or {}).get("id")
            workshop.copies.save(copy["id"], source, result["ok"], model_id, result["errors"])
            saved = True
        out = {"ok": result["ok"], "errors": result["errors"], "saved": saved,
               "refused": bool(result.get("refused"))}
        if result["ok"]:
            model = result["model"]
            out.update(model={"id": model["id"], "name": model["name"][lang]}, diagram=result.get("diagram"),
                       steps=result.get("steps"),
                       page=f"/w/{copy['id']}/page/{model['hash'][:16]}.{lang}.html" if saved else None)
        return JSONResponse(out)

    async def preview(request: Request):
        """The rule page of a copy's saved text (rendered by the sandbox), or its stylesheet."""
        copy = workshop.copies.get(request.path_params["id"])
        name = request.path_params["name"]
        if name == "static/rulebook.css":
            css = rule_files().get("static/rulebook.css") or ""
            return Response(css, media_type="text/css; charset=utf-8")
        stem, _, ext = name.rpartition(".")
        if ext == "yaml" and "/" not in name:  # the page's "model as YAML" link
            return Response(copy["source"], media_type="text/plain; charset=utf-8",
                            headers={"X-Content-Type-Options": "nosniff"})
        lang = stem.rpartition(".")[2]
        if ext not in ("html", "svg") or lang not in LANGUAGES or "/" in name:
            raise WorkshopError(404, f"there is no page '{name[:60]}'")
        result = await workshop.check(copy["source"], lang)
        if not result["ok"]:
            raise WorkshopError(422, "; ".join(e["text"] for e in result["errors"][:3]))
        if ext == "svg":  # the page's diagram picture
            return Response(result["diagram"], media_type="image/svg+xml",
                            headers={"X-Content-Type-Options": "nosniff",
                                     "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"})
        headers = dict(security_headers)
        headers["Content-Security-Policy"] = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'none'"
        headers.pop("X-Frame-Options", None)
        text = result["page"].replace('href="static/rulebook.css"', f'href="/w/{copy["id"]}/page/static/rulebook.css"')
        return Response(text, media_type="text/html; charset=utf-8", headers=headers)

    async def download(request: Request):
        copy = workshop.copies.get(request.path_params["id"])
        name = f"{copy['model_id'] or copy['base'].replace(':', '-')}-copy.yaml"
        return Response(copy["source"], media_type="text/plain; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{name}"',
                                 "X-Content-Type-Options": "nosniff"})

    async def freeze(copy: dict[str, Any], lang: str) -> dict[str, Any]:
        """A frozen copy of the text (nobody can change it), after a passing check."""
        result = await workshop.check(copy["source"], lang, render=False)
        if not result["ok"]:
            first = result["errors"][0]["text"] if result["errors"] else "it does not pass the check"
            raise WorkshopError(422, f"this copy cannot be played until it passes the check: {first}")
        if copy["token_hash"] is None:
            return copy
        frozen_id = workshop.copies.find_frozen(copy["base"], copy["source"])
        if frozen_id is not None:
            return workshop.copies.get(frozen_id)
        frozen_id, _ = workshop.copies.create(copy["base"], copy["source"], editable=False, ok=True,
                                              model_id=result["model"]["id"])
        return workshop.copies.get(frozen_id)

    async def api_play(request: Request):
        """POST {lang}: a table with a frozen version of this copy: you and a computer player."""
        copy = workshop.copies.get(request.path_params["id"])
        body = await read_body(request, 4096)
        lang = _lang(body.get("lang"))
        frozen = await freeze(copy, lang)
        _ = translator(lang).gettext
        from .tables import ServeError
        try:
            table, seat, token = await workshop.tables.create(
                {"model": f"copy:{frozen['id']}", "seats": [{"name": _("You"), "kind": "human"},
                                                            {"name": _("Computer"), "kind": "greedy"}]})
        except ServeError as exc:
            raise WorkshopError(exc.status, exc.message) from None
        return JSONResponse({"table": table.id, "seat": seat, "token": token, "url": f"/t/{table.id}?lang={lang}"},
                            status_code=201)

    async def compare_page(request: Request):
        lang = pick_lang(request)
        copy = workshop.copies.get(request.path_params["id"])
        return page(request, "compare.html.j2", lang=lang, copy=copy,
                    boot={"copy": copy["id"], "lang": lang, "texts": client_texts(lang)})

    async def api_compare(request: Request):
        """POST {lang}: start (or look at) the comparison of this copy's text with its original."""
        copy = workshop.copies.get(request.path_params["id"])
        body = await read_body(request, 4096)
        lang = _lang(body.get("lang"))
        frozen = await freeze(copy, lang)
        job = workshop.compare_job(frozen)
        out: dict[str, Any] = {"state": job["state"], "error": job["error"]}
        if job["state"] == "done":
            out["html"] = compare_html(job["result"], lang)
        return JSONResponse(out)

    async def api_steps(request: Request):
        """GET ?lang=: what each step of a bundled game decides (the served rule pages' step panel)."""
        name = request.path_params["model"]
        lang = _lang(request.query_params.get("lang"))
        if name not in bundled_models():
            raise WorkshopError(404, f"there is no game '{name[:40]}'")
        model = workshop.tables.model(name)
        from .steps import step_infos
        infos = await asyncio.to_thread(step_infos, model, lang)
        return JSONResponse({"model": name, "texts": client_texts(lang), "steps": infos})

    return [
        Route("/workshop/{model}", html(new_copy), methods=["POST"]),
        Route("/w/{id}", html(workshop_page)),
        Route("/w/{id}/compare", html(compare_page)),
        Route("/w/{id}/download", html(download)),
        Route("/w/{id}/page/{name:path}", html(preview)),
        Route("/api/copies/{id}/check", api(api_check), methods=["POST"]),
        Route("/api/copies/{id}/play", api(api_play), methods=["POST"]),
        Route("/api/copies/{id}/compare", api(api_compare), methods=["POST"]),
        Route("/api/games/{model}/steps", api(api_steps)),
    ]


# texts -----------------------------------------------------------------------------------------------

def client_texts(lang: str) -> dict[str, str]:
    """The workshop script's words, translated on the server."""
    _ = translator(lang).gettext
    return {
        "checking": _("Checking…"),
        "ok": _("The model passes the check."),
        "saved": _("Saved."),
        "not_saved": _("Checked, not saved: this copy is someone else's. Make a copy of your own to keep changes."),
        "errors": _("The check found these mistakes:"),
        "line": _("line {line}"),
        "refused": _("The model was refused:"),
        "who": _("Who decides"),
        "choice": _("What can be chosen"),
        "example": _("Example"),
        "nobody": _("Nobody decides here: the dice do."),
        "tap": _("Tap a step of the diagram to see what is decided there."),
        "preparing": _("Preparing the table…"),
        "computing": _("Computing: solving both versions and playing simulated games. This can take a minute."),
        "failed": _("The comparison failed:"),
    }


def compare_html(result: dict[str, Any], lang: str) -> str:
    """The comparison table (the measures of `rulebook compare`) as HTML, escaped."""
    from markupsafe import escape

    from ..i18n import number, percent
    _ = translator(lang).gettext
    variants = result["variants"]
    players = {"optimal": _("optimal play (solver)"), "strong": _("strong bot (estimate)"),
               "greedy": _("greedy bot (estimate)")}
    rows: list[tuple[str, list[str]]] = [
        (_("Best play"), [players.get(v["player"], v["player"]) for v in variants]),
        (_("Expected score"), [number(v["expected_score"], lang, 4 if v["exact"] else 1) for v in variants]),
        (_("Standard deviation"), [number(v["stdev"], lang, 1) for v in variants]),
        (_("Greedy bot, mean"), [number(v["skill"]["greedy"], lang, 1) for v in variants]),
        (_("Random play, mean"), [number(v["skill"]["random"], lang, 1) for v in variants]),
        (_("Skill gap: best − greedy"), [number(v["skill"]["best_minus_greedy"], lang, 1) for v in variants]),
        (_("First player wins (two players)"),
         [percent(v["first_player"]["first"], lang) if v["first_player"] else "–" for v in variants]),
        (_("Turns per player"), [number(v["turns"], lang, 1) for v in variants]),
        (_("Rolls per player"), [number(v["rolls"], lang, 1) for v in variants]),
    ]
    names = result.get("boxes", {})
    for box, name in names.items():
        rows.append((_("{box}: scratched (0)").format(box=name[lang]),
                     [percent(v["zero_rate"][box], lang) if box in v["zero_rate"] else "–" for v in variants]))
    for bonus, name in result.get("bonuses", {}).items():
        rows.append((_("{bonus}: earned").format(bonus=name[lang]),
                     [percent(v["bonus_rate"][bonus], lang) if bonus in v["bonus_rate"] else "–" for v in variants]))
    labels = [_("The original") if v["label"] == "original" else _("Your copy") for v in variants]
    from ..documents.histogram import histogram_svg
    title = _("{game}: final scores in {games} games per variant").format(
        game=variants[-1]["name"][lang] if variants else "", games=number(variants[0]["games"] if variants else 0, lang))
    plot = histogram_svg({f"{label} ({v['player']})": v["totals"] for label, v in zip(labels, variants)}, title)
    head = "".join(f'<th scope="col">{escape(label)}</th>' for label in labels)
    body = "".join(f'<tr><th scope="row">{escape(title)}</th>' + "".join(f"<td>{escape(c)}</td>" for c in cells)
                   + "</tr>" for title, cells in rows)
    games = variants[0]["games"] if variants else 0
    measure = _("Measure")
    note = _("{games} simulated games per player and variant (seed {seed}); the expected score of "
             "optimal play is exact, from the solver.").format(games=number(games, lang), seed=variants[0]["seed"] if variants else 1)
    return (f'<p class="compare-note">{escape(note)}</p><table class="compare" id="compare-table"><thead><tr>'
            f'<th scope="col">{escape(measure)}</th>{head}</tr></thead><tbody>{body}</tbody></table>'
            + f'<figure class="compare-plot">{plot}</figure>')


# the served rule pages ----------------------------------------------------------------------------------

def rule_page_extras(text: str, name: str, lang: str) -> str:
    """A bundled game's rule page as served: the "Edit a copy" button and the tap-a-step panel.

    The written site (`rulebook pages`) stays as it is; only the server adds these, since both need it.
    """
    from markupsafe import escape
    parts = name.split(".")
    if len(parts) != 3 or parts[0] not in bundled_models() or parts[1] not in LANGUAGES:
        return text
    model, lang = parts[0], parts[1]
    _ = translator(lang).gettext
    button, why = _("Edit a copy in the browser"), _("Change the rules and see at once what the change does.")
    form = (f'<form class="edit-copy" method="post" action="/workshop/{escape(model)}?lang={lang}">'
            f'<button type="submit">{escape(button)}</button> {escape(why)}</form>')
    start = text.find('<section id="model">')
    if start >= 0:
        at = text.find("</h2>", start)
        if at >= 0:
            text = text[:at + 5] + "\n" + form + text[at + 5:]
    tap = _("Tap a step of the diagram to see what is decided there.")
    panel = f'<aside id="step-panel" class="step-panel" aria-live="polite"><p>{escape(tap)}</p></aside>'
    figure = text.find('<figure class="diagram"')
    if figure >= 0:
        end = text.find("</figure>", figure)
        text = text[:end + 9] + "\n" + panel + text[end + 9:]
    head = '<link rel="stylesheet" href="/static/steps.css">\n<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">\n'
    text = text.replace("</head>", head + "</head>", 1)
    script = f'<script src="/static/steps.js" data-model="{escape(model)}" data-lang="{lang}" defer></script>\n'
    return text.replace("</body>", script + "</body>", 1)
