"""The contracts from the core's test kit: every plugin's, and every Granite 3 input processor's.

The plugin must be installed (``pip install .`` or from its wheel): the kit checks it
as users will see it, through its entry point. The Granite 3 input contract compares
every golden prompt with the official 3.1 template's render, found in the reference
folder (see make_goldens.py); without that folder the comparison is skipped, except in
CI, where it fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from granite_formatters.testing import FormatterContractTests, load_golden_cases
from granite_formatters.testing.granite3 import Granite3InputContractTests

from granite_formatters_granite31.releases import GRANITE31

import make_goldens  # tests/make_goldens.py (tests/ is on sys.path)

GOLDEN = Path(__file__).parent / "golden"

DOCUMENTS = [{"text": "Paris is the capital of France."}, {"text": "Rome is in Italy."}]
RAG_REQUEST = {
    "messages": [{"role": "user", "content": "Capitals?"}],
    "documents": DOCUMENTS,
    "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
}


class TestGranite31Contract(FormatterContractTests):
    plugin_name = "granite-formatters-granite31"
    model_ids: ClassVar[Sequence[str]] = [
        "granite-3.1-2b-instruct",
        "granite-3.1-8b-instruct",
        "granite-3.1-1b-a400m-instruct",
        "granite-3.1-3b-a800m-instruct",
    ]
    names: ClassVar[Sequence[tuple[str, str]]] = [
        ("granite-3.1-8b-instruct", "granite-3.1-8b-instruct"),
        ("ibm-granite/granite-3.1-2b-instruct", "granite-3.1-2b-instruct"),
        ("ibm-granite/granite-3.1-8b-instruct", "granite-3.1-8b-instruct"),
        ("ibm-granite/granite-3.1-1b-a400m-instruct", "granite-3.1-1b-a400m-instruct"),
        ("ibm-granite/granite-3.1-3b-a800m-instruct", "granite-3.1-3b-a800m-instruct"),
        ("granite3.1-dense:2b", "granite-3.1-2b-instruct"),
        ("granite3.1-dense:8b", "granite-3.1-8b-instruct"),
        ("granite3.1-dense", "granite-3.1-8b-instruct"),
        ("granite3.1-dense:latest", "granite-3.1-8b-instruct"),
        ("ollama/granite3.1-dense:8b", "granite-3.1-8b-instruct"),
        ("ibm/granite3.1-dense:2b", "granite-3.1-2b-instruct"),
        ("granite3.1-dense:8b-instruct-q4_K_M", "granite-3.1-8b-instruct"),
        ("granite3.1-dense:2b-instruct-fp16", "granite-3.1-2b-instruct"),
        ("granite3.1-moe:1b", "granite-3.1-1b-a400m-instruct"),
        ("granite3.1-moe:3b", "granite-3.1-3b-a800m-instruct"),
        ("granite3.1-moe", "granite-3.1-3b-a800m-instruct"),
        ("granite3.1-moe:3b-instruct-q8_0", "granite-3.1-3b-a800m-instruct"),
        ("ibm/granite-3-1-8b-instruct", "granite-3.1-8b-instruct"),
        ("watsonx/ibm/granite-3-1-8b-instruct", "granite-3.1-8b-instruct"),
        ("bartowski/granite-3.1-8b-instruct-GGUF", "granite-3.1-8b-instruct"),
        ("granite-3.1-8b-instruct-Q4_K_M.gguf", "granite-3.1-8b-instruct"),
        ("lmstudio-community/granite-3.1-3b-a800m-instruct-GGUF", "granite-3.1-3b-a800m-instruct"),
        ("granite-3.1-1b-a400m-instruct-Q6_K.gguf", "granite-3.1-1b-a400m-instruct"),
    ]
    golden_cases = load_golden_cases(GOLDEN)
    golden_model = "granite-3.1-8b-instruct"
    output_samples: ClassVar[Sequence[tuple[str, Any, str]]] = [
        ("Hello there.", None, "Hello there."),
        # No thinking mode: the 3.2 reasoning markers are ordinary text in 3.1.
        (
            "Here is my thought process:\nHmm.\nHere is my response:\nHi.",
            None,
            "Here is my thought process:\nHmm.\nHere is my response:\nHi.",
        ),
        ('<|tool_call|>[{"name": "f", "arguments": {}}]', None, ""),
        (
            "Paris is the capital.<co>1</co>\n\n# Citations:\n"
            '<co>1</co> Document 0: "Paris is the capital of France."',
            RAG_REQUEST,
            "Paris is the capital.",
        ),
    ]


SHARED = make_goldens.find_shared()


class TestGranite31InputContract(Granite3InputContractTests):
    release = GRANITE31
    model_id = "granite-3.1-8b-instruct"
    golden_cases = TestGranite31Contract.golden_cases
    # The official template of ibm-granite/granite-3.1-8b-instruct, the reference render.
    chat_template = SHARED / "chat-templates" / make_goldens.TEMPLATE if SHARED else None
    min_golden_cases = 24  # every case of make_goldens.CASES
    thinking_mode = False  # Granite 3.1 refuses thinking=true

    def reference_template(self) -> str:
        if self.chat_template is None:
            make_goldens.require_shared()
        return super().reference_template()
