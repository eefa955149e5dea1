"""The prompts a vLLM server really sends its model: the probe set through its
``/tokenize`` and back through ``/detokenize``.

vLLM renders a chat request with the model's template (or its ``--chat-template``)
through transformers' ``apply_chat_template`` when ``POST /tokenize`` gets ``messages``,
and answers the token ids without running the model; ``POST /detokenize`` turns ids back
into text. Each probe is sent as a chat body the way a client sends it to vLLM's chat
endpoint: tool-call arguments as JSON strings (the OpenAI schema vLLM validates; it
decodes them for the template), documents as the ``documents`` template option,
``add_special_tokens`` false (vLLM's default for chat). The verdict compares token ids:
our prompt is tokenized by the same server (``/tokenize`` with ``prompt``), so a decode
that does not give text back exactly (a tokenizer that skips special tokens or cleans up
spaces when decoding) cannot make a false difference; the probes where it does not are
named in a note, and their diffs show the decoded text.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from typing import Any

import attrs

from .behaviour import Behaviour, Capabilities, capabilities_of, compare_renders, our_prompt
from .probes import Probe
from .remote import HTTPFailure, post, root
from .sources import DoctorError

__all__ = ["SAME_TEXT_OTHER_TOKENS", "VllmServer", "chat_body", "live_behaviour"]

#: What stands for a probe whose token ids differ although the decoded text is ours.
SAME_TEXT_OTHER_TOKENS = "\n<the same text as decoded by the server, but other token ids>"


def _message(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with its tool-call arguments as JSON strings."""
    calls = message.get("tool_calls")
    if not calls:
        return message
    sent = []
    for call in calls:
        function = dict(call["function"])
        if not isinstance(function["arguments"], str):
            function["arguments"] = json.dumps(function["arguments"], ensure_ascii=False)
        sent.append({**call, "function": function})
    return {**message, "tool_calls": sent}


def chat_body(probe: Probe, model: str) -> dict[str, Any]:
    """The ``/tokenize`` body for ``probe``, naming the served ``model``."""
    request = probe.request
    options = dict(request.get("chat_template_kwargs") or {})
    if request.get("documents") is not None:
        options["documents"] = request["documents"]
    body: dict[str, Any] = {
        "model": model,
        "messages": [_message(m) for m in request["messages"]],
        "add_generation_prompt": probe.add_generation_prompt,
        "continue_final_message": probe.continue_final_message,
        "add_special_tokens": False,
    }
    if request.get("tools") is not None:
        body["tools"] = request["tools"]
    if options:
        body["chat_template_kwargs"] = options
    return body


@attrs.define
class VllmServer:
    """A vLLM server at ``url`` serving ``model``: its tokenizer, through HTTP (with its
    ``api_key``, never shown)."""

    url: str
    model: str
    api_key: str | None = attrs.field(default=None, repr=False)

    def _post(self, path: str, body: dict[str, Any]) -> Any:
        try:
            return post(self.url, path, body, api_key=self.api_key)
        except HTTPFailure as exc:
            if exc.status == 404 and "does not exist" not in str(exc):
                raise DoctorError(
                    f"{root(self.url)}{path} answered 404: the backend is not a vLLM server"
                ) from None
            raise

    def _tokens(self, body: dict[str, Any]) -> list[int]:
        answer = self._post("/tokenize", body)
        tokens = answer.get("tokens") if isinstance(answer, dict) else None
        if not isinstance(tokens, list) or not all(type(t) is int for t in tokens):
            raise DoctorError(f"{root(self.url)}/tokenize did not answer a list of tokens")
        return tokens

    def tokenize_chat(self, probe: Probe) -> list[int]:
        """The token ids vLLM's template renders ``probe`` into."""
        return self._tokens(chat_body(probe, self.model))

    def tokenize_text(self, text: str) -> list[int]:
        """The token ids of ``text``, no special tokens added."""
        return self._tokens({"model": self.model, "prompt": text, "add_special_tokens": False})

    def detokenize(self, tokens: list[int]) -> str:
        """The text vLLM decodes ``tokens`` into."""
        answer = self._post("/detokenize", {"model": self.model, "tokens": tokens})
        prompt = answer.get("prompt") if isinstance(answer, dict) else None
        if not isinstance(prompt, str):
            raise DoctorError(f"{root(self.url)}/detokenize did not answer a prompt string")
        return prompt


def _renders(
    server: VllmServer, model: str, today: datetime.date, lossy: list[str]
) -> Callable[[Probe], str]:
    """The server's prompt for a probe: ours when the token ids agree, else its decode of
    its ids (probes whose round trip is not exact are added to ``lossy``)."""
    from .. import get_formatter

    formatter = get_formatter(model)
    cache: dict[str, str] = {}

    def theirs(probe: Probe) -> str:
        key = json.dumps(chat_body(probe, server.model), sort_keys=True)
        if key in cache:
            return cache[key]
        ours = our_prompt(formatter, probe, today)
        their_ids, our_ids = server.tokenize_chat(probe), server.tokenize_text(ours)
        if their_ids == our_ids:
            found = ours
        else:
            found = server.detokenize(their_ids)
            if server.detokenize(our_ids) != ours and probe.name not in lossy:
                lossy.append(probe.name)
            if found == ours:
                found += SAME_TEXT_OTHER_TOKENS
        cache[key] = found
        return found

    return theirs


def live_behaviour(
    url: str, model: str, served: str, *, api_key: str | None = None
) -> tuple[Behaviour, Capabilities, tuple[str, ...]]:
    """The probe set as the vLLM server at ``url`` tokenizes it for ``served``, against
    ``model``'s formatter; with notes on what the comparison could not see."""
    lossy: list[str] = []
    # the server renders the date of its clock
    today = datetime.date.today()
    theirs = _renders(VllmServer(url, served, api_key), model, today, lossy)
    behaviour = compare_renders(theirs, model, label="the server", today=today)
    found = capabilities_of(theirs)
    notes: tuple[str, ...] = ()
    if lossy:
        notes = (
            "the server's /detokenize does not give back the exact text of "
            + ", ".join(lossy)
            + " (its tokenizer's decode settings); the verdict compares token ids, the "
            "diffs show decoded text",
        )
    return behaviour, found, notes
