"""The web application: pages, a JSON API, a WebSocket per table, static files and the rule pages.

Pages are rendered with Jinja2 in the visitor's language (en/de/nl: `?lang=`, then a cookie, then
the browser's Accept-Language). The table page is one small hand-written script (static/table.js):
it sends decisions to the JSON API and draws every update the WebSocket brings.

Requests under /api/ get JSON errors ({"error": …, "status": …}); pages get an HTML error page.
Files are served from fixed in-memory lists (static/ and the generated rule site), never by
joining a path from the request, so no path can leave them.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import mimetypes
import threading
import time
from pathlib import Path
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ...interpreter.model.loader import bundled_models
from ...interpreter.model.frozen import LANGUAGES, Model
from ..i18n import translator
from . import limits as bounded
from .hub import Hub
from .limits import LOCAL_HOSTS, REFUSALS, Counter, Limits, Quota, host_allowed, how_long, retry_after
from .solving import is_solved
from .store import Store
from .tables import SEAT_KINDS, ServeError, Table, Tables, check_table_id
from .texts import LANGUAGE_NAMES, client_texts, kind_names
from .views import game_card, model_info
from .copies import WorkshopError
from .workshop import Workshop, copy_card, rule_page_extras
from .workshop import routes as workshop_routes

log = logging.getLogger("rulebook.serve")

HERE = Path(__file__).resolve().parent
MAX_BODY = 64 * 1024


# languages and templates ----------------------------------------------------------------------

def pick_lang(request: Request | WebSocket) -> str:
    q = request.query_params.get("lang")
    if q in LANGUAGES:
        return q
    c = request.cookies.get("lang")
    if c in LANGUAGES:
        return c
    for part in request.headers.get("accept-language", "").split(","):
        code = part.split(";")[0].strip()[:2].lower()
        if code in LANGUAGES:
            return code
    return "en"


_ENVS: dict[str, jinja2.Environment] = {}


def environment(lang: str) -> jinja2.Environment:
    env = _ENVS.get(lang)
    if env is None:
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "templates")), autoescape=True,
                                 extensions=["jinja2.ext.i18n"], trim_blocks=True, lstrip_blocks=True,
                                 undefined=jinja2.StrictUndefined)
        env.install_gettext_translations(translator(lang), newstyle=True)
        env.filters["tojson_safe"] = lambda v: jinja2.utils.htmlsafe_json_dumps(v)
        _ENVS[lang] = env
    return env


def page(request: Request, template: str, status: int = 200, headers: dict[str, str] | None = None,
         **ctx: Any) -> HTMLResponse:
    lang = ctx.pop("lang", None) or pick_lang(request)
    here = request.url.path
    langs = [{"lang": l, "name": LANGUAGE_NAMES[l], "href": f"{here}?lang={l}", "current": l == lang} for l in LANGUAGES]
    html = environment(lang).get_template(template).render(lang=lang, languages=langs, **ctx)
    response = HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS | (headers or {}))
    if request.query_params.get("lang") in LANGUAGES:
        response.set_cookie("lang", lang, max_age=365 * 24 * 3600, samesite="lax")
    return response


SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                               "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


# the rule pages (tools/documents/pages.py), built once on first use ---------------------------------------

class RuleSite:
    def __init__(self, tables: Tables):
        self.tables = tables
        self._files: dict[str, str] | None = None
        self._lock = threading.Lock()
        self.error: str | None = None

    def files(self) -> dict[str, str]:
        with self._lock:
            if self._files is None:
                from ..documents import pages
                models = [self.tables.model(name) for name in bundled_models()]
                self._files = pages.build_site(models, LANGUAGES, "html")
            return self._files


# request helpers -------------------------------------------------------------------------------

async def read_json(request: Request) -> Any:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        # a cross-site form cannot send this type without the browser asking first (CORS)
        raise ServeError(415, f"send the request body as application/json, not '{kind[:40] or 'nothing'}'")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise ServeError(413, "the request body is larger than {kib} KiB", kib=MAX_BODY // 1024)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise ServeError(413, "the request body is larger than {kib} KiB", kib=MAX_BODY // 1024)
    if not body.strip():
        raise ServeError(400, "the request body is empty; send a JSON object")
    try:
        return bounded.loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise ServeError(400, "the request body is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ServeError(400, f"the request body is not valid JSON: {exc.msg} "
                              f"(line {exc.lineno}, column {exc.colno})") from None
    except bounded.NumberError as exc:
        raise ServeError(400, f"the request body is refused: {exc}") from None
    except ValueError:  # e.g. an integer beyond Python's digit limit
        raise ServeError(400, "the request body is refused: a number in it is too long") from None
    except RecursionError:
        raise ServeError(400, "the request body is nested too deeply") from None


def api_error(exc: ServeError, lang: str = "en") -> JSONResponse:
    return JSONResponse(exc.to_json(lang), status_code=exc.status, headers=exc.headers)


def client_key(conn: Request | WebSocket) -> str:
    """Who is asking, for the quotas: the client's address (see limits.py)."""
    return conn.client.host if conn.client else "?"


