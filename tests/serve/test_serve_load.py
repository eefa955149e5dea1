"""A bounded load test: 64 concurrent streaming clients (loopback only), every answer checked."""

from __future__ import annotations

import asyncio
from typing import Any

import openai
import pytest

from granite_formatters import get_formatter

from .conftest import KINDS
from .outputs import G33
from .servers import Script

MODEL = "granite-3.3-8b-instruct"
CLIENTS = 64
BOUND_SECONDS = 120  # a guard against hangs, far above the few seconds this takes


@pytest.mark.parametrize("kind", KINDS)
def test_64_concurrent_streams(proxy_factory: Any, fake_backend: Any, kind: str) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory(kind)
    formatter = get_formatter(MODEL)
    cases = [G33[1], G33[2], G33[4]]  # reasoning, tool call, RAG with citations
    expected = []
    for i in range(CLIENTS):
        case = cases[i % len(cases)]
        messages = [{"role": "user", "content": f"load {kind} client {i}"}]
        request = {**case.request(), "messages": messages}
        fake.script(formatter.format(request), Script(case.output, cut="markers"))
        message = formatter.parse(case.output, request).to_openai()
        expected.append((case, messages, message))

    async def one(client: openai.AsyncOpenAI, case: Any, messages: Any) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": MODEL,
            "messages": messages,
            "extra_body": case.extra or None,
        }
        if case.tools:
            kwargs["tools"] = case.tools
        content, reasoning, calls = "", "", []
        stream = await client.chat.completions.create(**kwargs, stream=True)
        async with stream:
            async for chunk in stream:
                delta = chunk.choices[0].delta
                content += delta.content or ""
                reasoning += (delta.model_extra or {}).get("reasoning_content", "")
                calls += [c.function.name for c in delta.tool_calls or []]
        return {"content": content, "reasoning": reasoning, "calls": calls}

    async def run_all() -> list[dict[str, Any]]:
        async with openai.AsyncOpenAI(
            base_url=f"http://127.0.0.1:{proxy.port}/v1",
            api_key="unused",
            max_retries=0,
            timeout=60,
        ) as client:
            tasks = [one(client, case, messages) for case, messages, _ in expected]
            return await asyncio.wait_for(asyncio.gather(*tasks), BOUND_SECONDS)

    results = asyncio.run(run_all())
    assert len(results) == CLIENTS
    for (_case, _messages, message), got in zip(expected, results, strict=True):
        assert got["content"] == message["content"]
        assert got["reasoning"] == (message.get("reasoning_content") or "")
        assert got["calls"] == [c["function"]["name"] for c in message.get("tool_calls", [])]
