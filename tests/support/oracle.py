"""Test support: the official chat templates as the oracle for prompt strings.

The reference folder (``shared/``: the official Hugging Face chat templates and the
renderer that reproduces transformers' ``apply_chat_template``) is found at
``$GRANITE_FORMATTERS_SHARED`` or next to the repository (``<repo>/../shared``).
Tests that need it call :func:`require_shared`, which skips with the reason when the
folder is absent.

:data:`TEMPLATE_INPUTS` says, for each release, how a request in granite-formatters'
shape (an OpenAI chat-completions body as vLLM accepts it) becomes the renderer's input
the way vLLM hands a request to that release's template (``extra_body`` merged,
``chat_template_kwargs`` passed as template variables, documents given there moved to
``documents``); :func:`template_input` applies it, and :func:`render` /
:func:`render_exact` render with it. Written independently of the package's own request
types on purpose.
"""

from __future__ import annotations

import copy
import datetime
import functools
import importlib.util
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from support.releases import RELEASES

REPO = Path(__file__).resolve().parents[2]

#: The oracle template of each release (see shared/chat-templates/README.md): the bundled
#: releases' declarations, and 3.1 (the example plugin's release).
TEMPLATES = {"3.1": "granite-3.1-8b-instruct.jinja"} | {r.version: r.template for r in RELEASES}


def shared_dir() -> Path | None:
    """The reference folder, or ``None`` when it is not available."""
    configured = os.environ.get("GRANITE_FORMATTERS_SHARED")
    candidate = Path(configured) if configured else REPO.parent / "shared"
    if (candidate / "tools" / "render_chat_template.py").is_file():
        return candidate
    return None


def skip_reason() -> str:
    return (
        "the official chat templates are not available: set GRANITE_FORMATTERS_SHARED to "
        "the reference folder (with chat-templates/ and tools/render_chat_template.py) or "
        f"place it at {REPO.parent / 'shared'}"
    )


def under_ci() -> bool:
    """Whether the suite runs in CI (the ``CI`` environment variable is set and not empty).

    In CI the official templates are required: their absence fails the tests that need
    them instead of skipping them, so a green CI always means "checked against the
    official template".
    """
    return bool(os.environ.get("CI"))


def require_shared() -> Path:
    """The reference folder; skips the calling test when it is absent (fails it in CI)."""
    found = shared_dir()
    if found is None:
        if under_ci():
            pytest.fail("CI is set, and " + skip_reason(), pytrace=False)
        pytest.skip(skip_reason())
    return found


#: Marks tests that render the official templates: skipped without the reference folder,
#: except in CI, where they run and fail in :func:`require_shared`.
needs_shared = pytest.mark.skipif(shared_dir() is None and not under_ci(), reason=skip_reason())


