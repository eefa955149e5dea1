"""Granite 3.2 output parsing: realistic outputs, malformed outputs, fuzzing."""

from __future__ import annotations

from typing import cast

import pytest

from granite_formatters.granite3 import Granite3OutputProcessor
from granite_formatters_granite32.releases import GRANITE32

from support.granite3_output_support import (
    check_spans,
    span_of,
)

PARSER = cast("Granite3OutputProcessor", GRANITE32.output_processor())
USER = [{"role": "user", "content": "Tell me about Granite."}]
THINKING = {"messages": USER, "chat_template_kwargs": {"thinking": True}}
NOT_THINKING = {"messages": USER, "chat_template_kwargs": {"thinking": False}}
TOOLS = {"messages": USER, "tools": [{"name": "get_weather", "parameters": {"type": "object"}}]}

DOCS = [
    {"text": "Granite is a family of language models developed by IBM Research. The models "
             "are released under the Apache 2.0 license."},
    {"text": "Granite 3.2 added a reasoning mode that can be switched on per request. Reasoning "
             "improves results on math benchmarks."},
    {"text": "The 8b model has 8 billion parameters, while the 2b model has about 2.5 billion. "
             "Both support a context length of 128K tokens."},
    {"text": "Retrieval-augmented generation grounds answers in documents supplied with the "
             "request.\nCitations point back to those documents."},
    {"text": "Hallucination detection flags sentences that may not be supported by the "
             "documents.", "doc_id": "hd"},
]  # fmt: skip
RAG = {
    "messages": USER,
    "documents": DOCS,
    "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
}
RAG_OUTPUT = (
    "<co>1</co> Granite is a family of language models developed by IBM Research. "
    "They are released under the Apache 2.0 license <co>2</co>. "
    "Granite 3.2 added a reasoning mode <co>3</co>. "
    "The 8b model has 8 billion parameters.<co>4</co> It supports 128K tokens <co>5</co>. "
    "Granite 3.2 added a reasoning mode <co>6</co>. Answers can cite documents <co>7</co><co>8</co>."
    "\n\n# Citations:\n"
    '<co>1</co> Document 0: "Granite is a family of language models developed by IBM Research."\n'
    '<co>2</co> Document 0: "The models are released under the Apache 2.0 license."\n'
    '<co>3</co> Document 1: "Granite 3.2 added a reasoning mode that can be switched on per request."\n'
    '<co>4</co> Document 2: "The 8b model has 8 billion parameters"\n'
    '<co>5</co> Document 2: "Both support a context length of 128K tokens."\n'
    '<co>6</co> Document 1: "Granite 3.2 added a reasoning mode"\n'
    '<co>7</co> Document 3: "Retrieval-augmented generation grounds answers in documents supplied '
    'with the request. Citations point back to those documents."\n'
    '<co>8</co> Document 4: "Hallucination detection flags sentences"\n'
    "\n# Hallucinations:\n"
    "1. Risk low: Granite is a family of language models developed by IBM Research.\n"
    "2. Risk medium: It supports 128K tokens <co>5</co>.\n"
    "3. Risk high: Answers can cite documents.\n"
    "4. Risk unanswerable: Granite 3.2 added a reasoning mode.\n"
    "5. Risk 0.9: Not in the answer.\n"
)
RAG_CONTENT = (
    "Granite is a family of language models developed by IBM Research. They are released under "
    "the Apache 2.0 license. Granite 3.2 added a reasoning mode. The 8b model has 8 billion "
    "parameters. It supports 128K tokens. Granite 3.2 added a reasoning mode. Answers can cite "
    "documents."
)


