"""The prompts a running server really sends its model: the probe set through its own
template endpoint.

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
import urllib.error
import urllib.request
from typing import Any

from .behaviour import Behaviour, Capabilities, capabilities_of, compare_renders
from .probes import Probe
from .sources import DoctorError

__all__ = ["TIMEOUT", "apply_template", "live_behaviour"]

#: Seconds to wait for one answer.
TIMEOUT = 30.0


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


def _root(url: str) -> str:
    root = url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def apply_template(url: str, probe: Probe, timeout: float = TIMEOUT) -> str:
    """The prompt the server at ``url`` renders for ``probe``."""
    endpoint = _root(url) + "/apply-template"
    data = json.dumps(_body(probe)).encode("utf-8")
    request = urllib.request.Request(
        endpoint, data=data, headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            raw = answer.read()
    except urllib.error.HTTPError as exc:
        detail = exc.read()[:200].decode("utf-8", "replace")
        if exc.code == 404:
            raise DoctorError(
                f"{endpoint} answered 404: the backend is not a llama.cpp llama-server"
            ) from None
        raise DoctorError(f"{endpoint} answered {exc.code}: {detail}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise DoctorError(f"cannot reach {endpoint}: {reason}") from None
    try:
        prompt = json.loads(raw)["prompt"]
    except (ValueError, KeyError, TypeError):
        raise DoctorError(f"{endpoint} did not answer a JSON object with a prompt") from None
    if not isinstance(prompt, str):
        raise DoctorError(f"{endpoint} answered a prompt that is not a string")
    return prompt


def live_behaviour(url: str, model: str) -> tuple[Behaviour, Capabilities]:
    """The probe set rendered by the server at ``url`` against ``model``'s formatter."""
    cache: dict[str, str] = {}

    def theirs(probe: Probe) -> str:
        key = json.dumps([_body(probe)], sort_keys=True)
        if key not in cache:
            cache[key] = apply_template(url, probe)
        return cache[key]

    # the server renders the date of its clock
    behaviour = compare_renders(theirs, model, label="the server", today=datetime.date.today())
    return behaviour, capabilities_of(theirs)
