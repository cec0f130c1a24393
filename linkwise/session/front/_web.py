"""The web page of a human session: a Starlette app served by uvicorn on 127.0.0.1.

Routes are thin: one handler each (:class:`_Page`) calls the :class:`HumanSession` and returns its
state as JSON; the page (``static/``) renders it with ``textContent`` only, so
item text never becomes markup. Images are served by row number, never by a
path from the URL, and only as :meth:`Dataset.image_content` has checked and read them.
Every route needs the run's random token (as Jupyter does): the address
printed carries it once, the page then holds it in an HttpOnly cookie, so
other accounts on a shared machine cannot read or answer the session. The
browser is opened on a redirect file only the user can read, never with the
token on its command line (which every account sees).
A team's session has one token per annotator: the token says who answers. An open team shares one token,
and the name a person joins with is kept in a second cookie.
:func:`serve` may be given a :class:`SessionOpening`: the address is printed as soon as the server listens, the
session opens in the background (replaying its file, computing the method's first question), and until then the
page says it is preparing the first question while the routes that need the session wait for it.
"""

import asyncio
import functools
import html
import json
import os
import re
import secrets
import socket
import tempfile
import threading
import time
import webbrowser
from pathlib import Path
from urllib.parse import quote

import numpy as np

from linkwise._extras import requires
from linkwise._validation import InvalidParameterError
from linkwise.session.core._controller import Refused
from linkwise.session.core._export import FORMATS, MEDIA_TYPES, TABLES, format_table, session_table
from linkwise.session.core._feedback import NeedsConfirmation
from linkwise.session.core._store import SessionWriteError
from linkwise.session.core._summary import summary
from linkwise.session.data._data import IMAGE_TYPES, UnsafePathError
from linkwise.session.data._detect import describe
from linkwise.session.data._series import cluster_sample

with requires("session", "linkwise.session"):
    from starlette.applications import Starlette
    from starlette.background import BackgroundTask
    from starlette.concurrency import run_in_threadpool
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

__all__ = ["SessionOpening", "create_app", "serve"]

