"""The vote page (FastAPI): invited annotators see one battle at a time and vote.

Routes: ``GET /join/{token}`` (an invite link: opens a session, kept in a cookie, and goes to the vote
page), ``GET /vote`` (the next battle this session's annotator has not voted on), ``POST /vote`` (form
fields battle, label, critique and the session's CSRF token; answers 303 to the next battle, or a 4xx page
that changes nothing), ``GET /media/{battle}/{k}`` (the k-th picture of a battle, only from inside its data
root), ``GET /progress`` (JSON counts; names only with ``?admin=`` the token printed at start).

The annotator of a vote is the session's, never a form field. A vote also needs its session's CSRF token
and an ``Origin`` (or, without one, a ``Referer``) of this very server; any request whose ``Host`` is not
the address served, a name given with ``hostnames``, or a loopback name with the same port is refused
(DNS rebinding). Pages use no scripts and load nothing from elsewhere; model names are never shown.
"""

# No ``from __future__ import annotations``: FastAPI reads the route annotations (``Request``, imported
# inside the route helpers) at definition time.
import hmac
import html
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

from mmsoc.arena.media import Pictures
from mmsoc.arena.records import LABELS, Battle
from mmsoc.arena.store import Session, VoteRejected, VoteStore

if TYPE_CHECKING:
    from fastapi import FastAPI, Request
    from fastapi.responses import HTMLResponse

MAX_CRITIQUE = 10_000
LOOPBACK = ("127.0.0.1", "localhost", "::1")
BUTTONS = {"A": "A is better", "B": "B is better", "tie": "Tie", "both_bad": "Both are bad"}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
STYLE = """
body{font-family:system-ui,sans-serif;margin:0 auto;max-width:72em;padding:1em;line-height:1.4}
header{display:flex;justify-content:space-between;flex-wrap:wrap;gap:.5em;border-bottom:1px solid #ccc}
.question{font-weight:bold}.media img{max-width:100%;max-height:22em;margin:.3em;border:1px solid #ddd}
.pair{display:flex;gap:1em;flex-wrap:wrap}.response{flex:1 1 20em;border:1px solid #bbb;border-radius:6px;
padding:.5em 1em;min-width:0}.response pre{white-space:pre-wrap;word-wrap:break-word;font-family:inherit}
textarea{width:100%;box-sizing:border-box;min-height:5em}.buttons{display:flex;gap:.5em;flex-wrap:wrap;margin:.5em 0}
form{margin-top:1em}button{font-size:1em;padding:.5em 1em}.error{color:#a00}.empty{color:#777;font-style:italic}
"""
NOT_SIGNED_IN = "This page is for invited annotators: open the invite link you were given."


@dataclass(frozen=True)
class Access:
    """Who may reach the server and how: the (host, port) pairs a ``Host`` header may name, the session
    cookie's name (one per port, so two servers on one machine keep apart) and the admin token."""

    hosts: frozenset[tuple[str, int]]
    cookie: str
    admin_token: str | None

    @classmethod
    def of(cls, host: str, port: int, hostnames: Sequence[str] = (), admin_token: str | None = None) -> "Access":
        names = {name.strip("[]").lower() for name in (host, *hostnames, *LOOPBACK)}
        return cls(frozenset((name, port) for name in names), f"arena_session_{port}", admin_token)

    def host_ok(self, value: str | None) -> bool:
        where = _where("//" + (value or ""), "http")
        return where is not None and where in self.hosts

    def same_origin(self, source: str | None, scheme: str, host: str | None) -> bool:
        """Whether an Origin or Referer value names this server as the request reached it."""
        return source is not None and _where(source, scheme, strict=True) == _where("//" + (host or ""), scheme)


