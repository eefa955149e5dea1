"""Real loopback servers for the serve tests: a uvicorn runner and the fake completions backends.

The fake backend answers the three wire formats the proxy speaks (OpenAI/vLLM
``/v1/completions`` SSE, llama.cpp ``/completion`` SSE, Ollama ``/api/generate`` NDJSON)
from a script chosen by the prompt it receives, cutting the model's text into events and
the wire bytes into network writes as the script says.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterable
from typing import Any

import attrs
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

MARKERS = (
    "<|", "|>", "<think>", "</think>", "<response>", "</response>", "<co>", "</co>",
    "<tool_call>", "</tool_call>", "Here is my", "# Citations:",
)  # fmt: skip


class ServerThread:
    """A uvicorn server on a free 127.0.0.1 port, in a thread; ``stop()`` ends it."""

    def __init__(self, app: Any) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port: int = self.sock.getsockname()[1]
        config = uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            log_config=None,
            timeout_graceful_shutdown=1,
            limit_concurrency=1000,
            backlog=256,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


@attrs.define
class Script:
    """What the fake model generates for one prompt, and how it reaches the wire.

    ``cut``: ``whole`` (one event), ``chars`` (one character per event), ``markers`` (every
    marker cut in two, else 5-character pieces), ``pieces`` (4-character pieces).
    ``write``: bytes per network write (``None``: one write per event; ``"mid-utf8"``: the
    whole stream cut inside every multi-byte character), so a character or an event can be
    split across writes.
    ``fault``: ``status500`` (or ``status400``, ``status404``, ``status413``, ``status422``,
    ``status429``: that error answer, see :func:`error_answer`), ``garbage``, ``garbage_first``, ``truncate``, ``hang_headers``,
    ``hang_body``, ``nan_logprobs``, ``no_usage``, ``no_done`` (finish_reason, no
    ``[DONE]``), ``done_then_open`` and ``finish_then_open`` (the connection held open 8 s
    after the answer), ``endless`` (the first piece again and again, until cancelled; not
    streamed: up to the token limit),
    ``slow`` (many small events, with pauses: for the disconnect test), ``no_logprobs``
    (logprobs asked for, none sent).
    ``fault_times``: the fault hits only the first that many requests for the prompt
    (``None``: every one), as a backend that fails for a while and recovers.
    ``retry_after``: the ``Retry-After`` header of a ``status429`` answer (``None``: none).
    """

    output: str
    cut: str = "pieces"
    write: int | str | None = None
    finish: str = "stop"
    fault: str | None = None
    fault_times: int | None = None
    #: How many requests for the prompt have come (for ``fault_times``).
    seen: int = 0
    retry_after: str | None = None


def cut_text(text: str, how: str) -> list[str]:
    if how == "whole":
        return [text]
    if how == "chars":
        return list(text)
    if how == "pieces":
        return [text[i : i + 4] for i in range(0, len(text), 4)]
    assert how == "markers", how
    cuts = set(range(5, len(text), 5))
    for marker in MARKERS:
        start = text.find(marker)
        while start != -1:
            cuts.add(start + max(1, len(marker) // 2))
            start = text.find(marker, start + 1)
    bounds = [0, *sorted(c for c in cuts if 0 < c < len(text)), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]


#: The Granite control tokens (special tokens of the 3.x vocabularies, and those flagged
#: special in 4.x's; 4.x's ``<tool_call>``, ``<think>`` and the like are not). llama.cpp
#: prints a control token as text only when started with ``--special`` or when the request
#: names it in ``preserved_tokens``; otherwise it prints nothing for it.
CONTROL_TOKENS = (
    "<|start_of_role|>", "<|end_of_role|>", "<|end_of_text|>", "<|tool_call|>",
    "<|start_of_cite|>", "<|end_of_cite|>", "<|start_of_plugin|>", "<|end_of_plugin|>",
    "<|im_start|>", "<|im_end|>", "<|pad|>", "<|unk|>", "<|unused_1|>", "<think_on>",
    "<think_off>", "<schema>", "</schema>", "<tools>", "</tools>", "<documents>",
    "</documents>",
)  # fmt: skip


def llamacpp_text(text: str, special: bool, body: dict[str, Any]) -> str:
    """``text`` as llama-server prints it: control tokens removed, but those the request
    preserves (``preserved_tokens``) or all of them when started with ``--special``."""
    if special:
        return text
    kept = body.get("preserved_tokens")
    kept = set(kept) if isinstance(kept, list) else set()
    for token in CONTROL_TOKENS:
        if token not in kept:
            text = text.replace(token, "")
    return text


def split_inside_characters(data: bytes) -> list[bytes]:
    """``data`` cut after the first byte of every multi-byte UTF-8 character."""
    cuts = [i + 1 for i, byte in enumerate(data) if byte >= 0xC0]
    bounds = [0, *cuts, len(data)]
    parts = [data[a:b] for a, b in itertools.pairwise(bounds) if b > a]
    assert any(part[-1] >= 0xC0 for part in parts), "no multi-byte character to split"
    return parts


def count_tokens(text: str) -> int:
    """The fake tokenizer: one token per 4 UTF-8 bytes, rounded up (at most one per byte,
    as with any byte-level BPE tokenizer)."""
    return -(-len(text.encode("utf-8", "surrogatepass")) // 4)


def _json(data: Any) -> str:
    """As a Python server writes JSON: raw UTF-8, but a lone surrogate escaped (``\\ud800``)."""
    text = json.dumps(data, ensure_ascii=False)
    try:
        text.encode()
    except UnicodeEncodeError:
        text = json.dumps(data)
    return text


def _sse(data: dict[str, Any] | str) -> bytes:
    text = data if isinstance(data, str) else _json(data)
    return f"data: {text}\n\n".encode()


def fake_logprobs(piece: str, value: float = -0.25) -> dict[str, Any]:
    """vLLM's completions ``logprobs`` for one token (the piece), with one alternative."""
    return {
        "text_offset": [0],
        "token_logprobs": [value],
        "tokens": [piece],
        "top_logprobs": [{piece: value, "?": -3.5}],
    }


