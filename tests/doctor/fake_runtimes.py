"""Fake vLLM and Ollama servers for the live doctor's tests, behaving as the real ones do.

:func:`vllm_app` answers vLLM's tokenizer endpoints as its OpenAI server does:
``POST /tokenize`` with ``messages`` validates the body as vLLM's ``TokenizeChatRequest``
(tool-call arguments must be JSON strings, as in the OpenAI schema, and are decoded for
the template; ``add_generation_prompt`` defaults to true, ``continue_final_message`` and
``add_special_tokens`` to false, both of the first two true is an error), renders the
messages with a real chat template through the shared ``render_chat_template.py`` (the
jinja2 environment of transformers' ``apply_chat_template``, special tokens and today's
date as transformers passes them; ``chat_template_kwargs`` and ``documents`` as template
variables; ``continue_final_message`` cut as transformers cuts it) and tokenizes;
``POST /tokenize`` with ``prompt`` tokenizes text (``add_special_tokens`` defaulting to
true there); ``POST /detokenize`` decodes. Errors have vLLM's shape (``{"object":
"error", "message", "type", "param", "code"}``), an unknown model is a 404
``NotFoundError``; unknown routes answer FastAPI's ``{"detail": "Not Found"}``;
``GET /version`` answers the version.

The tokenizer is a toy but reversible one: each special token is one token, every other
character a token of its own; it adds a BOS token when ``add_special_tokens`` is true (so
a client that forgets to turn that off sees other ids), and decodes keeping special
tokens (transformers' ``decode`` default) unless ``skip_special`` says otherwise.

:func:`ollama_app` answers ``GET /api/version`` and ``POST /api/show`` with the shape of
Ollama's answer (``modelfile`` as ``ollama show --modelfile`` prints it, ``parameters``
one ``name value`` a line, ``template``, ``details``, ``model_info``, ``capabilities``,
``renderer``/``parser`` when set), and Ollama's ``{"error": "model 'x' not found"}``.

:func:`llamacpp_app` answers llama-server's ``GET /health``, ``GET /props`` (with the
chat template) and ``POST /apply-template`` (the messages rendered with the template,
``chat_template_kwargs`` as template variables), its errors ``{"error": {"code",
"message", "type"}}``.

:func:`with_key` puts each runtime's API-key check in front of an app, as the real one
checks it (tried against the llama-server that tests/llamacpp builds, llama.cpp 0c1e570;
read in vLLM's ``AuthenticationMiddleware``): vLLM ``--api-key`` guards ``/v1/*`` only
and answers 401 ``{"error": "Unauthorized"}``; llama-server ``--api-key`` guards every
path but ``/health`` and ``/v1/health`` (unknown paths too) with 401 ``{"error":
{"message": "Invalid API Key", "type": "authentication_error", "code": 401}}``; Ollama
has no key, so its guard is a reverse proxy's: every path, 401 ``Unauthorized`` as plain
text with ``WWW-Authenticate: Bearer``. :func:`recording` notes each request's method,
path and ``Authorization`` header.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import attrs
import jinja2
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from support import oracle

#: The toy tokenizer's special tokens (Granite 3.x-4.1 and 4.2 turn structure); BOS first.
SPECIAL = (
    "<|end_of_text|>", "<|start_of_role|>", "<|end_of_role|>", "<|tool_call|>",
    "<|im_start|>", "<|im_end|>",
)  # fmt: skip
_OFFSET = 1000  # ids of ordinary characters: _OFFSET + code point
MAX_MODEL_LEN = 131072


@attrs.frozen
class ToyTokenizer:
    """Special tokens whole, every other character one token."""

    skip_special: bool = False

    def encode(self, text: str, add_special_tokens: bool) -> list[int]:
        ids = [0] if add_special_tokens else []
        at = 0
        while at < len(text):
            for index, token in enumerate(SPECIAL):
                if text.startswith(token, at):
                    ids.append(index)
                    at += len(token)
                    break
            else:
                ids.append(_OFFSET + ord(text[at]))
                at += 1
        return ids

    def decode(self, ids: list[int]) -> str:
        out = []
        for token in ids:
            if token < len(SPECIAL):
                if not self.skip_special:
                    out.append(SPECIAL[token])
            elif _OFFSET <= token <= _OFFSET + 0x10FFFF:
                out.append(chr(token - _OFFSET))
            else:
                raise ValueError(f"token id {token} is out of vocabulary")
        return "".join(out)


class _BadRequest(Exception):
    def __init__(self, message: str, kind: str = "BadRequestError", code: int = 400) -> None:
        super().__init__(message)
        self.kind, self.code = kind, code


def _error(message: str, kind: str, code: int) -> JSONResponse:
    body = {"object": "error", "message": message, "type": kind, "param": None, "code": code}
    return JSONResponse(body, status_code=code)


async def _json_object(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body())
    except ValueError as exc:
        raise _BadRequest(f"JSON decode error: {exc}") from None
    if not isinstance(body, dict):
        raise _BadRequest("Input should be a valid dictionary")
    return body


def _flag(body: dict[str, Any], name: str, default: bool) -> bool:
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise _BadRequest(f"{name}: Input should be a valid boolean")
    return value


def _messages(raw: Any) -> list[dict[str, Any]]:
    """The messages as vLLM hands them to the template: tool-call arguments decoded."""
    if not isinstance(raw, list) or not all(isinstance(m, dict) and "role" in m for m in raw):
        raise _BadRequest("messages: Input should be a valid list of messages")
    out = []
    for message in raw:
        message = dict(message)
        calls = []
        for call in message.get("tool_calls") or []:
            arguments = call.get("function", {}).get("arguments")
            if not isinstance(arguments, str):
                raise _BadRequest("tool_calls.function.arguments: Input should be a valid string")
            try:
                decoded = json.loads(arguments)
            except ValueError:
                raise _BadRequest("tool_calls.function.arguments is not JSON") from None
            calls.append({**call, "function": {**call["function"], "arguments": decoded}})
        if calls:
            message["tool_calls"] = calls
        out.append(message)
    return out


def _render(template: str, body: dict[str, Any]) -> str:
    add_generation_prompt = _flag(body, "add_generation_prompt", True)
    continue_final = _flag(body, "continue_final_message", False)
    if add_generation_prompt and continue_final:
        raise _BadRequest(
            "Cannot set both `continue_final_message` and `add_generation_prompt` to True."
        )
    messages = _messages(body.get("messages"))
    options = body.get("chat_template_kwargs") or {}
    if not isinstance(options, dict):
        raise _BadRequest("chat_template_kwargs: Input should be a valid dictionary")
    data: dict[str, Any] = {
        **options,
        "messages": messages,
        "tools": body.get("tools"),
        "documents": body.get("documents", options.get("documents")),
        "add_generation_prompt": add_generation_prompt,
    }
    renderer = oracle.load_renderer()
    try:
        text: str = renderer.render(template, data, datetime.datetime.now())
    except (ValueError, TypeError, jinja2.TemplateError) as exc:  # vLLM answers 400
        raise _BadRequest(str(exc)) from None
    if continue_final:  # transformers' cut: up to the end of the final message's text
        final = str(messages[-1].get("content") or "").strip()
        at = text.rfind(final)
        if not final or at < 0:
            raise _BadRequest(
                "continue_final_message is set but the final message is not in the prompt"
            )
        text = text[: at + len(final)]
    return text


def vllm_app(template: str, served: str, tokenizer: ToyTokenizer = ToyTokenizer()) -> Starlette:
    """A vLLM OpenAI server serving ``served`` with the chat template ``template``."""

    def check_model(body: dict[str, Any]) -> None:
        model = body.get("model")
        if model is not None and model != served:
            raise _BadRequest(f"The model `{model}` does not exist.", "NotFoundError", 404)

    async def tokenize(request: Request) -> JSONResponse:
        try:
            body = await _json_object(request)
            check_model(body)
            if "messages" in body:
                prompt = _render(template, body)
                special = _flag(body, "add_special_tokens", False)
            elif isinstance(body.get("prompt"), str):
                prompt, special = body["prompt"], _flag(body, "add_special_tokens", True)
            else:
                raise _BadRequest("Either `prompt` or `messages` must be given")
        except _BadRequest as exc:
            return _error(str(exc), exc.kind, exc.code)
        tokens = tokenizer.encode(prompt, special)
        answer = {"count": len(tokens), "max_model_len": MAX_MODEL_LEN, "tokens": tokens}
        return JSONResponse({**answer, "token_strs": None})

    async def detokenize(request: Request) -> JSONResponse:
        try:
            body = await _json_object(request)
            check_model(body)
            tokens = body.get("tokens")
            if not isinstance(tokens, list) or not all(type(t) is int for t in tokens):
                raise _BadRequest("tokens: Input should be a valid list of integers")
            prompt = tokenizer.decode(tokens)
        except _BadRequest as exc:
            return _error(str(exc), exc.kind, exc.code)
        except ValueError as exc:
            return _error(str(exc), "BadRequestError", 400)
        return JSONResponse({"prompt": prompt})

    async def version(request: Request) -> JSONResponse:
        return JSONResponse({"version": "0.11.0"})

    async def models(request: Request) -> JSONResponse:
        card = {"id": served, "object": "model", "owned_by": "vllm", "max_model_len": MAX_MODEL_LEN}
        return JSONResponse({"object": "list", "data": [card]})

    routes = [
        Route("/tokenize", tokenize, methods=["POST"]),
        Route("/detokenize", detokenize, methods=["POST"]),
        Route("/version", version),
        Route("/v1/models", models),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: _fastapi_error})


async def _fastapi_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"detail": exc.detail}, status_code=exc.status_code)


@attrs.frozen
class OllamaModel:
    """What Ollama knows of one model."""

    template: str
    stops: tuple[str, ...]
    capabilities: tuple[str, ...]
    renderer: str | None = None
    parser: str | None = None


def _modelfile(tag: str, model: OllamaModel) -> str:
    """The model's Modelfile as ``ollama show --modelfile`` prints it."""
    lines = [
        '# Modelfile generated by "ollama show"',
        "# To build a new Modelfile based on this, replace FROM with:",
        f"# FROM {tag}",
        "",
        "FROM /root/.ollama/models/blobs/sha256-5c3a1b2e9f0d",
        f'TEMPLATE """{model.template}"""',
    ]
    if model.renderer:
        lines.append(f"RENDERER {model.renderer}")
    if model.parser:
        lines.append(f"PARSER {model.parser}")
    lines += [f"PARAMETER stop {stop}" for stop in model.stops]
    lines.append('LICENSE """Apache License\nVersion 2.0, January 2004"""')
    return "\n".join(lines) + "\n"