def _where(url: str, scheme: str, strict: bool = False) -> tuple[str, int] | None:
    """(host name, port) of a URL (port from the scheme when absent); None when it has none, or when
    ``strict`` and its scheme is not ``scheme``."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or (strict and parts.scheme != scheme):
        return None
    return parts.hostname.lower(), port or (443 if scheme == "https" else 80)


def create_app(store: VoteStore, access: Access) -> "FastAPI":
    """The FastAPI app serving ``store``'s battles to its invited annotators."""
    from fastapi import FastAPI
    from fastapi.responses import Response

    app = FastAPI(title="mmsoc arena", docs_url=None, redoc_url=None, openapi_url=None)
    pictures = Pictures()

    @app.middleware("http")
    async def guard(request, call_next):
        if not access.host_ok(request.headers.get("host")):
            response = Response("unknown Host header", status_code=400, media_type="text/plain")
        else:
            response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    _session_routes(app, store, access)
    _vote_routes(app, store, access, pictures)
    _media_routes(app, store, access, pictures)
    return app


def _html(title: str, body: str, status: int = 200) -> "HTMLResponse":
    from fastapi.responses import HTMLResponse

    return HTMLResponse(_page(title, body), status_code=status)


def _refuse(status: int, message: str, back: bool = False) -> "HTMLResponse":
    """The page of a request that changes nothing, saying why (with a link back to voting where it helps)."""
    link = '<p><a href="/vote">Back to voting</a></p>' if back else ""
    return _html("Not recorded", f'<p class="error" id="error">{_esc(message)}</p>{link}', status)


def _session_of(store: VoteStore, access: Access, request: "Request") -> Session | None:
    session_id = request.cookies.get(access.cookie)
    return store.session(session_id) if session_id else None


def _session_routes(app: "FastAPI", store: VoteStore, access: Access) -> None:
    """``GET /`` and ``GET /join/{token}``: the home page and an invite link opening a session."""
    from fastapi import Request
    from fastapi.responses import HTMLResponse, RedirectResponse, Response

    @app.get("/", response_class=HTMLResponse)
    def home(request: Request) -> Response:
        if _session_of(store, access, request) is not None:
            return RedirectResponse("/vote", status_code=303)
        return _html("Arena", f"<p>{store.count()} battles. {NOT_SIGNED_IN}</p>")

    @app.get("/join/{token}")
    def join(token: str) -> Response:
        opened = store.open_session(token)
        if opened is None:
            return _refuse(403, "This invite link is not valid.")
        session_id, _session = opened
        answer = RedirectResponse("/vote", status_code=303)
        answer.set_cookie(access.cookie, session_id, httponly=True, samesite="strict", path="/")
        return answer


def _vote_routes(app: "FastAPI", store: VoteStore, access: Access, pictures: Pictures) -> None:
    """``GET /vote`` (the next battle of the session's annotator) and ``POST /vote`` (a vote on it)."""
    from fastapi import Form, Request
    from fastapi.responses import HTMLResponse, RedirectResponse, Response

    @app.get("/vote", response_class=HTMLResponse)
    def next_battle(request: Request) -> HTMLResponse:
        session = _session_of(store, access, request)
        if session is None:
            return _refuse(403, NOT_SIGNED_IN)
        annotator = session.annotator
        done = store.progress()["annotators"].get(annotator, 0)
        total = store.count()
        battle = store.next_battle(annotator)
        if battle is None:
            return _html(
                "Done",
                _header(annotator, done, total) + f'<p id="done">You have voted on all {total} battles. Thank you.</p>',
            )
        return _html("Vote", _header(annotator, done, total) + _battle_html(battle, pictures, session.csrf))

    @app.post("/vote")
    def vote(
        request: Request,
        battle: str = Form(""),
        label: str = Form(""),
        critique: str = Form(""),
        csrf: str = Form(""),
    ) -> Response:
        source = request.headers.get("origin", request.headers.get("referer"))
        if not access.same_origin(source, request.url.scheme, request.headers.get("host")):
            return _refuse(403, "votes are accepted only from this server's own vote page (Origin or Referer)")
        session = _session_of(store, access, request)
        if session is None:
            return _refuse(403, NOT_SIGNED_IN)
        if not hmac.compare_digest(csrf.encode(), session.csrf.encode()):
            return _refuse(403, "this form is not from your session: reload the vote page", back=True)
        if len(critique) > MAX_CRITIQUE:
            return _refuse(422, f"critique longer than {MAX_CRITIQUE} characters", back=True)
        try:
            store.vote(session.annotator, battle, label, critique.strip(), time.time())
        except VoteRejected as err:
            return _refuse(err.status, str(err), back=True)
        return RedirectResponse("/vote", status_code=303)


