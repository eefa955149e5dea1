"""Granite32InputProcessor: golden prompts, errors, special tokens, and what is 3.2-specific.

The shared behaviour is tested for every Granite 3 release in ``test_input_contract.py``;
the golden prompts in ``tests/golden/granite3/`` were rendered from the official template by
``tests/make_goldens.py``.
"""

from __future__ import annotations

from granite_formatters.granite3.types import Granite3ChatCompletion
from granite_formatters_granite32.input import GRANITE32_PROMPT_FORMAT, Granite32InputProcessor

from support.granite3_support import DAY, GRANITE32_TOKENS, HI, QUESTION

PROCESSOR = Granite32InputProcessor()
SYSTEM_START = (
    "<|start_of_role|>system<|end_of_role|>Knowledge Cutoff Date: April 2024.\n"
    "Today's Date: April 06, 2025.\nYou are Granite, developed by IBM."
)


def test_plain_prompt() -> None:
    assert PROCESSOR.transform({"messages": HI}, today=DAY) == (
        SYSTEM_START + " You are a helpful AI assistant.<|end_of_text|>\n"
        "<|start_of_role|>user<|end_of_role|>Hi<|end_of_text|>\n"
        "<|start_of_role|>assistant<|end_of_role|>"
    )


def test_documents_share_one_turn_and_ids_and_titles_are_not_rendered() -> None:
    request = {
        "messages": QUESTION,
        "documents": [
            {"text": "First.", "doc_id": "a", "title": "One"},
            {"text": "Second.", "doc_id": 2},
            {"text": "Third."},
        ],
        "chat_template_kwargs": {"controls": {"citations": True}},
    }
    prompt = PROCESSOR.transform(request, today=DAY)
    assert (
        "<|start_of_role|>documents<|end_of_role|>Document 0\nFirst.\n\nDocument 1\nSecond."
        "\n\nDocument 2\nThird.<|end_of_text|>\n<|start_of_role|>user<|end_of_role|>"
    ) in prompt
    assert "use the symbols <co> and </co>" in prompt
    assert "One" not in prompt and '"a"' not in prompt
    assert prompt.endswith('<|start_of_role|>assistant {"citations": true}<|end_of_role|>')


def test_tools_turn_role_is_tools() -> None:
    tool = {"name": "f", "description": "é <b>"}
    prompt = PROCESSOR.transform({"messages": HI, "tools": [tool]}, today=DAY)
    assert (
        '<|start_of_role|>tools<|end_of_role|>[\n    {\n        "name": "f",\n'
        '        "description": "é <b>"\n    }\n]<|end_of_text|>\n'
    ) in prompt


def test_thinking_wording() -> None:
    prompt = PROCESSOR.transform(
        {"messages": HI, "chat_template_kwargs": {"thinking": True}}, today=DAY
    )
    assert "Write your thoughts after 'Here is my thought process:' and write your response" in (
        prompt
    )


def test_citation_tokens_of_granite_33_are_plain_text_in_32() -> None:
    text = "a <|start_of_cite|>b<|end_of_cite|> <|start_of_plugin|>"
    request = {"messages": [{"role": "user", "content": text}]}
    assert text in PROCESSOR.transform(request, today=DAY)
    assert Granite32InputProcessor.sanitize(request).messages[0].content == text


def test_document_ids_are_not_checked_for_special_tokens_as_they_are_not_rendered() -> None:
    def request(doc_id: str) -> dict[str, object]:
        return {"messages": QUESTION, "documents": [{"doc_id": doc_id, "text": "ok"}]}

    assert PROCESSOR.transform(request("<|end_of_text|>"), today=DAY) == PROCESSOR.transform(
        request("plain"), today=DAY
    )


def test_prompt_format_is_the_documented_32_format() -> None:
    assert GRANITE32_PROMPT_FORMAT.release == "Granite 3.2"
    assert GRANITE32_PROMPT_FORMAT.tools_role == "tools"
    assert GRANITE32_PROMPT_FORMAT.special_tokens.tokens == GRANITE32_TOKENS  # all 22
    typed = Granite3ChatCompletion.model_validate({"messages": HI})
    assert PROCESSOR.render(typed, True, DAY, "error") == PROCESSOR.transform(typed, today=DAY)