def test_rag_answer_with_five_documents_and_eight_citations() -> None:
    message = PARSER.transform(RAG_OUTPUT, RAG)
    content = message.content
    assert content == RAG_CONTENT
    assert message.raw_content == RAG_OUTPUT
    assert message.reasoning_content is None and message.tool_calls == []
    first = "Granite is a family of language models developed by IBM Research."
    repeated = "Granite 3.2 added a reasoning mode."
    second_copy = span_of(content, repeated, span_of(content, repeated)[1])
    expected = [
        # citation id, doc id, response span, context
        ("1", "0", span_of(content, first), first),  # tag at the very start of the answer
        ("2", "0", span_of(content, "They are released under the Apache 2.0 license."),
         "The models are released under the Apache 2.0 license."),
        ("3", "1", span_of(content, repeated),
         "Granite 3.2 added a reasoning mode that can be switched on per request."),
        ("4", "2", span_of(content, "The 8b model has 8 billion parameters."),
         "The 8b model has 8 billion parameters"),
        ("5", "2", span_of(content, "It supports 128K tokens."),
         "Both support a context length of 128K tokens."),
        ("6", "1", second_copy, "Granite 3.2 added a reasoning mode"),  # the second copy
        ("7", "3", span_of(content, "Answers can cite documents."),
         "Retrieval-augmented generation grounds answers in documents supplied with the "
         "request.\nCitations point back to those documents."),  # found despite the newline
        ("8", "hd", span_of(content, "Answers can cite documents."),
         "Hallucination detection flags sentences"),
    ]  # fmt: skip
    got = [
        (c.citation_id, c.doc_id, (c.response_begin, c.response_end), c.context_text)
        for c in message.citations
    ]
    assert got == expected
    assert second_copy != span_of(content, repeated)
    assert [c.context_begin for c in message.citations] == [0, 66, 0, 0, 81, 0, 0, 0]
    assert [d.doc_id for d in message.documents] == ["0", "1", "2", "3", "hd"]
    assert [d.text for d in message.documents] == [d["text"] for d in DOCS]
    assert [(h.hallucination_id, h.risk, h.response_begin) for h in message.hallucinations] == [
        ("1", "low", 0),
        ("2", "medium", content.index("It supports")),
        ("3", "high", content.index("Answers")),
        ("4", "unanswerable", content.index(repeated)),
        ("5", "0.9", None),
    ]
    assert message.notes == ["hallucination 5: 'Not in the answer.' is not in the response"]
    assert check_spans(message, DOCS) == 8 + 8 + 4


def test_real_world_output_shape() -> None:
    # The shape of ibm-granite/granite-io's Granite 3.2 test data: tag before the period.
    output = (
        "RAG stands for Retrieval-Augmented Generation. It's a method that enhances generative "
        "models with information retrieval capabilities <co>1</co>. It helps.\n\n# Citations:\n"
        '<co>1</co> Document 0: "RAG is a technique that grants generative artificial '
        'intelligence models information retrieval capabilities."\n\n# Hallucinations:\n'
        "1. Risk low: RAG stands for Retrieval-Augmented Generation.\n"
        "2. Risk low: It's a method that enhances generative models with information retrieval "
        "capabilities <co>1</co>.\n"
    )
    documents = [
        {"text": "Intro. RAG is a technique that grants generative artificial intelligence "
                 "models information retrieval capabilities."}
    ]  # fmt: skip
    message = PARSER.transform(output, {"messages": USER, "documents": documents})
    sentence = (
        "It's a method that enhances generative models with information retrieval capabilities."
    )
    assert message.content == f"RAG stands for Retrieval-Augmented Generation. {sentence} It helps."
    [citation] = message.citations
    assert (citation.response_text, citation.context_begin) == (sentence, 7)
    assert [h.response_text for h in message.hallucinations][1] == sentence
    assert check_spans(message, documents) == 4
    assert message.notes == []


@pytest.mark.parametrize("here", ["Here is", "Here's", "Here\u2019s"])
def test_reasoning_marker_variants(here: str) -> None:
    output = f"{here} my thought process:\nThink.\n\n{here} my response:\nAnswer."
    for request in (THINKING, None, {"messages": USER}):
        message = PARSER.transform(output, request)
        assert (message.reasoning_content, message.content) == ("Think.", "Answer.")
        assert message.raw_content == output


def test_reasoning_mixed_and_truncated() -> None:
    message = PARSER.transform(
        "Here's my thought process: a Here is my response: b Here's my response: c", THINKING
    )
    assert (message.reasoning_content, message.content) == ("a", "b Here's my response: c")
    cut = PARSER.transform("Here is my thought process:\nStep 1. Add.\nStep 2", THINKING)
    assert (cut.reasoning_content, cut.content) == ("Step 1. Add.\nStep 2", "")
    empty = PARSER.transform("Here is my thought process:Here is my response: x", THINKING)
    assert (empty.reasoning_content, empty.content) == ("", "x")
    before = PARSER.transform("Okay.\nHere is my thought process: t\nHere is my response: r")
    assert (before.reasoning_content, before.content) == ("t", "Okay.\nr")
    reply_only = PARSER.transform("Here is my response: r", THINKING)
    assert (reply_only.reasoning_content, reply_only.content) == (None, "Here is my response: r")


def test_thinking_off_leaves_markers_in_the_content() -> None:
    output = "Here is my thought process: t Here is my response: r"
    message = PARSER.transform(output, NOT_THINKING)
    assert (message.reasoning_content, message.content, message.raw_content) == (None, output, None)


CALL = '[{"name": "get_weather", "arguments": {"city": "Paris"}}]'