def llamacpp_probs(piece: str, value: float, n_probs: int, token_id: int) -> dict[str, Any]:
    """llama.cpp's probabilities of one token (the piece), with ``n_probs`` alternatives
    (the chosen token first, then ``?``): an entry of the native ``completion_probabilities``
    and, without ``id``, of ``/v1/completions``' ``logprobs.content``."""
    tops = [(token_id, piece, value), (0, "?", -3.5)][:n_probs]
    return {
        "id": token_id, "token": piece, "bytes": list(piece.encode()), "logprob": value,
        "top_logprobs": [
            {"id": i, "token": t, "bytes": list(t.encode()), "logprob": lp} for i, t, lp in tops
        ],
    }  # fmt: skip


def llamacpp_v1_probs(piece: str, value: float, n_probs: int, token_id: int) -> dict[str, Any]:
    """llama.cpp's ``/v1/completions`` entry of ``logprobs.content`` for one token: the
    native one without ``id``s, ``n_probs`` alternatives (0: none)."""
    entry = llamacpp_probs(piece, value, max(n_probs, 1), token_id)
    del entry["id"]
    tops = entry["top_logprobs"][:n_probs]
    entry["top_logprobs"] = [{k: v for k, v in t.items() if k != "id"} for t in tops]
    return entry


def stopped(kind: str, body: dict[str, Any], text: str) -> tuple[str, str | None]:
    """``text`` cut where the first of the request's stop strings begins, and that string,
    as the real backends stop (the stop string itself is not sent: vLLM's
    ``include_stop_str_in_output`` is false by default, llama.cpp and Ollama never send it)."""
    where = body.get("options") or {} if kind == "ollama" else body
    stops = where.get("stop") or []
    if isinstance(stops, str):
        stops = [stops]
    found = [(text.find(s), s) for s in stops if isinstance(s, str) and s and s in text]
    if not found:
        return text, None
    at, stop = min(found, key=lambda item: item[0])
    return text[:at], stop


