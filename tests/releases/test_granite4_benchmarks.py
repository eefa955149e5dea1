"""The benchmark harness measures Granite 4.0/4.1 (``--only granite4``) on real work.

No timing is asserted: each format case's prompt must equal the official template's
render (when the shared templates are present) and each parse must find every call.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_quick_granite4_section(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "run.py"),
            "--quick",
            "--only",
            "granite4",
            "--release",
            "4.0",
            "--release",
            "4.1",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=dict(os.environ),
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert "Granite 4.0 and 4.1" in result.stdout
    data = json.loads(out.read_text(encoding="utf-8"))["granite4"]
    assert set(data) == {"4.0", "4.1"}
    for entry in data.values():
        assert all(row["matches_template"] in (True, None) for row in entry["format"].values())
        if os.environ.get("GRANITE_FORMATTERS_SHARED") or (REPO.parent / "shared").is_dir():
            assert all(row["matches_template"] is True for row in entry["format"].values())
        assert all(row["check"] == "ok" for row in entry["parse"].values())
        assert all(row["ns"] > 0 for row in entry["parse"].values())