def ollama_app(models: dict[str, OllamaModel]) -> Starlette:
    """An Ollama server with ``models`` (by tag)."""

    async def show(request: Request) -> JSONResponse:
        try:
            body = json.loads(await request.body())
        except ValueError:
            return JSONResponse({"error": "invalid character in request body"}, status_code=400)
        tag = body.get("model") or body.get("name") if isinstance(body, dict) else None
        if not tag:
            return JSONResponse({"error": "model is required"}, status_code=400)
        model = models.get(tag)
        if model is None:
            return JSONResponse({"error": f"model '{tag}' not found"}, status_code=404)
        answer: dict[str, Any] = {
            "license": "Apache License\nVersion 2.0, January 2004",
            "modelfile": _modelfile(tag, model),
            "parameters": "\n".join(f'stop                           "{s}"' for s in model.stops),
            "template": model.template,
            "details": {
                "parent_model": "",
                "format": "gguf",
                "family": "granite",
                "families": ["granite"],
                "parameter_size": "8.2B",
                "quantization_level": "Q4_K_M",
            },
            "model_info": {
                "general.architecture": "granite",
                "general.parameter_count": 8170864640,
            },
            "capabilities": list(model.capabilities),
            "modified_at": "2025-05-02T10:11:12.000000000Z",
        }
        if model.renderer:
            answer["renderer"] = model.renderer
        if model.parser:
            answer["parser"] = model.parser
        return JSONResponse(answer)

    async def version(request: Request) -> JSONResponse:
        return JSONResponse({"version": "0.12.6"})

    routes = [Route("/api/show", show, methods=["POST"]), Route("/api/version", version)]
    return Starlette(routes=routes)