def wire_events(
    kind: str,
    model: str,
    pieces: list[str],
    finish: str,
    complete: bool,
    logprobs: bool = False,
    prompt_tokens: int = 321,
    logprob: float = -0.25,
    stop: str | None = None,
    flavour: str = "vllm",
    n_probs: int = 0,
) -> list[bytes]:
    """The byte events of a backend stream in ``kind``'s real format (one token per piece);
    ``stop`` is the stop string matched (vLLM's ``stop_reason``, llama.cpp's
    ``stopping_word``). ``flavour`` is the server behind ``/v1/completions``: ``vllm``
    (logprobs in the legacy shape) or ``llamacpp`` (in the chat shape); ``n_probs`` is
    llama.cpp's native number of alternatives (0: no ``completion_probabilities``)."""
    n = len(pieces)
    p = prompt_tokens
    out: list[bytes] = []
    if kind == "openai":
        for i, piece in enumerate(pieces):
            lp: dict[str, Any] | None = fake_logprobs(piece, logprob) if logprobs else None
            if logprobs and flavour == "llamacpp":
                lp = {"content": [llamacpp_v1_probs(piece, logprob, n_probs, 1000 + i)]}
            out.append(_sse({"id": "cmpl-fake", "object": "text_completion", "created": 1764547200, "model": model,
                             "choices": [{"index": 0, "text": piece, "logprobs": lp, "finish_reason": None, "stop_reason": None}],
                             "usage": None}))  # fmt: skip
        if complete:
            out.append(_sse({"id": "cmpl-fake", "object": "text_completion", "created": 1764547200, "model": model,
                             "choices": [{"index": 0, "text": "", "logprobs": None, "finish_reason": finish, "stop_reason": stop}],
                             "usage": None}))  # fmt: skip
            out.append(_sse({"id": "cmpl-fake", "object": "text_completion", "created": 1764547200, "model": model,
                             "choices": [], "usage": {"prompt_tokens": p, "total_tokens": p + n, "completion_tokens": n}}))  # fmt: skip
            out.append(_sse("[DONE]"))
    elif kind == "llamacpp":
        for i, piece in enumerate(pieces):
            event: dict[str, Any] = {"index": 0, "content": piece, "tokens": [1000 + i], "stop": False,
                                     "id_slot": 0, "tokens_predicted": 1, "tokens_evaluated": p}  # fmt: skip
            if n_probs > 0:
                event["completion_probabilities"] = [
                    llamacpp_probs(piece, logprob, n_probs, 1000 + i)
                ]
            out.append(_sse(event))
        if complete:
            out.append(_sse({"index": 0, "content": "", "tokens": [], "id_slot": 0, "stop": True, "model": model,
                             "tokens_predicted": n, "tokens_evaluated": p, "generation_settings": {},
                             "prompt": "", "has_new_line": False, "truncated": False,
                             "stop_type": "limit" if finish == "length" else "word" if stop else "eos",
                             "stopping_word": stop or "",
                             "tokens_cached": p - 1, "timings": {"prompt_n": p, "predicted_n": n}}))  # fmt: skip
    else:
        for piece in pieces:
            out.append((_json({"model": model, "created_at": "2026-12-01T08:00:00.000000Z", "response": piece,
                                    "done": False}) + "\n").encode())  # fmt: skip
        if complete:
            out.append((json.dumps({"model": model, "created_at": "2026-12-01T08:00:01.000000Z", "response": "",
                                    "done": True, "done_reason": finish, "total_duration": 1000000,
                                    "load_duration": 1000, "prompt_eval_count": p, "prompt_eval_duration": 1000,
                                    "eval_count": n, "eval_duration": 100000}) + "\n").encode())  # fmt: skip
    return out


