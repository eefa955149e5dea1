"""Granite 3.3 output parsing: realistic outputs, malformed outputs, fuzzing."""

from __future__ import annotations

from typing import Any, cast

import pytest

from granite_formatters.granite3 import Granite3OutputProcessor
from granite_formatters.granite3.cite_format import TOKENS_SKIPPED_NOTE
from granite_formatters_granite33.releases import GRANITE33

from support.granite3_output_support import (
    check_consistent,
    check_spans,
    span_of,
)

PARSER = cast("Granite3OutputProcessor", GRANITE33.output_processor())
USER = [{"role": "user", "content": "Tell me about Granite."}]
THINKING = {"messages": USER, "chat_template_kwargs": {"thinking": True}}
NOT_THINKING = {"messages": USER, "chat_template_kwargs": {"thinking": False}}
TOOLS = {"messages": USER, "tools": [{"type": "function", "function": {"name": "get_weather"}}]}

DOCS: list[dict[str, Any]] = [
    {"doc_id": "overview", "text": "Granite is a family of language models developed by IBM "
     "Research. The models are released under the Apache 2.0 license."},
    {"doc_id": "reasoning", "text": "Granite 3.3 added a reasoning mode that can be switched on "
     "per request. Reasoning improves results on math benchmarks."},
    {"doc_id": "sizes", "text": "The 8b model has 8 billion parameters, while the 2b model has "
     "about 2.5 billion. Both support a context length of 128K tokens."},
    {"doc_id": "rag doc", "text": "Retrieval-augmented generation grounds answers in documents "
     "supplied with the request.\nCitations point back to those documents."},
    {"doc_id": 5, "text": "Hallucination detection flags sentences that may not be supported by "
     "the documents."},
]  # fmt: skip
RAG = {
    "messages": USER,
    "documents": DOCS,
    "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
}


def cite(doc_id: str) -> str:
    return '<|start_of_cite|>{"document_id": "' + doc_id + '"}<|end_of_cite|>'


RAG_OUTPUT = (
    "<think>The user wants an overview.</think>\n<response>"
    + cite("overview") + " Granite is a family of language models developed by IBM Research. "
    "They are released under the Apache 2.0 license " + cite("overview") + ". "
    "Granite 3.3 added a reasoning mode " + cite("reasoning") + ". "
    "The 8b model has 8 billion parameters." + cite("sizes") + " "
    '<|start_of_cite|>{"document_id": "sizes"}It supports 128K tokens<|end_of_cite|>. '
    "Granite 3.3 added a reasoning mode " + cite("reasoning") + ". "
    "Answers can cite documents " + cite("rag doc") + cite("5") + ".</response>\n\n"
    '<|start_of_plugin|>{"id": "citation"}\n'
    'overview: "Granite is a family of language models developed by IBM Research."\n'
    'overview: "The models are released under the Apache 2.0 license."\n'
    'reasoning: "Granite 3.3 added a reasoning mode that can be switched on per request."\n'
    'sizes: "The 8b model has 8 billion parameters"\n'
    'sizes: "Both support a context length of 128K tokens."\n'
    'reasoning: "Granite 3.3 added a reasoning mode"\n'
    'rag doc: "Retrieval-augmented generation grounds answers in documents supplied with the '
    'request. Citations point back to those documents."\n'
    '5: "Hallucination detection flags sentences"\n'
    "<|end_of_plugin|>\n"
    '<|start_of_plugin|>{"id": "hallucination"}\n'
    "1. Risk low: Granite is a family of language models developed by IBM Research.\n"
    "2. Risk medium: It supports 128K tokens.\n"
    "3. Risk high: Answers can cite documents.\n"
    "4. Risk unanswerable: Granite 3.3 added a reasoning mode.\n"
    "<|end_of_plugin|>\n"
)  # fmt: skip
RAG_CONTENT = (
    "Granite is a family of language models developed by IBM Research. They are released under "
    "the Apache 2.0 license. Granite 3.3 added a reasoning mode. The 8b model has 8 billion "
    "parameters. It supports 128K tokens. Granite 3.3 added a reasoning mode. Answers can cite "
    "documents."
)


