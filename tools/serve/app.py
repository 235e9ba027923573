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
import time
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ...interpreter.model.loader import bundled_models
from ...interpreter.model.frozen import LANGUAGES
from ..i18n import translator
from . import limits as bounded
from .hub import Hub
from .limits import LOCAL_HOSTS, REFUSALS, Counter, Limits, Quota, how_long, retry_after
from .solving import is_solved
from .store import Store
from .tables import SEAT_KINDS, ServeError, Table, Tables
from .texts import client_texts, kind_names
from .views import game_card, model_info
from .copies import WorkshopError
from .workshop import Workshop, copy_card, rule_page_extras
from .workshop import routes as workshop_routes

from .web import (HERE, MAX_BODY, SECURITY_HEADERS, HostCheck, RuleSite, api_error, client_key,  # noqa: F401
                  credentials, environment, links, page, pick_lang, read_json)

log = logging.getLogger("rulebook.serve")


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

    def no_table(table_id: str) -> ServeError:
        return ServeError(404, "there is no table '{table}'", table=table_id[:40])

    async def visible(conn, table_id: str, body: dict | None = None) -> Table:
        """The table, if this request may see it (a private one: with a key or a seat's token); else 404."""
        table = await tables().get(table_id)
        cred = body if body is not None else credentials(conn)
        if not tables().may_view(table, cred.get("key"), cred.get("seat"), cred.get("token")):
            raise no_table(table_id)
        return table

    def table_boot(request: Request, table: Table, watch: bool, lang: str, player: bool) -> tuple[dict, dict]:
        game = game_card(table.model, lang)
        if table.model_name.startswith("copy:"):  # a play-test table: the copy's own pages, and back
            with contextlib.suppress(WorkshopError):
                game |= copy_card(workshop.copies.get(table.model_name[5:]), lang, game["name"])
        info = model_info(table.model, lang) | {"name": game["name"]}
        boot = {"table": table.id, "watch": watch, "lang": lang, "model": info,
                "texts": client_texts(lang), "links": links(request, table, player), "state": table.snapshot(),
                "events": table.events[-40:], "kinds": kind_names(lang), "private": table.private,
                "game": {"rules": game["rules"], "diagram": game["diagram"]}}
        return boot, game

    async def _table_page(request: Request, watch: bool):
        lang = pick_lang(request)
        try:
            table = await tables().get(request.path_params["id"])
        except ServeError as exc:
            return error_page(request, exc)
        cred = credentials(request)
        locked = table.private and not tables().may_view(table, cred["key"], cred["seat"], cred["token"])
        if locked and watch:
            return error_page(request, no_table(table.id))
        boot, game = table_boot(request, table, watch, lang, player=not watch)
        if locked:  # a player's page: its script shows the seat's token (POST /boot) before anything is seen
            boot = {"table": table.id, "watch": False, "lang": lang, "locked": True, "texts": client_texts(lang),
                    "model": {"name": "", "n_dice": boot["model"]["n_dice"]}}
            game = {"id": "", "name": "rulebook", "rules": "/", "diagram": "/"}
        elif watch and table.private:
            boot["key"] = cred["key"]
        return page(request, "table.html.j2", lang=lang, boot=boot, game=game, table=table, watch=watch)

    async def api_boot(request: Request):
        """POST {seat, token}: a private table's page, for one of its players."""
        body = await read_json(request)
        if not isinstance(body, dict):
            raise ServeError(400, "the request body must be a JSON object")
        table = await tables().get(request.path_params["id"])
        tables().authorize(table, body)
        boot, _ = table_boot(request, table, False, pick_lang(request), player=True)
        return JSONResponse(boot)

    async def join_page(request: Request):
        lang = pick_lang(request)
        try:
            table = await tables().get(request.path_params["id"])
        except ServeError as exc:
            return error_page(request, exc)
        key = request.query_params.get("key")
        asked = request.query_params.get("seat", "")
        if table.private:  # a private table's join page shows one seat: the one its invite key is for
            if not (asked.isdigit() and int(asked) in table.invites and tables().may_view(table, key)
                    and not tables().watch_only(table, key)):
                return error_page(request, no_table(table.id))
        seats = [{"seat": i, "name": s.name, "kind": s.kind,
                  "open": s.human and not s.token_hash and i not in table.reserved
                  and (not table.private or str(i) == asked)} for i, s in enumerate(table.seats)]
        return page(request, "join.html.j2", lang=lang, game=game_card(table.model, lang), table=table,
                    seats=seats, kinds=kind_names(lang), finished=table.over, key=key or "",
                    watch=f"/t/{table.id}/watch" if not table.private else None)

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
            raise ServeError(404, "there is no file '{file}'", file=name[:60])
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
            raise ServeError(503, "the rule pages cannot be built here: {reason}", reason=getattr(exc, "message", exc)) from None
        if name == "":  # the index in the chosen language (?lang=, the cookie or the browser's)
            lang = pick_lang(request)
            name = f"index.{lang}.html" if f"index.{lang}.html" in files else "index.html"
        text = files.get(name)
        if text is None:
            raise ServeError(404, "there is no rule page '{page}'", page=name[:60])
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
        table = await visible(request, request.path_params["id"])
        return JSONResponse(table.snapshot())

    async def api_events(request: Request):
        table = await visible(request, request.path_params["id"])
        since = request.query_params.get("since", "0")
        if not since.isdigit():
            raise ServeError(400, "'since' must be a whole number")
        return JSONResponse({"seq": table.seq, "events": table.events[int(since):]})

    async def api_review(request: Request):
        table = await visible(request, request.path_params["id"])
        return JSONResponse(await tables().review(table, pick_lang(request)))

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

    async def api_start(request: Request):
        body = await read_json(request)
        table = await tables().start(request.path_params["id"], body)
        return JSONResponse({"ok": True, "state": table.snapshot()})

    def move_handler(name: str):
        """A POST that counts as a move and answers the table's new state (a vote, a take-back)."""
        async def handler(request: Request):
            check_quota(move_quota, request, "moves")
            body = await read_json(request)
            table = await getattr(tables(), name)(request.path_params["id"], body)
            return JSONResponse({"ok": True, "state": table.snapshot()})
        return handler

    api_vote, api_back = move_handler("vote"), move_handler("take_back")

    async def api_invite(request: Request):
        body = await read_json(request)
        table = await tables().new_invite(request.path_params["id"], body)
        return JSONResponse({"ok": True, "links": links(request, table)})


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
            table = await visible(websocket, websocket.path_params["id"])
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
        if exc.status_code == 404:
            error = ServeError(404, "there is no page '{page}'", page=request.url.path[:80])
        elif exc.status_code == 405:
            error = ServeError(405, "{method} is not allowed here", method=request.method)
        else:
            error = ServeError(exc.status_code, str(exc.detail))
        return await on_serve_error(request, error)

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
        Route("/api/tables/{id}/review", api_review),
        Route("/api/tables/{id}/act", api_act, methods=["POST"]),
        Route("/api/tables/{id}/hint", api_hint, methods=["POST"]),
        Route("/api/tables/{id}/back", api_back, methods=["POST"]),
        Route("/api/tables/{id}/boot", api_boot, methods=["POST"]),
        Route("/api/tables/{id}/start", api_start, methods=["POST"]),
        Route("/api/tables/{id}/vote", api_vote, methods=["POST"]),
        Route("/api/tables/{id}/invite", api_invite, methods=["POST"]),
        Route("/api/tables/{id}/rematch", api_rematch, methods=["POST"]),
        WebSocketRoute("/ws/tables/{id}", ws_table),
    ]
    routes += workshop_routes(workshop, page, pick_lang, SECURITY_HEADERS, lambda: store_box["rules"].files(),
                              lambda request, what: check_quota(what, request))
    app = Starlette(routes=routes, lifespan=lifespan,
                    middleware=[Middleware(HostCheck, allowed=tuple(h.lower() for h in allowed_hosts))],
                    exception_handlers={ServeError: on_serve_error, HTTPException: on_http_error, Exception: on_crash})
    return app
