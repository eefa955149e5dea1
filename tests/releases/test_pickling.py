"""Every bundled model's formatter, processors and parsed messages pickle.

``ProcessPoolExecutor``, Ray and Spark ship objects to workers by pickling them: a
formatter looked up once must arrive as an equal formatter that formats and parses as
the original does, for every name ``granite-format models`` lists.
"""

from __future__ import annotations

import datetime
import json
import pickle

import pytest

import granite_formatters
from granite_formatters._plugins import BUNDLED_PLUGINS

from support.releases import RELEASES, Release

DAY = datetime.date(2025, 4, 16)
REQUEST = {
    "messages": [
        {"role": "user", "content": "What is the weather in Lisbon?"},
        {"role": "assistant", "content": "Let me check."},
        {"role": "user", "content": "Thanks."},
    ]
}
CALL = {"name": "get_weather", "arguments": {"city": "Lisbon"}}
#: Outputs in each tool-call syntax: plain text, (3.x) reasoning, a tool call.
OUTPUTS = {
    "json-list-tool-calls": [
        "Hello.",
        "Here is my thought process: think.\nHere is my response: Hello.",  # 3.2
        "<think>think.</think><response>Hello.</response>",  # 3.3
        "<|tool_call|>" + json.dumps([CALL]),
    ],
    "json-tool-call-blocks": [
        "Hello.",
        "Checking.\n<tool_call>\n" + json.dumps(CALL) + "\n</tool_call>",
    ],
    "xml-tool-calls": [
        "Hello.",
        "think.\n</think>\n\nChecking.\n<tool_call>\n<function=get_weather>\n"
        "<parameter=city>\nLisbon\n</parameter>\n</function>\n</tool_call>",
    ],
}


def _bundled_names() -> list[tuple[str, Release]]:
    """(name, release) for every id and alias of every bundled model."""
    names = []
    by_distribution = {release.distribution: release for release in RELEASES}
    for info in granite_formatters.list_models():
        if not info.plugin.bundled:
            continue
        release = by_distribution[info.plugin.name]  # (4.0 for 4.1 too: the same syntax)
        names += [(name, release) for name in (info.model_id, *info.aliases)]
    return names


NAMES = _bundled_names()


def _without_ids(message: object) -> object:
    """A parsed message's data, generated tool-call ids left out (they are random per parse)."""
    data = message.model_dump()  # type: ignore[attr-defined]
    for call in data["tool_calls"]:
        assert call.pop("id").startswith("call_")
    return type(message), data


def _round_trip(value: object) -> object:
    return pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def test_every_installed_bundled_plugin_has_models() -> None:
    plugins = {info.plugin.name for info in granite_formatters.list_models()}
    installed = {release.distribution for release in RELEASES if release.installed}
    assert installed <= BUNDLED_PLUGINS
    assert plugins >= installed
    assert len(NAMES) >= len(installed)


@pytest.mark.parametrize(("name", "bundled"), NAMES, ids=[name for name, _ in NAMES])
def test_a_formatter_pickles_to_an_equal_working_formatter(name: str, bundled: Release) -> None:
    formatter = granite_formatters.get_formatter(name)
    prompt = formatter.format(REQUEST, today=DAY)
    for touched in (False, True):  # before and after the output processor exists
        copy = _round_trip(formatter)
        assert isinstance(copy, granite_formatters.Formatter)
        assert copy == formatter and hash(copy) == hash(formatter)
        assert copy.model_id == formatter.model_id and copy.plugin == formatter.plugin
        assert copy.format(REQUEST, today=DAY) == prompt
        for output in OUTPUTS[bundled.tool_call_syntax]:
            assert _without_ids(copy.parse(output)) == _without_ids(formatter.parse(output))
        if not touched:
            # (4.2 starts inside its reasoning: an answer follows </think>)
            hello = "</think>Hello." if bundled.has("opened-think") else "Hello."
            assert formatter.parse(hello).content == "Hello."


#: One model of each installed bundled plugin.
ONE_PER_PLUGIN = list({r.plugin: (name, r) for name, r in NAMES[::-1]}.values())


@pytest.mark.parametrize(("name", "bundled"), ONE_PER_PLUGIN, ids=[n for n, _ in ONE_PER_PLUGIN])
def test_processors_and_parsed_messages_pickle(name: str, bundled: Release) -> None:
    formatter = granite_formatters.get_formatter(name)
    processor = _round_trip(formatter.input_processor)
    assert type(processor) is type(formatter.input_processor)
    assert processor.transform(REQUEST, today=DAY) == formatter.format(REQUEST, today=DAY)
    output_processor = _round_trip(formatter.output_processor)
    assert type(output_processor) is type(formatter.output_processor)
    outputs = OUTPUTS[bundled.tool_call_syntax]
    for output in outputs:
        message = formatter.parse(output)
        assert _without_ids(output_processor.transform(output)) == _without_ids(message)
        copy = _round_trip(message)
        assert type(copy) is type(message) and copy == message
    assert any(formatter.parse(output).tool_calls for output in outputs)
    if bundled.has("json-list-tool-calls"):
        assert any(formatter.parse(output).reasoning_content for output in outputs)