def _media_routes(app: "FastAPI", store: VoteStore, access: Access, pictures: Pictures) -> None:
    """``GET /media/{battle}/{k}`` (a battle's k-th picture, signed in only) and ``GET /progress`` (counts)."""
    from fastapi import Request
    from fastapi.responses import FileResponse, JSONResponse, Response

    @app.get("/media/{battle_id}/{index}")
    def media(request: Request, battle_id: str, index: int) -> Response:
        battle = store.battle(battle_id) if _session_of(store, access, request) is not None else None
        shown = pictures.of(battle) if battle is not None else []
        if not 0 <= index < len(shown) or shown[index].problem:
            return Response("no such picture", status_code=404, media_type="text/plain")
        picture = shown[index]
        if picture.png is not None:
            return Response(picture.png, media_type="image/png")
        if picture.path is None:  # a picture without a problem is a file or PNG bytes
            return Response("no such picture", status_code=404, media_type="text/plain")
        return FileResponse(picture.path, media_type=picture.media_type)

    @app.get("/progress")
    def progress(admin: str = "") -> JSONResponse:
        counts = store.progress()
        names = counts.pop("annotators")
        counts["annotators"] = len(names)
        if admin:
            if access.admin_token is None or not hmac.compare_digest(admin.encode(), access.admin_token.encode()):
                return JSONResponse({"error": "wrong admin token"}, status_code=403)
            counts["votes_by_annotator"] = names
        return JSONResponse(counts)


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">'
        f"<title>{_esc(title)}</title><style>{STYLE}</style></head><body>{body}</body></html>"
    )


def _header(annotator: str, done: int, total: int) -> str:
    return (
        f'<header><span>Annotator <b id="who">{_esc(annotator)}</b></span>'
        f'<span id="progress">voted on {done} of {total} battles</span></header>'
    )


def _battle_html(battle: Battle, pictures: Pictures, csrf: str) -> str:
    parts = ['<section class="item"><h2>Item</h2>']
    if battle.task:
        parts.append(f'<p>Task: <span id="task">{_esc(battle.task)}</span></p>')
    if battle.prompt:
        parts.append(f'<p class="question" id="question">{_esc(battle.prompt)}</p>')
    if battle.text:
        parts.append(f'<blockquote id="item-text">{_esc(battle.text)}</blockquote>')
    shown = pictures.of(battle)
    if shown:
        parts.append('<div class="media">')
        for k, picture in enumerate(shown):
            if picture.problem:
                parts.append(f'<p class="error">{_esc(picture.label)}: {_esc(picture.problem)}</p>')
            else:
                parts.append(f'<img src="/media/{quote(battle.id)}/{k}" alt="{_esc(picture.label)}">')
        parts.append("</div>")
    parts.append('</section><section class="pair">')
    for side, response in (("A", battle.response_a), ("B", battle.response_b)):
        body = f"<pre>{_esc(response)}</pre>" if response.strip() else '<p class="empty">(empty response)</p>'
        parts.append(f'<div class="response" id="response-{side.lower()}"><h3>Response {side}</h3>{body}</div>')
    parts.append(
        '</section><form method="post" action="/vote">'
        f'<input type="hidden" name="csrf" value="{_esc(csrf)}">'
        f'<input type="hidden" name="battle" id="battle" value="{_esc(battle.id)}">'
        '<label for="critique">Critique (optional): what makes one response better or both bad?</label>'
        f'<textarea id="critique" name="critique" maxlength="{MAX_CRITIQUE}"></textarea><div class="buttons">'
    )
    parts += [
        f'<button type="submit" name="label" value="{label}" id="vote-{label}">{BUTTONS[label]}</button>'
        for label in LABELS
    ]
    parts.append("</div></form>")
    return "".join(parts)
