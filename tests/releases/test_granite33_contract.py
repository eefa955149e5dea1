"""The Granite 3.3 plugin passes the same contract tests a third-party plugin would run.

It uses the opt-in kit `granite_formatters.testing` (enabled in tests/conftest.py).
"""

from __future__ import annotations

from granite_formatters.testing import FormatterContractTests

from support.golden import release_cases


class TestGranite33Contract(FormatterContractTests):
    plugin_name = "granite-formatters-granite33"
    model_ids = ["granite-3.3-2b-instruct", "granite-3.3-8b-instruct"]
    names = [
        ("ibm-granite/granite-3.3-8b-instruct", "granite-3.3-8b-instruct"),
        ("granite3.3:2b", "granite-3.3-2b-instruct"),
        ("ibm-granite_granite-3.3-8b-instruct-Q4_K_M.gguf", "granite-3.3-8b-instruct"),
        ("watsonx/ibm/granite-3-3-8b-instruct", "granite-3.3-8b-instruct"),
    ]
    golden_cases = release_cases("granite3", "3.3")
    golden_model = "granite-3.3-8b-instruct"
    output_samples = [
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
    ]