def llamacpp_app(template: str) -> Starlette:
    """A ``llama-server --jinja`` with the chat template ``template``."""

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    async def props(request: Request) -> JSONResponse:
        settings = {"n_ctx": 4096, "params": {"temperature": 0.8}}
        return JSONResponse(
            {"default_generation_settings": settings, "total_slots": 1, "chat_template": template}
        )

    async def apply_template(request: Request) -> JSONResponse:
        try:
            body = await _json_object(request)
        except _BadRequest as exc:
            return _llama_error(str(exc), "invalid_request_error", 400)
        options = body.get("chat_template_kwargs") or {}
        data = {
            **options,
            "messages": body.get("messages"),
            "tools": body.get("tools"),
            "add_generation_prompt": body.get("add_generation_prompt", True),
        }
        try:
            prompt = oracle.load_renderer().render(template, data, datetime.datetime.now())
        except (ValueError, TypeError, jinja2.TemplateError) as exc:
            return _llama_error(str(exc), "invalid_request_error", 400)
        return JSONResponse({"prompt": prompt})

    routes = [
        Route("/health", health),
        Route("/v1/health", health),
        Route("/props", props),
        Route("/apply-template", apply_template, methods=["POST"]),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: _llama_not_found})


def _llama_error(message: str, kind: str, code: int) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message, "type": kind}}, code)


