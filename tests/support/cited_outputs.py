"""Test support: the output test data of the releases whose answers cite documents.

One :class:`CitedOutputs` per release label in :data:`CITED_OUTPUTS`: the requests and
documents, a realistic cited answer and what it parses to, malformed outputs, markers
for fuzzing, a strategy of realistic outputs, outputs holding every marker, and exact
parses of outputs in the release's citation syntax. The reasoning and tool-call rows are
keyed by the syntax the release declares (``features``), in :data:`REASONING_ROWS` and
:data:`TOOL_CALL_ROWS`. Used by ``tests/releases/test_cited_output.py``; imports no plugin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from granite_formatters._streaming import Delta

from support.granite3_output_support import sentences_strategy

USER = [{"role": "user", "content": "Tell me about Granite."}]
THINKING = {"messages": USER, "chat_template_kwargs": {"thinking": True}}
NOT_THINKING = {"messages": USER, "chat_template_kwargs": {"thinking": False}}


def cite(doc_id: str) -> str:
    """A Granite 3.3 cite tag naming ``doc_id``."""
    return '<|start_of_cite|>{"document_id": "' + doc_id + '"}<|end_of_cite|>'


# --------------------------------------------------------------------------- Granite 3.2

TOOLS_32 = {"messages": USER, "tools": [{"name": "get_weather", "parameters": {"type": "object"}}]}

DOCS_32 = [
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
RAG_32 = {
    "messages": USER,
    "documents": DOCS_32,
    "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
}
RAG_OUTPUT_32 = (
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
RAG_CONTENT_32 = (
    "Granite is a family of language models developed by IBM Research. They are released under "
    "the Apache 2.0 license. Granite 3.2 added a reasoning mode. The 8b model has 8 billion "
    "parameters. It supports 128K tokens. Granite 3.2 added a reasoning mode. Answers can cite "
    "documents."
)

MALFORMED_32: list[tuple[str, str, int, list[str]]] = [
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

OUTPUT_MARKERS_32 = [
    "Here is my thought process:", "Here's my thought process:", "Here is my response:",
    "Here's my response:", "<|tool_call|>", "<tool_call>", "</tool_call>", "<co>1</co>",
    "<co>2</co>", "<co>", "</co>", "# Citations:", "# Hallucinations:", "\n# Citations:\n",
    '<co>1</co> Document 0: "Granite is"\n', "1. Risk low: ", "<|end_of_text|>",
]  # fmt: skip


@st.composite
def outputs_32(draw: st.DrawFn) -> str:
    """Realistic Granite 3.2 outputs_32 (reasoning, tagged answer, tool calls, sections)."""
    here = draw(st.sampled_from(["Here is", "Here's"]))
    parts: list[str] = []
    if draw(st.booleans()):
        parts.append(f"{here} my thought process:\n{draw(st.sampled_from(['Hmm.', 'A. B.']))}\n")
        parts.append(f"\n{here} my response:\n")
    sentences = draw(sentences_strategy())
    numbers = []
    for number, sentence in enumerate(sentences, 1):
        style = draw(st.sampled_from(["none", "before", "after", "start"]))
        if style == "before":
            sentence = sentence[:-1] + f" <co>{number}</co>."
        elif style == "after":
            sentence += f"<co>{number}</co>"
        elif style == "start":
            sentence = f"<co>{number}</co> " + sentence
        if style != "none":
            numbers.append(number)
        parts.append(sentence + draw(st.sampled_from([" ", "\n", "\n\n"])))
    form = draw(st.sampled_from(["", "<|tool_call|>", "<tool_call>"]))
    if form:
        parts.append(form + '[{"name": "get_weather", "arguments": {"city": "Paris"}}]\n')
    sections = []
    if numbers:
        lines = [f'<co>{n}</co> Document {n % 5}: "{DOCS_32[n % 5]["text"][:20]}"' for n in numbers]
        sections.append("# Citations:\n" + "\n".join(lines) + "\n")
    if draw(st.booleans()):
        risks = draw(st.lists(st.sampled_from(["low", "high", "medium"]), max_size=3))
        items = [f"{i}. Risk {risk}: {sentences[0]}" for i, risk in enumerate(risks, 1)]
        sections.append("# Hallucinations:\n" + "\n".join(items) + "\n")
    if draw(st.booleans()):
        sections.reverse()
    return "".join(parts) + "\n" + "".join(sections)


EVERY_MARKER_32 = [
    (
        "Here is my thought process:\nI should cite.\nHere's my response:\n"
        "Alpha beta <co>1</co>. Gamma delta.<co>2</co> <co>3</co>\n\n"
        '# Citations:\n<co>1</co> Document 0: "Granite"\n<co>2</co> Document 1: "Granite 3.2"\n'
        "\n# Hallucinations:\n1. Risk low: Gamma delta.\n<|end_of_text|>"
    ),
    "Here's my thought process: Think. Here is my response: Done.<|end_of_text|>",
    'Sure. <|tool_call|>[{"name": "f", "arguments": {"x": "<co>1</co>"}}] Then more.',
    'Ok <tool_call>{"name": "f", "arguments": {}}</tool_call> fine.',
    '  [{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    RAG_OUTPUT_32,
]
LEAKS_32 = ("<", "#", "{", "[", "Here", '"')


# --------------------------------------------------------------------------- Granite 3.3

TOOLS_33 = {"messages": USER, "tools": [{"type": "function", "function": {"name": "get_weather"}}]}

DOCS_33: list[dict[str, Any]] = [
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
RAG_33 = {
    "messages": USER,
    "documents": DOCS_33,
    "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
}


RAG_OUTPUT_33 = (
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
RAG_CONTENT_33 = (
    "Granite is a family of language models developed by IBM Research. They are released under "
    "the Apache 2.0 license. Granite 3.3 added a reasoning mode. The 8b model has 8 billion "
    "parameters. It supports 128K tokens. Granite 3.3 added a reasoning mode. Answers can cite "
    "documents."
)

MALFORMED_33: list[tuple[str, str, int, list[str]]] = [
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

OUTPUT_MARKERS_33 = [
    "<think>", "</think>", "<response>", "</response>", "<|tool_call|>", "<tool_call>",
    "</tool_call>", cite("sizes"), cite("a b"), "<|start_of_cite|>", "<|end_of_cite|>",
    '{"document_id": "1"}', "<|start_of_plugin|>", "<|end_of_plugin|>", '{"id": "citation"}',
    '{"id": "hallucination"}', '\nsizes: "The 8b"\n', "1. Risk low: ", "<|end_of_text|>",
]  # fmt: skip

DOC_IDS_33 = [str(d["doc_id"]) for d in DOCS_33]


@st.composite
def outputs_33(draw: st.DrawFn) -> str:
    """Realistic Granite 3.3 outputs_33 (think/response, cite tags, tool calls, plugin sections)."""
    parts: list[str] = []
    if draw(st.booleans()):
        parts.append(f"<think>{draw(st.sampled_from(['Hmm.', 'A. B.', '']))}</think>")
        parts.append(draw(st.sampled_from(["", "\n", "\n\n"])))
    wrap = draw(st.booleans())
    if wrap:
        parts.append("<response>")
    sentences = draw(sentences_strategy())
    cited = []
    for sentence in sentences:
        style = draw(st.sampled_from(["none", "before", "after", "start", "wrap"]))
        doc_id = draw(st.sampled_from(DOC_IDS_33))
        if style == "before":
            sentence = sentence[:-1] + " " + cite(doc_id) + "."
        elif style == "after":
            sentence += cite(doc_id)
        elif style == "start":
            sentence = cite(doc_id) + " " + sentence
        elif style == "wrap":
            sentence = (
                '<|start_of_cite|>{"document_id": "' + doc_id + '"}' + sentence + "<|end_of_cite|>"
            )
        if style != "none":
            cited.append(doc_id)
        parts.append(sentence + draw(st.sampled_from([" ", "\n", "\n\n"])))
    if wrap:
        parts.append("</response>")
    form = draw(st.sampled_from(["", "<|tool_call|>", "<tool_call>"]))
    if form:
        parts.append(form + '[{"name": "get_weather", "arguments": {"city": "Paris"}}]\n')
    sections = []
    if cited:
        lines = [
            f'{doc_id}: "{DOCS_33[DOC_IDS_33.index(doc_id)]["text"][:20]}"' for doc_id in cited
        ]
        sections.append(
            '<|start_of_plugin|>{"id": "citation"}\n' + "\n".join(lines) + "\n<|end_of_plugin|>\n"
        )
    if draw(st.booleans()):
        risks = draw(st.lists(st.sampled_from(["low", "high", "medium"]), max_size=3))
        items = [f"{i}. Risk {risk}: {sentences[0]}" for i, risk in enumerate(risks, 1)]
        sections.append(
            '<|start_of_plugin|>{"id": "hallucination"}\n'
            + "\n".join(items)
            + "\n<|end_of_plugin|>\n"
        )
    if draw(st.booleans()):
        sections.reverse()
    return "".join(parts) + "\n" + "".join(sections)


EVERY_MARKER_33 = [
    (
        "<think>I should cite.</think>\n<response>Alpha beta " + cite("overview") + ". "
        '<|start_of_cite|>{"document_id": "sizes"}Gamma delta<|end_of_cite|>.'
        "</response>\n\n"
        '<|start_of_plugin|>{"id": "citation"}\noverview: "Granite"\nsizes: "The 8b"\n'
        '<|end_of_plugin|>\n<|start_of_plugin|>{"id": "hallucination"}\n'
        "1. Risk low: Gamma delta.\n<|end_of_plugin|><|end_of_text|>"
    ),
    "<think>Think.</think><response>Done.",
    'Sure. <|tool_call|>[{"name": "f", "arguments": {"x": "<think>"}}] Then more.',
    'Ok <tool_call>{"name": "f", "arguments": {}}</tool_call> fine.',
    '  [{"name": "get_weather", "arguments": {"city": "<response>"}}]',
    'Stripped tokens {"document_id": "sizes"}.\n\n{"id": "citation"}\nsizes: "The 8b"',
    RAG_OUTPUT_33,
]
LEAKS_33 = ("<", "{", "[", '"', "|")

# --------------------------------------------------------------------------- the records


@dataclass(frozen=True)
class Parsed:
    """An output, the request it answers, and exactly what it parses to."""

    output: str
    request: Any
    content: str
    citations: list[tuple[Any, str, str, int | None]]
    """``(doc_id, response_text, context_text, context_begin)`` of each citation."""
    hallucinations: list[tuple[str, str | None, int | None, int | None]]
    """``(risk, response_text, response_begin, response_end)`` of each flagged sentence."""
    documents: list[Any]
    """The ``doc_id`` of each document of the message."""
    notes: list[str]
    spans: int
    """What ``check_spans`` counts (with the request's documents)."""


@dataclass(frozen=True)
class StreamSplit:
    """A stream fed in ``len(cuts) + 1`` chunks: the deltas of each feed and of ``close``,
    then the citations ``(doc_id, response_text)`` and the number of flagged sentences."""

    text: str
    cuts: list[int]
    feeds: list[list[Any]]
    citations: list[tuple[Any, str]]
    hallucinations: int


@dataclass(frozen=True)
class CitedOutputs:
    """A release's output test data (see the module docstring)."""

    tools: dict[str, Any]
    docs: list[dict[str, Any]]
    rag: dict[str, Any]
    rag_output: str
    rag_content: str
    rag_reasoning: str | None
    rag_citations: list[tuple[str, Any, str, int, str]]
    """``(citation_id, doc_id, response sentence, which occurrence of it, context)``."""
    rag_context_begins: list[int]
    rag_doc_ids: list[Any]
    """The ``doc_id`` of each document of the parsed message (a missing one: its index)."""
    rag_hallucinations: list[tuple[str, str, str | None]]
    """``(hallucination_id, risk, flagged sentence or None)``."""
    rag_notes: list[str]
    malformed: list[tuple[str, str, int, list[str]]]
    """``(output, content, number of citations, notes)`` parsed with :attr:`rag`."""
    markers: list[str]
    outputs: Any
    """A strategy of realistic outputs (reasoning, cited answer, tool calls, sections)."""
    every_marker: list[str]
    leaks: tuple[str, ...]
    stream_split: StreamSplit
    tool_call_stream: str
    """A tool call the stream parser must hand over as one OpenAI-shaped delta."""
    parsed: list[Parsed] = field(default_factory=list)

    @property
    def requests(self) -> list[Any]:
        """The requests outputs are parsed for."""
        return [None, self.rag, THINKING, self.tools, NOT_THINKING]


REAL_WORLD_SENTENCE = (
    "It's a method that enhances generative models with information retrieval capabilities."
)
REAL_WORLD_CONTENT = (
    f"RAG stands for Retrieval-Augmented Generation. {REAL_WORLD_SENTENCE} It helps."
)
REAL_WORLD_CONTEXT = (
    "RAG is a technique that grants generative artificial intelligence models information "
    "retrieval capabilities."
)
REAL_WORLD_DOCUMENTS_32 = [{"text": "Intro. " + REAL_WORLD_CONTEXT}]
REAL_WORLD_DOCUMENTS_33 = [{"doc_id": "1", "text": "Intro. " + REAL_WORLD_CONTEXT}]
SKIPPED_TOKENS_NOTE = (
    "the output has no <|start_of_cite|> tokens (the server probably decoded with "
    "skip_special_tokens=True), so citations cannot be located and none are returned; "
    "request skip_special_tokens=False to get them"
)
FIRST = "Granite is a family of language models developed by IBM Research."
RELEASED = "They are released under the Apache 2.0 license."
SIZES = "The 8b model has 8 billion parameters."
CITE = "Answers can cite documents."
RAG_DOC = (
    "Retrieval-augmented generation grounds answers in documents supplied with the "
    "request.\nCitations point back to those documents."
)


def _rag_citations(ids: list[str], docs: list[Any], release: str, fifth: str) -> list[Any]:
    """The eight citations of the RAG answer of ``release`` (its label is in the text), with
    their citation ids and doc ids; ``fifth`` is the text the fifth citation covers."""
    repeated = f"Granite {release} added a reasoning mode."
    rows = [
        (FIRST, 0, FIRST),  # tag at the very start of the answer
        (RELEASED, 0, "The models are released under the Apache 2.0 license."),
        (
            repeated,
            0,
            f"Granite {release} added a reasoning mode that can be switched on per request.",
        ),
        (SIZES, 0, "The 8b model has 8 billion parameters"),
        (fifth, 0, "Both support a context length of 128K tokens."),
        (repeated, 1, f"Granite {release} added a reasoning mode"),  # the second copy
        (CITE, 0, RAG_DOC),  # found despite the newline
        (CITE, 0, "Hallucination detection flags sentences"),
    ]
    return [(i, d, *row) for i, d, row in zip(ids, docs, rows, strict=True)]


CITED_OUTPUTS = {
    "3.2": CitedOutputs(
        tools=TOOLS_32,
        docs=DOCS_32,
        rag=RAG_32,
        rag_output=RAG_OUTPUT_32,
        rag_content=RAG_CONTENT_32,
        rag_reasoning=None,
        rag_citations=_rag_citations(
            ["1", "2", "3", "4", "5", "6", "7", "8"],
            ["0", "0", "1", "2", "2", "1", "3", "hd"],
            "3.2",
            "It supports 128K tokens.",
        ),
        rag_context_begins=[0, 66, 0, 0, 81, 0, 0, 0],
        rag_doc_ids=["0", "1", "2", "3", "hd"],
        rag_hallucinations=[
            ("1", "low", FIRST),
            ("2", "medium", "It supports"),
            ("3", "high", "Answers"),
            ("4", "unanswerable", "Granite 3.2 added a reasoning mode."),
            ("5", "0.9", None),
        ],
        rag_notes=["hallucination 5: 'Not in the answer.' is not in the response"],
        malformed=MALFORMED_32,
        markers=OUTPUT_MARKERS_32,
        outputs=outputs_32,
        every_marker=EVERY_MARKER_32,
        leaks=LEAKS_32,
        stream_split=StreamSplit(
            EVERY_MARKER_32[0],
            # "e.\nHere's my response:\nAlpha beta <co>1</co>. Gamm" is the second chunk
            [40, 90],
            [
                [Delta(reasoning_content="I should cit", role="assistant")],  # as written
                [Delta(reasoning_content="e."), Delta(content="Alpha beta. Gamm")],
                [Delta(content="a delta.")],  # the sections are held
                [Delta(finish_reason="stop")],
            ],
            [("0", "Alpha beta."), ("1", "Gamma delta.")],
            1,
        ),
        tool_call_stream=EVERY_MARKER_32[4],
        parsed=[
            # the shape of ibm-granite/granite-io's Granite 3.2 test data: tag before the period
            Parsed(
                "RAG stands for Retrieval-Augmented Generation. It's a method that enhances "
                "generative models with information retrieval capabilities <co>1</co>. It "
                'helps.\n\n# Citations:\n<co>1</co> Document 0: "RAG is a technique that '
                "grants generative artificial intelligence models information retrieval "
                'capabilities."\n\n# Hallucinations:\n'
                "1. Risk low: RAG stands for Retrieval-Augmented Generation.\n"
                "2. Risk low: It's a method that enhances generative models with information "
                "retrieval capabilities <co>1</co>.\n",
                {"messages": USER, "documents": REAL_WORLD_DOCUMENTS_32},
                REAL_WORLD_CONTENT,
                [("0", REAL_WORLD_SENTENCE, REAL_WORLD_CONTEXT, 7)],
                [
                    ("low", "RAG stands for Retrieval-Augmented Generation.", 0, 46),
                    ("low", REAL_WORLD_SENTENCE, 47, 133),
                ],
                ["0"],
                [],
                4,
            ),
            # a quoted context over two lines is located
            Parsed(
                'A <co>1</co>.\n# Citations:\n<co>1</co> Document 0: "Granite is a family\n'
                'of language"',
                RAG_32,
                "A.",
                [("0", "A.", "Granite is a family of language", 0)],
                [],
                ["0"],
                [],
                2,
            ),
            # a request without documents or controls leaves the tags
            Parsed(
                'A <co>1</co>.\n# Citations:\n<co>1</co> Document 0: "x"',
                {"messages": USER},
                'A <co>1</co>.\n# Citations:\n<co>1</co> Document 0: "x"',
                [],
                [],
                [],
                [],
                0,
            ),
        ],
    ),
    "3.3": CitedOutputs(
        tools=TOOLS_33,
        docs=DOCS_33,
        rag=RAG_33,
        rag_output=RAG_OUTPUT_33,
        rag_content=RAG_CONTENT_33,
        rag_reasoning="The user wants an overview.",
        rag_citations=_rag_citations(
            ["0", "1", "2", "3", "4", "5", "6", "7"],
            # the caller's int doc_id is kept
            ["overview", "overview", "reasoning", "sizes", "sizes", "reasoning", "rag doc", 5],
            "3.3",
            "It supports 128K tokens",  # a wrapped citation covers exactly the wrapped text
        ),
        rag_context_begins=[0, 66, 0, 0, 81, 0, 0, 0],
        rag_doc_ids=["overview", "reasoning", "sizes", "rag doc", 5],
        rag_hallucinations=[
            ("1", "low", FIRST),
            ("2", "medium", "It supports"),
            ("3", "high", "Answers"),
            ("4", "unanswerable", "Granite 3.3 added a reasoning mode."),
        ],
        rag_notes=[],
        malformed=MALFORMED_33,
        markers=OUTPUT_MARKERS_33,
        outputs=outputs_33,
        every_marker=EVERY_MARKER_33,
        leaks=LEAKS_33,
        stream_split=StreamSplit(
            EVERY_MARKER_33[0],
            [12, 70],
            [
                [Delta(reasoning_content="I sho", role="assistant")],
                [Delta(reasoning_content="uld cite."), Delta(content="Alpha beta")],
                [Delta(content=". Gamma delta.")],
                [Delta(finish_reason="stop")],
            ],
            [("overview", "Alpha beta."), ("sizes", "Gamma delta")],
            1,
        ),
        tool_call_stream=EVERY_MARKER_33[4],
        parsed=[
            # the shape of ibm-granite/granite-io's Granite 3.3 test data
            Parsed(
                "RAG stands for Retrieval-Augmented Generation. It's a method that enhances "
                "generative models with information retrieval capabilities "
                '<|start_of_cite|>{"document_id": "1"}<|end_of_cite|>. It helps.\n\n'
                '<|start_of_plugin|>{"id": "citation"}\n1: "RAG is a technique that grants '
                "generative artificial intelligence models information retrieval "
                'capabilities."\n\n<|end_of_plugin|>\n<|start_of_plugin|>{"id": '
                '"hallucination"}\n1. Risk low: RAG stands for Retrieval-Augmented '
                "Generation.\n<|end_of_plugin|>\n",
                {"messages": USER, "documents": REAL_WORLD_DOCUMENTS_33},
                REAL_WORLD_CONTENT,
                [("1", REAL_WORLD_SENTENCE, REAL_WORLD_CONTEXT, 7)],
                [("low", "RAG stands for Retrieval-Augmented Generation.", 0, 46)],
                ["1"],
                [],
                3,
            ),
            # what a server returns with skip_special_tokens=True: a note, no wrong citations
            Parsed(
                'RAG grounds answers {"document_id": "rag doc"}. It is useful.\n\n'
                '{"id": "citation"}\nrag doc: "Retrieval-augmented generation grounds '
                'answers"\n\n{"id": "hallucination"}\n1. Risk low: It is useful.\n',
                RAG_33,
                "RAG grounds answers. It is useful.",
                [],
                [("low", "It is useful.", 21, 34)],
                [],
                [SKIPPED_TOKENS_NOTE],
                1,
            ),
            # sections without tokens, but real cite tokens: still parsed
            Parsed(
                'A fact <|start_of_cite|>{"document_id": "sizes"}<|end_of_cite|>.\n\n'
                '{"id": "citation"}\nsizes: "The 8b model has 8 billion parameters"',
                RAG_33,
                "A fact.",
                [("sizes", "A fact.", "The 8b model has 8 billion parameters", 0)],
                [],
                ["sizes"],
                [],
                2,
            ),
            # a document cited more often than listed reuses its context
            Parsed(
                "Alpha " + cite("sizes") + ". Beta " + cite("sizes") + ".\n<|start_of_plugin|>"
                '{"id": "citation"}\nsizes: "The 8b model"',
                RAG_33,
                "Alpha. Beta.",
                [("sizes", "Alpha.", "The 8b model", 0), ("sizes", "Beta.", "The 8b model", 0)],
                [],
                ["sizes"],
                [],
                4,
            ),
        ],
    ),
}

#: The start and end markers of a thought, by the release's reasoning syntax.
THOUGHT_MARKERS = {
    "thought-phrases": ("Here is my thought process:", "Here is my response:"),
    "think-response-tags": ("<think>", "</think>"),
}

#: ``(output, reasoning_content, content)``, by the release's reasoning syntax; parsed
#: alike with thinking on, with no request and with a request without the option.
REASONING_ROWS: dict[str, list[tuple[str, str | None, str]]] = {
    "thought-phrases": [
        *[
            (f"{here} my thought process:\nThink.\n\n{here} my response:\nAnswer.", "Think.",
             "Answer.")
            for here in ("Here is", "Here's", "Here\u2019s")
        ],
        ("Here's my thought process: a Here is my response: b Here's my response: c", "a",
         "b Here's my response: c"),
        ("Here is my thought process:\nStep 1. Add.\nStep 2", "Step 1. Add.\nStep 2", ""),
        ("Here is my thought process:Here is my response: x", "", "x"),
        ("Okay.\nHere is my thought process: t\nHere is my response: r", "t", "Okay.\nr"),
        ("Here is my response: r", None, "Here is my response: r"),
    ],
    "think-response-tags": [
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
}  # fmt: skip
#: An output whose markers are content when the request sets thinking off.
THINKING_OFF = {
    "thought-phrases": "Here is my thought process: t Here is my response: r",
    "think-response-tags": "<think>a</think><response>b</response>",
}

_CALL = '[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
_CALL_WITH_MARKERS = '[{"name": "get_weather", "arguments": {"city": "<think>Paris</response>"}}]'
#: ``(output, content, arguments of the one get_weather call)``, by the tool-call syntax.
TOOL_CALL_ROWS: dict[str, list[tuple[str, str, dict[str, Any]]]] = {
    "json-list-tool-calls": [
        *[
            (output, content, {"city": city})
            for call, city in ((_CALL, "Paris"), (_CALL_WITH_MARKERS, "<think>Paris</response>"))
            for output, content in [
                ("<|tool_call|>" + call, ""),
                ("<tool_call>" + call, ""),
                ("<tool_call>" + call + "</tool_call>", ""),
                ("\n  " + call, ""),
                (" " + call, ""),
                ("I will check.\n<|tool_call|> " + call + "\nDone.", "I will check.\n\nDone."),
                ("Checking.<|tool_call|>" + call + " Back soon.", "Checking. Back soon."),
                ("<|tool_call|>" + call[1:-1], ""),
            ]
        ],
    ],
}
#: A tool-call list that is content when the request offers no tools.
BARE_CALL = {"json-list-tool-calls": _CALL}
#: A tool call whose JSON is broken: content, with a note.
BROKEN_CALL = {
    "json-list-tool-calls": (
        '<|tool_call|>[{"name": "get_weather", "arguments": {"city": }}]',
        "is not a tool call: not valid JSON",
    )
}
