"""(Re)generate the golden prompts of this plugin from the OFFICIAL Granite 3.1 template.

Every expected prompt is rendered from ``granite-3.1-8b-instruct.jinja`` (the
``chat_template`` of ``ibm-granite/granite-3.1-8b-instruct``) by the renderer that
reproduces transformers' ``apply_chat_template``; nothing here imports the plugin.
The reference folder (``chat-templates/`` and ``tools/render_chat_template.py``) is
found at ``--shared``, ``$GRANITE_FORMATTERS_SHARED`` or ``<repo>/../shared`` (the
granite-formatters repository holding this example). Needs jinja2::

    python tests/make_goldens.py            # rewrite tests/golden/
    python tests/make_goldens.py --check    # only report files that would change

Each case ``<name>`` becomes ``golden/<name>.json`` (``request``, ``date``,
``add_generation_prompt`` and, when the case renders special tokens verbatim,
``special_tokens``) and ``golden/<name>.prompt.txt`` (the exact prompt, UTF-8, nothing
appended): the layout ``granite_formatters.testing.load_golden_cases`` reads. The
golden files are committed, so the tests need neither jinja2 nor the reference folder.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
REPO = HERE.parents[2]
TEMPLATE = "granite-3.1-8b-instruct.jinja"
DEFAULT_DATE = "2025-04-16"

# ----------------------------------------------------------------------------- cases

HI: list[dict[str, Any]] = [{"role": "user", "content": "Hi"}]
CONVERSATION: list[dict[str, Any]] = [
    {"role": "user", "content": "What is the capital of France?"},
    {"role": "assistant", "content": "The capital of France is Paris."},
    {"role": "user", "content": "And of Italy?"},
]
WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "The city, e.g. San Francisco"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}
UNICODE_TOOL: dict[str, Any] = {
    "name": "météo_ville",
    "description": "Donne la météo d'une ville — 天気 <b>&'\"quoted\"'",
    "parameters": {
        "type": "object",
        "properties": {"ville": {"type": "string", "description": "Nom (é, ß, 中文)"}},
    },
}
DOCUMENTS: list[dict[str, Any]] = [
    {"doc_id": "d1", "title": "France", "text": "Paris is the capital of France."},
    {"doc_id": 7, "text": "Rome is the capital of Italy.\nIt has about 2.8 million people."},
]
QUESTION: list[dict[str, Any]] = [
    {"role": "user", "content": "What are the capitals of France and Italy?"}
]
TOOL_RESULTS: list[dict[str, Any]] = [
    {"role": "user", "content": "What's the weather in Paris?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_current_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"temperature": 18, "unit": "C"}'},
    {"role": "assistant", "content": "It is 18 °C in Paris."},
    {"role": "user", "content": "And in Lyon?"},
]

# A past tool call written as the model writes it (the special token, then the JSON list).
TOOL_CALL_HISTORY: list[dict[str, Any]] = [
    {"role": "user", "content": "What's the weather in Paris?"},
    {
        "role": "assistant",
        "content": '<|tool_call|>[{"name": "get_current_weather", "arguments": {"city": "Paris"}}]',
    },
    {"role": "tool", "content": '{"temperature": 18, "unit": "C"}'},
]


def case(
    messages: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None = None,
    documents: list[dict[str, Any]] | None = None,
    controls: dict[str, Any] | None = None,
    kwargs: dict[str, Any] | None = None,
    add_generation_prompt: bool = True,
    date: str = DEFAULT_DATE,
    special_tokens: str | None = None,
) -> dict[str, Any]:
    request: dict[str, Any] = {"messages": messages}
    if tools is not None:
        request["tools"] = tools
    if documents is not None:
        request["documents"] = documents
    options = dict(kwargs or {})
    if controls is not None:
        options["controls"] = controls
    if options:
        request["chat_template_kwargs"] = options
    data: dict[str, Any] = {
        "request": request,
        "date": date,
        "add_generation_prompt": add_generation_prompt,
    }
    if special_tokens is not None:
        data["special_tokens"] = special_tokens
    return data


CASES: dict[str, dict[str, Any]] = {
    "plain": case(HI),
    "plain_no_generation_prompt": case(HI, add_generation_prompt=False),
    "multi_turn": case(CONVERSATION),
    "multi_turn_no_generation_prompt": case(CONVERSATION, add_generation_prompt=False),
    "date_new_year": case(HI, date="2026-01-01"),
    "custom_system": case([{"role": "system", "content": "You are a pirate."}, *HI]),
    "custom_system_tools_and_documents": case(
        [{"role": "system", "content": "Answer briefly."}, *QUESTION],
        tools=[WEATHER],
        documents=DOCUMENTS,
    ),
    "later_system_turn": case([*HI, {"role": "system", "content": "Be brief."}]),
    "system_only": case([{"role": "system", "content": "Nothing else."}]),
    "thinking_false": case(HI, kwargs={"thinking": False}),
    "tools": case([{"role": "user", "content": "Weather in Paris?"}], tools=[WEATHER]),
    "tools_unicode": case([{"role": "user", "content": "Météo à Lyon ?"}], tools=[UNICODE_TOOL]),
    "tool_results": case(TOOL_RESULTS, tools=[WEATHER]),
    "tool_call_in_history": case(TOOL_CALL_HISTORY, tools=[WEATHER]),
    "documents": case(QUESTION, documents=DOCUMENTS),
    "documents_no_generation_prompt": case(
        QUESTION, documents=DOCUMENTS, add_generation_prompt=False
    ),
    "tools_and_documents": case(QUESTION, tools=[WEATHER], documents=DOCUMENTS),
    "citations": case(QUESTION, documents=DOCUMENTS, controls={"citations": True}),
    "hallucinations": case(QUESTION, documents=DOCUMENTS, controls={"hallucinations": True}),
    "citations_and_hallucinations": case(
        QUESTION,
        documents=DOCUMENTS,
        controls={"hallucinations": True, "citations": True},
    ),
    "citations_false_with_documents": case(
        QUESTION, documents=DOCUMENTS, controls={"citations": False}
    ),
    "tools_and_documents_citations": case(
        QUESTION,
        tools=[WEATHER],
        documents=DOCUMENTS,
        controls={"citations": True, "hallucinations": True},
    ),
    "length_and_originality": case(
        QUESTION,
        documents=DOCUMENTS,
        controls={"length": "short", "originality": "extractive"},
    ),
    "keep_special_tokens_in_user": case(
        [{"role": "user", "content": "Say <|end_of_text|> please."}], special_tokens="keep"
    ),
}

# ----------------------------------------------------------------------------- rendering


def find_shared(explicit: str | None = None) -> Path | None:
    """The reference folder, or ``None`` when it is absent."""
    configured = explicit or os.environ.get("GRANITE_FORMATTERS_SHARED")
    folder = Path(configured) if configured else REPO.parent / "shared"
    if (folder / "tools" / "render_chat_template.py").is_file():
        return folder
    return None


def missing_shared_reason() -> str:
    return (
        f"the official chat templates are not available: set GRANITE_FORMATTERS_SHARED to "
        f"the folder holding chat-templates/ and tools/render_chat_template.py, or place it "
        f"at {REPO.parent / 'shared'}"
    )


def require_shared() -> Path:
    """For the tests: the reference folder; skips the test without it (fails it in CI)."""
    import pytest

    shared = find_shared()
    if shared is None:
        if os.environ.get("CI"):  # in CI the oracle is required, not optional
            pytest.fail("CI is set, and " + missing_shared_reason(), pytrace=False)
        pytest.skip(missing_shared_reason())
    return shared


def load_renderer(shared: Path) -> Any:
    """``tools/render_chat_template.py`` of the reference folder, imported by path."""
    path = shared / "tools" / "render_chat_template.py"
    spec = importlib.util.spec_from_file_location("render_chat_template", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def with_tool_calls_in_content(message: dict[str, Any]) -> dict[str, Any]:
    """An assistant message's OpenAI ``tool_calls`` folded into its content.

    granite-formatters renders them as the model writes them (``<|tool_call|>`` and the
    JSON list of ``{"name", "arguments"}``, arguments decoded), where the template drops
    them: its one documented deviation (docs/deviations.md of the core repository).
    """
    calls = message.get("tool_calls")
    if message.get("role") != "assistant" or not calls:
        return message
    items = []
    for call in calls:
        function = call.get("function", call)
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            arguments = json.loads(arguments) if arguments.strip() else None
        items.append({"name": function["name"], "arguments": arguments or {}})
    folded = {key: value for key, value in message.items() if key != "tool_calls"}
    folded["content"] = (
        (message.get("content") or "") + "<|tool_call|>" + json.dumps(items, ensure_ascii=False)
    )
    return folded


def renderer_input(data: dict[str, Any]) -> dict[str, Any]:
    """The renderer's input: template variables as transformers passes them."""
    request = data["request"]
    rendered: dict[str, Any] = {
        "messages": [with_tool_calls_in_content(message) for message in request["messages"]],
        "add_generation_prompt": data["add_generation_prompt"],
        "kwargs": dict(request.get("chat_template_kwargs", {})),
    }
    for key in ("tools", "documents"):
        if key in request:
            rendered[key] = request[key]
    return rendered


