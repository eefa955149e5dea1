"""(Re)generate the golden prompt files of the Granite 4.0 and 4.1 input processors.

Every expected prompt is rendered from the OFFICIAL chat template
(``shared/chat-templates/granite-4.0.jinja`` and ``granite-4.1.jinja``) by running the
shared renderer ``shared/tools/render_chat_template.py`` as a program (located as in
``tests/support/oracle.py``); nothing here uses the package. Run from the repository root::

    python tests/make_goldens_granite4.py            # rewrite tests/golden/granite4/
    python tests/make_goldens_granite4.py --check    # only report files that would change

For each case ``<name>`` it writes one request file ``requests/<name>.json`` (``request``,
``add_generation_prompt`` and, where the case renders special tokens verbatim,
``special_tokens``) and, for each release of the ``granite4`` family in
``support.releases`` the case applies to, ``<release>/<name>.prompt.txt`` (the exact
prompt, UTF-8, nothing appended), all under ``tests/golden/granite4/`` (the layout
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


def _golden(spec: dict[str, Any]) -> dict[str, Any]:
    golden: dict[str, Any] = {
        "request": spec["request"],
        "add_generation_prompt": spec.get("add_generation_prompt", True),
    }
    if "special_tokens" in spec:
        golden["special_tokens"] = spec["special_tokens"]
    return golden


def render_with_renderer_program(release: str, golden: dict[str, Any]) -> str:
    """Run ``render_chat_template.py`` on the case; its exact output."""
    shared = oracle.require_shared()
    data = oracle4.renderer_input(golden["request"], golden["add_generation_prompt"])
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


def expected_files() -> dict[Path, str]:
    """Every golden file (path -> exact content) the cases define."""
    files: dict[Path, str] = {}
    names = [spec["name"] for spec in CASES]
    duplicates = {name for name in names if names.count(name) > 1}
    if duplicates:
        raise SystemExit(f"duplicate case names: {sorted(duplicates)}")
    for spec in CASES:
        golden = _golden(spec)
        files[REQUESTS / f"{spec['name']}.json"] = (
            json.dumps(golden, ensure_ascii=False, indent=2) + "\n"
        )
        for release in spec.get("releases", PROMPT_DIRS):
            files[PROMPT_DIRS[release] / f"{spec['name']}.prompt.txt"] = (
                render_with_renderer_program(release, golden)
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
    return oracle.sync_golden_files(
        expected_files(), {"requests": REQUESTS, **PROMPT_DIRS}, check=args.check
    )


if __name__ == "__main__":
    sys.exit(main())
