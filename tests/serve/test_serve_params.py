"""Every request field forwarded, translated or refused, per backend type.

Generated from ``params.FIELDS``, the table ``docs/serving.md`` prints: each row's example
value is sent through the proxy, and the fake backend's request shows what became of it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from granite_formatters import get_formatter
from granite_formatters._plaindicts import OPENAI_REQUEST_PARAMETERS
from granite_formatters._serve.params import FIELDS, fields_table

from .conftest import KINDS
from .outputs import PLAIN_ANSWER
from .servers import Script

MODEL = "granite-3.3-8b-instruct"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "serving.md"


def test_every_openai_and_vllm_field_has_a_row() -> None:
    assert OPENAI_REQUEST_PARAMETERS - {"model"} <= set(FIELDS)


def test_the_docs_table_is_the_code_table() -> None:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("-->\n", text.index("<!-- fields table")) + len("-->\n")
    end = text.index("<!-- end of the fields table -->")
    assert text[start:end] == fields_table()


def sent_for(proxy: Any, fake: Any, tag: str, fields: dict[str, Any]) -> httpx.Response:
    messages = [{"role": "user", "content": f"field {tag}"}]
    fake.script(get_formatter(MODEL).format({"messages": messages}), Script(PLAIN_ANSWER))
    body = {"model": MODEL, "messages": messages, "max_tokens": 50, **fields}
    return httpx.post(proxy.url + "/v1/chat/completions", json=body, timeout=20)


def backend_value(sent: dict[str, Any], name: str) -> Any:
    if name.startswith("options."):
        return sent.get("options", {}).get(name[len("options.") :])
    return sent.get(name)


ROWS = [
    pytest.param(field, kind, id=f"{field}-{kind}")
    for field, row in FIELDS.items()
    if row.openai.action != "serve"
    for kind in KINDS
]


@pytest.mark.parametrize(("field", "kind"), ROWS)
def test_field(proxy_factory: Any, fake_backend: Any, field: str, kind: str) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory(kind)
    row = FIELDS[field]
    rule = row.rule(kind)
    fields = {field: row.example}
    if field == "top_logprobs":
        fields["logprobs"] = True
    tag = f"{field} {kind}"
    response = sent_for(proxy, fake, tag, fields)
    prompt = get_formatter(MODEL).format(
        {"messages": [{"role": "user", "content": f"field {tag}"}]}
    )
    if rule.action == "refuse":
        assert response.status_code == 400, response.text
        assert response.json()["error"]["param"] == field
        for value in rule.accepts:  # the default value is accepted, and nothing is sent
            tag = f"{field} {kind} default"
            ok = sent_for(proxy, fake, tag, {field: value})
            assert ok.status_code == 200, ok.text
            sent = fake.last_request(
                get_formatter(MODEL).format(
                    {"messages": [{"role": "user", "content": f"field {tag}"}]}
                )
            )
            # nothing sent for it, beyond what the server itself always sends
            assert sent.get(field, value) == value and field not in sent.get("options", {})
        return
    assert response.status_code == 200, response.text
    sent = fake.last_request(prompt)
    name = rule.name or field
    if rule.action == "forward":
        expected = row.example
        if field in ("stop",):
            expected = [*getattr(get_formatter(MODEL), "stop_strings", ()), *row.example]
        assert backend_value(sent, name) == expected
    elif rule.convert is not None:
        assert backend_value(sent, name) == rule.convert(row.example)
    else:  # logprobs: the number of alternatives
        assert backend_value(sent, name) == (2 if field == "top_logprobs" else 1)


@pytest.mark.parametrize(
    ("field", "good", "bad"),
    [
        ("stream", False, None),
        ("stream_options", {"include_usage": False}, {"continuous_usage_stats": True}),
        ("n", 1, 2),
        ("tool_choice", "auto", "required"),
        ("parallel_tool_calls", True, False),
    ],
)
def test_fields_the_server_handles(
    proxy_factory: Any, fake_backend: Any, field: str, good: Any, bad: Any
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    assert FIELDS[field].openai.action == "serve"
    assert sent_for(proxy, fake, f"served {field}", {field: good}).status_code == 200
    if bad is not None:
        response = sent_for(proxy, fake, f"served {field}", {field: bad})
        assert response.status_code == 400
        assert response.json()["error"]["param"].startswith(field)


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ('"temperature": true', "temperature"),
        ('"max_tokens": "10"', "max_tokens"),
        ('"stream": "yes"', "stream"),
        ('"temperature": 1e999', "temperature"),
        ('"top_p": NaN', "top_p"),
        ('"top_k": 1.5', "top_k"),
        ('"seed": 7.0', "seed"),
        ('"logit_bias": {"1": "x"}', "logit_bias.1"),
    ],
)
def test_strict_types(proxy_factory: Any, raw: str, field: str) -> None:
    proxy = proxy_factory("openai")
    body = f'{{"model": "{MODEL}", "messages": [{{"role": "user", "content": "hi"}}], {raw}}}'
    response = httpx.post(
        proxy.url + "/v1/chat/completions",
        content=body.encode(),
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400, response.text
    assert response.json()["error"]["param"] == field


def test_developer_messages_are_system_messages(proxy_factory: Any, fake_backend: Any) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    messages = [
        {"role": "developer", "content": "Answer in French."},
        {"role": "user", "content": "developer role"},
    ]
    as_system = [{**messages[0], "role": "system"}, messages[1]]
    prompt = get_formatter(MODEL).format({"messages": as_system})
    fake.script(prompt, Script(PLAIN_ANSWER))
    body = {"model": MODEL, "messages": messages}
    response = httpx.post(proxy.url + "/v1/chat/completions", json=body)
    assert response.status_code == 200, response.text
    assert fake.last_request(prompt)["prompt"] == prompt
    assert json.loads(response.text)["choices"][0]["message"]["content"] == PLAIN_ANSWER