@pytest.mark.parametrize(
    ("output", "content"),
    [
        ("<|tool_call|>" + CALL, ""),
        ("<tool_call>" + CALL, ""),
        ("\n  " + CALL, ""),
        ("I will check.\n<|tool_call|> " + CALL + "\nDone.", "I will check.\n\nDone."),
        ('<|tool_call|>{"name": "get_weather", "arguments": {"city": "Paris"}}', ""),
    ],
)
def test_tool_calls(output: str, content: str) -> None:
    message = PARSER.transform(output, TOOLS)
    assert [(c.name, c.arguments) for c in message.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert message.content == content
    assert message.raw_content == output
    assert message.to_openai()["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": '{"city": "Paris"}',
    }
    again = PARSER.transform(output, TOOLS)
    assert again.tool_calls[0].id != message.tool_calls[0].id  # unique per call across turns


def test_bare_list_without_offered_tools_is_content() -> None:
    message = PARSER.transform(CALL, {"messages": USER})
    assert message.tool_calls == [] and message.content == CALL


def test_invalid_tool_call_json_is_content() -> None:
    output = '<|tool_call|>[{"name": "get_weather", "arguments": {"city": }}]'
    message = PARSER.transform(output, TOOLS)
    assert message.tool_calls == [] and message.content == output
    assert "is not valid JSON" in message.notes[0]


MALFORMED: list[tuple[str, str, int, list[str]]] = [
    # (output, content, number of citations, notes)
    ("", "", 0, []),
    ("# Citations:", "", 0, []),
    ("# Citations:\n# Citations:\n<co>1</co> Document 0: \"Granite\"",
     "", 1, ["the citations section appears more than once; all are read",
             "citation 1 is listed but not marked in the answer"]),
    ("A <co>1</co>.\n# Hallucinations:\n1. Risk low: A.\n# Citations:\n"
     "<co>1</co> Document 0: \"Granite is\"", "A.", 1, []),
    ("A <co>1</co>.\n\n# Citations:\n<co>1</co> Docu", "A.", 0,
     ["could not read citation line '<co>1</co> Docu'",
      "<co>1</co> in the answer has no line in the citations section"]),
    ("A <co>9</co>. B <co>1</co>.\n# Citations:\n<co>1</co> Document 0: \"Granite\"",
     "A. B.", 1, ["<co>9</co> in the answer has no line in the citations section"]),
    ("A.\n# Citations:\n<co>1</co> Document 7: \"x\"", "A.", 1,
     ["citation 1 is listed but not marked in the answer",
      "citation 1: the request has no document '7'"]),
    ("See # Citations: inside a line <co>1</co>.", "See # Citations: inside a line.", 0,
     ["<co>1</co> in the answer has no line in the citations section"]),
    ("A <co>" + "9" * 5000 + "</co>.", "A <co>" + "9" * 5000 + "</co>.", 0, []),
    ("A <co>1</co>.\n# Citations:\n<co>1</co> Document " + "9" * 5000 + ': "x"', "A.", 0,
     ["could not read citation line '<co>1</co> Document " + "9" * 37 + "...'",
      "<co>1</co> in the answer has no line in the citations section"]),
    # a tag inside the quoted context is removed before the context is looked up
    ("A <co>1</co>.\n# Citations:\n<co>1</co> Document 0: \"Granite is <co>2</co> a family\"",
     "A.", 1, []),
    ("A <co>1</co>.\n# Citations:\n<co>1</co> Document 0: \"Granite is a family\n"
     "of language models\"", "A.", 1, []),
    ("A.\n# Hallucinations:\nnonsense\n1. Risk: A.", "A.", 0,
     ["could not read hallucination line 'nonsense'",
      "could not read hallucination line '1. Risk: A.'"]),
]  # fmt: skip


def test_multiline_quoted_context_is_located() -> None:
    output = (
        'A <co>1</co>.\n# Citations:\n<co>1</co> Document 0: "Granite is a family\nof language"'
    )
    [citation] = PARSER.transform(output, RAG).citations
    assert (citation.context_text, citation.context_begin) == ("Granite is a family of language", 0)


def test_no_request_parses_everything_but_cannot_locate_contexts() -> None:
    message = PARSER.transform(RAG_OUTPUT)
    assert message.content == RAG_CONTENT
    assert len(message.citations) == 8
    assert all(c.context_begin is None and c.response_begin is not None for c in message.citations)
    assert message.documents == []
    assert check_spans(message) == 8 + 4


def test_request_without_documents_or_controls_leaves_tags() -> None:
    output = 'A <co>1</co>.\n# Citations:\n<co>1</co> Document 0: "x"'
    message = PARSER.transform(output, {"messages": USER})
    assert message.content == output and message.citations == []


OUTPUT_MARKERS = [
    "Here is my thought process:", "Here's my thought process:", "Here is my response:",
    "Here's my response:", "<|tool_call|>", "<tool_call>", "</tool_call>", "<co>1</co>",
    "<co>2</co>", "<co>", "</co>", "# Citations:", "# Hallucinations:", "\n# Citations:\n",
    '<co>1</co> Document 0: "Granite is"\n', "1. Risk low: ", "<|end_of_text|>",
]  # fmt: skip
