"""What every page and API answer of `rulebook serve` shares: the visitor's language, the templates,
the security headers, reading a JSON body, the client's address, the Host check, and the links a
viewer may pass on (each with its own key, see docs/threat-model.md)."""
from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.websockets import WebSocket

from ...interpreter.model.loader import bundled_models
from ...interpreter.model.frozen import LANGUAGES
from ..i18n import translator
from . import limits as bounded
from .limits import host_allowed
from .tables import ServeError, Table, Tables
from .texts import LANGUAGE_NAMES

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
        raise ServeError(415, "send the request body as application/json, not '{kind}'", kind=kind[:40] or "nothing")
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


def links(request: Request, table: Table, player: bool = True) -> dict[str, Any]:
    """The links a viewer may pass on: a player gets the watch link and an invite link per open seat,
    each with its own key; a spectator gets the watch link alone (and a public table's join page)."""
    base = str(request.base_url).rstrip("/")
    out: dict[str, Any] = {"table": f"{base}/t/{table.id}", "watch": f"{base}/t/{table.id}/watch",
                           "api": f"{base}/api/tables/{table.id}", "ws": f"/ws/tables/{table.id}", "invites": []}
    if table.private:
        out["watch"] += f"?key={table.watch_key}"
    if player:
        out["invites"] = [{"seat": i, "name": table.seats[i].name,
                           "url": f"{base}/t/{table.id}/join?seat={i}&key={k}"} for i, k in sorted(table.invites.items())]
    out["join"] = f"{base}/t/{table.id}/join" if not table.private else (
        out["invites"][0]["url"] if out["invites"] else None)
    return out


def credentials(conn) -> dict[str, Any]:
    """What a request shows of its keys: ?key= (watch or invite), or ?seat=&token= (a seat's token)."""
    q = conn.query_params
    return {"key": q.get("key"), "seat": q.get("seat"), "token": q.get("token")}


