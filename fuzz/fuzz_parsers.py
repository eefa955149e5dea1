"""Coverage-guided fuzzing of the bundled output parsers with atheris (libFuzzer).

Run for a fixed time (the ``atheris`` tox env runs ten minutes):

    python fuzz/fuzz_parsers.py -dict=fuzz/granite.dict -max_total_time=600 -rss_limit_mb=2048

Each input is split into a model output and a choice of request; the parsers must
return a message and never raise. Any exception, hang (libFuzzer's -timeout) or memory
blow-up (-rss_limit_mb) is a finding, written to a crash-* file for reproduction.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import re
import sys
from typing import Any

import atheris

# Import (and so instrument) every module the parsers run, not only the package root:
# the output processors are otherwise imported lazily, outside this block.
with atheris.instrument_imports(
    include=[
        "granite_formatters",
        "granite_formatters_granite32",
        "granite_formatters_granite33",
        "granite_formatters_granite4",
    ]
):
    import granite_formatters
    import granite_formatters.granite3.co_format
    import granite_formatters.granite3.output
    from granite_formatters.types import AssistantMessage

    for _module in (
        "granite_formatters_granite32.output",
        "granite_formatters_granite33.output",
        "granite_formatters_granite4.output",
    ):
        with contextlib.suppress(ImportError):
            importlib.import_module(_module)

MODELS = ["granite-3.2-8b-instruct", "granite-3.3-8b-instruct", "granite-4.0-h-small"]
#: Parsers whose streaming is also checked against the batch parse on every input.
STREAM_CHECKED = ("granite-4.",)
REQUESTS = [
    None,
    {
        "messages": [{"role": "user", "content": "q"}],
        "documents": [
            {"doc_id": "0", "text": "Paris is the capital of France."},
            {"doc_id": "1", "text": "It has 2 million inhabitants."},
        ],
        "tools": [{"name": "f", "parameters": {"type": "object"}}],
        "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
    },
    {"messages": [{"role": "user", "content": "q"}], "chat_template_kwargs": {"thinking": True}},
]
FORMATTERS: list[granite_formatters.Formatter] = []


def test_one_input(data: bytes) -> None:
    provider = atheris.FuzzedDataProvider(data)
    formatter = FORMATTERS[provider.ConsumeIntInRange(0, len(FORMATTERS) - 1)]
    request = REQUESTS[provider.ConsumeIntInRange(0, len(REQUESTS) - 1)]
    cut = provider.ConsumeIntInRange(0, 64)
    output = provider.ConsumeUnicodeNoSurrogates(provider.remaining_bytes())
    message = formatter.parse(output, request)
    if not isinstance(message, AssistantMessage):
        raise AssertionError("parse returned something other than an AssistantMessage")
    # Every parsed message serialises (issue 12 item 5).
    message.model_dump_json()
    json.dumps(message.to_openai(), ensure_ascii=False).encode("utf-8")
    if formatter.model_id.startswith(STREAM_CHECKED):
        parser = formatter.stream_parser(request)
        for start in range(0, len(output), cut + 1):
            parser.feed(output[start : start + cut + 1])
        parser.close()
        if parser.message is None or _comparable(parser.message) != _comparable(message):
            raise AssertionError("the streamed parse differs from the batch parse")


_GENERATED_ID = re.compile("call_[0-9a-f]{16}([0-9a-f]{8})")


def _comparable(message: AssistantMessage) -> dict[str, Any]:
    """The message as a dict, generated tool-call ids (random per parser) cut to their counter."""
    data = message.model_dump()
    for call in data["tool_calls"]:
        found = _GENERATED_ID.fullmatch(call["id"])
        if found is not None:
            call["id"] = found.group(1)
    return data


def main() -> None:
    for model in MODELS:
        with contextlib.suppress(granite_formatters.UnknownModelError):
            FORMATTERS.append(granite_formatters.get_formatter(model))
    if not FORMATTERS:
        raise SystemExit("no bundled plugin is installed")
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
