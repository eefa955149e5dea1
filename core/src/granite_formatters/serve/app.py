"""The Starlette application: ``/v1/chat/completions``, ``/v1/models`` and ``/health``."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import attrs
import httpx
from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .._api import get_formatter, list_models
from ..errors import InvalidRequestError, UnknownModelError
from ..processors import Formatter
from .accesslog import LOGGER, RequestLog
from .auth import BodyTooLarge, authorized, read_body
from .backends import Backend, BackendError, Finish, Piece, make_backend
from .options import ServeConfig
from .params import GenerationParams, chat_request, read_params
from .responses import (
    STREAMED_KEYS,
    ChunkMaker,
    completion,
    error_body,
    error_response,
    finish_reason,
    openai_message,
)

__all__ = ["create_app"]


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


class _Refused(Exception):
    """A request answered with an error status before any generation."""

    def __init__(
        self, status: int, message: str, param: str | None = None, code: str | None = None
    ):
        super().__init__(message)
        self.response = error_response(status, message, param, code)
        self.status = status
        self.param = param


@attrs.define
class _Prepared:
    formatter: Formatter
    request: dict[str, Any]
    params: GenerationParams
    prompt: str
    backend_model: str


class _Server:
    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.backend: Backend = make_backend(
            config.backend_type, config.backend, config.default_max_tokens
        )
        self._client: httpx.AsyncClient | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(
                    self.config.read_timeout, connect=self.config.connect_timeout
                ),
                limits=httpx.Limits(max_connections=512, max_keepalive_connections=128),
                trust_env=False,
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
        return JSONResponse({"status": "ok"})

    async def models(self, request: Request) -> Response:
        if not authorized(request, self.config.api_key):
            return error_response(401, "missing or wrong API key", code="invalid_api_key")
        if self.config.models:
            rows = [(name, "granite-format") for name in self.config.models]
        else:
            rows = [(model.model_id, model.plugin.name) for model in list_models()]
        data = [{"id": i, "object": "model", "created": 0, "owned_by": o} for i, o in rows]
        return JSONResponse({"object": "list", "data": data})

    async def chat(self, request: Request) -> Response:
        log = RequestLog()
        try:
            prepared = await self._prepare(request, log)
            log.model = prepared.params.model
            log.stream = bool(prepared.params.stream)
            response = await self.backend.open(
                self.client,
                prepared.prompt,
                prepared.backend_model,
                prepared.params,
                prepared.request,
                tuple(getattr(prepared.formatter, "stop_strings", ())),
            )
        except _Refused as refused:
            log.status, log.error = refused.status, refused.param
            log.emit()
            return refused.response
        except BackendError as exc:
            log.status, log.error = exc.status, str(exc)
            log.emit()
            return error_response(exc.status, str(exc), exc.param)
        events = self.backend.stream(response, self.config.max_output_bytes)
        if not prepared.params.stream:
            return await self._complete(request, prepared, response, events, log)
        try:  # the first event before the first byte: a failure is still a 502/504
            first = await events.__anext__()
        except (BackendError, StopAsyncIteration) as exc:
            await response.aclose()
            error = exc if isinstance(exc, BackendError) else Backend.ended_early()
            log.status, log.error = error.status, str(error)
            log.emit()
            return error_response(error.status, str(error))
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

    async def _prepare(self, request: Request, log: RequestLog) -> _Prepared:
        if not authorized(request, self.config.api_key):
            raise _Refused(401, "missing or wrong API key", code="invalid_api_key")
        try:
            raw = await read_body(request, self.config.max_body_bytes)
        except BodyTooLarge:
            raise _Refused(
                413, f"the request body is over the limit of {self.config.max_body_bytes} bytes"
            ) from None
        try:
            body = json.loads(raw)
        except ValueError:
            raise _Refused(400, "the request body is not valid JSON") from None
        if not isinstance(body, dict):
            raise _Refused(400, "the request body must be a JSON object")
        try:
            params = read_params(body, self.config.backend_type)
        except InvalidRequestError as exc:
            raise _Refused(400, str(exc), exc.field) from None
        log.model = params.model
        if self.config.models:
            backend_model = self.config.models.get(params.model)
            if backend_model is None:
                known = ", ".join(self.config.models)
                raise _Refused(
                    404,
                    f"model {params.model[:80]!r} is not served here (served: {known})",
                    "model",
                    "model_not_found",
                )
        else:
            backend_model = params.model
        try:
            formatter = get_formatter(params.model)
        except UnknownModelError as exc:
            raise _Refused(404, str(exc), "model", "model_not_found") from None
        if params.logprobs and not self.backend.supports_logprobs:
            raise _Refused(
                400,
                f"logprobs are not supported with the {self.config.backend_type} backend",
                "logprobs",
            )
        request_body = chat_request(body)
        try:
            prompt = formatter.format(request_body)
        except InvalidRequestError as exc:
            raise _Refused(400, str(exc), exc.field) from None
        except ValueError as exc:
            raise _Refused(400, str(exc)) from None
        if len(prompt) > self.config.max_prompt_chars:
            raise _Refused(
                413,
                f"the prompt is {len(prompt)} characters, over the limit of "
                f"{self.config.max_prompt_chars}",
                "messages",
            )
        if self.config.log_prompts:
            LOGGER.debug("prompt model=%s %s", params.model, _dumps(prompt))
        return _Prepared(formatter, request_body, params, prompt, backend_model)

    async def _collect(
        self, prepared: _Prepared, events: AsyncIterator[Piece | Finish]
    ) -> tuple[list[str], list[dict[str, Any]], Finish]:
        pieces: list[str] = []
        logprobs: list[dict[str, Any]] = []
        finish = None
        async for event in events:  # to its end (after Finish: so the connection is reused)
            if isinstance(event, Piece):
                pieces.append(event.text)
                logprobs.extend(event.logprobs)
            else:
                finish = event
        if finish is None:
            raise Backend.ended_early()
        return pieces, logprobs, finish

    async def _complete(
        self,
        request: Request,
        prepared: _Prepared,
        response: httpx.Response,
        events: AsyncIterator[Piece | Finish],
        log: RequestLog,
    ) -> Response:
        """The whole answer; a client that disconnects first cancels the backend request."""
        collect = asyncio.ensure_future(self._collect(prepared, events))
        gone = asyncio.ensure_future(_disconnected(request))
        try:
            await asyncio.wait((collect, gone), return_when=asyncio.FIRST_COMPLETED)
            if not collect.done():
                collect.cancel()
                log.status, log.error = 499, "client disconnected"
                return Response(status_code=499)
            pieces, logprobs, finish = collect.result()
        except BackendError as exc:
            log.status, log.error = exc.status, str(exc)
            return error_response(exc.status, str(exc))
        finally:
            gone.cancel()
            await response.aclose()
            if log.status != 200:
                log.emit()
        self.backend.observe(prepared.prompt, finish.usage)
        log.usage = finish.usage
        log.emit()
        message = openai_message(prepared.formatter.parse("".join(pieces), prepared.request))
        body = completion(
            prepared.params.model,
            message,
            finish.reason,
            finish.usage,
            logprobs if prepared.params.logprobs else None,
        )
        return JSONResponse(body)

    async def _stream(
        self,
        prepared: _Prepared,
        response: httpx.Response,
        events: AsyncIterator[Piece | Finish],
        first: Piece | Finish,
        log: RequestLog,
        shutdown: anyio.Event,
    ) -> AsyncIterator[bytes]:
        """The SSE bytes: every event one backend event brings is one write."""
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
                    out += _event(maker.chunk(data, logprobs=lp))
            return out

        def on(event: Piece | Finish) -> bytes:
            nonlocal finished
            if isinstance(event, Piece):
                pending.extend(event.logprobs)
                return chunks(parser.feed(event.text))
            out = chunks(parser.close())
            message = openai_message(parser.message)
            extras = {k: v for k, v in message.items() if k not in STREAMED_KEYS}
            reason = finish_reason(message, event.reason)
            out += _event(maker.chunk(extras, reason, list(pending) if want_logprobs else None))
            log.usage = event.usage
            self.backend.observe(prepared.prompt, event.usage)
            if prepared.params.include_usage:
                out += _event(maker.usage_chunk(event.usage))
            finished = True
            return out + _DONE

        try:
            yield _event(maker.chunk({"content": ""})) + on(first)
            stop_at = None
            while True:  # to its end (after Finish: so the connection is reused)
                if not shutdown.is_set():
                    event = await anext_or_none(events)
                else:  # draining for a shutdown: a bounded time
                    if stop_at is None:
                        stop_at = anyio.current_time() + 0.8 * self.config.shutdown_grace
                    event = _TIMED_OUT
                    with anyio.move_on_after(max(stop_at - anyio.current_time(), 0)):
                        event = await anext_or_none(events)
                    if event is _TIMED_OUT:
                        if finished:
                            break
                        raise BackendError("the server is shutting down", 503)
                if event is None:
                    break
                if not finished:
                    data = on(event)
                    if data:
                        yield data
            if not finished:
                raise Backend.ended_early()
        except BackendError as exc:
            log.status, log.error = exc.status, str(exc)
            yield chunks(parser.close()) + _event(error_body(exc.status, str(exc))) + _DONE
        except BaseException:
            log.status, log.error = 499, "client disconnected"
            raise
        finally:
            await response.aclose()
            log.emit()


_DONE = b"data: [DONE]\n\n"
_TIMED_OUT: Any = object()


async def anext_or_none(events: AsyncIterator[Piece | Finish]) -> Piece | Finish | None:
    """The next event, ``None`` at the end."""
    try:
        return await events.__anext__()
    except StopAsyncIteration:
        return None


def _event(data: Any) -> bytes:
    """One Server-Sent Event of JSON ``data``."""
    return b"data: " + _dumps(data).encode("utf-8", "replace") + b"\n\n"


async def _disconnected(request: Request) -> None:
    """Return once the client has gone (the body is read, so only a disconnect is left)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def create_app(config: ServeConfig) -> Starlette:
    """The ASGI application for ``config`` (run it with any ASGI server, e.g. uvicorn)."""
    server = _Server(config)
    routes = [
        Route("/health", server.health, methods=["GET"]),
        Route("/v1/models", server.models, methods=["GET"]),
        Route("/v1/chat/completions", server.chat, methods=["POST"]),
    ]
    app = Starlette(routes=routes, lifespan=server.lifespan)
    app.state.server = server
    return app
