"""The official Granite 4.0 / 4.1 templates as the oracle (see tests/support/oracle.py).

Unlike :func:`oracle.renderer_input`, content-part lists are passed to the template as
they are: the Granite 4 templates read ``{"type": "text"}`` parts themselves (and drop
the others), which is one of the behaviours under test. Everything else is handed over
the way vLLM does: ``extra_body`` merged, ``chat_template_kwargs`` as template
variables, documents given in ``chat_template_kwargs`` moved to ``documents``.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from support import oracle

RELEASES = ("4.0", "4.1")
#: The model the goldens and differential tests format with, per release.
MODELS = {"4.0": "granite-4.0-h-tiny", "4.1": "granite-4.1-8b"}

require_shared = oracle.require_shared
shared_dir = oracle.shared_dir


def renderer_input(request: Mapping[str, Any], add_generation_prompt: bool) -> dict[str, Any]:
    """The renderer's input for ``request`` (granite-formatters' request shape)."""
    extra_body = dict(request.get("extra_body") or {})
    kwargs = dict(
        request.get("chat_template_kwargs") or extra_body.get("chat_template_kwargs") or {}
    )
    documents = (
        request.get("documents") or extra_body.get("documents") or kwargs.pop("documents", None)
    )
    data: dict[str, Any] = {
        "messages": [dict(message) for message in request["messages"]],
        "add_generation_prompt": add_generation_prompt,
    }
    if request.get("tools") is not None:
        data["tools"] = request["tools"]
    if documents is not None:
        data["documents"] = documents
    data["kwargs"] = {key: value for key, value in kwargs.items() if value is not None}
    return data


def render_exact(
    release: str, request: Mapping[str, Any], add_generation_prompt: bool = True
) -> str:
    """The official template's prompt, rendered by the shared renderer's ``render()``."""
    renderer = oracle.load_renderer()
    data = renderer_input(request, add_generation_prompt)
    return str(
        renderer.render(oracle.template_text(release), data, datetime.datetime(2025, 4, 16, 0, 0))
    )


def render(release: str, request: Mapping[str, Any], add_generation_prompt: bool = True) -> str:
    """Like :func:`render_exact`, with the template compiled once (for property tests)."""
    renderer = oracle.load_renderer()
    data = renderer_input(request, add_generation_prompt)
    messages, tools, documents, generation, kwargs = renderer.split_input(data)
    return str(
        oracle._compiled(release).render(
            messages=renderer._normalize_messages(messages),
            tools=tools,
            documents=documents,
            add_generation_prompt=generation,
            **kwargs,
        )
    )
