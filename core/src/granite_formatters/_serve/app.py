"""The Starlette application: ``/v1/chat/completions``, ``/v1/models``, ``/health``, ``/ready``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import attrs
import httpx
from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from .._api import get_formatter, list_models
from .._errors import InvalidRequestError, UnknownModelError, quote
from .accesslog import LOGGER, AccessLog, RequestLog, log_http, loggable, mark_logged
from .aiohttp_transport import BackendClient
from .auth import BodyTooLarge, authorized, key_matches, read_body
from .backends import Backend, BackendError, Finish, Piece, make_backend
from .exchange import (
    SPECIAL_TOKENS_DROPPED,
    Answer,
    Prepared,
    Refusal,
    answer_events,
    completion_bytes,
    dropped_tokens_text,
    open_answer,
    parse_answer,
    prepare,
    read_answer,
    text_stop,
)
from .guard import RequestGuard
from .jsonbody import load_body
from .options import ServeConfig
from .public import BackendReply, backend_reply, unknown_model_text
from .responses import (
    STREAMED_KEYS,
    ChunkMaker,
    JSONBody,
    error_body,
    error_response,
    finish_reason,
    openai_message,
    sse_event,
)

__all__ = ["MAX_BATCH", "create_app"]


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


#: What ``/ready`` asks each kind of backend (under ``--backend``): a cheap GET.
_READY_PATHS = {"openai": "/models", "llamacpp": "/health", "ollama": "/api/tags"}


class _Server:
    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.backend: Backend = make_backend(
            config.backend_type, config.backend, config.default_max_tokens
        )
        self._client: httpx.AsyncClient | None = None
        self._warned = False

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = BackendClient(
                httpx.Timeout(self.config.read_timeout, connect=self.config.connect_timeout),
                api_key=self.config.backend_api_key,
            )
        return self._client

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            if self._client is not None:
                await self._client.aclose()
                self._client = None

    # -- routes -------------------------------------------------------------------------

    async def health(self, request: Request) -> Response:
        """Liveness: the server answers (the backend may not)."""
        return JSONResponse({"status": "ok"})

    async def ready(self, request: Request) -> Response:
        """Readiness: the backend answers a cheap GET with a success status."""
        url = self.config.backend.rstrip("/") + _READY_PATHS[self.config.backend_type]
        try:
            response = await self.client.get(url, timeout=self.config.connect_timeout)
        except httpx.HTTPError:
            ok = False
        else:
            ok = response.is_success
        if ok:
            return JSONResponse({"status": "ready"})
        return error_response(503, "the backend does not answer", code="backend_unavailable")

    def _model_rows(self) -> list[tuple[str, str]]:
        if self.config.models:
            return [(name, "granite-format") for name in self.config.models]
        return [(model.model_id, model.plugin.name) for model in list_models()]

    @staticmethod
    def _model_object(model_id: str, owner: str) -> dict[str, Any]:
        return {"id": model_id, "object": "model", "created": 0, "owned_by": owner}

    async def models(self, request: Request) -> Response:
        if not authorized(request, self.config.api_key):
            return error_response(401, "missing or wrong API key", code="invalid_api_key")
        data = [self._model_object(i, o) for i, o in self._model_rows()]
        return JSONResponse({"object": "list", "data": data})

    async def model(self, request: Request) -> Response:
        """``GET /v1/models/{id}``: the model if this server serves that name, else 404."""
        if not authorized(request, self.config.api_key):
            return error_response(401, "missing or wrong API key", code="invalid_api_key")
        name = request.path_params["model_id"]
        rows = dict(self._model_rows())
        if name not in rows and not self.config.models:
            try:
                get_formatter(name)
            except UnknownModelError:
                pass
            else:
                rows[name] = "granite-format"
        if name not in rows:
            return error_response(404, unknown_model_text(name), "model", "model_not_found")
        return JSONResponse(self._model_object(name, rows[name]))

    def _warnings(self, message: Any, log: RequestLog) -> list[dict[str, str]] | None:
        """The warnings of a parsed answer (``None``: none), recorded in ``log``; the first
        of each kind is also logged with its advice."""
        text = dropped_tokens_text(message, self.backend)
        if text is None:
            return None
        log.warning = SPECIAL_TOKENS_DROPPED
        if not self._warned:
            self._warned = True
            LOGGER.warning("%s (warning %s)", text, SPECIAL_TOKENS_DROPPED)
        return [{"code": SPECIAL_TOKENS_DROPPED, "message": text}]

    def _backend_failure(self, exc: BackendError, log: RequestLog) -> BackendReply:
        """Record ``exc`` in the access log; what the client is told."""
        reply = backend_reply(exc)
        log.status = reply.status
        if self.config.log_prompts:
            log.error = f"{exc}: {exc.detail}" if exc.detail else str(exc)
        else:
            log.error = reply.text
        return reply

    def _backend_response(self, exc: BackendError, log: RequestLog) -> Response:
        """The error response to ``exc`` (recorded in the access log, not yet written)."""
        reply = self._backend_failure(exc, log)
        return error_response(reply.status, reply.text, exc.param, reply.code, reply.headers)

    async def chat_route(self, request: Request) -> Response:
        """:meth:`chat` as a Starlette endpoint."""
        return await self.chat(request.scope, request.receive)

    async def chat(self, scope: Scope, receive: Receive) -> Response:
        """``POST /v1/chat/completions``: the response to send (:class:`_App` calls it)."""
        log = RequestLog()
        mark_logged(scope)
        try:
            prepared = await self._prepare(scope, receive, log)
            log.model = prepared.params.model
            log.stream = bool(prepared.params.stream)
            if not prepared.params.stream:
                return await self._complete(receive, prepared, log)
            response = await open_answer(self.client, self.backend, prepared)
        except Refusal as refused:
            log.status, log.error = refused.status, refused.param
            log.emit()
            return error_response(refused.status, str(refused), refused.param, refused.code)
        except BackendError as exc:
            failed = self._backend_response(exc, log)
            log.emit()
            return failed
        events = answer_events(self.backend, response, prepared, self.config.max_output_bytes)
        try:  # the first event before the first byte: a failure is still a 502/504
            first = await events.__anext__()
        except (BackendError, StopAsyncIteration) as exc:
            await response.aclose()
            error = exc if isinstance(exc, BackendError) else Backend.ended_early()
            failed = self._backend_response(error, log)
            log.emit()
            return failed
        # The generator closes the backend response; the background task also does,
        # for a client gone before the generator ever started (aclose is idempotent).
        # On shutdown the stream goes on for most of the grace period, then ends with an
        # error event and [DONE] before sse-starlette would cancel it.
        shutdown = anyio.Event()
        return EventSourceResponse(
            self._stream(prepared, response, events, first, log, shutdown),
            sep="\n",
            ping=15,
            background=BackgroundTask(response.aclose),
            shutdown_event=shutdown,
            shutdown_grace_period=self.config.shutdown_grace,
        )

    # -- steps --------------------------------------------------------------------------

    async def _prepare(self, scope: Scope, receive: Receive, log: RequestLog) -> Prepared:
        authorization = content_type = length = None
        for name, value in scope["headers"]:  # (the first of each, as Starlette reads them)
            if name == b"authorization":
                authorization = value if authorization is None else authorization
            elif name == b"content-type":
                content_type = value if content_type is None else content_type
            elif name == b"content-length":
                length = value if length is None else length
        api_key = self.config.api_key
        if api_key is not None and not key_matches(authorization or b"", api_key):
            raise Refusal(401, "missing or wrong API key", code="invalid_api_key")
        media_type = (content_type or b"").partition(b";")[0].strip().lower()
        if media_type != b"application/json":
            raise Refusal(
                415, "the request body must be JSON sent with Content-Type: application/json"
            )
        try:
            raw = await read_body(receive, length, self.config.max_body_bytes)
        except BodyTooLarge:
            raise Refusal(
                413, f"the request body is over the limit of {self.config.max_body_bytes} bytes"
            ) from None
        except ClientDisconnect:
            raise Refusal(499, "the client disconnected while sending the body") from None
        try:
            body = load_body(raw)
        except InvalidRequestError as exc:
            raise Refusal(400, str(exc), exc.field) from None
        if isinstance(body, dict) and "model" in body:  # (logged as asked, also if refused)
            model = body["model"]
            log.model = model if isinstance(model, str) else quote(model, 40)
        prepared = prepare(body, self.backend, self.config.models, self.config.max_prompt_chars)
        log.model = prepared.params.model
        if self.config.log_prompts:
            LOGGER.info("prompt model=%s %s", loggable(log.model), _dumps(prepared.prompt))
        return prepared

    async def _answer(self, prepared: Prepared) -> Answer:
        """The whole answer from the backend: one JSON body, or (``--stream-backend``) its
        stream read in bulk."""
        whole = not self.config.stream_backend
        response = await open_answer(self.client, self.backend, prepared, stream=not whole)
        try:
            max_bytes = self.config.max_output_bytes
            return await read_answer(self.backend, response, prepared, max_bytes, whole)
        finally:
            await response.aclose()

    async def _complete(self, receive: Receive, prepared: Prepared, log: RequestLog) -> Response:
        """The whole answer; a client that disconnects first cancels the backend request
        (a task watching for the disconnect, started once the answer has taken
        :data:`WATCH_AFTER` seconds, cancels this one while it waits)."""
        task = asyncio.current_task()
        assert task is not None
        watch = _Watch(receive, task)
        timer = asyncio.get_running_loop().call_later(WATCH_AFTER, watch.start)
        try:
            answer = await self._answer(prepared)
        except asyncio.CancelledError:
            if not watch.saw_gone():
                raise  # (not the client's going: the server's own cancellation)
            _uncancel(task)
            log.status, log.error = 499, "client disconnected"
            return Response(status_code=499)
        except BackendError as exc:
            return self._backend_response(exc, log)
        finally:
            timer.cancel()
            watch.stop()
            if log.status != 200:
                log.emit()
        self.backend.observe(prepared.prompt, answer.finish.usage)
        log.usage = answer.finish.usage
        message = parse_answer(prepared, answer.text, text_stop(answer.finish))
        warnings = self._warnings(message, log)
        log.emit()
        return JSONBody(completion_bytes(prepared, message, answer, warnings))

    async def _stream(
        self,
        prepared: Prepared,
        response: httpx.Response,
        events: AsyncIterator[Piece | Finish],
        first: Piece | Finish,
        log: RequestLog,
        shutdown: anyio.Event,
    ) -> AsyncIterator[bytes]:
        """The SSE bytes. The backend is read by a task of its own into a small queue; what
        is there when the stream comes to write (up to :data:`MAX_BATCH` events) goes
        through the parser and out in one write: the same events, fewer writes."""
        parser = prepared.formatter.stream_parser(prepared.request)
        maker = ChunkMaker(prepared.params.model)
        want_logprobs = bool(prepared.params.logprobs)
        pending: list[dict[str, Any]] = []
        finished = False

        def chunks(deltas: list[Any]) -> bytes:
            out = b""
            for delta in deltas:
                data = delta.to_openai()
                if data:
                    lp = None
                    if want_logprobs:
                        lp, pending[:] = list(pending), []
                    out += maker.event(data, logprobs=lp)
            return out

        def on(event: Piece | Finish) -> bytes:
            nonlocal finished
            if isinstance(event, Piece):
                pending.extend(event.logprobs)
                return chunks(parser.feed(event.text))
            out = chunks(parser.close(stop_reason=text_stop(event)))
            message = openai_message(parser.message)
            extras = {k: v for k, v in message.items() if k not in STREAMED_KEYS}
            reason = finish_reason(message, event.reason)
            lp = list(pending) if want_logprobs else None
            warnings = self._warnings(parser.message, log)
            out += maker.event(extras, reason, lp, stop_reason=event.stop_reason, warnings=warnings)
            log.usage = event.usage
            self.backend.observe(prepared.prompt, event.usage)
            if prepared.params.include_usage:
                out += _event(maker.usage_chunk(event.usage))
            finished = True
            return out + _DONE

        queue: asyncio.Queue[Piece | Finish | _End] = asyncio.Queue(MAX_BATCH)
        pump = asyncio.ensure_future(_pump(events, queue))
        try:
            yield maker.event({"content": ""}) + on(first)
            stop_at = None
            while True:  # to its end (after Finish: so the connection is reused)
                if not shutdown.is_set():
                    batch = await _take(queue)
                else:  # draining for a shutdown: a bounded time
                    if stop_at is None:
                        stop_at = anyio.current_time() + 0.8 * self.config.shutdown_grace
                    taken = None
                    with anyio.move_on_after(max(stop_at - anyio.current_time(), 0)):
                        taken = await _take(queue)
                    if taken is None:
                        if finished:
                            break
                        raise BackendError("the server is shutting down", 503)
                    batch = taken
                out = b""
                end: _End | None = None
                for event in batch:
                    if isinstance(event, _End):
                        end = event
                    elif not finished:
                        out += on(event)
                if out:
                    yield out
                if end is not None:
                    if end.error is not None:
                        raise end.error
                    break
            if not finished:
                raise Backend.ended_early()
        except BackendError as exc:
            reply = self._backend_failure(exc, log)
            yield chunks(parser.close()) + _event(error_body(reply.status, reply.text)) + _DONE
        except BaseException:
            log.status, log.error = 499, "client disconnected"
            raise
        finally:
            if not pump.done():
                pump.cancel()
                with anyio.CancelScope(shield=True):
                    await asyncio.wait((pump,))
            await response.aclose()
            log.emit()


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (unknown route, wrong method) as OpenAI error objects."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        message = f"no route {request.url.path[:80]!r}; the API is under /v1"
    elif exc.status_code == 405:
        message = f"{request.method[:16]} is not allowed on {request.url.path[:80]!r}"
    else:
        message = str(exc.detail)[:200]
    return error_response(exc.status_code, message, headers=exc.headers)


async def _server_error(request: Request, exc: Exception) -> Response:
    return _server_error_response()


def _server_error_response() -> Response:
    return error_response(500, "internal server error")


_DONE = b"data: [DONE]\n\n"


#: The most backend events one write to the client carries.
MAX_BATCH = 64


@attrs.frozen
class _End:
    """The end of the backend's events: ``error`` is what ended them, if not their end."""

    error: BaseException | None = None


