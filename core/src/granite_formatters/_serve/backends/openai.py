"""An OpenAI-compatible ``/v1/completions`` server (vLLM, SGLang, TGI, llama.cpp's OpenAI route)."""

from __future__ import annotations

import math
from typing import Any

import httpx

from .base import (
    Backend,
    BackendError,
    Decoding,
    Usage,
    clean_text,
    encode_json,
    loads_object,
    stop_reason_of,
    usage_of,
)
from .logprobs import choice_logprobs

__all__ = ["ADDED_TOKENS", "OpenAIBackend", "prompt_token_bound"]


#: Tokens a tokenizer may add to those of the text itself (a BOS, an EOS, SentencePiece's
#: prefix space).
ADDED_TOKENS = 4
#: A prompt whose token bound is at most this fraction (1/N) of the context is far from
#: its limit: the bound, not an exact count, gives what is left.
_FAR_FROM_CONTEXT = 8


def prompt_token_bound(prompt: str) -> int:
    """At least as many tokens as a byte-level BPE tokenizer (Granite's) or a SentencePiece
    one with byte fallback makes of ``prompt``: its UTF-8 bytes (a token is one byte or
    more, a special token such as ``<|end_of_text|>`` one token of several bytes) plus
    :data:`ADDED_TOKENS`. (A tokenizer that normalizes text to NFKC first could exceed
    it on a prompt of ligatures; the backend then refuses the request, a 502.)"""
    return len(prompt.encode("utf-8", "surrogatepass")) + ADDED_TOKENS


class OpenAIBackend(Backend):
    """``/v1/completions``. Without a client token limit, the limit sent is what is left of
    the model's context (``max_model_len`` from ``/v1/models``) after the prompt: for a
    prompt far from the context's size, after :func:`prompt_token_bound` tokens (no round
    trip); otherwise after the count of vLLM's ``/tokenize``, else an estimate from earlier
    answers' usage, never above one token per byte. Where the context is unknown,
    ``default_max_tokens``, if set."""

    kind = "openai"
    path = "/completions"
    supports_logprobs = True
    special_tokens_advice = (
        "serve asks for them with skip_special_tokens: false, which vLLM honours; "
        "llama.cpp's llama-server ignores it: start llama-server with --special, or serve "
        "it with --backend-type llamacpp (which asks for them per request)"
    )

    def __init__(self, base_url: str, default_max_tokens: int | None = None) -> None:
        super().__init__(base_url, default_max_tokens)
        root = self.base_url[: -len("/v1")] if self.base_url.endswith("/v1") else self.base_url
        self.models_url = self.base_url + "/models"
        self.tokenize_url = root + "/tokenize"
        self._context: dict[str, int | None] = {}
        self._can_tokenize = True
        self._tokens_per_byte = 0.0

    def body(
        self, prompt: str, model: str, fields: dict[str, Any], stream: bool = True
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": model, "prompt": prompt, "stream": stream}
        if stream:  # (vLLM refuses stream_options on a request not streamed)
            body["stream_options"] = {"include_usage": True}
        # The Granite tool-call and citation markers are special tokens: keep them.
        body["skip_special_tokens"] = False
        body["spaces_between_special_tokens"] = False
        body.update(fields)
        return body

    async def max_model_len(self, client: httpx.AsyncClient, model: str) -> int | None:
        """The model's context length as ``/v1/models`` lists it (learned once per model)."""
        if model in self._context:
            return self._context[model]
        try:
            response = await client.get(self.models_url)
        except httpx.HTTPError:
            return None  # not remembered: asked again next time
        length = None
        try:
            rows = response.json().get("data") if response.status_code == 200 else None
        except ValueError:
            rows = None
        if isinstance(rows, list):
            lengths = {
                row.get("id"): row.get("max_model_len")
                for row in rows
                if isinstance(row, dict) and isinstance(row.get("max_model_len"), int)
            }
            if model in lengths:
                length = lengths[model]
            elif len(set(lengths.values())) == 1:  # one model under several names
                length = next(iter(lengths.values()))
        self._context[model] = length
        return length

    async def prompt_tokens(
        self, client: httpx.AsyncClient, prompt: str, model: str
    ) -> tuple[int, bool]:
        """The prompt's token count and whether it is exact (``/tokenize``) or an estimate."""
        if self._can_tokenize:
            try:
                response = await client.post(
                    self.tokenize_url,
                    content=encode_json({"model": model, "prompt": prompt}),
                    headers={"content-type": "application/json"},
                )
                if response.status_code in (404, 405):
                    self._can_tokenize = False
                elif response.status_code == 200:
                    count = response.json().get("count")
                    if isinstance(count, int) and not isinstance(count, bool):
                        return count, True
            except (httpx.HTTPError, ValueError, AttributeError):
                pass
        size = len(prompt.encode("utf-8", "surrogatepass"))
        if self._tokens_per_byte:
            return min(size, math.ceil(size * self._tokens_per_byte * 1.1) + 16), False
        return size, False

    async def token_limit(self, client: httpx.AsyncClient, prompt: str, model: str) -> int | None:
        context = await self.max_model_len(client, model)
        if context is None:
            return self.default_max_tokens
        bound = prompt_token_bound(prompt)
        if bound * _FAR_FROM_CONTEXT <= context:  # what is left needs no count: no round trip
            return context - bound
        used, exact = await self.prompt_tokens(client, prompt, model)
        room = context - used
        if room < 1 and exact:
            raise BackendError(
                f"the prompt is {used} tokens: it leaves no room in the model's context "
                f"of {context} tokens",
                400,
                "messages",
            )
        return max(room, 1)

    def observe(self, prompt: str, usage: Usage | None) -> None:
        if usage is None or usage.prompt_tokens <= 0:
            return
        size = len(prompt.encode("utf-8", "surrogatepass"))
        if size:
            self._tokens_per_byte = max(self._tokens_per_byte, usage.prompt_tokens / size)

    def decoding(self) -> Decoding:
        return _CompletionsEvents()


class _CompletionsEvents(Decoding):
    """``/v1/completions`` chunks: the finish reason, then the usage chunk and ``[DONE]``
    (a stream with the finish reason and without ``[DONE]`` is whole too); an answer not
    streamed is one chunk with all of them."""

    def step(self, data: str, texts: list[str], logprobs: list[dict[str, Any]]) -> None:
        if data == "[DONE]":
            self.reason = self.reason or "stop"
            self.complete = True
            return
        if not data:
            return
        chunk = loads_object(data, "JSON (/v1/completions)")
        u = chunk.get("usage")
        if isinstance(u, dict):
            self.usage = usage_of(u.get("prompt_tokens"), u.get("completion_tokens"))
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, dict):
                continue
            text = choice.get("text")
            entries = choice_logprobs(choice.get("logprobs"))
            if isinstance(text, str) and (text or entries):
                texts.append(clean_text(text))
                logprobs.extend(entries)
            if choice.get("finish_reason"):
                self.reason = "length" if choice["finish_reason"] == "length" else "stop"
                self.stop = stop_reason_of(choice.get("stop_reason"))