def test_rag_answer_with_five_documents_and_eight_citations() -> None:
    message = PARSER.transform(RAG_OUTPUT, RAG)
    content = message.content
    assert content == RAG_CONTENT
    assert message.reasoning_content == "The user wants an overview."
    assert message.raw_content == RAG_OUTPUT
    first = "Granite is a family of language models developed by IBM Research."
    repeated = "Granite 3.3 added a reasoning mode."
    second_copy = span_of(content, repeated, span_of(content, repeated)[1])
    expected = [
        ("0", "overview", span_of(content, first), first),  # tag at the very start
        ("1", "overview", span_of(content, "They are released under the Apache 2.0 license."),
         "The models are released under the Apache 2.0 license."),
        ("2", "reasoning", span_of(content, repeated),
         "Granite 3.3 added a reasoning mode that can be switched on per request."),
        ("3", "sizes", span_of(content, "The 8b model has 8 billion parameters."),
         "The 8b model has 8 billion parameters"),
        # a wrapped citation covers exactly the wrapped text
        ("4", "sizes", span_of(content, "It supports 128K tokens"),
         "Both support a context length of 128K tokens."),
        ("5", "reasoning", second_copy, "Granite 3.3 added a reasoning mode"),
        ("6", "rag doc", span_of(content, "Answers can cite documents."),
         "Retrieval-augmented generation grounds answers in documents supplied with the "
         "request.\nCitations point back to those documents."),
        ("7", 5, span_of(content, "Answers can cite documents."),  # caller's int doc_id
         "Hallucination detection flags sentences"),
    ]  # fmt: skip
    got = [
        (c.citation_id, c.doc_id, (c.response_begin, c.response_end), c.context_text)
        for c in message.citations
    ]
    assert got == expected
    assert second_copy != span_of(content, repeated)
    assert [c.context_begin for c in message.citations] == [0, 66, 0, 0, 81, 0, 0, 0]
    assert [d.doc_id for d in message.documents] == ["overview", "reasoning", "sizes", "rag doc", 5]
    assert [d.text for d in message.documents] == [d["text"] for d in DOCS]
    assert [(h.risk, h.response_begin) for h in message.hallucinations] == [
        ("low", 0),
        ("medium", content.index("It supports")),
        ("high", content.index("Answers")),
        ("unanswerable", content.index(repeated)),
    ]
    assert message.notes == []
    assert check_spans(message, DOCS) == 8 + 8 + 4


def test_real_world_output_shape() -> None:
    # The shape of ibm-granite/granite-io's Granite 3.3 test data.
    output = (
        "RAG stands for Retrieval-Augmented Generation. It's a method that enhances generative "
        "models with information retrieval capabilities "
        '<|start_of_cite|>{"document_id": "1"}<|end_of_cite|>. It helps.\n\n'
        '<|start_of_plugin|>{"id": "citation"}\n1: "RAG is a technique that grants generative '
        'artificial intelligence models information retrieval capabilities."\n\n'
        '<|end_of_plugin|>\n<|start_of_plugin|>{"id": "hallucination"}\n'
        "1. Risk low: RAG stands for Retrieval-Augmented Generation.\n<|end_of_plugin|>\n"
    )
    documents = [
        {"doc_id": "1", "text": "Intro. RAG is a technique that grants generative artificial "
         "intelligence models information retrieval capabilities."}
    ]  # fmt: skip
    message = PARSER.transform(output, {"messages": USER, "documents": documents})
    sentence = (
        "It's a method that enhances generative models with information retrieval capabilities."
    )
    assert message.content == f"RAG stands for Retrieval-Augmented Generation. {sentence} It helps."
    [citation] = message.citations
    assert (citation.doc_id, citation.response_text, citation.context_begin) == ("1", sentence, 7)
    assert check_spans(message, documents) == 3
    assert message.notes == []


