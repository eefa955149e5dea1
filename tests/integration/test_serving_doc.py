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


def chat_server(reasoning: str | None) -> Any:
    """An ``httpx`` transport answering ``/v1/chat/completions`` as ``granite-format serve``
    does: ``reasoning_content`` only when the model wrote reasoning."""
    import httpx

    def answer(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/chat/completions"
        body = json.loads(request.content)
        message: dict[str, Any] = {"role": "assistant", "content": "Rayleigh scattering."}
        if reasoning is not None:
            message.update(reasoning_content=reasoning, reasoning=reasoning)
        if not body.get("stream"):
            return httpx.Response(200, json={
                "id": "chatcmpl-1", "object": "chat.completion", "created": 0,
                "model": body["model"], "usage": None,
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            })  # fmt: skip
        chunks = [
            {"role": "assistant", "content": "Red "},
            {"content": "light."},
        ]
        events = "".join(
            "data: " + json.dumps({
                "id": "chatcmpl-2", "object": "chat.completion.chunk", "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
            }) + "\n\n"
            for delta in chunks
        ) + "data: [DONE]\n\n"  # fmt: skip
        return httpx.Response(
            200, content=events.encode(), headers={"content-type": "text/event-stream"}
        )

    return httpx.MockTransport(answer)


@pytest.mark.parametrize("reasoning", [None, "Short waves scatter more."])
def test_the_client_example_runs_with_and_without_reasoning(
    monkeypatch: pytest.MonkeyPatch, reasoning: str | None
) -> None:
    """The example must not assume reasoning: a model may write none (KeyError before)."""
    openai = pytest.importorskip("openai")
    import httpx

    (example,) = [b for b in python_blocks() if "from openai import OpenAI" in b]
    real = openai.OpenAI

    def client(**kwargs: Any) -> Any:
        return real(**kwargs, http_client=httpx.Client(transport=chat_server(reasoning)))

    monkeypatch.setattr(openai, "OpenAI", client)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, str(SERVING), "exec"), {"__name__": "serving_client_example"})
    first = "" if reasoning is None else reasoning + "\n"
    assert out.getvalue() == first + "Rayleigh scattering.\nRed light."