async def _llama_not_found(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    return _llama_error("File Not Found", "not_found_error", exc.status_code)


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


@attrs.frozen
class KeyCheck:
    """How a runtime started with an API key refuses a request without it."""

    guards: Callable[[str], bool]
    refusal: Callable[[], Response]


VLLM_KEY = KeyCheck(
    lambda path: path.startswith("/v1"),
    lambda: JSONResponse({"error": "Unauthorized"}, status_code=401),
)
LLAMACPP_KEY = KeyCheck(
    lambda path: path not in ("/health", "/v1/health"),
    lambda: JSONResponse(
        {"error": {"message": "Invalid API Key", "type": "authentication_error", "code": 401}},
        status_code=401,
    ),
)
PROXY_KEY = KeyCheck(
    lambda path: True,
    lambda: PlainTextResponse("Unauthorized", 401, {"WWW-Authenticate": "Bearer"}),
)


def with_key(app: App, key: str, check: KeyCheck) -> App:
    """``app`` refusing what ``check`` guards unless ``Authorization: Bearer key``."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and check.guards(scope["path"])
            and Headers(scope=scope).get("authorization") != f"Bearer {key}"
        ):
            await check.refusal()(scope, receive, send)
            return
        await app(scope, receive, send)

    return guarded


def recording(app: App, seen: list[tuple[str, str, str | None]]) -> App:
    """``app``, noting each request's ``(method, path, Authorization header)`` in ``seen``."""

    async def noted(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            authorization = Headers(scope=scope).get("authorization")
            seen.append((scope["method"], scope["path"], authorization))
        await app(scope, receive, send)

    return noted
