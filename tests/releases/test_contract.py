"""The bundled plugins pass the same contract tests a third-party plugin would run.

One :class:`granite_formatters.testing.FormatterContractTests` subclass per release of the
release table with data below, made from that data (the kit is enabled in
tests/conftest.py); each release's goldens are checked with one of its models. A release
whose plugin is not installed is skipped, saying so.
"""

from __future__ import annotations

from typing import Any

from granite_formatters.testing import FormatterContractTests

from support import releases
from support.golden import release_cases
from support.per_release import release_classes
from support.release_data import GRANITE4_MODELS
from support.releases import Release

#: The Granite 4.0 and 4.1 data (one plugin, both releases).
GRANITE4_MODEL_IDS = [*GRANITE4_MODELS["4.0"], *GRANITE4_MODELS["4.1"]]
GRANITE4_NAMES = [
    ("ibm-granite/granite-4.0-h-tiny", "granite-4.0-h-tiny"),
    ("granite4:tiny-h", "granite-4.0-h-tiny"),
    ("granite4.1:8b", "granite-4.1-8b"),
    ("ibm-granite_granite-4.0-h-small-Q4_K_M.gguf", "granite-4.0-h-small"),
    ("watsonx/ibm/granite-4-h-small", "granite-4.0-h-small"),
    ("mlx-community/granite-4.1-3b-4bit", "granite-4.1-3b"),
]
GRANITE4_TOOLS_REQUEST = {
    "messages": [{"role": "user", "content": "Weather in Paris?"}],
    "tools": [{"name": "get_weather", "parameters": {"type": "object"}}],
}
GRANITE4_OUTPUT_SAMPLES = [
    ("Hello there.", None, "Hello there."),
    (
        'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
        "</tool_call>",
        GRANITE4_TOOLS_REQUEST,
        "Let me check.",
    ),
    (
        '<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>',
        GRANITE4_TOOLS_REQUEST,
        "",
    ),
]
GRANITE4_MARKERS = [
    "<tool_call>",
    "</tool_call>",
    "<tool_call>\n{",
    "}\n</tool_call>",
    '{"name": "f"',
    '"arguments": ',
]

#: What each release's contract checks: its plugin, models, names, goldens and outputs.
CONTRACTS: dict[str, dict[str, Any]] = {
    "3.2": {
        "plugin_name": "granite-formatters-granite32",
        "model_ids": [
            "granite-3.2-2b-instruct",
            "granite-3.2-8b-instruct",
            "granite-3.2-8b-instruct-preview",
        ],
        "names": [
            ("ibm-granite/granite-3.2-8b-instruct", "granite-3.2-8b-instruct"),
            ("granite3.2:2b", "granite-3.2-2b-instruct"),
            ("granite-3.2-8b-instruct-Q4_K_M.gguf", "granite-3.2-8b-instruct"),
            ("ibm/granite-3-2-8b-instruct", "granite-3.2-8b-instruct"),
        ],
        "golden_cases": release_cases(releases.release("3.2")),
        "golden_model": "granite-3.2-8b-instruct",
        "output_samples": [
            ("Hello there.", None, "Hello there."),
            (
                "Here is my thought process:\nThink.\nHere is my response:\nAnswer.",
                {
                    "messages": [{"role": "user", "content": "q"}],
                    "chat_template_kwargs": {"thinking": True},
                },
                "Answer.",
            ),
            (
                'Paris.<co>1</co>\n\n# Citations:\n<co>1</co> Document 0: "Paris is the capital."',
                {
                    "messages": [{"role": "user", "content": "q"}],
                    "documents": [{"text": "Paris is the capital."}],
                    "chat_template_kwargs": {"controls": {"citations": True}},
                },
                "Paris.",
            ),
        ],
    },
    "3.3": {
        "plugin_name": "granite-formatters-granite33",
        "model_ids": ["granite-3.3-2b-instruct", "granite-3.3-8b-instruct"],
        "names": [
            ("ibm-granite/granite-3.3-8b-instruct", "granite-3.3-8b-instruct"),
            ("granite3.3:2b", "granite-3.3-2b-instruct"),
            ("ibm-granite_granite-3.3-8b-instruct-Q4_K_M.gguf", "granite-3.3-8b-instruct"),
            ("watsonx/ibm/granite-3-3-8b-instruct", "granite-3.3-8b-instruct"),
        ],
        "golden_cases": release_cases(releases.release("3.3")),
        "golden_model": "granite-3.3-8b-instruct",
        "output_samples": [
            ("Hello there.", None, "Hello there."),
            (
                "<think>Think.</think><response>Answer.</response>",
                {
                    "messages": [{"role": "user", "content": "q"}],
                    "chat_template_kwargs": {"thinking": True},
                },
                "Answer.",
            ),
            (
                'Paris.<|start_of_cite|>{"document_id": "7"}<|end_of_cite|>',
                {
                    "messages": [{"role": "user", "content": "q"}],
                    "documents": [{"doc_id": "7", "text": "Paris is the capital."}],
                    "chat_template_kwargs": {"controls": {"citations": True}},
                },
                "Paris.",
            ),
        ],
    },
}


def _granite4(version: str, golden_model: str) -> dict[str, Any]:
    return {
        "plugin_name": "granite-formatters-granite4",
        "model_ids": GRANITE4_MODEL_IDS,
        "names": GRANITE4_NAMES,
        "golden_cases": release_cases(releases.release(version)),
        "golden_model": golden_model,
        "output_samples": GRANITE4_OUTPUT_SAMPLES,
        "extra_markers": GRANITE4_MARKERS,
    }


CONTRACTS["4.0"] = _granite4("4.0", "granite-4.0-h-tiny")
CONTRACTS["4.1"] = _granite4("4.1", "granite-4.1-8b")


def _contract(release: Release) -> type:
    return type("Contract", (FormatterContractTests,), dict(CONTRACTS[release.version]))


globals().update(
    release_classes("TestContract", lambda r: r.version in CONTRACTS, _contract, __name__)
)