def whole_body(
    kind: str,
    model: str,
    pieces: list[str],
    finish: str,
    logprobs: bool = False,
    prompt_tokens: int = 321,
    logprob: float = -0.25,
    stop: str | None = None,
    flavour: str = "vllm",
    n_probs: int = 0,
) -> dict[str, Any]:
    """The answer to a request not streamed, in ``kind``'s real format (one JSON body,
    sent once the answer is complete; the arguments are :func:`wire_events`'): vLLM's
    ``/v1/completions`` (logprobs in the legacy shape, ``stop_reason``), llama.cpp's
    (logprobs in the chat shape, no ``stop_reason``, a ``system_fingerprint``), its native
    ``/completion`` (the last event of a stream with the whole ``content``, its ``tokens``
    and, with ``n_probs``, every token's ``completion_probabilities``) and Ollama's
    ``/api/generate`` (the last line with the whole ``response``)."""
    text, n, p = "".join(pieces), len(pieces), prompt_tokens
    usage = {"prompt_tokens": p, "total_tokens": p + n, "completion_tokens": n}
    if kind == "openai" and flavour == "vllm":
        lp: dict[str, Any] | None = None
        if logprobs:
            each = [fake_logprobs(piece, logprob) for piece in pieces]
            offsets = list(itertools.accumulate((len(piece) for piece in pieces), initial=0))
            lp = {"text_offset": offsets[:-1],
                  "token_logprobs": [e["token_logprobs"][0] for e in each],
                  "tokens": list(pieces), "top_logprobs": [e["top_logprobs"][0] for e in each]}  # fmt: skip
        return {"id": "cmpl-fake", "object": "text_completion", "created": 1764547200, "model": model,
                "choices": [{"index": 0, "text": text, "logprobs": lp, "finish_reason": finish,
                             "stop_reason": stop, "prompt_logprobs": None}],
                "usage": usage}  # fmt: skip
    if kind == "openai":  # llama.cpp's /v1/completions
        chat = [llamacpp_v1_probs(piece, logprob, n_probs, 1000 + i) for i, piece in enumerate(pieces)] if logprobs else []  # fmt: skip
        return {"choices": [{"text": text, "index": 0,
                             "logprobs": {"content": chat} if logprobs and pieces else None,
                             "finish_reason": finish}],
                "created": 1764547200, "model": model, "system_fingerprint": "b1-0c1e570",
                "object": "text_completion", "usage": usage, "id": "chatcmpl-fake"}  # fmt: skip
    if kind == "llamacpp":
        body = {"index": 0, "content": text, "tokens": [1000 + i for i in range(n)], "id_slot": 0,
                "stop": True, "model": model, "tokens_predicted": n, "tokens_evaluated": p,
                "generation_settings": {}, "prompt": "", "has_new_line": "\n" in text,
                "truncated": False,
                "stop_type": "limit" if finish == "length" else "word" if stop else "eos",
                "stopping_word": stop or "", "tokens_cached": p + n - 1,
                "timings": {"prompt_n": p, "predicted_n": n}}  # fmt: skip
        if n_probs > 0 and pieces:
            body["completion_probabilities"] = [
                llamacpp_probs(piece, logprob, n_probs, 1000 + i) for i, piece in enumerate(pieces)
            ]
        return body
    return {"model": model, "created_at": "2026-12-01T08:00:01.000000Z", "response": text,
            "done": True, "done_reason": finish, "context": [1, 2, 3], "total_duration": 1000000,
            "load_duration": 1000, "prompt_eval_count": p, "prompt_eval_duration": 1000,
            "eval_count": n, "eval_duration": 100000}  # fmt: skip


#: vLLM's ``CompletionRequest.max_tokens`` default (also what an explicit ``null`` becomes).
VLLM_DEFAULT_MAX_TOKENS = 16


def vllm_error(message: str, status: int = 400) -> JSONResponse:
    """vLLM's error body (``ErrorResponse``)."""
    return JSONResponse(
        {"object": "error", "message": message, "type": "BadRequestError", "param": None,
         "code": status},
        status_code=status,
    )  # fmt: skip


def error_answer(status: int, prompt: str, retry_after: str | None = None) -> Response:
    """A backend's error answer of ``status``, as the servers (or what stands in front of
    them) write it: vLLM's error body for a 400 (quoting the prompt here, as an error can)
    or a 500,
    FastAPI's for an unknown route (404) or a validation failure (422), nginx's page for a
    body over its ``client_max_body_size`` (413), a rate-limiting gateway's for a 429."""
    if status == 500:
        return JSONResponse(
            {"object": "error", "message": "CUDA out of memory", "code": 500}, status_code=500
        )
    if status == 400:
        return vllm_error(f"top_p must be in (0, 1], got 2.0 for {prompt[:40]!r}.")
    if status == 404:
        return JSONResponse({"detail": "Not Found"}, status_code=404)
    if status == 422:
        return JSONResponse(
            {"detail": [{"type": "less_than_equal", "loc": ["body", "top_p"],
                         "msg": "Input should be less than or equal to 1",
                         "input": 2, "ctx": {"le": 1}, "prompt": prompt[:40]}]},
            status_code=422,
        )  # fmt: skip
    if status == 413:
        page = "<html><head><title>413 Request Entity Too Large</title></head></html>\r\n"
        return Response(page, status_code=413, media_type="text/html")
    assert status == 429, status
    headers = {"retry-after": retry_after} if retry_after is not None else None
    return JSONResponse(
        {"error": {"message": "Rate limit exceeded: too many requests", "type": "rate_limit"}},
        status_code=429,
        headers=headers,
    )