@functools.cache
def load_renderer() -> ModuleType:
    """``tools/render_chat_template.py`` of the reference folder, imported by path."""
    path = require_shared() / "tools" / "render_chat_template.py"
    spec = importlib.util.spec_from_file_location("render_chat_template", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def template_text(release: str) -> str:
    return (require_shared() / "chat-templates" / TEMPLATES[release]).read_text(encoding="utf-8")


def _join_parts(content: Any) -> Any:
    if isinstance(content, list):
        return "\n".join(part if isinstance(part, str) else part["text"] for part in content)
    return content


def _input(
    request: Mapping[str, Any], add_generation_prompt: bool, *, join_parts: bool
) -> dict[str, Any]:
    extra_body = dict(request.get("extra_body") or {})
    kwargs = dict(
        request.get("chat_template_kwargs") or extra_body.get("chat_template_kwargs") or {}
    )
    documents = (
        request.get("documents") or extra_body.get("documents") or kwargs.pop("documents", None)
    )
    data: dict[str, Any] = {
        "messages": [
            {**message, "content": _join_parts(message.get("content"))}
            if join_parts
            else dict(message)
            for message in request["messages"]
        ],
        "add_generation_prompt": add_generation_prompt,
    }
    if request.get("tools") is not None:
        data["tools"] = request["tools"]
    if documents is not None:
        data["documents"] = documents
    # A template option set to null means "not given" (vLLM's own default is absent).
    data["kwargs"] = {key: value for key, value in kwargs.items() if value is not None}
    return data


def renderer_input(request: Mapping[str, Any], add_generation_prompt: bool) -> dict[str, Any]:
    """The renderer's input for ``request`` with text parts joined with newlines (as vLLM
    joins them for a template that reads strings only)."""
    return _input(request, add_generation_prompt, join_parts=True)


def content_parts_input(request: Mapping[str, Any], add_generation_prompt: bool) -> dict[str, Any]:
    """The renderer's input for ``request`` with content-part lists passed as they are (a
    template that reads ``{"type": "text"}`` parts itself and drops the others)."""
    return _input(request, add_generation_prompt, join_parts=False)


def served_input(request: Mapping[str, Any], add_generation_prompt: bool) -> dict[str, Any]:
    """The renderer's input for ``request`` as a server prepares it (see
    :func:`server_request`), text parts joined."""
    return renderer_input(server_request(request), add_generation_prompt)


#: A way of handing a request to a template: ``(request, add_generation_prompt)`` to the
#: renderer's input.
TemplateInput = Callable[[Mapping[str, Any], bool], dict[str, Any]]

#: How each kind of template is handed a request, by the name a release declares as
#: ``oracle`` in its plugin's ``[tool.granite-formatters]`` table.
ORACLE_INPUTS: dict[str, TemplateInput] = {
    "text-parts-joined": renderer_input,
    "content-parts": content_parts_input,
    "served": served_input,
}

#: How each release's template is handed a request: the bundled releases' declarations,
#: and 3.1 (the example plugin's release).
TEMPLATE_INPUTS: dict[str, TemplateInput] = {"3.1": renderer_input} | {
    r.version: ORACLE_INPUTS[r.oracle] for r in RELEASES
}


def template_input(
    release: str, request: Mapping[str, Any], add_generation_prompt: bool = True
) -> dict[str, Any]:
    """The renderer's input for ``request`` as release ``release``'s template is given it."""
    return TEMPLATE_INPUTS[release](request, add_generation_prompt)


def _now(today: datetime.date) -> datetime.datetime:
    return datetime.datetime.combine(today, datetime.time(0, 0))


def render_exact(
    release: str,
    request: Mapping[str, Any],
    add_generation_prompt: bool = True,
    today: datetime.date = datetime.date(2025, 4, 16),
) -> str:
    """The official template's prompt, rendered by the shared renderer's ``render()``."""
    renderer = load_renderer()
    data = template_input(release, request, add_generation_prompt)
    return str(renderer.render(template_text(release), data, _now(today)))


@functools.cache
def _compiled(release: str) -> Any:
    renderer = load_renderer()
    environment = renderer.make_environment(datetime.datetime(2000, 1, 1))
    return environment.from_string(template_text(release))


def render(
    release: str,
    request: Mapping[str, Any],
    add_generation_prompt: bool = True,
    today: datetime.date = datetime.date(2025, 4, 16),
    *,
    given: TemplateInput | None = None,
) -> str:
    """Like :func:`render_exact`, with the template compiled once (for property tests).

    Same environment and arguments as the renderer's ``render()``; only the clock is
    passed per call (a render variable shadows the environment's ``strftime_now``).
    ``given`` overrides how the template is handed the request (by default as the
    release's template is, :data:`TEMPLATE_INPUTS`).
    """
    renderer = load_renderer()
    data = (given or TEMPLATE_INPUTS[release])(request, add_generation_prompt)
    messages, tools, documents, generation, kwargs = renderer.split_input(data)
    now = _now(today)
    return str(
        _compiled(release).render(
            messages=renderer._normalize_messages(messages),
            tools=tools,
            documents=documents,
            add_generation_prompt=generation,
            **kwargs,
            strftime_now=now.strftime,
        )
    )


def _rendered_calls(calls: list[Any]) -> str:
    items = []
    for call in calls:
        function = call.get("function", call)
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            arguments = json.loads(arguments) if arguments.strip() else None
        items.append(
            {"name": function["name"], "arguments": {} if arguments is None else arguments}
        )
    return "<|tool_call|>" + json.dumps(items, ensure_ascii=False)


def with_tool_calls_rendered(request: Mapping[str, Any]) -> dict[str, Any]:
    """``request`` with each assistant message's OpenAI ``tool_calls`` folded into its content.

    The strict mode's one deliberate departure from the template (docs/deviations.md):
    the calls are rendered after the content as the model writes them, ``<|tool_call|>``
    plus ``tojson`` (``json.dumps(..., ensure_ascii=False)``) of the ``{"name",
    "arguments"}`` list, arguments decoded from their JSON string. Rendering the folded
    request with the template gives the expected strict-mode prompt. Written without the
    package, on purpose.
    """
    messages = []
    for message in request["messages"]:
        if message.get("role") == "assistant" and message.get("tool_calls"):
            content = _join_parts(message.get("content")) or ""
            message = {**message, "content": content + _rendered_calls(message["tool_calls"])}
            del message["tool_calls"]
        messages.append(message)
    return {**request, "messages": messages}


def sync_golden_files(
    files: Mapping[Path, str], folders: Mapping[str, Path], *, check: bool
) -> int:
    """Make each folder in ``folders`` (name -> golden folder) hold exactly ``files``.

    Stale ``*.json``/``*.txt`` files are deleted and changed ones written, or with
    ``check`` only reported. Prints one line per change and a summary; returns the exit
    status of a ``make_goldens`` script (1 when ``check`` found differences).
    """
    changed: list[str] = []
    for folder in folders.values():
        for stale in sorted(folder.glob("*.json")) + sorted(folder.glob("*.txt")):
            if stale not in files:
                changed.append(f"delete {stale.relative_to(REPO)}")
                if not check:
                    stale.unlink()
    for path, content in files.items():
        current = path.read_bytes() if path.exists() else None
        if current != content.encode("utf-8"):
            changed.append(f"write {path.relative_to(REPO)}")
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content.encode("utf-8"))
    for line in changed:
        print(line)
    counts = {
        name: sum(1 for p in files if p.parent == d and p.name.endswith(".prompt.txt"))
        for name, d in folders.items()
    }
    counts = {name: count for name, count in counts.items() if count}
    print(
        f"{len(changed)} file(s) {'would change' if check else 'changed'}; "
        f"cases per release: {counts}"
    )
    return 1 if check and changed else 0


def server_request(request: Mapping[str, Any]) -> dict[str, Any]:
    """What a server (vLLM) hands the template for ``request``: JSON-string tool-call
    arguments decoded, the top-level ``reasoning_effort`` passed as a template option and
    turning thinking off when ``"none"`` (unless ``enable_thinking`` is given)."""
    served: dict[str, Any] = copy.deepcopy(dict(request))
    for message in served["messages"]:
        for call in message.get("tool_calls") or ():
            function = call.get("function", call)
            if isinstance(function.get("arguments"), str):
                function["arguments"] = json.loads(function["arguments"])
    effort = served.pop("reasoning_effort", None)
    if effort is not None:
        options = served.setdefault("chat_template_kwargs", {})
        if options.get("reasoning_effort") is None:
            options["reasoning_effort"] = effort
        if options.get("enable_thinking") is None:
            options["enable_thinking"] = effort != "none"
    return served
