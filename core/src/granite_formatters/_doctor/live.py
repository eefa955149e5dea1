"""The prompts a running llama.cpp server really sends its model: the probe set through
its own template endpoint.

llama.cpp's ``llama-server`` renders a chat request with the template it loaded (from
the GGUF file or ``--chat-template-file``, with its own Jinja engine) and answers
``POST /apply-template`` with ``{"prompt": ...}`` without running the model. Each probe
is sent as a chat body (documents as the ``documents`` template option, the way a client
passes them to llama.cpp), and the prompt compared with our formatter's. Only the URL the
user gives is contacted.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from .behaviour import Behaviour, Capabilities, capabilities_of, compare_renders
from .probes import Probe
from .remote import TIMEOUT, HTTPFailure, post, root
from .sources import DoctorError

__all__ = ["apply_template", "live_behaviour"]


def _body(probe: Probe) -> dict[str, Any]:
    request = probe.request
    options = dict(request.get("chat_template_kwargs") or {})
    if request.get("documents") is not None:
        options["documents"] = request["documents"]
    body: dict[str, Any] = {
        "messages": request["messages"],
        "add_generation_prompt": probe.add_generation_prompt,
    }
    if request.get("tools") is not None:
        body["tools"] = request["tools"]
    if options:
        body["chat_template_kwargs"] = options
    return body


def apply_template(
    url: str, probe: Probe, timeout: float = TIMEOUT, *, api_key: str | None = None
) -> str:
    """The prompt the server at ``url`` renders for ``probe`` (``api_key``: its key)."""
    endpoint = root(url) + "/apply-template"
    try:
        answer = post(url, "/apply-template", _body(probe), timeout, api_key=api_key)
    except HTTPFailure as exc:
        if exc.status == 404:
            raise DoctorError(
                f"{endpoint} answered 404: the backend is not a llama.cpp llama-server"
            ) from None
        raise
    prompt = answer.get("prompt") if isinstance(answer, dict) else None
    if prompt is None:
        raise DoctorError(f"{endpoint} did not answer a JSON object with a prompt")
    if not isinstance(prompt, str):
        raise DoctorError(f"{endpoint} answered a prompt that is not a string")
    return prompt


def live_behaviour(
    url: str, model: str, *, api_key: str | None = None
) -> tuple[Behaviour, Capabilities]:
    """The probe set rendered by the server at ``url`` against ``model``'s formatter."""
    cache: dict[str, str] = {}

    def theirs(probe: Probe) -> str:
        key = json.dumps([_body(probe)], sort_keys=True)
        if key not in cache:
            cache[key] = apply_template(url, probe, api_key=api_key)
        return cache[key]

    # the server renders the date of its clock
    behaviour = compare_renders(theirs, model, label="the server", today=datetime.date.today())
    return behaviour, capabilities_of(theirs)