async def _pump(
    events: AsyncIterator[Piece | Finish], queue: asyncio.Queue[Piece | Finish | _End]
) -> None:
    """Read the backend's events into ``queue`` (bounded: it waits while the queue is full)."""
    try:
        async for event in events:
            await queue.put(event)
    except Exception as exc:  # noqa: BLE001 (BackendError, or a bug: the stream raises it)
        await queue.put(_End(exc))
    else:
        await queue.put(_End())


async def _take(queue: asyncio.Queue[Piece | Finish | _End]) -> list[Piece | Finish | _End]:
    """The next event and those already waiting behind it (``queue`` holds at most a batch)."""
    batch = [await queue.get()]
    while not queue.empty():
        batch.append(queue.get_nowait())
    return batch


_event = sse_event


#: How long a whole answer is waited for before a task starts watching for the client's
#: disconnect (a sooner answer costs no task; a client gone sooner is seen at that time).
WATCH_AFTER = 0.02


async def _disconnected(receive: Receive) -> None:
    """Return once the client has gone (the body is read, so only a disconnect is left)."""
    while (await receive())["type"] != "http.disconnect":
        pass


class _Watch:
    """Cancels ``task`` when the client of ``receive`` has gone, from :meth:`start` (a
    timer's callback) until :meth:`stop`."""

    __slots__ = ("_gone", "_receive", "_task", "_waiting")

    def __init__(self, receive: Receive, task: asyncio.Task[Any]) -> None:
        self._receive = receive
        self._task = task
        self._gone: asyncio.Future[None] | None = None
        self._waiting = True

    def start(self) -> None:
        if self._waiting:
            self._gone = asyncio.ensure_future(_disconnected(self._receive))
            self._gone.add_done_callback(self._on_gone)

    def _on_gone(self, gone: asyncio.Future[None]) -> None:
        if self._waiting and not gone.cancelled():
            self._task.cancel()

    def saw_gone(self) -> bool:
        """Whether the client's going cancelled the task."""
        gone = self._gone
        return gone is not None and gone.done() and not gone.cancelled()

    def stop(self) -> None:
        self._waiting = False
        if self._gone is not None:
            self._gone.cancel()