def render_official(renderer: Any, template: str, data: dict[str, Any]) -> str:
    """The official template's prompt for one case (``request``, ``date``, ...)."""
    day = datetime.date.fromisoformat(data["date"])
    now = datetime.datetime.combine(day, datetime.time(0, 0))
    return str(renderer.render(template, renderer_input(data), now))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", help="the reference folder")
    parser.add_argument("--check", action="store_true", help="report differences only")
    args = parser.parse_args()
    shared = find_shared(args.shared)
    if shared is None:
        sys.exit(missing_shared_reason())
    renderer = load_renderer(shared)
    template = (shared / "chat-templates" / TEMPLATE).read_text(encoding="utf-8")
    wanted: dict[Path, bytes] = {}
    for name, data in CASES.items():
        prompt = render_official(renderer, template, data)
        document = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        wanted[GOLDEN / f"{name}.json"] = document.encode("utf-8")
        wanted[GOLDEN / f"{name}.prompt.txt"] = prompt.encode("utf-8")
    existing = set(GOLDEN.glob("*.json")) | set(GOLDEN.glob("*.prompt.txt"))
    stale = sorted(existing - set(wanted))
    changed = sorted(p for p, b in wanted.items() if not p.is_file() or p.read_bytes() != b)
    if args.check:
        for path in changed + stale:
            print(f"would change: {path.relative_to(HERE)}")
        return 1 if changed or stale else 0
    GOLDEN.mkdir(exist_ok=True)
    for path in changed:
        path.write_bytes(wanted[path])
    for path in stale:
        path.unlink()
    print(f"{len(CASES)} cases: {len(changed)} files written, {len(stale)} removed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
