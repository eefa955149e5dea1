"""(Re)generate the golden prompt files of the Granite 4 releases (4.0, 4.1 and 4.2).

Every expected prompt is rendered from the OFFICIAL chat template
(``shared/chat-templates/granite-4.0.jinja``, ``granite-4.1.jinja``, ``granite-4.2.jinja``)
by running the shared renderer ``shared/tools/render_chat_template.py`` as a program
(located as in ``tests/support/oracle.py``); nothing here uses the package. Run from the
repository root::

    python tests/make_goldens_granite4.py            # rewrite tests/golden/granite4*/
    python tests/make_goldens_granite4.py --check    # only report files that would change

For each family (``granite4``: 4.0/4.1; ``granite42``: 4.2, whose template reads strings
only, so content parts are given to it joined with newlines as vLLM joins them, and
JSON-string tool-call arguments decoded as vLLM decodes them) and each case ``<name>``
it writes one request file ``requests/<name>.json`` (``request``,
``add_generation_prompt`` and, where the case renders special tokens verbatim,
``special_tokens``) and, for each release of the family in ``support.releases`` the
case applies to, ``<release>/<name>.prompt.txt`` (the exact prompt, UTF-8, nothing
appended), all under ``tests/golden/<family>/`` (the layout
``support.golden.load_golden_cases`` reads), and deletes golden files of cases that no
longer exist. Re-running the script reproduces the files byte for byte.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support import oracle, oracle4, releases
from support.golden import prompts_dir, requests_dir

FAMILY = "granite4"
REQUESTS = requests_dir(FAMILY)
PROMPT_DIRS = {r.version: prompts_dir(FAMILY, r.version) for r in releases.of_family(FAMILY)}
FAMILY_42 = "granite42"

# --------------------------------------------------------------------------- building blocks

HI = [{"role": "user", "content": "Hi"}]
WEATHER = {
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
}
WEATHER_OPENAI = {"type": "function", "function": WEATHER}
STOCK_OPENAI = {
    "type": "function",
    "function": {
        "name": "get_stock_price",
        "description": "Retrieves the current stock price for a given ticker symbol.",
        "parameters": {
            "type": "object",
            "properties": {"ticker": {"type": "string", "description": "e.g. IBM"}},
            "required": ["ticker"],
        },
    },
}
# Key order, non-ASCII text and the characters Jinja's own tojson would escape (< > & ').
UNUSUAL_TOOL = {
    "parameters": {"type": "object", "properties": {"größe": {"type": "number"}}},
    "name": "umrechnen",
    "description": "Rechnet <Einheiten> um & gibt's zurück: 東京 ✓",
}
DOCS = [
    {"doc_id": 1, "title": "Paris", "text": "Paris is the capital of France."},
    {"doc_id": 2, "title": "Rome", "text": "Rome is the capital of Italy."},
]
DOCS_UNUSUAL = [
    {"text": "Granite 4.0 was released in October 2025.", "doc_id": "news-7", "source": "blog"},
    {"title": "Ohne ID", "text": "Dokument ohne doc_id — «Anführungszeichen»"},
]
CALL_STRING = {
    "id": "call_1",
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "arguments": '{"city": "Boston", "unit": "celsius"}',
    },
}
CALL_OBJECT = {
    "id": "call_2",
    "type": "function",
    "function": {"name": "get_stock_price", "arguments": {"ticker": "IBM"}},
}
ASK_WEATHER = {"role": "user", "content": "What's the weather in Boston?"}
RESULT = {"role": "tool", "tool_call_id": "call_1", "content": '{"temperature": 21}'}


def case(name: str, messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"name": name, "request": {"messages": messages, **extra.pop("request", {})}, **extra}


CASES: list[dict[str, Any]] = [
    case("hi", HI),
    case("system_string", [{"role": "system", "content": "You are a pirate."}, *HI]),
    case("system_empty", [{"role": "system", "content": ""}, *HI]),
    case("system_empty_only", [{"role": "system", "content": ""}]),
    case("system_only", [{"role": "system", "content": "Be brief."}]),
    case(
        "system_text_parts",
        [
            {
                "role": "system",
                "content": [
                    {"type": "text", "text": ""},
                    {"type": "text", "text": "Be brief."},
                    {"type": "text", "text": "Answer in French."},
                ],
            },
            *HI,
        ],
    ),
    case("no_generation_prompt", HI, add_generation_prompt=False),
    case(
        "conversation",
        [
            {"role": "user", "content": "What is the capital of France?"},
            {"role": "assistant", "content": "The capital of France is Paris."},
            {"role": "user", "content": "And of Italy?"},
        ],
    ),
    case(
        "user_text_parts",
        [
            {
                "role": "user",
                "content": [{"type": "text", "text": "Line one"}, {"type": "text", "text": "two"}],
            }
        ],
    ),
    case("user_null_content", [{"role": "user", "content": None}]),
    case("tools_openai", [ASK_WEATHER], request={"tools": [WEATHER_OPENAI, STOCK_OPENAI]}),
    case("tools_flat_unusual", [ASK_WEATHER], request={"tools": [WEATHER, UNUSUAL_TOOL]}),
    case(
        "tools_with_system",
        [{"role": "system", "content": "You are a weather bot."}, ASK_WEATHER],
        request={"tools": [WEATHER_OPENAI]},
    ),
    case(
        "tools_with_empty_system",
        [{"role": "system", "content": ""}, ASK_WEATHER],
        request={"tools": [WEATHER_OPENAI]},
    ),
    case("tools_empty_list", HI, request={"tools": []}),
    case(
        "documents",
        [{"role": "user", "content": "Capital of France?"}],
        request={"documents": DOCS},
    ),
    case(
        "documents_unusual",
        [{"role": "user", "content": "When?"}],
        request={"documents": DOCS_UNUSUAL},
    ),
    case(
        "documents_in_extra_body",
        [{"role": "user", "content": "Capital of Italy?"}],
        request={"extra_body": {"documents": DOCS}},
    ),
    case(
        "documents_in_chat_template_kwargs",
        [{"role": "user", "content": "Capital of Italy?"}],
        request={"chat_template_kwargs": {"documents": DOCS}},
    ),
    case(
        "tools_and_documents",
        [ASK_WEATHER],
        request={"tools": [WEATHER_OPENAI], "documents": DOCS},
    ),
    case(
        "tools_documents_system",
        [{"role": "system", "content": "Be helpful."}, ASK_WEATHER],
        request={"tools": [WEATHER_OPENAI], "documents": DOCS},
    ),
    case(
        "tools_documents_empty_system",
        [{"role": "system", "content": ""}, ASK_WEATHER],
        request={"tools": [WEATHER_OPENAI], "documents": DOCS},
    ),
    case(
        "available_tools",
        [ASK_WEATHER],
        request={"chat_template_kwargs": {"available_tools": [STOCK_OPENAI]}},
    ),
    case(
        "tool_call_string_arguments",
        [ASK_WEATHER, {"role": "assistant", "content": "", "tool_calls": [CALL_STRING]}, RESULT],
        request={"tools": [WEATHER_OPENAI]},
    ),
    case(
        "tool_call_object_arguments",
        [
            {"role": "user", "content": "IBM stock?"},
            {"role": "assistant", "content": None, "tool_calls": [CALL_OBJECT]},
        ],
        request={"tools": [STOCK_OPENAI]},
    ),
    case(
        "tool_call_with_text",
        [
            ASK_WEATHER,
            {"role": "assistant", "content": "Let me check.", "tool_calls": [CALL_STRING]},
        ],
    ),
    case(
        "tool_call_flat_form",
        [
            ASK_WEATHER,
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"name": "get_current_weather", "arguments": {"city": "Zürich"}}],
            },
        ],
    ),
    case(
        "parallel_tool_calls",
        [
            {"role": "user", "content": "Weather in Boston and IBM stock?"},
            {"role": "assistant", "content": "", "tool_calls": [CALL_STRING, CALL_OBJECT]},
            RESULT,
            {"role": "tool", "tool_call_id": "call_2", "content": "152.3"},
        ],
        request={"tools": [WEATHER_OPENAI, STOCK_OPENAI]},
    ),
    case(
        "tool_results_separated",
        [
            ASK_WEATHER,
            {"role": "assistant", "content": "", "tool_calls": [CALL_STRING]},
            RESULT,
            {"role": "user", "content": "And tomorrow?"},
            {"role": "tool", "tool_call_id": "call_3", "content": "rain"},
        ],
    ),
    case(
        "round_trip",
        [
            {"role": "system", "content": "You are a concise assistant."},
            ASK_WEATHER,
            {"role": "assistant", "content": "", "tool_calls": [CALL_STRING]},
            RESULT,
            {"role": "assistant", "content": "It is 21 °C in Boston."},
            {"role": "user", "content": "Thanks!"},
        ],
        request={"tools": [WEATHER_OPENAI]},
    ),
    case(
        "later_system_message",
        [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
            {"role": "system", "content": "From now on, answer in German."},
            {"role": "user", "content": "How are you?"},
        ],
    ),
    case(
        "final_assistant_turn",
        [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}],
    ),
    case(
        "special_tokens_kept",
        [{"role": "user", "content": "Explain <tool_call> and <|end_of_text|> tags."}],
        special_tokens="keep",
    ),
    case(
        "past_tool_call_in_content",
        [
            ASK_WEATHER,
            {
                "role": "assistant",
                "content": '<tool_call>\n{"name": "get_current_weather", "arguments": '
                '{"city": "Boston"}}\n</tool_call>',
            },
            RESULT,
        ],
    ),
]


# --------------------------------------------------------------------------- Granite 4.2

BOOK_OPENAI = {
    "type": "function",
    "function": {
        "name": "book_table",
        "description": "Book a table <at a restaurant> & say so; it's fine: 東京 ✓",
        "parameters": {
            "type": "object",
            "properties": {"seats": {"type": "integer"}, "when": {"type": "string"}},
        },
        "strict": True,
    },
}
DEFERRED = {"name": "rare_tool", "description": "Loaded on demand", "defer_loading": True}
CALL_VALUES = {
    "id": "call_3",
    "type": "function",
    "function": {
        "name": "book_table",
        "arguments": {
            "seats": 2,
            "vip": True,
            "note": None,
            "price": 1.5,
            "when": "tonight\nat 8",
            "menu": ["pasta", "é<&>"],
            "extra": {"wine": "red"},
        },
    },
}
THOUGHT = {"role": "assistant", "content": "Paris.", "reasoning_content": "The capital."}
THINK_IN_CONTENT = {"role": "assistant", "content": "<think>\nHmm.\n</think>\n\nRome."}

CASES_42: list[dict[str, Any]] = [
    case("hi", HI),
    case("hi_no_generation_prompt", HI, add_generation_prompt=False),
    case("system", [{"role": "system", "content": "Be brief."}, *HI]),
    case("system_only", [{"role": "system", "content": "Be brief."}]),
    case("thinking_off", HI, request={"chat_template_kwargs": {"enable_thinking": False}}),
    case("low_effort", HI, request={"chat_template_kwargs": {"low_effort": True}}),
    case("reasoning_effort_low", HI, request={"chat_template_kwargs": {"reasoning_effort": "low"}}),
    case("reasoning_effort_none_top_level", HI, request={"reasoning_effort": "none"}),
    case("reasoning_effort_low_top_level", HI, request={"reasoning_effort": "low"}),
    case("tools_openai", [ASK_WEATHER], request={"tools": [WEATHER_OPENAI, BOOK_OPENAI]}),
    case(
        "tools_flat_deferred_and_system",
        [{"role": "system", "content": "Use tools."}, ASK_WEATHER],
        request={"tools": [WEATHER, DEFERRED, UNUSUAL_TOOL]},
    ),
    case("tools_all_deferred", [ASK_WEATHER], request={"tools": [DEFERRED]}),
    case(
        "content_parts",
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Part one."},
                    {"type": "text", "text": "Part two."},
                ],
            }
        ],
    ),
    case("history_reasoning", [*HI, THOUGHT, {"role": "user", "content": "And Italy?"}]),
    case(
        "history_reasoning_kept",
        [*HI, THOUGHT, {"role": "user", "content": "And Italy?"}],
        request={"chat_template_kwargs": {"truncate_history_thinking": False}},
    ),
    case("history_think_in_content", [*HI, THINK_IN_CONTENT, {"role": "user", "content": "OK"}]),
    case("last_turn_reasoning", [*HI, THOUGHT], add_generation_prompt=False),
    case(
        "tool_call_loop",
        [
            ASK_WEATHER,
            {
                "role": "assistant",
                "content": "",
                "reasoning_content": "Need data.",
                "tool_calls": [CALL_STRING, CALL_OBJECT],
            },
            RESULT,
            {"role": "tool", "tool_call_id": "call_2", "content": "IBM: 250"},
        ],
        request={"tools": [WEATHER_OPENAI, STOCK_OPENAI]},
    ),
    case(
        "tool_call_values_truncated",
        [
            ASK_WEATHER,
            {
                "role": "assistant",
                "content": "<think>plan</think>Booking.",
                "tool_calls": [CALL_VALUES],
            },
            {"role": "tool", "tool_call_id": "call_3", "content": "booked"},
            {"role": "user", "content": "Thanks!"},
        ],
        request={"tools": [BOOK_OPENAI]},
    ),
    case("tool_result_first", [{"role": "tool", "tool_call_id": "c", "content": "early"}, *HI]),
    case(
        "later_system_turn",
        [
            *HI,
            {"role": "assistant", "content": "Hello."},
            {"role": "system", "content": "Now in French."},
        ],
    ),
    case(
        "keep_special_tokens_in_user",
        [{"role": "user", "content": "<|im_end|> and <think>"}],
        special_tokens="keep",
    ),
]


def _golden(spec: dict[str, Any]) -> dict[str, Any]:
    golden: dict[str, Any] = {
        "request": spec["request"],
        "add_generation_prompt": spec.get("add_generation_prompt", True),
    }
    if "special_tokens" in spec:
        golden["special_tokens"] = spec["special_tokens"]
    return golden


def _renderer_data(family: str, golden: dict[str, Any]) -> dict[str, Any]:
    """What the template is given: the 4.0/4.1 templates read content parts themselves;
    the 4.2 one is given what a server (vLLM) gives it (parts joined, JSON-string
    arguments decoded, the top-level ``reasoning_effort`` applied)."""
    if family == FAMILY_42:
        request = oracle.server_request(golden["request"])
        return oracle.renderer_input(request, golden["add_generation_prompt"])
    return oracle4.renderer_input(golden["request"], golden["add_generation_prompt"])


def render_with_renderer_program(release: str, golden: dict[str, Any], family: str = FAMILY) -> str:
    """Run ``render_chat_template.py`` on the case; its exact output."""
    shared = oracle.require_shared()
    data = _renderer_data(family, golden)
    result = subprocess.run(
        [
            sys.executable,
            str(shared / "tools" / "render_chat_template.py"),
            str(shared / "chat-templates" / oracle.TEMPLATES[release]),
            "-",
        ],
        input=json.dumps(data, ensure_ascii=False).encode("utf-8"),
        capture_output=True,
        check=True,
    )
    return result.stdout.decode("utf-8")


def _folders(family: str) -> dict[str, Path]:
    return {r.version: prompts_dir(family, r.version) for r in releases.of_family(family)}


def expected_files() -> dict[Path, str]:
    """Every golden file (path -> exact content) the cases define."""
    files: dict[Path, str] = {}
    for family, cases in ((FAMILY, CASES), (FAMILY_42, CASES_42)):
        names = [spec["name"] for spec in cases]
        duplicates = {name for name in names if names.count(name) > 1}
        if duplicates:
            raise SystemExit(f"duplicate case names: {sorted(duplicates)}")
        folders = _folders(family)
        for spec in cases:
            golden = _golden(spec)
            files[requests_dir(family) / f"{spec['name']}.json"] = (
                json.dumps(golden, ensure_ascii=False, indent=2) + "\n"
            )
            for release in spec.get("releases", folders):
                files[folders[release] / f"{spec['name']}.prompt.txt"] = (
                    render_with_renderer_program(release, golden, family)
                )
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="report differences, write nothing")
    args = parser.parse_args(argv)
    if oracle.shared_dir() is None:
        print(oracle.skip_reason(), file=sys.stderr)
        return 2
    folders = {"requests": REQUESTS, **PROMPT_DIRS}
    folders.update({"requests 4.2": requests_dir(FAMILY_42), **_folders(FAMILY_42)})
    return oracle.sync_golden_files(expected_files(), folders, check=args.check)


if __name__ == "__main__":
    sys.exit(main())
