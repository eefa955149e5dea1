"""docs/serving.md's agent loop runs as written, against a stand-in completions server."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

SERVING = Path(__file__).resolve().parents[2] / "docs" / "serving.md"

pytestmark = pytest.mark.skipif(
    not importlib.util.find_spec("granite_formatters_granite33"),
    reason="needs the Granite 3.3 plugin",
)

TOOL_CALL = '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
ANSWER = "It is 18 °C in Paris."


def python_blocks() -> list[str]:
    text = SERVING.read_text(encoding="utf-8")
    return [part.split("\n```", 1)[0] for part in text.split("\n```python\n")[1:]]


class FakeServer:
    """Answers like vLLM's /v1/completions: first a tool call, then the answer."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.outputs = [TOOL_CALL, ANSWER]

    def urlopen(self, request: urllib.request.Request) -> io.BytesIO:
        assert request.full_url == "http://127.0.0.1:8000/v1/completions"
        assert isinstance(request.data, bytes)
        self.bodies.append(json.loads(request.data))
        text = self.outputs.pop(0)
        return io.BytesIO(json.dumps({"choices": [{"text": text}]}).encode())


def test_the_agent_loop_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    (loop,) = [b for b in python_blocks() if "for _ in range(5)" in b]
    server = FakeServer()
    monkeypatch.setattr(urllib.request, "urlopen", server.urlopen)
    out = io.StringIO()
    namespace: dict[str, Any] = {"__name__": "serving_example"}
    with contextlib.redirect_stdout(out):
        exec(compile(loop, str(SERVING), "exec"), namespace)
    assert out.getvalue() == ANSWER + "\n"
    first, second = server.bodies
    for body in (first, second):
        assert body["skip_special_tokens"] is False
        assert body["spaces_between_special_tokens"] is False
        assert body["stop"] == ["<|end_of_text|>", "<|start_of_role|>"]
    # The second prompt is the first one continued: the assistant turn, the tool result.
    assert second["prompt"].startswith(first["prompt"])
    assert (
        '<|start_of_role|>tool<|end_of_role|>{"city": "Paris", "temperature_c": 18}'
        "<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>"
    ) in second["prompt"]
    messages = namespace["request"]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[1]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert messages[2]["tool_call_id"] == messages[1]["tool_calls"][0]["id"]


def test_the_second_prompt_shows_the_call(monkeypatch: pytest.MonkeyPatch) -> None:
    (loop,) = [b for b in python_blocks() if "for _ in range(5)" in b]
    server = FakeServer()
    monkeypatch.setattr(urllib.request, "urlopen", server.urlopen)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(loop, str(SERVING), "exec"), {"__name__": "serving_example"})
    first, second = server.bodies
    continued = second["prompt"][len(first["prompt"]) :]
    assert continued.startswith(TOOL_CALL + "<|end_of_text|>\n")