@pytest.mark.parametrize(
    ("output", "reasoning", "content"),
    [
        ("<think>abc</think><response>def</response>", "abc", "def"),
        ("<think>\nabc\n</think>\n\n<response>\ndef\n</response>", "abc", "def"),
        ("<think>abc", "abc", ""),
        ("<think>a</think><response>b", "a", "b"),
        ("<think>a</think>b", "a", "b"),
        ("<think></think><response>b</response>", "", "b"),
        ("<think>a</think><response>b</response>\nPS: c", "a", "b\nPS: c"),
        ("Intro <think>a</think><response>b</response>", "a", "Intro b"),
        ("<response>b</response>", None, "b"),
        ("<response>b", None, "b"),
        ("a</think>b", None, "ab"),
        ("<think>a</think><think>b</think>", "a", "<think>b</think>"),
        ("<think>a</think><response>b</response><|end_of_text|>", "a", "b"),
    ],
)
def test_reasoning(output: str, reasoning: str | None, content: str) -> None:
    for request in (THINKING, None):
        message = PARSER.transform(output, request)
        assert (message.reasoning_content, message.content) == (reasoning, content)
        check_consistent(message, output)


def test_thinking_off_leaves_tags_in_the_content() -> None:
    output = "<think>a</think><response>b</response>"
    message = PARSER.transform(output, NOT_THINKING)
    assert (message.reasoning_content, message.content, message.raw_content) == (None, output, None)


CALL = '[{"name": "get_weather", "arguments": {"city": "<think>Paris</response>"}}]'


@pytest.mark.parametrize(
    ("output", "content"),
    [
        ("<|tool_call|>" + CALL, ""),
        ("<tool_call>" + CALL + "</tool_call>", ""),
        (" " + CALL, ""),
        ("Checking.<|tool_call|>" + CALL + " Back soon.", "Checking. Back soon."),
        (
            '<|tool_call|>{"name": "get_weather", "arguments": {"city": "<think>Paris</response>"}}',
            "",
        ),
    ],
)
def test_tool_calls(output: str, content: str) -> None:
    for request in (TOOLS, {**TOOLS, "chat_template_kwargs": {"thinking": True}}):
        message = PARSER.transform(output, request)
        assert [(c.name, c.arguments) for c in message.tool_calls] == [
            ("get_weather", {"city": "<think>Paris</response>"})
        ]
        assert (message.content, message.reasoning_content) == (content, None)
        assert message.tool_calls[0].id != PARSER.transform(output, request).tool_calls[0].id


def test_skipped_special_tokens_give_a_note_instead_of_wrong_citations() -> None:
    # What a server returns with skip_special_tokens=True.
    output = (
        'RAG grounds answers {"document_id": "rag doc"}. It is useful.\n\n'
        '{"id": "citation"}\nrag doc: "Retrieval-augmented generation grounds answers"\n\n'
        '{"id": "hallucination"}\n1. Risk low: It is useful.\n'
    )
    message = PARSER.transform(output, RAG)
    assert message.content == "RAG grounds answers. It is useful."
    assert message.citations == [] and message.documents == []
    assert message.notes == [TOKENS_SKIPPED_NOTE]
    [flag] = message.hallucinations
    assert (flag.risk, flag.response_begin, flag.response_end) == ("low", 21, 34)
    check_spans(message, DOCS)


def test_sections_without_tokens_but_real_cite_tokens_still_parse() -> None:
    output = (
        'A fact <|start_of_cite|>{"document_id": "sizes"}<|end_of_cite|>.\n\n{"id": "citation"}\n'
    )
    output += 'sizes: "The 8b model has 8 billion parameters"'
    [citation] = PARSER.transform(output, RAG).citations
    assert (citation.doc_id, citation.response_text, citation.context_begin) == (
        "sizes",
        "A fact.",
        0,
    )


