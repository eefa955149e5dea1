"""Granite33InputProcessor: golden prompts, errors, special tokens, and what is 3.3-specific.

The shared behaviour is tested for every Granite 3 release in ``test_input_contract.py``;
the golden prompts in ``tests/golden/granite3/`` were rendered from the official template (current
revision) by ``tests/make_goldens.py``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from granite_formatters.errors import DroppedInputWarning, InvalidRequestError
from granite_formatters.granite3.types import Granite3ChatCompletion
from granite_formatters.types import coerce_request
from granite_formatters_granite33.input import GRANITE33_PROMPT_FORMAT, Granite33InputProcessor

from support import oracle
from support.granite3_support import DAY, GRANITE33_TOKENS, HI, QUESTION

PROCESSOR = Granite33InputProcessor()
CITE_TOKENS = ("<|start_of_cite|>", "<|end_of_cite|>", "<|start_of_plugin|>", "<|end_of_plugin|>")


def test_each_document_has_its_own_turn_with_its_id() -> None:
    request = {
        "messages": QUESTION,
        "documents": [
            {"doc_id": "a", "text": "First.", "title": "T"},
            {"doc_id": 7, "text": "Second."},
        ],
    }
    prompt = PROCESSOR.transform(request, today=DAY)
    assert (
        " inform the user that the question cannot be answered based on the available data."
        "<|end_of_text|>\n"
        '<|start_of_role|>document {"document_id": "a"}<|end_of_role|>\nFirst.<|end_of_text|>\n'
        '<|start_of_role|>document {"document_id": "7"}<|end_of_role|>\nSecond.<|end_of_text|>\n'
        "<|start_of_role|>user<|end_of_role|>What is the capital of France?<|end_of_text|>\n"
        "<|start_of_role|>assistant<|end_of_role|>"
    ) in prompt
    assert "T" not in prompt[prompt.index("document_id") :]


@pytest.mark.parametrize("document", [{"text": "no id"}, {"text": "null id", "doc_id": None}])
def test_document_without_id_is_rejected(document: dict[str, object]) -> None:
    request = {"messages": QUESTION, "documents": [{"doc_id": "1", "text": "ok"}, document]}
    with pytest.raises(InvalidRequestError) as caught:
        PROCESSOR.transform(request, today=DAY)
    assert caught.value.field == "documents[1].doc_id"
    assert "Granite 3.3" in str(caught.value) and "give every document a doc_id" in str(
        caught.value
    )


@pytest.mark.parametrize(
    ("document", "printed", "said"),
    [
        ({"text": "no id"}, "", 'missing: printed as ""'),
        ({"text": "null id", "doc_id": None}, "None", 'null: printed as "None"'),
    ],
)
@pytest.mark.parametrize("typed", [False, True])
def test_compatible_mode_prints_a_missing_or_null_id_as_the_template_does(
    document: dict[str, object], printed: str, said: str, typed: bool
) -> None:
    # The template prints ``doc_id | string``: "" when the key is missing, "None" for null
    # (strict=False printed "" for both).
    request: Any = {"messages": QUESTION, "documents": [document]}
    if typed:
        request = coerce_request(request, Granite3ChatCompletion)
    with pytest.warns(DroppedInputWarning, match=re.escape(said)):
        prompt = PROCESSOR.transform(request, today=DAY, strict=False)
    head = f'<|start_of_role|>document {{"document_id": "{printed}"}}<|end_of_role|>\n'
    assert head + str(document["text"]) in prompt
    if oracle.shared_dir() is not None:
        oracle_request = {"messages": QUESTION, "documents": [document]}
        assert prompt == oracle.render("3.3", oracle_request, True, DAY)


def test_special_token_in_a_document_id_is_rejected_or_stripped() -> None:
    request = {"messages": QUESTION, "documents": [{"doc_id": "x<|end_of_role|>", "text": "ok"}]}
    with pytest.raises(InvalidRequestError) as caught:
        PROCESSOR.transform(request, today=DAY)
    assert caught.value.field == "documents[0].doc_id"
    stripped = PROCESSOR.transform(request, today=DAY, special_tokens="strip")
    assert '<|start_of_role|>document {"document_id": "x"}<|end_of_role|>\nok' in stripped


def test_tools_turn_role_is_available_tools() -> None:
    prompt = PROCESSOR.transform({"messages": HI, "tools": [{"name": "f"}]}, today=DAY)
    assert ("respond only with <|tool_call|> followed by a JSON list of tools used.") in prompt
    assert (
        '<|start_of_role|>available_tools<|end_of_role|>[\n    {\n        "name": "f"\n    }\n]'
        in (prompt)
    )


def test_current_revision_joins_and_citation_example() -> None:
    request = {
        "messages": QUESTION,
        "tools": [{"name": "f"}],
        "documents": [{"doc_id": "1", "text": "Paris."}],
        "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
    }
    prompt = PROCESSOR.transform(request, today=DAY)
    assert "to fulfill the request.\nWrite the response" in prompt
    assert "available data.\nUse the symbols <|start_of_cite|> and <|end_of_cite|>" in prompt
    assert "e.g <|start_of_cite|> {document_id: 1}my fact <|end_of_cite|> for a fact" in prompt
    assert "ordered list.\nFinally, after the response is written" in prompt
    assert "with a corresponding risk value that are hallucinated" in prompt


def test_thinking_wording() -> None:
    prompt = PROCESSOR.transform(
        {"messages": HI, "chat_template_kwargs": {"thinking": True}}, today=DAY
    )
    assert "Write your thoughts between <think></think> and write your response between" in prompt


@pytest.mark.parametrize("token", CITE_TOKENS)
def test_citation_and_plugin_tokens_are_special_in_33(token: str) -> None:
    request = {"messages": [{"role": "user", "content": f"a{token}b"}]}
    with pytest.raises(InvalidRequestError) as caught:
        PROCESSOR.transform(request, today=DAY)
    assert caught.value.field == "messages[0].content"
    assert repr(token) in str(caught.value)
    assert Granite33InputProcessor.sanitize(request).messages[0].content == "ab"
    assert "<|end_of_role|>ab<|end_of_text|>" in PROCESSOR.transform(
        request, today=DAY, special_tokens="strip"
    )


def test_prompt_format_is_the_documented_33_format() -> None:
    assert GRANITE33_PROMPT_FORMAT.release == "Granite 3.3"
    assert GRANITE33_PROMPT_FORMAT.tools_role == "available_tools"
    assert GRANITE33_PROMPT_FORMAT.special_tokens.tokens[22:] == CITE_TOKENS
    assert GRANITE33_PROMPT_FORMAT.special_tokens.tokens == GRANITE33_TOKENS  # all 26
