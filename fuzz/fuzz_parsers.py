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
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import atheris


def _release_table() -> Any:
    """``tests/support/releases.py`` (the table of bundled releases), loaded by path."""
    path = Path(__file__).resolve().parents[1] / "tests" / "support" / "releases.py"
    spec = importlib.util.spec_from_file_location("_granite_formatters_release_table", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


RELEASES = _release_table().RELEASES

# Import (and so instrument) every module the parsers run, not only the package root:
# the output processors are otherwise imported lazily, outside this block.
with atheris.instrument_imports(
    include=["granite_formatters", *dict.fromkeys(r.module for r in RELEASES)]
):
    import granite_formatters
    import granite_formatters._engine.parse
    import granite_formatters.syntax._citations.co_format
    import granite_formatters.syntax._citations.reader
    from granite_formatters._types import AssistantMessage

    for _module in dict.fromkeys(r.module + ".output" for r in RELEASES):
        with contextlib.suppress(ImportError):
            importlib.import_module(_module)

#: The tool-call syntaxes whose streaming is also checked against the batch parse on every
#: input.
STREAM_CHECKED = frozenset({"json-tool-call-blocks", "xml-tool-calls"})
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
#: The installed releases' formatters, each with whether its streaming is checked.
FORMATTERS: list[tuple[granite_formatters.Formatter, bool]] = []


def test_one_input(data: bytes) -> None:
    provider = atheris.FuzzedDataProvider(data)
    formatter, stream_checked = FORMATTERS[provider.ConsumeIntInRange(0, len(FORMATTERS) - 1)]
    request = REQUESTS[provider.ConsumeIntInRange(0, len(REQUESTS) - 1)]
    cut = provider.ConsumeIntInRange(0, 64)
    output = provider.ConsumeUnicodeNoSurrogates(provider.remaining_bytes())
    message = formatter.parse(output, request)
    if not isinstance(message, AssistantMessage):
        raise AssertionError("parse returned something other than an AssistantMessage")
    # Every parsed message serialises (issue 12 item 5).
    message.model_dump_json()
    json.dumps(message.to_openai(), ensure_ascii=False).encode("utf-8")
    if stream_checked:
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
    for release in RELEASES:
        with contextlib.suppress(granite_formatters.UnknownModelError):
            formatter = granite_formatters.get_formatter(release.model)
            FORMATTERS.append((formatter, release.tool_call_syntax in STREAM_CHECKED))
    if not FORMATTERS:
        raise SystemExit("no bundled plugin is installed")
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
