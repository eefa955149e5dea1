"""The Granite 3.1 release declaration: the engine renders it as the official template.

The output side (``GRANITE31.output_processor()``) is what the plugin registers and is
tested in ``test_output.py``; this checks the prompt side of the same declaration against
every golden prompt (rendered by the official template, see ``make_goldens.py``).
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest

from granite_formatters_granite31.releases import GRANITE31

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(GOLDEN.glob("*.json"))


def test_there_are_golden_cases() -> None:
    assert len(CASES) >= 24


@pytest.mark.parametrize("path", CASES, ids=lambda path: path.stem)
def test_the_declaration_renders_the_golden_prompt(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    options: dict[str, Any] = {"today": datetime.date.fromisoformat(case["date"])}
    if "special_tokens" in case:
        options["special_tokens"] = case["special_tokens"]
    prompt = GRANITE31.input_processor().transform(
        case["request"], case.get("add_generation_prompt", True), **options
    )
    assert prompt == path.with_suffix("").with_suffix(".prompt.txt").read_text(encoding="utf-8")
