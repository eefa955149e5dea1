"""The Granite 3.2 plugin passes the same contract tests a third-party plugin would run.

It uses the opt-in kit `granite_formatters.testing` (enabled in tests/conftest.py).
"""

from __future__ import annotations

from granite_formatters.testing import FormatterContractTests

from support.golden import release_cases


class TestGranite32Contract(FormatterContractTests):
    plugin_name = "granite-formatters-granite32"
    model_ids = [
        "granite-3.2-2b-instruct",
        "granite-3.2-8b-instruct",
        "granite-3.2-8b-instruct-preview",
    ]
    names = [
        ("ibm-granite/granite-3.2-8b-instruct", "granite-3.2-8b-instruct"),
        ("granite3.2:2b", "granite-3.2-2b-instruct"),
        ("granite-3.2-8b-instruct-Q4_K_M.gguf", "granite-3.2-8b-instruct"),
        ("ibm/granite-3-2-8b-instruct", "granite-3.2-8b-instruct"),
    ]
    golden_cases = release_cases("granite3", "3.2")
    golden_model = "granite-3.2-8b-instruct"
    output_samples = [
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
    ]