class HostCheck:
    """Refuse requests for a host name not on the allow-list (DNS rebinding; links are built from
    the Host header, so only allowed names ever appear in them)."""

    def __init__(self, app, allowed: tuple[str, ...]):
        self.app, self.allowed = app, allowed

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            host = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), "")
            if not host_allowed(host, self.allowed):
                shown = "".join(c if c.isprintable() else "?" for c in host)[:60]
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                body = json.dumps({"error": f"this server does not answer for the host name '{shown}'",
                                   "hint": "its operator can allow it: rulebook serve --allowed-host NAME",
                                   "status": 400}).encode()
                await send({"type": "http.response.start", "status": 400,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def links(request: Request, table: Table) -> dict[str, str]:
    base = str(request.base_url).rstrip("/")
    return {"table": f"{base}/t/{table.id}", "join": f"{base}/t/{table.id}/join",
            "watch": f"{base}/t/{table.id}/watch", "api": f"{base}/api/tables/{table.id}",
            "ws": f"/ws/tables/{table.id}"}


# the application ------------------------------------------------------------------------------

def create_app(db_path: str | Path, pace: float = 0.7, limits: Limits | None = None,
               allowed_hosts: tuple[str, ...] | list[str] = LOCAL_HOSTS, solves=None) -> Starlette:
    """The ASGI app over the SQLite file `db_path` (created if needed).

    `pace` is the default pause in seconds before each computer move (a table may choose its own);
    `limits` the quotas, expiry and solving; `allowed_hosts` the host names it answers for ("*": any).
    """
    store_box: dict[str, Any] = {}
    hub = Hub()
    limits = limits or Limits()
    table_quota = Quota(limits.tables_per_client, limits.tables_window)
    move_quota = Quota(limits.moves_per_client, limits.moves_window)
    sockets = Counter(limits.sockets_per_client)

    copy_quota = Quota(limits.copies_per_client, limits.copies_window)
    compare_quota = Quota(limits.compares_per_client, limits.compares_window)
    quotas = {"tables": table_quota, "moves": move_quota, "copies": copy_quota, "compares": compare_quota}
    def check_quota(quota: Quota | str, request: Request, what: str | None = None) -> None:
        """Count one request of this client; refuse it (429) over the quota, saying when to try again."""
        if isinstance(quota, str):
            quota, what = quotas[quota], quota
        wait = quota.hit(client_key(request))
        if wait:
            lang = pick_lang(request)  # said in the asker's language at once: the wait is a phrase of it
            text = translator(lang).gettext(REFUSALS[what]).format(when=how_long(wait, lang))
            raise ServeError(429, text, headers={"Retry-After": retry_after(wait)},
                             extra={"retry_after": int(retry_after(wait))})

    workshop = Workshop(db_path)

    def tables() -> Tables:
        return store_box["tables"]

    @contextlib.asynccontextmanager
    async def lifespan(app):
        store = Store(db_path)
        t = Tables(store, hub, pace=pace, limits=limits, solves=solves)
        store_box["tables"] = t
        store_box["rules"] = RuleSite(t)
        app.state.tables = t
        workshop.attach(t)
        await t.start()
        try:
            yield
        finally:
            await workshop.close()
            await t.stop()
            hub.close_all()
            store.close()

    static = {p.name: p for p in (HERE / "static").iterdir() if p.is_file()}

    # pages ---------------------------------------------------------------------------
    async def home(request: Request):
        lang = pick_lang(request)
        games = [game_card(tables().model(name), lang) for name in bundled_models()]
        return page(request, "home.html.j2", lang=lang, games=games, recent=recent_tables(lang))

    def recent_tables(lang: str, model: str | None = None) -> list[dict[str, Any]]:
        out = []
        for t in tables().recent(100):
            if model is None or t.model_name == model:
                out.append({"id": t.id, "game": t.model.name[lang], "players": [s.name for s in t.seats],
                            "open": bool(t.open_seats()), "round": t.summary()["round"]})
        return out[:12]

    async def watch_list(request: Request):
        lang = pick_lang(request)
        try:
            model = tables().model(request.path_params["model"])
        except ServeError as exc:
            return error_page(request, exc)
        _ = translator(lang).gettext
        names = [_("Computer (greedy)"), _("Computer (random)")]
        return page(request, "watch.html.j2", lang=lang, game=game_card(model, lang),
                    recent=recent_tables(lang, request.path_params["model"]), names=names)

    async def new_table(request: Request):
        lang = pick_lang(request)
        try:
            model = tables().model(request.path_params["model"])
        except ServeError as exc:
            return error_page(request, exc)
        mode = request.query_params.get("mode", "computer")
        options = []
        for o in model.options.values():
            options.append({"id": o.id, "name": o.name[lang], "description": o.description[lang] if o.description else "",
                            "type": o.type, "default": o.default, "min": o.min, "max": o.max,
                            "choices": [{"value": k, "name": v[lang]} for k, v in (o.choices or {}).items()]})
        return page(request, "new.html.j2", lang=lang, game=game_card(model, lang), options=options,
                    min_players=model.min_players, max_players=model.max_players, mode=mode,
                    kinds=kind_names(lang), solved=is_solved(model),
                    default_pace=int(tables().default_pace * 1000))

    async def table_page(request: Request):
        return await _table_page(request, watch=False)

    async def watch_page(request: Request):
        return await _table_page(request, watch=True)

    async def _table_page(request: Request, watch: bool):
        lang = pick_lang(request)
        try:
            table = await tables().get(request.path_params["id"])
        except ServeError as exc:
            return error_page(request, exc)
        game = game_card(table.model, lang)
        if table.model_name.startswith("copy:"):  # a play-test table: the copy's own pages, and back
            with contextlib.suppress(WorkshopError):
                game |= copy_card(workshop.copies.get(table.model_name[5:]), lang, game["name"])
        info = model_info(table.model, lang) | {"name": game["name"]}
        boot = {"table": table.id, "watch": watch, "lang": lang, "model": info,
                "texts": client_texts(lang), "links": links(request, table), "state": table.snapshot(),
                "events": table.events[-40:], "kinds": kind_names(lang)}
        return page(request, "table.html.j2", lang=lang, boot=boot, game=game, table=table, watch=watch)

    async def join_page(request: Request):
        lang = pick_lang(request)
        try:
            table = await tables().get(request.path_params["id"])
        except ServeError as exc:
            return error_page(request, exc)
        seats = [{"seat": i, "name": s.name, "kind": s.kind, "open": s.human and not s.token_hash}
                 for i, s in enumerate(table.seats)]
        return page(request, "join.html.j2", lang=lang, game=game_card(table.model, lang), table=table,
                    seats=seats, kinds=kind_names(lang), finished=table.game.state.is_terminal())

    def error_page(request: Request, exc: ServeError) -> HTMLResponse:
        lang = pick_lang(request)
        message, hint = exc.render(lang)
        return page(request, "error.html.j2", lang=lang, status=exc.status, headers=exc.headers,
                    status_code=exc.status, message=message, hint=hint)

    # files ---------------------------------------------------------------------------
    async def static_file(request: Request):
        name = request.path_params["name"]
        path = static.get(name)
        if path is None:
            raise ServeError(404, f"there is no file '{name[:60]}'")
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript",):
            kind += "; charset=utf-8"
        return Response(path.read_bytes(), media_type=kind,
                        headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"})

    async def rules_file(request: Request):
        name = request.path_params["name"]
        model, _, lang = name.partition("/")
        if model in bundled_models() and lang in LANGUAGES:  # /rules/MODEL/LANG: that game's page
            return RedirectResponse(f"/rules/{model}.{lang}.html", status_code=307)
        try:
            files = await asyncio.to_thread(store_box["rules"].files)
        except Exception as exc:  # noqa: BLE001 - e.g. no Graphviz
            raise ServeError(503, f"the rule pages cannot be built here: {getattr(exc, 'message', exc)}") from None
        if name == "":
            name = "index.html"
        text = files.get(name)
        if text is None:
            raise ServeError(404, f"there is no rule page '{name[:60]}'")
        kind = mimetypes.guess_type(name)[0] or "text/plain"
        if name.endswith(".yaml"):
            kind = "text/plain"
        if name.endswith(".html"):  # a game's page: "Edit a copy" and the tap-a-step panel
            text = rule_page_extras(text, name, pick_lang(request))
        return Response(text, media_type=f"{kind}; charset=utf-8", headers={"X-Content-Type-Options": "nosniff"})

    # the API -------------------------------------------------------------------------
    async def api_games(request: Request):
        lang = pick_lang(request)
        out = []
        for name in bundled_models():
            m = tables().model(name)
            out.append({"id": m.id, "name": m.name[lang], "min_players": m.min_players,
                        "max_players": m.max_players, "options": {k: o.default for k, o in m.options.items()},
                        "kinds": list(SEAT_KINDS), "solved": is_solved(m)})
        return JSONResponse(out)

    async def api_create(request: Request):
        body = await read_json(request)
        check_quota(table_quota, request, "tables")
        try:
            table, seat, token = await tables().create(body)
        except ServeError:
            table_quota.give_back(client_key(request))  # a refused table costs nothing
            raise
        return JSONResponse({"table": table.id, "seat": seat, "token": token, "links": links(request, table),
                             "state": table.snapshot()}, status_code=201)

    async def api_list(request: Request):
        return JSONResponse([t.summary() for t in tables().recent(50)])

    async def api_table(request: Request):
        table = await tables().get(request.path_params["id"])
        return JSONResponse(table.snapshot())

    async def api_events(request: Request):
        table = await tables().get(request.path_params["id"])
        since = request.query_params.get("since", "0")
        if not since.isdigit():
            raise ServeError(400, "'since' must be a whole number")
        return JSONResponse({"seq": table.seq, "events": table.events[int(since):]})

    async def api_join(request: Request):
        body = await read_json(request)
        table, seat, token = await tables().claim(request.path_params["id"], body)
        return JSONResponse({"table": table.id, "seat": seat, "token": token, "links": links(request, table),
                             "state": table.snapshot()})

    async def api_act(request: Request):
        check_quota(move_quota, request, "moves")
        body = await read_json(request)
        table, events = await tables().act(request.path_params["id"], body)
        return JSONResponse({"ok": True, "seq": events[-1]["seq"], "events": events, "state": events[-1]["state"]})

    async def api_back(request: Request):
        check_quota(move_quota, request, "moves")
        body = await read_json(request)
        table = await tables().take_back(request.path_params["id"], body)
        return JSONResponse({"ok": True, "state": table.snapshot()})

    async def api_rematch(request: Request):
        body = await read_json(request)
        old = await tables().get(request.path_params["id"])
        if old.rematch is None:
            check_quota(table_quota, request, "tables")
        table, seat, token = await tables().rematch(request.path_params["id"], body)
        return JSONResponse({"table": table.id, "seat": seat, "token": token, "links": links(request, table),
                             "state": table.snapshot()})

    async def api_hint(request: Request):
        check_quota(move_quota, request, "moves")
        body = await read_json(request)
        return JSONResponse(await tables().hint(request.path_params["id"], body))

    # the live stream ---------------------------------------------------------------------
    async def ws_table(websocket: WebSocket):
        key = client_key(websocket)
        if not sockets.take(key):
            await websocket.close(code=1013, reason="too many connections from your address")  # try again later
            return
        try:
            await _ws_table(websocket)
        finally:
            sockets.give_back(key)

    async def _ws_table(websocket: WebSocket):
        await websocket.accept()
        lang = pick_lang(websocket)  # the page's language (?lang=, cookie, Accept-Language): errors in it
        try:
            table = await tables().get(websocket.path_params["id"])
            since = websocket.query_params.get("since", "0")
            if not since.isdigit():
                raise ServeError(400, "'since' must be a whole number")
        except ServeError as exc:
            await websocket.send_json({"type": "error", **exc.to_json(lang)})
            await websocket.close(code=4000 + exc.status, reason=exc.message[:120])
            return
        sub = hub.subscribe(table.id)  # no await between subscribing and the snapshot: nothing is missed
        since_n = min(int(since), table.seq)
        hello = {"type": "hello", "seq": table.seq, "state": table.snapshot(), "events": table.events[since_n:],
                 "at": time.time()}
        try:
            await websocket.send_text(json.dumps(hello, separators=(",", ":")))

            async def reader():
                """What the page says: which seat it plays ({"type": "seat", "seat", "token"}: the
                person is here) and, while choosing, which dice ({"type": "select", "dice"})."""
                seat = None
                selects = Quota(20, 1.0)  # the live selection: at most 20 changes a second
                try:
                    while True:
                        msg = await websocket.receive()
                        if msg["type"] == "websocket.disconnect":
                            return
                        text = msg.get("text") or ""
                        try:
                            data = bounded.loads(text) if len(text) <= 2000 else None
                            if not isinstance(data, dict):
                                raise ServeError(400, "a message must be a JSON object of at most 2000 characters")
                            if data.get("type") == "seat" and seat is None:
                                seat = tables().seat_of(table, data)
                                tables().here(table, seat, +1)
                                if seat in table.robots and table.present.get(seat) == 1:
                                    await tables().take_back(table.id, data)  # back after leaving
                            elif data.get("type") == "select" and seat is not None and not selects.hit("x"):
                                tables().select(table, seat, data.get("dice"))
                        except ServeError as exc:
                            sub.put(json.dumps({"type": "error", **exc.to_json(lang)}))
                        except ValueError:
                            sub.put(json.dumps({"type": "error",
                                                **ServeError(400, "a message must be JSON").to_json(lang)}))
                finally:
                    if seat is not None:
                        tables().here(table, seat, -1)

            read_task = asyncio.ensure_future(reader())
            try:
                while True:
                    while not sub.queue.empty():  # send everything already queued, in order
                        text = sub.queue.get_nowait()
                        if text is None:  # too far behind, or the server is stopping
                            await websocket.close(code=4008, reason="reconnect to catch up")
                            return
                        await websocket.send_text(text)
                    get = asyncio.ensure_future(sub.queue.get())
                    done, _ = await asyncio.wait({get, read_task}, return_when=asyncio.FIRST_COMPLETED)
                    if read_task in done:
                        get.cancel()
                        return
                    text = get.result()
                    if text is None:
                        await websocket.close(code=4008, reason="reconnect to catch up")
                        return
                    await websocket.send_text(text)
            finally:
                read_task.cancel()
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            hub.unsubscribe(sub)

    # errors ---------------------------------------------------------------------------
    def wants_json(request: Request) -> bool:
        return request.url.path.startswith("/api/")

    async def on_serve_error(request: Request, exc: ServeError):
        if wants_json(request):
            return api_error(exc, pick_lang(request))
        return error_page(request, exc)

    async def on_http_error(request: Request, exc: HTTPException):
        message = {404: f"there is no page '{request.url.path[:80]}'",
                   405: f"{request.method} is not allowed here"}.get(exc.status_code, str(exc.detail))
        return await on_serve_error(request, ServeError(exc.status_code, message))

    async def on_crash(request: Request, exc: Exception):
        log.exception("crash on %s", request.url.path)
        return await on_serve_error(request, ServeError(500, "the server failed; the table is as it was before"))

    routes = [
        Route("/", home),
        Route("/new/{model}", new_table),
        Route("/watch/{model}", watch_list),
        Route("/t/{id}", table_page),
        Route("/t/{id}/watch", watch_page),
        Route("/t/{id}/join", join_page),
        Route("/static/{name:path}", static_file),
        Route("/rules/{name:path}", rules_file),
        Route("/api/games", api_games),
        Route("/api/tables", api_create, methods=["POST"]),
        Route("/api/tables", api_list, methods=["GET"]),
        Route("/api/tables/{id}", api_table),
        Route("/api/tables/{id}/events", api_events),
        Route("/api/tables/{id}/join", api_join, methods=["POST"]),
        Route("/api/tables/{id}/act", api_act, methods=["POST"]),
        Route("/api/tables/{id}/hint", api_hint, methods=["POST"]),
        Route("/api/tables/{id}/back", api_back, methods=["POST"]),
        Route("/api/tables/{id}/rematch", api_rematch, methods=["POST"]),
        WebSocketRoute("/ws/tables/{id}", ws_table),
    ]
    routes += workshop_routes(workshop, page, pick_lang, SECURITY_HEADERS, lambda: store_box["rules"].files(),
                              lambda request, what: check_quota(what, request))
    app = Starlette(routes=routes, lifespan=lifespan,
                    middleware=[Middleware(HostCheck, allowed=tuple(h.lower() for h in allowed_hosts))],
                    exception_handlers={ServeError: on_serve_error, HTTPException: on_http_error, Exception: on_crash})
    return app