MALFORMED: list[tuple[str, str, int, list[str]]] = [
    # (output, content, number of citations, notes)
    ("", "", 0, []),
    ("<|start_of_plugin|>", "", 0, ["a section of unknown kind is kept in the content: ''"]),
    ('A<|start_of_plugin|>{"id": "citation"}\nsizes: "The 8b"\n<|end_of_plugin|>\n'
     '<|start_of_plugin|>{"id": "citation"}\nsizes: "model"', "A", 2,
     ["the citations section appears more than once; all are read",
      "citation 0: document 'sizes' is listed but not cited in the answer",
      "citation 1: document 'sizes' is listed but not cited in the answer"]),
    ('A ' + cite("sizes") + '.\n<|start_of_plugin|>{"id": "hallucination"}\n1. Risk low: A.\n'
     '<|end_of_plugin|><|start_of_plugin|>{"id": "citation"}\nsizes: "The 8b"', "A.", 1, []),
    ("A " + cite("sizes") + ". B " + cite("nope") + ".", "A. B.", 2,
     ["citation 0: document 'sizes' has no line in the citations section",
      "citation 1: document 'nope' has no line in the citations section",
      "citation 1: the request has no document 'nope'"]),
    ("A <|start_of_cite|>no object<|end_of_cite|>.", "A no object.", 1,
     ["citation 0: the cite tag names no document_id",
      "citation 0: document '' has no line in the citations section",
      "citation 0: the request has no document ''"]),
    ("A.<|end_of_cite|> B.", "A. B.", 0,
     ["removed an <|end_of_cite|> that closes no <|start_of_cite|>"]),
    ("A.<|end_of_plugin|> B.", "A. B.", 0, ["removed a stray '<|end_of_plugin|>' from the answer"]),
    # an unreadable (giant) object: the tokens go, the object stays as text
    ('A ' + cite("x" * 5000) + ".", 'A {"document_id": "' + "x" * 5000 + '"}.', 1,
     ["citation 0: the cite tag names no document_id",
      "citation 0: document '' has no line in the citations section",
      "citation 0: the request has no document ''"]),
    ('See {"id": "citation"} inline.', 'See {"id": "citation"} inline.', 0, []),
    ('A ' + cite("sizes") + '.\n<|start_of_plugin|>{"id": "citation"}\nsizes: "The 8b', "A.", 1,
     []),
    ('A ' + cite("sizes") + '.\n<|start_of_plugin|>{"id": "citation"}\njunk line\n'
     '<|end_of_plugin|>\nstray text', "A.\n\nstray text", 1,  # nothing is lost
     ["could not read citation line 'junk line'",
      "text after a section is kept in the content: 'stray text'",
      "citation 0: document 'sizes' has no line in the citations section"]),
]  # fmt: skip


def test_document_cited_more_often_than_listed_reuses_its_context() -> None:
    output = "Alpha " + cite("sizes") + ". Beta " + cite("sizes") + ".\n<|start_of_plugin|>"
    output += '{"id": "citation"}\nsizes: "The 8b model"'
    message = PARSER.transform(output, RAG)
    assert [(c.response_text, c.context_text) for c in message.citations] == [
        ("Alpha.", "The 8b model"),
        ("Beta.", "The 8b model"),
    ]
    assert check_spans(message, DOCS) == 4


OUTPUT_MARKERS = [
    "<think>", "</think>", "<response>", "</response>", "<|tool_call|>", "<tool_call>",
    "</tool_call>", cite("sizes"), cite("a b"), "<|start_of_cite|>", "<|end_of_cite|>",
    '{"document_id": "1"}', "<|start_of_plugin|>", "<|end_of_plugin|>", '{"id": "citation"}',
    '{"id": "hallucination"}', '\nsizes: "The 8b"\n', "1. Risk low: ", "<|end_of_text|>",
]  # fmt: skip
