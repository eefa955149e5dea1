"""A process that only formats prompts never imports the output side."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import json, sys
import granite_formatters
formatter = granite_formatters.get_formatter("granite-3.2-8b-instruct")
formatter.format({"messages": [{"role": "user", "content": "x"}]})
before = sorted(m for m in sys.modules if m.startswith("granite_formatters"))
formatter.parse("Hello.")
after = sorted(m for m in sys.modules if m.startswith("granite_formatters"))
print(json.dumps([before, after]))
"""


def test_formatting_imports_no_output_module() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True
    )
    before, after = json.loads(proc.stdout)
    output_side = (
        "granite3.output",
        "granite3._toolcalls",
        "granite3._sentences",
        "streaming",
    )
    assert not [m for m in before if m.endswith(output_side)], before
    assert "granite_formatters_granite32.releases" in after
    assert "granite_formatters.granite3.output" in after
