"""The streaming fast lane, aimed at directly: chunks that cannot touch a marker skip the
parsing stages, the others take the full path. Whatever the boundary between the two,
the stream must give the batch parse (the property tests of each release cover random
chunkings; these put a cut at every position of every marker, between long marker-free
runs with multi-byte characters, in the 4-character chunks a server sends).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters import get_formatter
from granite_formatters._streaming import Delta, content_delta, reasoning_delta

from support.granite3_output_support import check_stream
from support.release_data import CITED_ANSWER
from support.releases import Release

RAG = {
    "messages": [{"role": "user", "content": "What is the capital of France?"}],
    "documents": [{"doc_id": "1", "text": "Paris is the capital of France."}],
    "chat_template_kwargs": {"controls": {"citations": True}},
}


def samples(release: Release) -> list[tuple[str, Any]]:
    """Outputs in the release's own syntax, each with the request it answers."""
    if release.has("json-tool-call-blocks"):
        return [
            ('<tool_call>\n{"name": "f", "arguments": {"a": "é😀"}}\n</tool_call>', None),
            ("Plain <b>html</b> and a < sign, no call.", None),
        ]
    if release.has("xml-tool-calls"):
        return [
            (
                "Think <é😀>.\n</think>\n\n<tool_call>\n<function=f>\n<parameter=a>\né😀\n"
                "</parameter>\n</function>\n</tool_call>",
                None,
            ),
            ("</think>Plain <b>html</b> and a < sign, no call.", None),
        ]
    return [
        (CITED_ANSWER[release.version], RAG),
        ('<|tool_call|>[{"name": "f", "arguments": {"a": "é😀"}}]', None),
    ]


PLAIN = st.text(alphabet="abc xyz.,\né😀日", max_size=40)


def four_char_cuts(length: int, offset: int) -> list[int]:
    return list(range(offset, length, 4))


@settings(max_examples=60)
@given(data=st.data(), prefix=PLAIN, suffix=PLAIN, offset=st.integers(1, 4))
def test_a_cut_anywhere_in_a_marker_between_fast_chunks_gives_the_batch_parse(
    release: Release, data: st.DataObject, prefix: str, suffix: str, offset: int
) -> None:
    processor = get_formatter(release.model).output_processor
    sample, request = data.draw(st.sampled_from(samples(release)))
    text = prefix + sample + suffix
    extra = len(prefix) + data.draw(st.integers(0, len(sample)))
    cuts = sorted({*four_char_cuts(len(text), offset), extra} - {0, len(text)})
    check_stream(processor, text, request, cuts)


def test_every_cut_of_each_sample_in_one_character_chunks_around_it(release: Release) -> None:
    processor = get_formatter(release.model).output_processor
    for sample, request in samples(release):
        text = "Lead text é😀 " * 3 + sample + " tail 日本" * 3
        for cut in range(1, len(text)):
            # Fast 4-character chunks, then the rest in one piece from the cut on.
            cuts = [c for c in four_char_cuts(len(text), 4) if c < cut] + [cut]
            check_stream(processor, text, request, cuts)


@given(st.text(max_size=30))
def test_the_one_piece_deltas_equal_the_constructor(text: str) -> None:
    assert content_delta(text) == Delta(content=text)
    assert reasoning_delta(text) == Delta(reasoning_content=text)
