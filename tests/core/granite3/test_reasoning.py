"""Marked reasoning as the parser reads it (3.2's phrases, 3.3's tags, on toy releases),
and the stages around the citation reader (trimmer, section splitter).

The reasoning cases were written for the Granite 3 pipeline's reasoning splitter; they
now run through the one parser (``Release.output_processor()``), streamed in the cuts
given.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters.granite3._citations import BoundedPattern, Lit, PatternSet, Rep
from granite_formatters.syntax import JSON_LIST
from granite_formatters.syntax._citations.sections import SectionSplitter
from granite_formatters.syntax._citations.stages import CONTENT, ChannelSink, Outbox
from granite_formatters.syntax._marked_reasoning import MarkedReasoning

from support.granite3_output_support import cuts_for
from support.toy_release import toy_release

STARTS = ("Here is my thought process:", "Here's my thought process:")
ENDS = ("Here is my response:", "Here's my response:")
TOOLS = {"messages": [{"role": "user", "content": "q"}], "tools": [{"name": "f"}]}


def split(
    text: str, cuts: list[int] | None = None, **options: Any
) -> tuple[str, str, bool, list[str]]:
    """(content, reasoning, whether a thought was read, notes) for ``text`` streamed in
    pieces through a toy release's parser; ``options`` are the ``MarkedReasoning``'s
    (``starts``, ``ends``, ``response_tags``, ``drop_stray_ends``), ``tool_markers``
    further tool-call markers and ``leading_json`` whether tools were offered."""
    markers = options.pop("tool_markers", ())
    request = TOOLS if options.pop("leading_json", False) else None
    reasoning = MarkedReasoning(**{"starts": STARTS, "ends": ENDS, **options})
    release = toy_release(
        tool_calls=JSON_LIST,
        reasoning=reasoning,
        tool_call_markers=markers,
        dropped_tokens=("<|end_of_text|>",),
    )
    parser = release.output_processor().stream_parser(request)
    previous = 0
    for cut in [*(cuts or []), len(text)]:
        parser.feed(text[previous:cut])
        previous = cut
    parser.close()
    message = parser.message
    assert message is not None
    thought = message.reasoning_content
    return message.content, thought or "", thought is not None, message.notes


@pytest.mark.parametrize(
    ("text", "content", "reasoning"),
    [
        ("Here is my thought process:\nA.\nHere is my response:\nB.", "B.", "A."),
        ("Here's my thought process: A. Here's my response: B.", "B.", "A."),
        ("Here is my thought process: A. Here's my response: B.", "B.", "A."),
        ("Here is my thought process:Here is my response:B", "B", ""),
        ("Here is my thought process:\nstill thinking", "", "still thinking"),
        ("Sure.\nHere is my thought process: A Here is my response: B", "Sure.\nB", "A"),
        ("Sure. Here is my thought process: A Here is my response: B", "Sure. B", "A"),
        ("B. Here is my response: C.", "B. Here is my response: C.", ""),
        (
            "Here is my thought process: A Here is my response: B Here is my thought process: C",
            "B Here is my thought process: C",
            "A",
        ),
        ("Answer.<|end_of_text|>", "Answer.", ""),
        ("", "", ""),
    ],
)
def test_split(text: str, content: str, reasoning: str) -> None:
    got = split(text)
    assert got[:2] == (content, reasoning)
    assert got[2] == ("thought process:" in text and text.find("Here") <= text.find("thought"))


def test_earliest_start_marker_wins() -> None:
    text = "Here's my thought process: A Here is my thought process: B Here is my response: C"
    assert split(text)[:2] == ("C", "A Here is my thought process: B")


def test_tags_removed_from_the_content_and_stray_ends() -> None:
    options: dict[str, Any] = {
        "starts": ("<think>",),
        "ends": ("</think>",),
        "response_tags": ("<response>", "</response>"),
        "drop_stray_ends": True,
    }
    assert split("<think>a</think>\n<response>\nb\n</response>\nP.S.", **options)[:2] == (
        "b\nP.S.",
        "a",
    )
    assert split("<response>b</response>", **options)[:3] == ("b", "", False)
    content, _, seen, notes = split("a</think>b", **options)
    assert (content, seen) == ("ab", False)
    assert notes == ["removed </think> at offset 1: no reasoning was opened before it"]


def test_no_marker_is_read_in_a_tool_call() -> None:
    options: dict[str, Any] = {
        "starts": ("<think>",),
        "ends": ("</think>",),
        "response_tags": ("<response>",),
    }
    # No reasoning marker is read in a tool call (the call is read, the content empty).
    text = '<|tool_call|>[{"name": "f", "arguments": {"q": "<think><response>"}}]'
    assert split(text, **options)[:3] == ("", "", False)
    bare = ' [{"name": "f", "arguments": {"q": "<think>"}}]'
    assert split(bare, leading_json=True, **options)[:3] == ("", "", False)
    assert split(bare, **options)[2] is True


SOUP = st.lists(
    st.sampled_from([*STARTS, *ENDS, "Here is my", "Here", " ", "\n", "A.", "<|end_of_text|>",
                     "<|end_of", "x"]),
    max_size=20,
).map("".join)  # fmt: skip


@given(data=st.data(), text=SOUP)
def test_chunking_never_changes_the_result(data: st.DataObject, text: str) -> None:
    assert split(text, data.draw(cuts_for(text))) == split(text)


@given(text=SOUP)
def test_nothing_is_dropped_but_markers(text: str) -> None:
    content, reasoning, _, _ = split(text)

    def visible(value: str) -> list[str]:
        for marker in (*STARTS, *ENDS, "<|end_of_text|>"):
            value = value.replace(marker, "\n")
        return sorted("".join(value.split()))

    assert visible(content + "\n" + reasoning) == visible(text)


HEADERS = PatternSet(
    [
        BoundedPattern("citations", [Rep("#", 1, 2), Rep(" ", 0, 2), Lit("Cites", True), Lit(":")]),
        BoundedPattern("hallucinations", [Rep("#", 1, 2), Lit(" Flags:")]),
    ]
)


def sections(text: str, cuts: list[int] | None = None) -> tuple[str, str, list[str]]:
    outbox = Outbox()
    sink = ChannelSink(outbox, CONTENT)
    splitter = SectionSplitter(
        sink, outbox, line_patterns=HEADERS, starters=("<|open|>",), drops=("<|close|>",)
    )
    previous = 0
    for cut in [*(cuts or []), len(text)]:
        splitter.write(text[previous:cut])
        previous = cut
    splitter.end()
    return sink.text(), splitter.sections_text(), outbox.notes


def test_section_headers_only_at_line_start() -> None:
    text = "Answer # Cites: no.\n# Cit\n## cites:\nline\n# Flags:\n1."
    assert sections(text) == (
        "Answer # Cites: no.\n# Cit\n",
        "## cites:\nline\n# Flags:\n1.",
        [],
    )
    assert sections("# Cites:x") == ("", "# Cites:x", [])
    assert sections("Answer <|open|>{x}\n") == ("Answer ", "<|open|>{x}\n", [])
    assert sections("A<|close|>B") == ("AB", "", ["removed a stray '<|close|>' from the answer"])
    assert sections("No sections\n#") == ("No sections\n#", "", [])


SECTION_SOUP = st.lists(
    st.sampled_from(["# Cites:", "#", "# C", "Cites:", "\n", " ", "x", "<|open|>", "<|op",
                     "<|close|>", "## Flags:", "# Flags"]),
    max_size=20,
).map("".join)  # fmt: skip


@given(data=st.data(), text=SECTION_SOUP)
def test_sections_chunking_never_changes_the_result(data: st.DataObject, text: str) -> None:
    assert sections(text, data.draw(cuts_for(text))) == sections(text)
