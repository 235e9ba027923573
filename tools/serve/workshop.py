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
import json
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ...interpreter.model.loader import bundled_models
from ...interpreter.model.frozen import LANGUAGES
from ..i18n import translator
from .copies import Copies, WorkshopError
from .sandbox import MAX_SOURCE, Refused, Sandbox, check_size
from .workshop_texts import client_texts, compare_html, rule_page_extras  # noqa: F401  (rule_page_extras: for app)

COMPARE_GAMES = 200  # simulated games per player and variant on the comparison page
COMPARE_SECONDS = 600.0
PAGE_CACHE_ENTRIES = 64            # checked texts whose answers (pages, diagrams) are kept ...
PAGE_CACHE_BYTES = 32 * 1024 * 1024  # ... at most this much of them ...
PAGE_CACHE_SECONDS = 600.0           # ... for at most this long
COMPARE_JOBS = 200                 # comparisons remembered in memory (their results are on disk)


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
            raise WorkshopError(404, "copy '{copy}' cannot be played", copy=copy_id)
        self.copies.touch(copy_id)  # a copy in play is not expired
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
        """The sandbox's answer for a text (cached by text and language while it is recent: at most
        PAGE_CACHE_ENTRIES answers of PAGE_CACHE_BYTES together, each for PAGE_CACHE_SECONDS)."""
        key = (hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest(), lang, render)
        now = time.monotonic()
        hit = self._pages.get(key)
        if hit is not None and now - hit[0] < PAGE_CACHE_SECONDS:
            self._pages.move_to_end(key)
            return hit[2]
        try:
            result = await self.sandbox.run({"source": source, "file": "copy.yaml", "lang": lang, "render": render})
        except Refused as exc:
            result = {"ok": False, "refused": True,
                      "errors": [{"line": None, "col": None, "message": exc.message, "text": f"copy.yaml: error: {exc.message}"}]}
        if result.get("refused"):
            return result  # refused (perhaps only because the machine was busy): asked again next time
        size = len(json.dumps(result))
        self._pages[key] = (now, size, result)
        while self._pages and (len(self._pages) > PAGE_CACHE_ENTRIES
                               or sum(v[1] for v in self._pages.values()) > PAGE_CACHE_BYTES
                               or now - next(iter(self._pages.values()))[0] >= PAGE_CACHE_SECONDS):
            self._pages.popitem(last=False)
        return result

    async def playable(self, source: str, lang: str) -> dict[str, Any]:
        """The check of a text that is to be played: the full check (page and diagram too) must pass,
        and one whole game of computer players must finish inside the sandbox's limits."""
        result = await self.check(source, lang)
        if not result["ok"]:
            first = result["errors"][0]["text"] if result["errors"] else "it does not pass the check"
            raise WorkshopError(422, "this copy cannot be played until it passes the check: {first}", first=first)
        try:
            probe = await self.sandbox.run({"kind": "probe", "source": source, "file": "copy.yaml"})
        except Refused as exc:
            raise WorkshopError(422, "this copy cannot be played: {reason}", reason=exc.message) from None
        if not probe.get("ok"):
            raise WorkshopError(422, "this copy cannot be played: {reason}",
                                reason=probe.get("error") or "a game of it does not end")
        return result

    # comparing ----------------------------------------------------------------------------
    def compare_job(self, copy: dict[str, Any]) -> dict[str, Any]:
        """The comparison of a frozen copy with its original: started once, then polled; a finished
        one is read from disk (it survives a restart)."""
        key = copy["id"]
        job = self._compares.get(key)
        if job is None:
            saved = self.copies.compare_result(key)
            if saved is not None:
                return {"state": "done", "result": saved, "error": None}
            job = {"state": "running", "result": None, "error": None}
            self._compares[key] = job
            for old in [k for k, j in self._compares.items() if j["state"] != "running"][:-COMPARE_JOBS]:
                del self._compares[old]
            job["task"] = asyncio.get_running_loop().create_task(self._compare(copy, job))
        return job

    def compare_running(self, copy_id: str) -> bool:
        """This comparison is known (running or done): asking again costs nothing."""
        job = self._compares.get(copy_id)
        return (job is not None and job["state"] != "failed") or self.copies.compare_result(copy_id) is not None

    async def _compare(self, copy: dict[str, Any], job: dict[str, Any]) -> None:
        base = copy["base"]
        job_spec = {"kind": "compare", "source": copy["source"], "file": f"{copy['model_id'] or 'copy'}.yaml",
                    "original": base if base in bundled_models() else None, "games": COMPARE_GAMES}
        try:
            result = await self.long_sandbox.run(job_spec, wall=COMPARE_SECONDS)
            if result.get("error"):
                job.update(state="failed", error=result["error"])
            else:
                self.copies.save_compare(copy["id"], result)
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
        raise WorkshopError(415, "send the request body as application/json, not '{kind}'", kind=kind[:40] or "nothing")
    length = request.headers.get("content-length")
    def too_big() -> WorkshopError:
        return WorkshopError(413, "the request is larger than {kib} KB; a model may have at most {most} KB",
                             kib=limit // 1024, most=MAX_SOURCE // 1024)
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise too_big()
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_big()
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


def _error(exc: WorkshopError, lang: str) -> JSONResponse:
    return JSONResponse({"error": exc.render(lang), "status": exc.status}, status_code=exc.status, headers=exc.headers)


def copy_card(copy: dict[str, Any], lang: str, name: str) -> dict[str, Any]:
    """A play-test table's game as its page shows it: the copy's own rules and diagram, and the way
    back to the workshop (the editable copy it was frozen from, if it is still there)."""
    _ = translator(lang).gettext
    back = copy.get("origin") or copy["id"]
    return {"name": _("Copy of {game}").format(game=name), "rules": f"/w/{copy['id']}/page/rules.{lang}.html",
            "diagram": f"/w/{copy['id']}/page/rules.{lang}.svg", "workshop": f"/w/{back}?lang={lang}"}


# the routes ---------------------------------------------------------------------------------------------

def routes(workshop: Workshop, page: Callable, pick_lang: Callable, security_headers: dict[str, str],
           rule_files: Callable, quota: Callable[[Request, str], None]) -> list[Route]:
    """The workshop's pages and API, to be mounted by the app. `quota(request, what)` counts one
    request of a client ("copies", "compares", "tables") and refuses it (429) over the limit."""

    def api(handler):
        async def wrapped(request: Request):
            try:
                return await handler(request)
            except WorkshopError as exc:
                return _error(exc, pick_lang(request))
        return wrapped

    def html(handler):
        async def wrapped(request: Request):
            try:
                return await handler(request)
            except WorkshopError as exc:
                return page(request, "error.html.j2", status=exc.status, status_code=exc.status,
                            message=exc.render(pick_lang(request)), hint=None, headers=exc.headers)
        return wrapped

    async def new_copy(request: Request):
        """POST /workshop/{model}: a copy of a bundled model (or of another copy: 'copy:ID')."""
        lang = pick_lang(request)
        name = request.path_params["model"]
        if name.startswith("copy:"):
            other = workshop.copies.get(name[5:])
            source, base = other["source"], other["base"]
        else:
            path = bundled_models().get(name)
            if path is None:
                raise WorkshopError(404, "there is no game '{game}'", game=name[:40])
            source, base = path.read_text(encoding="utf-8"), name
        quota(request, "copies")
        copy_id, token = workshop.copies.create(base, source)
        # the edit token travels in the fragment: never sent to a server, kept by the page's script
        return RedirectResponse(f"/w/{copy_id}?lang={lang}#edit={token}", status_code=303)

    async def api_fork(request: Request):
        """POST {source, lang}: a visitor starts typing in someone else's copy: their own copy, with
        the text as they have it now; returns its id and edit token."""
        copy = workshop.copies.get(request.path_params["id"])
        body = await read_body(request)
        source = _source(body)
        quota(request, "copies")
        copy_id, token = workshop.copies.create(copy["base"], source)
        return JSONResponse({"copy": copy_id, "token": token, "url": f"/w/{copy_id}?lang={_lang(body.get('lang'))}"},
                            status_code=201)

    async def workshop_page(request: Request):
        lang = pick_lang(request)
        copy = workshop.copies.get(request.path_params["id"])
        boot = {"copy": copy["id"], "base": copy["base"], "lang": lang, "source": copy["source"],
                "frozen": copy["token_hash"] is None, "texts": client_texts(lang),
                "errors": copy["errors"], "ok": copy["ok"]}
        return page(request, "workshop.html.j2", lang=lang, boot=boot, copy=copy, base=copy["base"])

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
            # the page of the copy's stored text: for its owner after saving, for anyone looking at it
            shown = saved or source == copy["source"]
            out.update(model={"id": model["id"], "name": model["name"][lang]}, diagram=result.get("diagram"),
                       steps=result.get("steps"),
                       page=f"/w/{copy['id']}/page/{model['hash'][:16]}.{lang}.html" if shown else None)
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
            raise WorkshopError(404, "there is no page '{page}'", page=name[:60])
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
        """A frozen copy of the text (nobody can change it), after a passing check and a whole game
        played in the sandbox (`Workshop.playable`); a refused text is never frozen."""
        if copy["token_hash"] is None and copy["ok"]:
            return copy
        frozen_id = workshop.copies.find_frozen(copy["base"], copy["source"])
        if frozen_id is not None:
            return workshop.copies.get(frozen_id)
        result = await workshop.playable(copy["source"], lang)
        frozen_id, _ = workshop.copies.create(copy["base"], copy["source"], editable=False, ok=True,
                                              model_id=result["model"]["id"], origin=copy["id"])
        return workshop.copies.get(frozen_id)

    async def api_play(request: Request):
        """POST {lang}: a table with a frozen version of this copy: you and a computer player."""
        copy = workshop.copies.get(request.path_params["id"])
        body = await read_body(request, 4096)
        lang = _lang(body.get("lang"))
        frozen = await freeze(copy, lang)
        _ = translator(lang).gettext
        quota(request, "tables")  # counted once the table is sure to be made (a refused copy costs nothing)
        table, seat, token = await workshop.tables.create(
            {"model": f"copy:{frozen['id']}", "seats": [{"name": _("Player %(num)s") % {"num": 1}, "kind": "human"},
                                                        {"name": _("Computer"), "kind": "greedy"}]})
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
        if not workshop.compare_running(frozen["id"]):
            quota(request, "compares")  # a new comparison; polling one under way is free
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
            raise WorkshopError(404, "there is no game '{game}'", game=name[:40])
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
        Route("/api/copies/{id}/fork", api(api_fork), methods=["POST"]),
        Route("/api/copies/{id}/play", api(api_play), methods=["POST"]),
        Route("/api/copies/{id}/compare", api(api_compare), methods=["POST"]),
        Route("/api/games/{model}/steps", api(api_steps)),
    ]
