"""The web page of a human session: a Starlette app served by uvicorn on 127.0.0.1.

Routes are thin: each one calls the :class:`HumanSession` and returns its
state as JSON; the page (``static/``) renders it with ``textContent`` only, so
item text never becomes markup. Images are served by row number, never by a
path from the URL, and only after :meth:`Dataset.image_path` has checked them.
"""

import json
import socket
import webbrowser
from pathlib import Path

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from linkwise._validation import InvalidParameterError
from linkwise.session._controller import Refused
from linkwise.session._data import IMAGE_TYPES, UnsafePathError

__all__ = ["create_app", "serve"]

STATIC = Path(__file__).parent / "static"
_SCATTER_MAX = 2000  # points drawn in the page's projection
_ANSWERS = {"same": True, "different": False, "unknown": None}
_HEADERS = [
    (b"content-security-policy", b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                                 b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
]


class _Guard:
    """Security headers on every response; POSTs only from the page itself (no cross-site answers)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope["headers"])
        origin = headers.get(b"origin")
        if scope["method"] == "POST" and origin is not None and origin != b"http://" + headers.get(b"host", b""):
            return await PlainTextResponse("Cross-site request refused.", 403)(scope, receive, send)

        async def send_secured(message):
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + _HEADERS
            await send(message)

        await self.app(scope, receive, send_secured)


def create_app(session, labels_path):
    """The Starlette app of one :class:`HumanSession`.

    Parameters
    ----------
    session : HumanSession
    labels_path : str or Path
        Where the "finish" button writes the labels CSV (``id``, ``cluster``).

    Returns
    -------
    app : starlette.applications.Starlette

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
    ['/', '/api/state', '/api/points', '/api/answer']
    >>> session.close()
    """
    data = session.data
    labels_path = Path(labels_path)
    n = data.n_rows
    # a fixed sample keeps each answer's response small on large data
    sample = np.arange(n) if n <= _SCATTER_MAX else np.sort(np.random.RandomState(0).choice(n, _SCATTER_MAX, False))
    projection = data.projection

    def decorate(item):
        row = item["row"]
        return {**item, "image": f"/item/{row}/image" if item["image"] else None,
                "point": projection[row].round(4).tolist()}

    def full_state(state=None):
        state = state or session.state()
        for part in ("question", "conflict"):
            if state[part] is not None:
                state[part] = {**state[part], "items": [decorate(it) for it in state[part]["items"]]}
        state["labels"] = session.labels()[sample].tolist()
        return state

    async def body(request):
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise InvalidParameterError("Requests must send JSON (Content-Type: application/json).")
        try:
            payload = json.loads(await request.body())
        except ValueError:
            raise InvalidParameterError("The request body is not valid JSON.") from None
        if not isinstance(payload, dict):
            raise InvalidParameterError("The request body must be a JSON object.")
        return payload

    def action(run):
        async def endpoint(request):
            try:
                result = await run_in_threadpool(run, await body(request))
            except Refused as exc:
                return JSONResponse({"error": str(exc), "state": await run_in_threadpool(full_state)}, 409)
            except InvalidParameterError as exc:
                return JSONResponse({"error": str(exc)}, 400)
            except KeyError as exc:
                return JSONResponse({"error": f"The request lacks the field {exc}."}, 400)
            return JSONResponse(result)

        return endpoint

    def do_answer(payload):
        word = payload.get("answer")
        if word not in _ANSWERS:
            raise InvalidParameterError(f"'answer' must be one of {', '.join(_ANSWERS)}, got {word!r}.")
        return {"state": full_state(session.answer(str(payload["position"]), _ANSWERS[word]))}

    def do_undo(payload):
        return {"state": full_state(session.undo(str(payload["position"])))}

    def do_resolve(payload):
        conflict, wrong = payload["conflict"], payload["wrong"]
        if not (isinstance(conflict, int) and isinstance(wrong, int)):
            raise InvalidParameterError("'conflict' and 'wrong' must be answer numbers.")
        return {"state": full_state(session.resolve(conflict, wrong))}

    def do_finish(payload):
        k = session.write_labels(labels_path)
        return {"path": str(labels_path), "n_clusters": k, "n_rows": n, "state": full_state()}

    async def index(request):
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def state(request):
        if request.query_params.get("revision") == str(session.revision):
            return JSONResponse({"unchanged": True})
        return JSONResponse(await run_in_threadpool(full_state))

    async def points(request):
        xy = projection[sample].round(4)
        return JSONResponse({"x": xy[:, 0].tolist(), "y": xy[:, 1].tolist()})

    async def labels_csv(request):
        frame = await run_in_threadpool(session.labels_frame)
        return Response(frame.to_csv(index=False), media_type="text/csv",
                        headers={"content-disposition": f'attachment; filename="{labels_path.name}"'})

    async def image(request):
        row = request.path_params["row"]
        if not 0 <= row < n:
            return PlainTextResponse("No such item.", 404)
        try:
            path = data.image_path(row)
        except UnsafePathError as exc:
            return PlainTextResponse(str(exc), 404)
        return FileResponse(path, media_type=IMAGE_TYPES[path.suffix.lower()])

    routes = [
        Route("/", index),
        Route("/api/state", state),
        Route("/api/points", points),
        Route("/api/answer", action(do_answer), methods=["POST"]),
        Route("/api/undo", action(do_undo), methods=["POST"]),
        Route("/api/resolve", action(do_resolve), methods=["POST"]),
        Route("/api/finish", action(do_finish), methods=["POST"]),
        Route("/labels.csv", labels_csv),
        Route("/item/{row:int}/image", image),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=["127.0.0.1", "localhost"]), Middleware(_Guard)]
    return Starlette(routes=routes, middleware=middleware)


def serve(session, labels_path, *, port=0, open_browser=True, echo=print):
    """Serve the session's page on 127.0.0.1 until interrupted (Ctrl+C).

    Parameters
    ----------
    session : HumanSession
    labels_path : str or Path
        Where "finish" writes the labels.
    port : int, default=0
        0 picks a free port.
    open_browser : bool, default=True
        Open the page in the default browser.
    echo : callable
        Prints the address (the command line passes ``click.echo``).

    Examples
    --------
    >>> from linkwise.session import HumanSession, load_data, serve
    >>> session = HumanSession("iris.db", load_data("iris.csv"))  # doctest: +SKIP
    >>> serve(session, "iris.labels.csv")  # doctest: +SKIP
    linkwise session at http://127.0.0.1:50713/  (Ctrl+C to stop; answers are saved as you go)
    """
    import uvicorn

    # IPPROTO_TCP named explicitly: asyncio turns Nagle off (TCP_NODELAY) only on sockets that say so
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))  # loopback only: the page shows the person's data
    sock.listen(64)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    app = create_app(session, labels_path)
    echo(f"linkwise session at {url}  (Ctrl+C to stop; answers are saved as you go)")
    if open_browser:
        webbrowser.open(url)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    server.run(sockets=[sock])
