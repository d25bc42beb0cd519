"""The vote page (FastAPI): annotators name themselves, see one battle at a time and vote.

Routes: ``GET /`` (who are you), ``GET /vote?annotator=NAME`` (the next battle this annotator has not
voted on), ``POST /vote`` (form fields annotator, battle, label, critique; answers 303 to the next
battle, or a 4xx page that changes nothing), ``GET /media/{battle}/{k}`` (the k-th picture of a
battle, only from inside its data root), ``GET /progress`` (JSON). Pages use no scripts and load
nothing from elsewhere; model names are never shown.
"""

from __future__ import annotations

import html
import re
import time
from typing import Any
from urllib.parse import quote

from mmsoc.arena.media import Pictures
from mmsoc.arena.records import LABELS, Battle
from mmsoc.arena.store import VoteRejected, VoteStore

NAME = re.compile(r"^[\w.@+-]{1,64}$")
MAX_CRITIQUE = 10_000
BUTTONS = {"A": "A is better", "B": "B is better", "tie": "Tie", "both_bad": "Both are bad"}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
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


def create_app(store: VoteStore) -> Any:
    """The FastAPI app serving ``store``'s battles."""
    from fastapi import FastAPI, Form
    from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response

    app = FastAPI(title="mmsoc arena", docs_url=None, redoc_url=None, openapi_url=None)
    pictures = Pictures()

    @app.middleware("http")
    async def headers(request, call_next):
        response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    def page(title: str, body: str, status: int = 200) -> HTMLResponse:
        return HTMLResponse(_page(title, body), status_code=status)

    def refuse(status: int, message: str, annotator: str = "") -> HTMLResponse:
        back = f'<p><a href="/vote?annotator={quote(annotator)}">Back to voting</a></p>' if annotator else ""
        return page("Not recorded", f'<p class="error" id="error">{_esc(message)}</p>{back}', status)

    @app.get("/", response_class=HTMLResponse)
    def home() -> HTMLResponse:
        total = store.count()
        return page(
            "Arena",
            (
                f"<p>{total} battles. Each shows one item and two anonymous responses; say which is better, "
                "or that they tie, or that both are bad, and add a critique if you like.</p>"
                '<form method="get" action="/vote"><label for="annotator">Your annotator name</label> '
                '<input id="annotator" name="annotator" required maxlength="64" pattern="[\\w.@+\\-]{1,64}" '
                'autocomplete="username"> <button id="start" type="submit">Start</button></form>'
                "<p>Names use letters, digits and . @ + - _ (up to 64).</p>"
            ),
        )

    @app.get("/vote", response_class=HTMLResponse)
    def next_battle(annotator: str = "") -> HTMLResponse:
        if not NAME.match(annotator):
            return refuse(422, "annotator name: 1 to 64 letters, digits or . @ + - _")
        done = store.progress()["annotators"].get(annotator, 0)
        total = store.count()
        battle = store.next_battle(annotator)
        if battle is None:
            return page(
                "Done",
                _header(annotator, done, total) + f'<p id="done">You have voted on all {total} battles. Thank you.</p>',
            )
        return page("Vote", _header(annotator, done, total) + _battle_html(battle, pictures, annotator))

    @app.post("/vote")
    def vote(
        annotator: str = Form(""), battle: str = Form(""), label: str = Form(""), critique: str = Form("")
    ) -> Response:
        if not NAME.match(annotator):
            return refuse(422, "annotator name: 1 to 64 letters, digits or . @ + - _")
        if len(critique) > MAX_CRITIQUE:
            return refuse(422, f"critique longer than {MAX_CRITIQUE} characters", annotator)
        try:
            store.vote(annotator, battle, label, critique.strip(), time.time())
        except VoteRejected as err:
            return refuse(err.status, str(err), annotator)
        return RedirectResponse(f"/vote?annotator={quote(annotator)}", status_code=303)

    @app.get("/media/{battle_id}/{index}")
    def media(battle_id: str, index: int) -> Response:
        battle = store.battle(battle_id)
        shown = pictures.of(battle) if battle is not None else []
        if not 0 <= index < len(shown) or shown[index].problem:
            return Response("no such picture", status_code=404, media_type="text/plain")
        picture = shown[index]
        if picture.png is not None:
            return Response(picture.png, media_type="image/png")
        return FileResponse(picture.path, media_type=picture.media_type)

    @app.get("/progress")
    def progress() -> JSONResponse:
        return JSONResponse(store.progress())

    return app


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


def _battle_html(battle: Battle, pictures: Pictures, annotator: str) -> str:
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
        f'<input type="hidden" name="annotator" value="{_esc(annotator)}">'
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
