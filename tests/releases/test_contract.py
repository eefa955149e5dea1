"""The Granite 3 plugins pass the same contract tests a third-party plugin would run.

One :class:`granite_formatters.testing.FormatterContractTests` subclass per Granite 3
release of the release table, made from that release's data below (the kit is enabled in
tests/conftest.py). A release whose plugin is not installed is skipped, saying so.
"""

from __future__ import annotations

from typing import Any

from granite_formatters.testing import FormatterContractTests

from support import releases
from support.golden import release_cases
from support.per_release import release_classes
from support.releases import Release

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


def _contract(release: Release) -> type:
    return type("Contract", (FormatterContractTests,), dict(CONTRACTS[release.version]))


globals().update(release_classes("TestContract", "citations", _contract, __name__))
