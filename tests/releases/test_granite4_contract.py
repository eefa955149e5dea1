"""The Granite 4 plugin passes the same contract tests a third-party plugin would run.

It uses the opt-in kit `granite_formatters.testing` (enabled in tests/conftest.py), once
per release: the goldens of each release are checked with one of its models.
"""

from __future__ import annotations

from granite_formatters.testing import FormatterContractTests

from support import releases
from support.golden import release_cases
from support.release_data import GRANITE4_MODELS

MODEL_IDS = [*GRANITE4_MODELS["4.0"], *GRANITE4_MODELS["4.1"]]
NAMES = [
    ("ibm-granite/granite-4.0-h-tiny", "granite-4.0-h-tiny"),
    ("granite4:tiny-h", "granite-4.0-h-tiny"),
    ("granite4.1:8b", "granite-4.1-8b"),
    ("ibm-granite_granite-4.0-h-small-Q4_K_M.gguf", "granite-4.0-h-small"),
    ("watsonx/ibm/granite-4-h-small", "granite-4.0-h-small"),
    ("mlx-community/granite-4.1-3b-4bit", "granite-4.1-3b"),
]
TOOLS_REQUEST = {
    "messages": [{"role": "user", "content": "Weather in Paris?"}],
    "tools": [{"name": "get_weather", "parameters": {"type": "object"}}],
}
OUTPUT_SAMPLES = [
    ("Hello there.", None, "Hello there."),
    (
        'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
        "</tool_call>",
        TOOLS_REQUEST,
        "Let me check.",
    ),
    ('<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>', TOOLS_REQUEST, ""),
]
MARKERS = [
    "<tool_call>",
    "</tool_call>",
    "<tool_call>\n{",
    "}\n</tool_call>",
    '{"name": "f"',
    '"arguments": ',
]


class TestGranite40Contract(FormatterContractTests):
    plugin_name = "granite-formatters-granite4"
    model_ids = MODEL_IDS
    names = NAMES
    golden_cases = release_cases(releases.release("4.0"))
    golden_model = "granite-4.0-h-tiny"
    output_samples = OUTPUT_SAMPLES
    extra_markers = MARKERS


class TestGranite41Contract(FormatterContractTests):
    plugin_name = "granite-formatters-granite4"
    model_ids = MODEL_IDS
    names = NAMES
    golden_cases = release_cases(releases.release("4.1"))
    golden_model = "granite-4.1-8b"
    output_samples = OUTPUT_SAMPLES
    extra_markers = MARKERS