STATIC = Path(__file__).parent / "static"
_SCATTER_MAX = 2000  # points drawn in the page's projection
_ANSWERS = {"same": True, "different": False, "unknown": None}
_MARKS = {"pure": False, "complete": True}  # /api/mark: is the cluster complete too?
_HEADERS = [
    (b"content-security-policy", b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                                 b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-resource-policy", b"same-origin"),  # no other site may embed the items' images
]
_MAX_BODY = 256 * 1024  # the page's requests are a few hundred bytes
_JSON_TYPES = {str: "string", int: "whole number", bool: "true or false"}
# /api/cluster/{cluster}/members: its query parameters, each given at most once (see HumanSession.members)
_MEMBER_PARAMS = ("page", "size", "q", "column", "sort")
_MAX_QUERY = 200  # characters of a search
_NO_TOKEN = ("This linkwise session needs its access token: open the address that `linkwise cluster` "
             "printed (it ends with ?token=...).")
_PREPARING_WAIT = 20.0  # seconds /api/state waits for the session to open before saying it is preparing
_OPENING_POLL = 0.02  # seconds between two looks of a waiting request at the opening


class SessionOpening:
    """A :class:`HumanSession` opened in a background thread, so that its page is served before it is open.

    Opening a session replays its file and computes the method's first question (the default method first
    generates its candidate clusterings): seconds even on a small table. :func:`serve` prints the page's address
    once the server listens, then :meth:`start` opens the session; meanwhile the page says it is preparing the
    first question and the routes that need the session wait for it.

    Parameters
    ----------
    open_session : callable
        Called once, in the background thread, with no argument: returns the :class:`HumanSession`.
    data : Dataset
        The session's data (the page draws its points before the session is open).
    team : dict, optional
        The session's team as it will be (the page's tokens depend on it): ``annotators`` and ``open``; None for
        the session's one person.

    Attributes
    ----------
    session : HumanSession or None
        The session, once open.
    error : Exception or None
        What stopped the opening (raised again by :meth:`wait`).
    """

    def __init__(self, open_session, data, team=None):
        self.data, self.team = data, team
        self.session = self.error = self._thread = None
        self._open, self._done = open_session, threading.Event()

    @classmethod
    def of(cls, session):
        """Return the opening of a session already open.

        Parameters
        ----------
        session : HumanSession
            The open session.

        Returns
        -------
        SessionOpening
            Done, with ``session``.
        """
        opening = cls(None, session.data, session.team)
        opening.session = session
        opening._done.set()
        return opening

    @property
    def done(self):
        """Whether the opening has ended (with the session open, or an error)."""
        return self._done.is_set()

    def start(self, then=None):
        """Open the session in a background thread.

        Parameters
        ----------
        then : callable, optional
            Called in that thread with this opening once it has ended.

        Raises
        ------
        RuntimeError
            The opening was started before (a session is opened once).
        """
        if self._thread is not None or self.done:
            raise RuntimeError("This session opening has already been started.")

        def run():
            try:
                self.session = self._open()
            except BaseException as exc:  # whatever stops the opening is the caller's, raised again by wait()
                self.error = exc
            self._done.set()
            if then is not None:
                then(self)

        self._thread = threading.Thread(target=run, name="linkwise-opening", daemon=True)
        self._thread.start()

    def wait(self):
        """Return the session once it is open.

        Returns
        -------
        HumanSession
            The open session.

        Raises
        ------
        Exception
            What stopped the opening: the one error of a session that does not start.
        """
        self._done.wait()
        if self.error is not None:
            raise self.error
        return self.session

    async def ended(self, timeout=None):
        """Wait, without blocking the server's event loop, until the opening has ended.

        Parameters
        ----------
        timeout : float, optional
            The most seconds to wait (None: as long as it takes).

        Returns
        -------
        bool
            Whether the opening has ended.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.done and (deadline is None or time.monotonic() < deadline):
            await asyncio.sleep(_OPENING_POLL)
        return self.done


class _BadRequest(InvalidParameterError):
    """A request the page would never send; ``status`` is its HTTP status."""

    def __init__(self, message, status=400):
        super().__init__(message)
        self.status = status


class _Guard:
    """Security headers on every response; POSTs only from the page itself (no cross-site answers);
    the run's token on every request (a ``?token=`` GET sets the cookie and redirects to the clean URL).
    ``tokens`` maps each token to its annotator (None: the one person); the request's is ``scope["annotator"]``."""

    def __init__(self, app, tokens):
        self.app = app
        self.tokens = {token.encode(): who for token, who in tokens.items()}

    def _valid(self, given):
        """The token ``given`` if it is one of the run's (each compared in constant time), else None."""
        found = None
        for token in self.tokens:
            if given is not None and secrets.compare_digest(given.encode(), token):
                found = token
        return found

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_secured(message):
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + _HEADERS
            await send(message)

        request = Request(scope)
        origin = request.headers.get("origin")
        if scope["method"] == "POST" and origin is not None and origin != "http://" + request.headers.get("host", ""):
            return await PlainTextResponse("Cross-site request refused.", 403)(scope, receive, send_secured)
        cookie = f"linkwise-{scope['server'][1]}"  # cookies ignore ports: one name per session's port
        if scope["method"] in ("GET", "HEAD") and (token := self._valid(request.query_params.get("token"))):
            clean = request.url.remove_query_params("token")
            response = RedirectResponse(_local(clean.path) + (f"?{clean.query}" if clean.query else ""), 303)
            response.set_cookie(cookie, token.decode(), httponly=True, samesite="strict")
            return await response(scope, receive, send_secured)
        token = self._valid(request.cookies.get(cookie))
        if token is None:
            return await PlainTextResponse(_NO_TOKEN, 403)(scope, receive, send_secured)
        await self.app({**scope, "annotator": self.tokens[token]}, receive, send_secured)


def _local(path):
    """``path`` as an address on this server only: browsers read ``//host``, ``/\\host`` (and a tab or newline
    inside, which they drop) as another site, so every such character is escaped and leading slashes collapse."""
    return "/" + quote(path, safe="/:@!$&'()*+,;=").lstrip("/")


def _attachment(name):
    """Content-Disposition for any file name: an ASCII fallback and the exact name (RFC 5987 / 6266)."""
    fallback = re.sub(r'[^\x20-\x7e]|["\\]', "_", name)
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"


async def _read_json(request):
    """The JSON object of a POST, read at most :data:`_MAX_BODY` bytes deep."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise _BadRequest("Requests must send JSON (Content-Type: application/json).")
    too_large = _BadRequest(f"The request body is larger than {_MAX_BODY // 1024} KB.", 413)
    if int(request.headers.get("content-length", 0)) > _MAX_BODY:
        raise too_large
    chunks, size = [], 0
    try:
        async for chunk in request.stream():  # counted as it arrives: chunked bodies have no length
            size += len(chunk)
            if size > _MAX_BODY:
                raise too_large
            chunks.append(chunk)
    except ClientDisconnect:  # nobody reads the reply; nothing is stored
        raise _BadRequest("The request body ended early: the client went away.") from None
    try:
        payload = json.loads(b"".join(chunks))
    except (ValueError, RecursionError):  # RecursionError: nested too deep
        raise _BadRequest("The request body is not valid JSON.") from None
    if not isinstance(payload, dict):
        raise _BadRequest("The request body must be a JSON object.")
    return payload


def _fields(payload, optional=None, **kinds):
    """The values of the fields ``kinds`` names (each of the given type), and no other field; ``optional``: the
    value of each field that may be left out."""
    unknown = sorted(set(payload) - set(kinds))
    if unknown:
        raise _BadRequest(f"Unknown field {unknown[0]!r}; this request takes {', '.join(kinds) or 'no fields'}.")
    values = []
    for name, kind in kinds.items():
        if name not in payload and name in (optional or {}):
            values.append(optional[name])
            continue
        if name not in payload:
            raise _BadRequest(f"The request lacks the field {name!r}.")
        value = payload[name]
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):  # true is not a number
            raise _BadRequest(f"The field {name!r} must be a {_JSON_TYPES[kind]}, got {type(value).__name__}.")
        values.append(value)
    return values


def _query_params(query, names=_MEMBER_PARAMS):
    """The arguments ``names`` (of ``HumanSession.members``, or of ``review``) from a query string, each checked
    to be given once and well formed (the session checks their values)."""
    unknown = sorted(set(query) - set(names))
    if unknown:
        raise _BadRequest(f"Unknown parameter {unknown[0]!r}; this request takes {', '.join(names)}.")
    params = {}
    for name in names:
        values = query.getlist(name)
        if len(values) > 1:
            raise _BadRequest(f"The parameter {name!r} is given {len(values)} times; give it once.")
        if not values or (name in ("q", "column") and values[0] == ""):
            continue
        value = values[0]
        if name in ("page", "size"):
            if not re.fullmatch(r"[0-9]{1,9}", value):
                raise _BadRequest(f"The parameter {name!r} must be a whole number, got {value[:40]!r}.")
            value = int(value)
        elif name == "q" and len(value) > _MAX_QUERY:
            raise _BadRequest(f"The parameter 'q' must be at most {_MAX_QUERY} characters, got {len(value)}.")
        params[name] = value
    return params


class _Page:
    """The routes of one :class:`HumanSession`'s page, one handler per route (see :func:`create_app`).

    The handlers are thin: each reads its request, calls the session in a worker thread and returns its state as
    JSON, items with their image's address and a time series' context. The page, its points and the items'
    images need only the data; every other route waits for the session to open (:class:`SessionOpening`).
    """

    def __init__(self, opening, labels_path, intro=None, hints=None):
        self.opening, self.data, self.labels_path = opening, opening.data, Path(labels_path)
        self.intro, self.hints = intro, hints  # a demo's: what a group is, each row's own label (shown when asked)
        n = self.data.n_rows
        # a fixed sample keeps each answer's response small on large data
        self.sample = np.arange(n) if n <= _SCATTER_MAX else np.sort(np.random.RandomState(0).choice(n, _SCATTER_MAX,
                                                                                                     False))

    @property
    def session(self):
        return self.opening.session

    @functools.cached_property
    def about(self):
        """The header's plain words, details on hover (the session's method: known once it is open)."""
        return describe(self.data, type(self.session.estimator).__name__)

    def routes(self):
        """Every route of the page."""
        post, opened = ["POST"], self._opened
        return [
            Route("/", self.index),
            Route("/api/state", self.state),
            Route("/api/points", self.points),
            Route("/api/demo", self.demo),
            Route("/api/answer", opened(self.answer), methods=post),
            Route("/api/undo", opened(self.undo), methods=post),
            Route("/api/resolve", opened(self.resolve), methods=post),
            Route("/api/finish", opened(self.finish), methods=post),
            Route("/api/budget", opened(self.budget), methods=post),
            Route("/api/join", opened(self.join), methods=post),
            Route("/api/clusters", opened(self.clusters)),
            Route("/api/cluster/{cluster:int}/members", opened(self.members)),
            Route("/api/mark", opened(self.mark), methods=post),
            Route("/api/move", opened(self.move), methods=post),
            Route("/api/name", opened(self.name), methods=post),
            Route("/api/answers", opened(self.answers)),
            Route("/api/answers/change", opened(self.change), methods=post),
            Route("/api/answers/withdraw", opened(self.withdraw), methods=post),
            Route("/labels.csv", opened(self.labels_csv)),
            Route("/download/{name}", opened(self.download)),
            Route("/item/{row:int}/image", self.image),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]

    # -- what the handlers share -------------------------------------------------
    def _opened(self, handler):
        """``handler``, answering once the session is open (a session that could not open: says why)."""
        @functools.wraps(handler)
        async def run(request):
            await self.opening.ended()
            return self._not_open() if self.opening.error is not None else await handler(request)

        return run

    def _not_open(self):
        return JSONResponse({"error": f"The session could not start: {self.opening.error}"}, 503)

    @staticmethod
    def shown(item):
        """The item with its image's address (served by row number)."""
        return {**item, "image": f"/item/{item['row']}/image" if item["image"] else None}

    def _decorated(self, item, numbers):
        """An item asked about, with its point on the map, a time series' context and its cluster (``numbers``)."""
        row = item["row"]
        point = self.data.projection[row].round(4).tolist()
        return {**self.shown(item), "point": point, "context": self._context(row), "cluster": int(numbers[row])}

    def _context(self, row):
        """A few other members of a time series' cluster, drawn faintly behind it (channels of points each)."""
        charts = self.data.charts
        if charts is None:
            return None
        return charts[cluster_sample(self.session.labels(), row)].transpose(0, 2, 1).tolist()

    def full_state(self, state=None, who=None):
        """The session's ``SessionState`` (``who``'s, unless ``state`` is given) as the page draws it: its JSON,
        each item with its cluster's number, and the page's own fields."""
        state = (state or self.session.state(who)).to_json()
        numbers = self.session.numbers()
        for part in ("question", "conflict"):
            if state[part] is not None:
                state[part] = {**state[part], "items": [self._decorated(it, numbers) for it in state[part]["items"]]}
        state["labels"] = numbers[self.sample].tolist()
        state["dropped_columns"] = self.data.dropped_columns  # columns load_data left out, and why
        state["about"] = self.about
        return state

    def _reply(self, state):
        """The reply to an action: the session's new ``state``, as the page draws it."""
        return {"state": self.full_state(state)}

    def _annotator(self, request):
        """Who the request answers for: its token's annotator, or in an open team the name it joined with."""
        if not (self.session.team or {}).get("open"):
            return request.scope["annotator"]
        name = request.cookies.get(f"linkwise-name-{request.scope['server'][1]}")
        return name if name in self.session.team["annotators"] else None

    async def _act(self, request, run, annotator=False, optional=None, **kinds):
        """The reply to a POST taking the JSON fields ``kinds`` to ``run`` (after the request's annotator, if
        asked); in a team's session, the speculative questions are prepared once it is sent."""
        session, who = self.session, self._annotator(request)
        try:
            values = _fields(await _read_json(request), optional, **kinds)
            result = await run_in_threadpool(run, *([who] if annotator else []), *values)
            after = None if session.team is None else BackgroundTask(session.prepare)  # once replied
            if session.team is not None and not annotator and "state" in result:  # a member sees their own
                result["state"] = await run_in_threadpool(self.full_state, None, who)
        except (Refused, InvalidParameterError, OSError) as exc:
            return await self._failure(exc, who)
        return JSONResponse(result, background=after)

    async def _failure(self, exc, who):
        """The reply to a refused or invalid request; a refusal carries the state the person should now see (after
        a failed write: the same question, to answer again)."""
        if isinstance(exc, (Refused, SessionWriteError)):
            status = 409 if isinstance(exc, Refused) else 503
            reply = {"error": str(exc), "state": await run_in_threadpool(self.full_state, None, who)}
            if getattr(exc, "rows", None):  # the items the refusal names, with their clusters: the page shows them
                labels, notes = self.session.numbers(), getattr(exc, "notes", {})  # why each is in a mark's way
                reply["items"] = [{**self.shown(self.data.item(r)), "cluster": int(labels[r]), "note": notes.get(r)}
                                  for r in exc.rows]
                reply["confirm"] = isinstance(exc, NeedsConfirmation)
            return JSONResponse(reply, status)
        if isinstance(exc, OSError):  # "finish" and the labels file's folder is gone: the page says so
            return JSONResponse({"error": f"Could not write the labels: {exc}"}, 500)
        return JSONResponse({"error": str(exc)}, getattr(exc, "status", 400))

    async def _view(self, request, run, names):
        """The reply to a GET of one page of a list, its parameters ``names`` from the query string."""
        try:
            params = _query_params(request.query_params, names)
            return JSONResponse(await run_in_threadpool(run, params))
        except InvalidParameterError as exc:
            return JSONResponse({"error": str(exc)}, 400)

    # -- the handlers, one per route --------------------------------------------
    async def index(self, request):
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def state(self, request):
        if not await self.opening.ended(_PREPARING_WAIT):  # the page says so, and asks again
            return JSONResponse({"preparing": True})
        if self.opening.error is not None:
            return self._not_open()
        if request.query_params.get("revision") == str(self.session.revision):
            return JSONResponse({"unchanged": True})
        return JSONResponse(await run_in_threadpool(self.full_state, None, self._annotator(request)))

    async def demo(self, request):
        return JSONResponse({"intro": self.intro, "hints": None if self.hints is None else list(self.hints)})

    async def points(self, request):
        xy = self.data.projection[self.sample].round(4)
        return JSONResponse({"x": xy[:, 0].tolist(), "y": xy[:, 1].tolist()})

    async def answer(self, request):
        def run(who, position, word):
            if word not in _ANSWERS:
                raise InvalidParameterError(f"'answer' must be one of {', '.join(_ANSWERS)}, got {word!r}.")
            return self._reply(self.session.answer(position, _ANSWERS[word], who))

        return await self._act(request, run, True, position=str, answer=str)

    async def undo(self, request):
        return await self._act(request, lambda who, position: self._reply(self.session.undo(position, who)), True,
                               position=str)

    async def resolve(self, request):
        return await self._act(request, lambda conflict, wrong: self._reply(self.session.resolve(conflict, wrong)),
                               conflict=int, wrong=int)

    async def finish(self, request):
        """Write the labels; then a one-person session's server stops, once the reply is sent (a team's server
        goes on for the others). The reply carries what the command line prints then: what is saved, where, and
        the commands that resume and export the session."""
        stop = request.app.state.stop if self.session.team is None else None

        def run():
            k = self.session.write_labels(self.labels_path)
            return {"path": str(self.labels_path), "n_clusters": k, "n_rows": self.data.n_rows,
                    "state": self.full_state(), "stops": stop is not None, "summary": summary(self.session)}

        reply = await self._act(request, run)
        if reply.status_code == 200 and stop is not None:
            reply.background = BackgroundTask(stop)
        return reply

    async def budget(self, request):
        return await self._act(request, lambda who, budget: self._reply(self.session.raise_budget(budget, who)), True,
                               budget=int)

    async def join(self, request):
        """An open team: the person's name, kept in a cookie so that their answers are theirs."""
        try:
            (name,) = _fields(await _read_json(request), name=str)
            await run_in_threadpool(self.session.join, name)
        except (Refused, InvalidParameterError, SessionWriteError) as exc:
            return await self._failure(exc, self._annotator(request))
        response = JSONResponse({"state": await run_in_threadpool(self.full_state, None, name)})
        response.set_cookie(f"linkwise-name-{request.scope['server'][1]}", name, httponly=True, samesite="strict")
        return response

    async def clusters(self, request):
        def run():
            view = self.session.clusters()
            view["strips"] = [{**strip, "items": [self.shown(it) for it in strip["items"]],
                               "doubtful": [self.shown(it) for it in strip["doubtful"]]} for strip in view["strips"]]
            return view

        return JSONResponse(await run_in_threadpool(run))

    async def members(self, request):
        """One page of a cluster's members (``HumanSession.members``), its parameters from the query string."""
        def run(params):
            view = self.session.members(request.path_params["cluster"], **params)
            text = self.data.options["text_column"]  # the page's table: id, this column, then the items' fields
            return {**view, "items": [self.shown(it) for it in view["items"]],
                    "text_column": None if text is None else str(text)}

        return await self._view(request, run, _MEMBER_PARAMS)

    async def mark(self, request):
        def run(who, position, cluster, word, confirmed):
            if word not in _MARKS:
                raise InvalidParameterError(f"'mark' must be one of {', '.join(_MARKS)}, got {word!r}.")
            return self._reply(self.session.mark(position, cluster, _MARKS[word], who, confirmed))

        return await self._act(request, run, True, {"confirmed": False}, position=str, cluster=int, mark=str,
                               confirmed=bool)

    async def move(self, request):
        def run(who, position, row, to):
            return self._reply(self.session.move(position, row, to, who))

        return await self._act(request, run, True, position=str, row=int, to=int)

    async def name(self, request):
        return await self._act(request, lambda cluster, text: self._reply(self.session.name(cluster, text)),
                               cluster=int, name=str)

    async def answers(self, request):
        """One page of the stored answers for review (``HumanSession.review``), from the query string; each with
        its items as a question shows them (a mark: its first member)."""
        def run(params):
            view = self.session.review(**params)
            return {**view, "answers": [{**a, "items": [self.shown(self.data.item(r))
                                                        for r in a["rows"][:1 if a["n_members"] else 2]]}
                                        for a in view["answers"]]}

        return await self._view(request, run, ("page", "size", "q"))

    async def change(self, request):
        def run(seq, word):
            if word not in _ANSWERS:
                raise InvalidParameterError(f"'answer' must be one of {', '.join(_ANSWERS)}, got {word!r:.80}.")
            return self._reply(self.session.change(seq, _ANSWERS[word]))

        return await self._act(request, run, seq=int, answer=str)

    async def withdraw(self, request):
        return await self._act(request, lambda seq: self._reply(self.session.withdraw(seq)), seq=int)

    async def labels_csv(self, request):
        frame = await run_in_threadpool(self.session.labels_frame)
        return Response(frame.to_csv(index=False), media_type="text/csv",
                        headers={"content-disposition": _attachment(self.labels_path.name)})

    async def download(self, request):
        """A table of the session as a file: ``/download/answers.jsonl`` (the tables and formats of ``_export``)."""
        table, _, fmt = request.path_params["name"].partition(".")
        if table not in TABLES or fmt not in FORMATS:
            return PlainTextResponse(f"No such file; the page offers {', '.join(TABLES)} as {', '.join(FORMATS)}.",
                                     404)
        text = await run_in_threadpool(lambda: format_table(session_table(self.session, table), fmt))
        stem = self.labels_path.name.removesuffix(".csv").removesuffix(".labels")
        return Response(text, media_type=MEDIA_TYPES[fmt],
                        headers={"content-disposition": _attachment(f"{stem}.{table}.{fmt}")})

    async def image(self, request):
        row = request.path_params["row"]
        if not 0 <= row < self.data.n_rows:
            return PlainTextResponse("No such item.", 404)
        try:
            path, content = await run_in_threadpool(self.data.image_content, row)  # one read, checked
        except UnsafePathError as exc:
            return PlainTextResponse(str(exc), 404)
        return Response(content, media_type=IMAGE_TYPES[path.suffix.lower()])


