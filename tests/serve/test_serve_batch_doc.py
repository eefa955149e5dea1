"""docs/batch.md's commands run as written, against the fake backend (its URL in place of
the doc's ``127.0.0.1:8001``) in a folder holding the doc's ``requests.jsonl``."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
from pathlib import Path
from typing import Any

from granite_formatters._cli import main

from .servers import FakeBackend, Script, ServerThread
from .test_serve_batch import TOOL_CALL, prompt_of, results

DOC = Path(__file__).resolve().parents[2] / "docs" / "batch.md"
DOC_URL = "http://127.0.0.1:8001"


def commands() -> list[str]:
    """The ``granite-format batch`` lines of the doc's shell blocks (a bare fence), in order."""
    found: list[str] = []
    fence: str | None = None  # (the opening fence's line, inside a block)
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fence = line if fence is None else None
        elif fence == "```" and line.startswith("granite-format batch"):
            found.append(line)
    return found


def requests_file() -> str:
    match = re.search(r"^```json requests.jsonl\n(.*?)^```", DOC.read_text("utf-8"), re.M | re.S)
    assert match is not None
    return match.group(1)


def test_the_doc_commands_run(tmp_path: Path, monkeypatch: Any) -> None:
    fake = FakeBackend()
    thread = ServerThread(fake.app)
    try:
        monkeypatch.chdir(tmp_path)
        Path("requests.jsonl").write_text(requests_file(), encoding="utf-8")
        bodies = {}
        for text in requests_file().splitlines():
            data = json.loads(text)
            bodies[data["custom_id"]] = data["body"]
        answers = {"q1": "The capital of France is Paris.", "q2": TOOL_CALL}
        for custom_id, answer in answers.items():
            fake.script(prompt_of(bodies[custom_id]), Script(answer))
        ran = []
        for command in commands():
            argv = shlex.split(command.replace(DOC_URL, thread.url))[1:]
            if argv[:2] == ["batch", "parse"]:  # (what the doc's vLLM snippet writes)
                rows = [
                    {"custom_id": k, "text": v, "finish_reason": "stop"} for k, v in answers.items()
                ]
                Path("raw.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
                Path("results.jsonl").unlink()
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                code = main(argv, stdout=io.StringIO(), stderr=err)
            assert code == 0, (command, err.getvalue())
            ran.append(argv[1] if argv[1] == "parse" else argv[-1])
            if "--prompts-only" in argv:
                prompts = [
                    json.loads(t) for t in Path("prompts.jsonl").read_text("utf-8").splitlines()
                ]
                assert [p["prompt"] for p in prompts] == [
                    prompt_of(bodies[k]) for k in ("q1", "q2")
                ]
            else:
                got = results(Path("results.jsonl"))
                q1 = got["q1"]["response"]["body"]["choices"][0]["message"]
                assert q1["content"] == "The capital of France is Paris."
                q2 = got["q2"]["response"]["body"]["choices"][0]["message"]
                assert q2["tool_calls"][0]["function"]["name"] == "get_weather"
        assert ran == ["results.jsonl", "prompts.jsonl", "parse"]
    finally:
        thread.stop()