def _uncancel(task: asyncio.Task[Any]) -> None:
    """Take back one ``cancel()`` of ``task`` that it has handled (Python 3.11+ counts them;
    timeouts and task groups later in the task read the count)."""
    uncancel = getattr(task, "uncancel", None)
    if uncancel is not None:
        uncancel()


#: The path of the chat route, which :class:`_App` answers without Starlette's layers.
CHAT_PATH = "/v1/chat/completions"


class _App(Starlette):
    """Starlette, with ``POST /v1/chat/completions`` (nearly every request) taken straight
    to its handler: the same checks (:class:`RequestGuard`), the same 500 for a bug, the
    route's own log line, without the framework's middleware, router and request wrappers
    in between (the other routes and methods go through them)."""

    server: _Server
    guard: RequestGuard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == CHAT_PATH:
            scope["app"] = self
            started = time.perf_counter()
            admitted = await self.guard.admit(scope, receive, send)
            if admitted is None:  # (a POST is answered there only by a 403 refusal)
                log_http(scope, 403, started)
                return
            try:
                response = await self.server.chat(scope, receive)
            except Exception:
                await _server_error_response()(scope, receive, admitted)
                raise
            await response(scope, receive, admitted)
            return
        await super().__call__(scope, receive, send)


def create_app(config: ServeConfig) -> Starlette:
    """The ASGI application for ``config`` (run it with any ASGI server, e.g. uvicorn)."""
    server = _Server(config)
    routes = [
        Route("/health", server.health, methods=["GET"]),
        Route("/ready", server.ready, methods=["GET"]),
        Route("/v1/models", server.models, methods=["GET"]),
        Route("/v1/models/{model_id:path}", server.model, methods=["GET"]),
        # (reached through the stack only where _App's path test does not match, as
        # when the application is mounted under a prefix; and for other methods' 405)
        Route(CHAT_PATH, server.chat_route, methods=["POST"]),
    ]
    guard_options: dict[str, Any] = {
        "check_host": config.api_key is None or bool(config.allowed_hosts),
        "allowed_hosts": config.allowed_hosts,
        "bound_host": config.host,
        "cors_origins": config.cors_origins,
    }
    app = _App(
        routes=routes,
        middleware=[Middleware(AccessLog), Middleware(RequestGuard, **guard_options)],
        exception_handlers={HTTPException: _http_error, Exception: _server_error},
        lifespan=server.lifespan,
    )
    app.server = server
    app.guard = RequestGuard(app, **guard_options)
    app.state.server = server
    return app