def create_app(session, labels_path, token=None, tokens=None, *, intro=None, hints=None):
    """The Starlette app of one :class:`HumanSession`.

    Parameters
    ----------
    session : HumanSession or SessionOpening
        The session the page answers, or its opening: until it is open, ``/api/state`` waits up to 20 s and
        then answers ``{"preparing": true}`` (ask again), and the routes that need the session wait for it.
    labels_path : str or Path
        Where the "finish" button writes the labels CSV (``id``, ``cluster``).
    token : str, optional
        The access token every request must carry (default: a new random
        one, in ``app.state.token``). Open ``/?token=...`` once: the reply
        sets it as a cookie and redirects to ``/``.
    tokens : dict, optional
        A team's session: each annotator's token (default: new random ones,
        in ``app.state.tokens``); ``token`` is then not used.
    intro : str, optional
        What the page says first (a demo's: what a group is and that the person decides).
    hints : sequence of str, optional
        A label per row that the page shows under the two items only when the person asks (a demo's digits).

    Returns
    -------
    starlette.applications.Starlette
        The app: the page, its JSON API and the items' images, for any ASGI server.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> import linkwise as lw
    >>> from linkwise.session import HumanSession, load_data
    >>> folder = tempfile.mkdtemp()
    >>> pd.DataFrame(lw.datasets.load("iris")[0]).to_csv(os.path.join(folder, "iris.csv"), index=False)
    >>> session = HumanSession(os.path.join(folder, "s.db"), load_data(os.path.join(folder, "iris.csv")))
    >>> app = create_app(session, os.path.join(folder, "labels.csv"))
    >>> [route.path for route in app.routes][:4]
    ['/', '/api/state', '/api/points', '/api/demo']
    >>> len(app.state.token) >= 32
    True
    >>> session.close()
    """
    opening = session if isinstance(session, SessionOpening) else SessionOpening.of(session)
    if opening.team is None or opening.team["open"]:
        token, tokens = token or secrets.token_urlsafe(32), None
        by_token = {token: None}
    else:
        tokens = tokens or {who: secrets.token_urlsafe(32) for who in opening.team["annotators"]}
        by_token = {t: who for who, t in tokens.items()}
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=["127.0.0.1", "localhost"]),
                  Middleware(_Guard, tokens=by_token)]
    app = Starlette(routes=_Page(opening, labels_path, intro, hints).routes(), middleware=middleware)
    app.state.token, app.state.tokens = (token, None) if tokens is None else (None, tokens)
    app.state.stop = None  # serve's: stops the server after Finish
    return app