class FakeBackend:
    """The scripted completions server; records every request it gets.

    Each route applies its real server's documented defaults and validation, with one
    token per generated piece and :func:`count_tokens` tokens per prompt:

    * ``/v1/completions`` (vLLM): ``max_tokens`` absent or ``null`` is 16 tokens
      (``finish_reason: "length"``); prompt + ``max_tokens`` above ``max_model_len`` is a
      400 (``overlong="reject"``, vLLM before 0.33) or ``max_tokens`` is cut to what is
      left of the context (``overlong="clamp"``, vLLM 0.33); a prompt that fills the
      context is a 400 either way; a request not streamed (``stream`` absent or false)
      gets the whole completion in one JSON body. ``GET /v1/models`` lists ``served`` with
      ``max_model_len``; ``POST /tokenize`` counts a prompt (``tokenize=False``: 404, as
      on servers without it).
    * ``/completion`` (llama.cpp): ``n_predict`` absent is -1: generate until the end of
      the answer or of the context (``n_ctx``, ``stop_type: "limit"``). Control tokens
      are printed only when named in ``preserved_tokens`` or with ``special=True``
      (llama-server started with ``--special``; not by default); ``n_probs`` > 0 adds
      ``completion_probabilities`` to each event.
    * ``flavour="llamacpp"``: ``/v1/completions`` is llama.cpp's own (control tokens as
      on ``/completion``, ``skip_special_tokens`` ignored; ``logprobs`` N > 0 in the chat
      shape ``logprobs.content``, none for 0).
    * ``/api/generate`` (Ollama): ``options.num_predict`` absent is -1 likewise.
    * ``api_key``: every route wants ``Authorization: Bearer API_KEY`` and answers a
      missing or wrong one as vLLM started with ``--api-key`` does (``401``,
      ``{"error": "Unauthorized"}``); ``authorizations`` records each request's path and
      header (``None``: none sent).
    """

    def __init__(
        self,
        max_model_len: int = 4096,
        overlong: str = "reject",
        tokenize: bool = True,
        served: tuple[str, ...] = ("ibm-granite/granite-served",),
        flavour: str = "vllm",
        special: bool = False,
        api_key: str | None = None,
    ) -> None:
        assert overlong in ("reject", "clamp")
        assert flavour in ("vllm", "llamacpp")
        self.flavour = flavour
        self.special = special
        self.max_model_len = max_model_len
        self.overlong = overlong
        self.tokenize = tokenize
        self.served = served
        self.scripts: dict[str, Script] = {}
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.peers: list[int] = []  # the client port of each request (connection reuse)
        self.info_requests: list[str] = []  # the paths of /v1/models and /tokenize calls
        self.cancelled = 0
        self.finished = 0
        self.lock = threading.Lock()
        self.app: Any = Starlette(
            routes=[
                Route("/v1/completions", self._handler("openai"), methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
                Route("/tokenize", self._tokenize, methods=["POST"]),
                Route("/completion", self._handler("llamacpp"), methods=["POST"]),
                Route("/api/generate", self._handler("ollama"), methods=["POST"]),
            ]
        )
        self.api_key = api_key
        self.authorizations: list[tuple[str, str | None]] = []
        self.app = self._key_checked(self.app) if api_key is not None else self.app

    def _key_checked(self, app: Any) -> Any:
        """``app`` behind vLLM's ``--api-key`` check, on every path (vLLM checks its
        ``/v1`` paths, llama-server all but ``/health`` and the model list: checking them
        all shows that every request carries the key)."""

        async def checked(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            headers = dict(scope["headers"])
            sent = headers.get(b"authorization")
            value = None if sent is None else sent.decode("latin-1")
            with self.lock:
                self.authorizations.append((scope["path"], value))
            if value != f"Bearer {self.api_key}":
                answer = JSONResponse({"error": "Unauthorized"}, status_code=401)
                await answer(scope, receive, send)
                return
            await app(scope, receive, send)

        return checked

    def script(self, prompt: str, script: Script) -> None:
        with self.lock:
            self.scripts[prompt] = script

    def last_request(self, prompt: str) -> dict[str, Any]:
        with self.lock:
            for _kind, body in self.requests[::-1]:
                if body.get("prompt") == prompt:
                    return body
        raise AssertionError("the backend never received that prompt")

    def cancelled_since(self, before: int) -> int:
        """How many more streams were cut off than ``before``, once there is one (waiting at
        most 10 s: a bound against hanging, not a timing assertion)."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with self.lock:
                if self.cancelled > before:
                    break
            time.sleep(0.02)
        with self.lock:
            return self.cancelled - before

    async def _models(self, request: Request) -> Response:
        with self.lock:
            self.info_requests.append("/v1/models")
        data: list[dict[str, Any]] = [
            {"id": name, "object": "model", "created": 1764547200, "owned_by": "vllm",
             "root": self.served[0], "parent": None, "max_model_len": self.max_model_len,
             "permission": []}
            for name in self.served
        ]  # fmt: skip
        return JSONResponse({"object": "list", "data": data})

    async def _tokenize(self, request: Request) -> Response:
        with self.lock:
            self.info_requests.append("/tokenize")
        if not self.tokenize:
            return JSONResponse({"detail": "Not Found"}, status_code=404)
        body = await request.json()
        prompt = body.get("prompt")
        if not isinstance(prompt, str):
            return vllm_error("prompt: Input should be a valid string")
        count = count_tokens(prompt)
        return JSONResponse(
            {"count": count, "max_model_len": self.max_model_len, "tokens": list(range(count))}
        )

    def _limit(self, kind: str, body: dict[str, Any], prompt_tokens: int) -> int | Response:
        """The number of tokens to generate at most, or the error response."""
        room = self.max_model_len - prompt_tokens
        if kind == "openai":
            max_tokens = body.get("max_tokens")
            if max_tokens is None:
                max_tokens = VLLM_DEFAULT_MAX_TOKENS
            if not isinstance(max_tokens, int) or isinstance(max_tokens, bool):
                return vllm_error("max_tokens: Input should be a valid integer")
            if max_tokens < 1:
                return vllm_error(f"max_tokens must be at least 1, got {max_tokens}.")
            if room < 1 or (self.overlong == "reject" and max_tokens > room):
                return vllm_error(
                    f"This model's maximum context length is {self.max_model_len} tokens. "
                    f"However, you requested {prompt_tokens + max_tokens} tokens "
                    f"({prompt_tokens} in the messages, {max_tokens} in the completion). "
                    "Please reduce the length of the messages or completion."
                )
            return min(max_tokens, room)
        options = body.get("options") or {} if kind == "ollama" else body
        limit = options.get("num_predict" if kind == "ollama" else "n_predict", -1)
        if not isinstance(limit, int) or isinstance(limit, bool):
            return JSONResponse({"error": "invalid token limit"}, status_code=400)
        return max(room, 0) if limit < 0 else min(limit, max(room, 0))

    def _handler(self, kind: str) -> Any:
        async def handle(request: Request) -> Response:
            body = await request.json()
            with self.lock:
                self.requests.append((kind, body))
                self.peers.append(request.client.port if request.client else -1)
                script = self.scripts.get(body.get("prompt", ""))
                if script is not None and script.fault_times is not None:
                    script.seen += 1
                    if script.seen > script.fault_times:
                        script = attrs.evolve(script, fault=None)
            if script is None:
                return JSONResponse({"error": "no script for this prompt"}, status_code=400)
            if script.fault is not None and script.fault.startswith("status"):
                status = int(script.fault.removeprefix("status"))
                return error_answer(status, body["prompt"], script.retry_after)
            if script.fault == "hang_headers":
                await asyncio.sleep(8)
                return JSONResponse({})
            prompt_tokens = count_tokens(body["prompt"])
            limit = self._limit(kind, body, prompt_tokens)
            if isinstance(limit, Response):
                return limit
            model = str(body.get("model", "llamacpp-model"))
            output = script.output
            llamacpp = kind == "llamacpp" or (kind == "openai" and self.flavour == "llamacpp")
            if llamacpp:
                output = llamacpp_text(output, self.special, body)
            output, stop = stopped(kind, body, output)
            pieces = cut_text(output, script.cut)
            finish = script.finish if stop is None else "stop"
            if len(pieces) > limit:
                pieces, finish, stop = pieces[:limit], "length", None
            complete = script.fault not in ("truncate", "garbage")
            if script.fault in ("truncate", "garbage"):
                pieces = pieces[: max(1, len(pieces) // 2)]
            nan = script.fault == "nan_logprobs"
            number = body.get("n_probs" if kind == "llamacpp" else "logprobs")
            n_probs = number if isinstance(number, int) and not isinstance(number, bool) else 0
            logprobs = "logprobs" in body or nan
            if kind == "openai" and self.flavour == "llamacpp":
                logprobs = n_probs > 0
            if script.fault == "no_logprobs":  # (a server that ignores the request for them)
                logprobs, n_probs = False, 0
            # (vLLM and llama.cpp stream only when asked to, Ollama unless told not to)
            if not body.get("stream", kind == "ollama"):
                if script.fault == "endless":  # (generated up to the token limit)
                    pieces, finish, stop = pieces[:1] * limit, "length", None
                args = (kind, model, pieces, finish, logprobs, prompt_tokens,
                        float("nan") if nan else -0.25, stop, self.flavour, n_probs)  # fmt: skip
                return await self._whole(request, script, whole_body(*args))
            events = wire_events(
                kind, model, pieces, finish, complete, logprobs, prompt_tokens,
                float("nan") if nan else -0.25, stop, self.flavour, n_probs,
            )  # fmt: skip
            if script.fault == "no_usage":
                events = [e for e in events if b'"usage": {' not in e]
            if script.fault in ("no_done", "finish_then_open"):
                events = [e for e in events if b"[DONE]" not in e]
            if script.fault == "garbage_first":
                events = [b'data: {"choices": [oops\n\n' if kind != "ollama" else b"{oops\n"]
            if script.fault == "garbage":
                events.append(
                    b'data: {"choices": [oops\n\n' if kind != "ollama" else b'{"response": oops\n'
                )
            media = "application/x-ndjson" if kind == "ollama" else "text/event-stream"
            return StreamingResponse(self._send(events, script), media_type=media)

        return handle

    async def _whole(self, request: Request, script: Script, answer: dict[str, Any]) -> Response:
        """The answer to a request not streamed: nothing until it is complete (a client
        that goes away meanwhile cancels it, as the real servers notice), then one JSON
        body. Faults: ``slow`` (a pause per character), ``hang_body`` (8 s), ``no_usage``, ``garbage`` and ``garbage_first`` (malformed
        JSON), ``truncate`` (the connection lost halfway through the body)."""
        pauses: Iterable[float] = ()
        if script.fault == "slow":
            pauses = [0.02] * len(script.output)
        elif script.fault == "hang_body":
            pauses = [0.02] * 400
        for pause in pauses:
            await asyncio.sleep(pause)
            if await request.is_disconnected():
                with self.lock:
                    self.cancelled += 1
                return Response(status_code=499)
        if script.fault == "no_usage":
            answer.pop("usage", None)
        data = _json(answer).encode()
        if script.fault in ("garbage", "garbage_first"):
            data = b'{"choices": [oops'
        if script.fault == "truncate":
            data = data[: len(data) // 2]
            return StreamingResponse(_cut_off(data), media_type="application/json")
        if script.write is None:
            with self.lock:
                self.finished += 1
            return Response(data, media_type="application/json")
        # The body in several network writes, the same as a stream's.
        return StreamingResponse(self._send([data], script), media_type="application/json")

    async def _send(self, events: list[bytes], script: Script) -> AsyncIterator[bytes]:
        done = False
        try:
            if script.write is None:
                writes = events
            elif script.write == "mid-utf8":
                writes = split_inside_characters(b"".join(events))
            else:
                data = b"".join(events)
                size = int(script.write)
                writes = [data[i : i + size] for i in range(0, len(data), size)]
            if script.fault == "endless":
                sent: Iterable[bytes] = itertools.cycle(writes[:1])
            else:
                sent = writes
            for i, chunk in enumerate(sent):
                yield chunk
                if script.fault == "slow":
                    await asyncio.sleep(0.02)
                elif script.fault == "hang_body" and i == 0:
                    await asyncio.sleep(8)
                elif i % 16 == 15:
                    await asyncio.sleep(0)
            if script.fault in ("done_then_open", "finish_then_open"):
                await asyncio.sleep(8)
            done = True
        finally:
            with self.lock:
                if done:
                    self.finished += 1
                else:
                    self.cancelled += 1


async def _cut_off(data: bytes) -> AsyncIterator[bytes]:
    """``data``, then the connection lost (a server that died while sending)."""
    yield data
    await asyncio.sleep(0)
    raise ConnectionResetError("the fake backend died while sending the answer")