def serve(session, labels_path, *, port=0, open_browser=True, echo=print, intro=None, hints=None):
    """Serve the session's page on 127.0.0.1 until Finish (a one-person session) or Ctrl+C.

    Parameters
    ----------
    session : HumanSession or SessionOpening
        The session the page answers, or its opening, started once the address is printed: the page says it is
        preparing the first question until the session is open. A session that fails to open stops the server.
    labels_path : str or Path
        Where "finish" writes the labels.
    port : int, default=0
        0 picks a free port.
    open_browser : bool, default=True
        Open the page in the default browser, through a redirect file only
        this user can read (the browser's command line shows no token).
    echo : callable
        Prints the address (the command line passes ``click.echo``).
    intro : str, optional
        What the page says first, as :func:`create_app` takes it (``linkwise cluster --demo digits``).
    hints : sequence of str, optional
        A label per row shown only when asked, as :func:`create_app` takes them.

    Raises
    ------
    InvalidParameterError
        The port is in use (or not allowed): the message says to choose another.
    Exception
        What stopped the opening of a :class:`SessionOpening`, once the server has stopped.

    Examples
    --------
    >>> from linkwise.session import HumanSession, load_data, serve
    >>> session = HumanSession("iris.db", load_data("iris.csv"))  # doctest: +SKIP
    >>> serve(session, "iris.labels.csv")  # doctest: +SKIP
    linkwise session at http://127.0.0.1:50713/?token=...  (Finish or Ctrl+C to stop; answers are saved as you go)
    """
    with requires("session", "serve"):
        import uvicorn

    # IPPROTO_TCP named explicitly: asyncio turns Nagle off (TCP_NODELAY) only on sockets that say so
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))  # loopback only: the page shows the person's data
    except OSError as exc:
        sock.close()
        raise InvalidParameterError(
            f"Cannot serve on 127.0.0.1 port {port}: {exc.strerror or exc} (another program may be using it). "
            "Choose another --port, or --port 0 to pick a free one."
        ) from None
    sock.listen(64)
    opening = session if isinstance(session, SessionOpening) else SessionOpening.of(session)
    app = create_app(opening, labels_path, intro=intro, hints=hints)
    origin = f"http://127.0.0.1:{sock.getsockname()[1]}"
    opener = None
    if app.state.tokens is None:
        url = f"{origin}/?token={app.state.token}"
        team = "for an open team (each person opens it and gives a name) " if opening.team else ""
        stop = "Ctrl+C" if opening.team else "Finish or Ctrl+C"  # a team's Finish leaves the others answering
        echo(f"linkwise session {team}at {url}  ({stop} to stop; answers are saved as you go)")
        if open_browser:
            opener = _open_browser(url)
    else:  # each link is one annotator's: sent to them, not opened here
        echo("linkwise session for a team (Ctrl+C to stop; answers are saved as you go); each annotator's link:")
        for who, token in app.state.tokens.items():
            echo(f"  {who}: {origin}/?token={token}")
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    app.state.stop = lambda: setattr(server, "should_exit", True)

    def stop_unless_open(ended):  # a session that cannot open has nothing to serve: the page is told why, then it stops
        if ended.error is not None:
            app.state.stop()

    if not opening.done:
        opening.start(then=stop_unless_open)
    try:
        server.run(sockets=[sock])
    finally:
        if opener is not None:
            opener.unlink(missing_ok=True)
    opening.wait()  # its error, once the server has stopped


_REDIRECT = """<!doctype html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url={url}"><title>linkwise session</title>
</head><body><p><a href="{url}">Open the linkwise session</a></p></body></html>
"""


def _open_browser(url):
    """Open the tokened ``url`` in the default browser as notebook servers do: through a file readable by this user
    alone (``mkstemp``: mode 0600) that redirects to it; returns the file, to remove when the server stops."""
    fd, name = tempfile.mkstemp(prefix="linkwise-open-", suffix=".html")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(_REDIRECT.format(url=html.escape(url)))
    webbrowser.open(Path(name).as_uri())
    return Path(name)
