"""The Granite 3 output processor, shared by the Granite 3.x point releases.

Raw model output goes through a pipeline of incremental sinks (see :mod:`.stages`)::

    ReasoningSplitter --reasoning--> Trimmer --> reasoning_content
          |
       content --> ToolCallExtractor --> SectionSplitter --> CitationTagRemover --> Trimmer
                        |                     |                     |                 |
                   tool_calls         citation and           tag positions        content
                                   hallucination sections
                                   (parsed at the end)

Batch parsing (:meth:`Granite3OutputProcessor.transform`) is streaming with a single
chunk, so the two always agree, and the whole parse is linear in the output length.
A release declares its syntax as data, an :class:`OutputFormat` (reasoning markers,
tool-call markers, and a :class:`CitationFormat`: tag grammar, section headers, how
sections are read and tags matched to them); see ``docs/output-formats.md``.

Policies (shared by the releases):

* Reasoning markers are parsed when the request asked for ``thinking``, or did not
  say (no request, or no ``thinking`` key: the output alone cannot tell whether
  thinking was on); a request with ``thinking: false`` leaves the text untouched.
* Tool calls after ``<|tool_call|>`` / ``<tool_call>`` are parsed whenever present; a
  bare leading JSON list only when the request offered tools.
* Citation and hallucination sections and inline tags are parsed when no request was
  given, or when it has documents or mentions the ``citations`` / ``hallucinations``
  controls.
* ``content`` is stripped of surrounding whitespace; ``raw_content`` is the untouched
  output; ``notes`` says what could not be interpreted. Nothing here raises on model
  output.

The pieces live in modules named for what they are: sections (``_sections``),
citation lines (``_citation_lines``), document lookup and citation building
(``_documents``), hallucination lists (``_hallucinations``), the citation syntax type
(``_citation_format``); a release's citation syntax (:mod:`.co_format`,
:mod:`.cite_format`) is built from them and never imports this module.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable
from operator import itemgetter
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import attrs

from ..processors import OutputProcessor, RequestLike
from ..streaming import (
    ChunkText,
    Delta,
    StreamParser,
    _check_close,
    content_delta,
    finish_deltas,
    reasoning_delta,
    tool_call_delta,
)
from ..syntax.marked_reasoning import MarkedReasoning
from ..toolcalljson import text_safe
from ..types import Document, ToolCall, coerce_request
from ._citation_format import CitationFormat, CitationInput
from ._citation_lines import CitationEntry
from ._citetags import CitationTagRemover, remove_citation_tags
from ._documents import DocumentIndex
from ._hallucinations import add_hallucination_response_spans, parse_hallucinations_text
from ._markers import (
    MarkerSearch,
    marker_first_chars,
    marker_pattern,
    marker_prefixes,
    partial_marker_length,
)
from ._notes import excerpt
from ._reasoning import ReasoningSplitter
from ._sections import SectionBlock, SectionSplitter, split_section_blocks
from ._sentences import SentenceSplitter, split_sentences
from ._stages import (
    CONTENT,
    REASONING,
    TOOL_CALL,
    WHITESPACE,
    ChannelSink,
    Outbox,
    ScanningSink,
    TextSink,
    Trimmer,
)
from ._tags import TagEvent
from ._toolcalls import TOOL_CALL_MARKERS, ToolCallExtractor
from .co_format import CO_CITATIONS
from .tokens import END_OF_TEXT
from .types import Citation, Granite3AssistantMessage, Granite3ChatCompletion, Hallucination

__all__ = [
    "CoCitationOutputProcessor",
    "Granite3OutputProcessor",
    "Granite3StreamParser",
    "OutputFormat",
]

if TYPE_CHECKING:
    from ..release import Release

_logger = logging.getLogger(__name__)


@attrs.frozen
class OutputFormat:
    """Everything a Granite 3.x release's output parser needs to know, as data.

    ``thought_starts``/``thought_ends`` delimit the reasoning; ``response_tags`` are
    removed from the answer when reasoning is parsed; ``drop_stray_thought_ends``
    removes an end marker with no start before it; ``tool_call_markers`` introduce
    tool calls; ``citations`` is the citation format (``None``: no citations).
    """

    release: str
    citations: CitationFormat | None = None
    thought_starts: tuple[str, ...] = ()
    thought_ends: tuple[str, ...] = ()
    response_tags: tuple[str, ...] = ()
    drop_stray_thought_ends: bool = False
    tool_call_markers: tuple[str, ...] = TOOL_CALL_MARKERS

    @classmethod
    def of(cls, release: Release) -> OutputFormat:
        """The output format a :class:`~granite_formatters.Release` declares: its
        citations, its reasoning markers (a
        :class:`~granite_formatters.syntax.MarkedReasoning`'s, or another reasoning
        syntax's ``open`` and ``close``) and its tool-call markers."""
        reasoning = release.reasoning
        markers: dict[str, Any] = {}
        if isinstance(reasoning, MarkedReasoning):
            markers = {
                "thought_starts": reasoning.starts,
                "thought_ends": reasoning.ends,
                "response_tags": reasoning.response_tags,
                "drop_stray_thought_ends": reasoning.drop_stray_ends,
            }
        elif reasoning is not None:
            markers = {"thought_starts": (reasoning.open,), "thought_ends": (reasoning.close,)}
        opens = (release.tool_calls.open,) if release.tool_calls is not None else ()
        return cls(
            release=release.name,
            citations=release.citations,
            tool_call_markers=opens + release.tool_call_markers,
            **markers,
        )


_LEGACY = ("release", "thought_starts", "thought_ends", "response_tags", "drop_stray_thought_ends")


class Granite3OutputProcessor(OutputProcessor):
    """Parses Granite 3.x output in the format :attr:`output_format` declares.

    A release declares its :class:`OutputFormat` (``output_format = ...`` on a
    subclass, or ``Granite3OutputProcessor(output_format=...)``). ``sentence_splitter``
    decides which sentence a citation tag refers to; any function with the signature
    of :func:`~.sentences.split_sentences` can be given. For compatibility, a subclass
    may still set ``release``, ``thought_starts``, ``thought_ends``, ``response_tags``
    or ``drop_stray_thought_ends`` as class attributes: they update its format.
    """

    output_format: ClassVar[OutputFormat] = OutputFormat(release="Granite 3")
    message_type = Granite3AssistantMessage

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        legacy = {name: cls.__dict__[name] for name in _LEGACY if name in cls.__dict__}
        if legacy and "output_format" not in cls.__dict__:
            cls.output_format = attrs.evolve(cls.output_format, **legacy)

    def __init__(
        self,
        *,
        sentence_splitter: SentenceSplitter = split_sentences,
        output_format: OutputFormat | None = None,
    ) -> None:
        self.sentence_splitter = sentence_splitter
        if output_format is not None:
            self.output_format = output_format  # type: ignore[misc]

    @property
    def release(self) -> str:
        """The release's name, for messages."""
        return self.output_format.release

    def transform(
        self,
        model_output: str,
        chat_completion: RequestLike | None = None,
        *,
        stop_reason: str | None = None,
    ) -> Granite3AssistantMessage:
        """Parse a complete (or truncated) model output. Never raises on the output.

        Raises :class:`~granite_formatters.errors.InvalidRequestError` only for an
        invalid ``chat_completion``.
        """
        if stop_reason is not None:
            _check_close(None, stop_reason)  # (as close checks it: one rule, one wording)
        return self.stream_parser(chat_completion).parse_whole(model_output, stop_reason)

    def stream_parser(self, chat_completion: RequestLike | None = None) -> Granite3StreamParser:
        """A parser for one output arriving in chunks (see :mod:`granite_formatters.streaming`)."""
        request = None
        if chat_completion is not None:
            request = coerce_request(chat_completion, Granite3ChatCompletion)
        return Granite3StreamParser(self, request)


class CoCitationOutputProcessor(Granite3OutputProcessor):
    """Parses output in the ``<co>`` citation format; subclass it per release.

    Equivalent to declaring ``OutputFormat(release=..., citations=CO_CITATIONS)``.
    """

    output_format = OutputFormat(release="Granite 3", citations=CO_CITATIONS)


class _Union(NamedTuple):
    """What a fast lane knows of the stages it crosses (see :func:`_lane_union`)."""

    chars: frozenset[str]  # the characters that need one of their scans
    holds: frozenset[str]  # marker beginnings they would hold back whole
    first: re.Pattern[str]  # finds the first of ``chars``
    others: frozenset[str]  # the characters of ``chars`` that begin no marker
    markers: tuple[str, ...]  # their markers


@functools.lru_cache(maxsize=256)
def _lane_union(
    crossed: tuple[frozenset[str], ...], markers: tuple[tuple[str, ...], ...]
) -> _Union:
    """For a fast lane crossing stages with these characters (``lane()``) and markers:
    all the characters, the beginnings of the markers that hold none of the characters
    but the markers' first ones, and so on (a handful of combinations per release, each
    made once)."""
    chars = frozenset().union(*crossed)
    every = tuple(marker for group in markers for marker in group)
    others = chars - marker_first_chars(every)
    holds = frozenset(prefix for prefix in marker_prefixes(every) if others.isdisjoint(prefix))
    first = re.compile("[" + "".join(re.escape(c) for c in sorted(chars)) + "]")
    return _Union(chars, holds, first, others, every)


class _Lane(NamedTuple):
    """A fast lane (see ``Granite3StreamParser._plan``)."""

    union: _Union  # the stages it crosses
    write: Callable[[str], None]  # where a chunk goes
    stable: bool  # whether it stays valid after a chunk
    busy: ScanningSink | None  # the busy stage it ends in: valid while that holds text back


#: The steady lanes (see ``Granite3StreamParser._steady``): the answer text between the
#: markers, on its way to the content channel, and the sections being collected.
_ANSWER, _COLLECT = 0, 1


_SURROGATES_REPLACED = "replaced lone surrogates (not encodable as UTF-8) in the output with U+FFFD"


class Granite3StreamParser(StreamParser):
    """Parses one Granite 3.x output incrementally (see :class:`Granite3OutputProcessor`)."""

    #: Whether chunks may skip the stages that cannot react to them (the fast lanes of
    #: :meth:`_plan`, :meth:`_write` and :meth:`feed`); the tests turn them off to
    #: compare every delta with the full path's.
    _fast_lanes: ClassVar[bool] = True

    def __init__(
        self, processor: Granite3OutputProcessor, request: Granite3ChatCompletion | None
    ) -> None:
        self._processor = processor
        self._request = request
        self._raw: list[str] = []
        self._tool_calls: list[ToolCall] = []
        self._message: Granite3AssistantMessage | None = None
        self._closed = False
        self._surrogates = False  # (lone surrogates were replaced: one note, first)
        self._text = ChunkText()
        self._role_sent = False
        self._blocks: list[SectionBlock] = []
        self._entries: list[CitationEntry] = []
        self._hallucination_items: list[Hallucination] = []
        outbox = self._outbox = Outbox()

        # Thinking unknown (no request, or a request that does not say) counts as on.
        thinking = (
            request is None
            or request.thinking()
            or "thinking" not in request.chat_template_kwargs.model_fields_set
        )
        tools_offered = request is not None and bool(request.tools)
        controls = request.chat_template_kwargs.controls or {} if request is not None else {}
        self._rag = (
            request is None
            or bool(request.documents)
            or "citations" in controls
            or "hallucinations" in controls
        )

        self._reasoning = ChannelSink(outbox, REASONING)
        self._content = ChannelSink(outbox, CONTENT)
        self._content_trim = Trimmer(self._content)
        sink: TextSink = self._content_trim
        self._tags: CitationTagRemover | None = None
        self._sections: SectionSplitter | None = None
        form = self._format = processor.output_format
        cite = self._cite = form.citations
        if self._rag and cite is not None:
            self._tags = CitationTagRemover(sink, cite.tag_grammar)
            self._sections = SectionSplitter(
                self._tags,
                outbox,
                line_patterns=cite.section_patterns,
                starters=(cite.section_open,) if cite.section_open else (),
                drops=(cite.section_close,) if cite.section_close else (),
            )
            self._sections.recover = self._read_sections
            sink = self._sections
        tools = ToolCallExtractor(
            sink, outbox, bare_list=tools_offered, markers=form.tool_call_markers
        )
        self._splitter = ReasoningSplitter(
            Trimmer(self._reasoning),
            tools,
            outbox,
            starts=form.thought_starts if thinking else (),
            ends=form.thought_ends if thinking else (),
            content_drops=form.response_tags if thinking else (),
            drops=(END_OF_TEXT,),
            drop_stray_ends=form.drop_stray_thought_ends,
            stoppers=form.tool_call_markers,
            leading_json=tools_offered,
        )
        self._tools = tools
        #: The beginning of a marker held back by the parser (see :meth:`_write`).
        self._held = ""
        self._content_lanes: dict[Callable[[str], None], Callable[[str], None]] = {}
        #: The steady lane, when the stable fast lane ends where :meth:`feed` can finish a
        #: chunk itself: its characters (those of the fast lane) and what finishes it
        #: (:meth:`_steady_answer` or :meth:`_steady_collect`). Set by :meth:`_plan`.
        self._steady: tuple[frozenset[str], Callable[[str], list[Delta] | None]] | None = None
        self._lane = self._plan()

    @property
    def message(self) -> Granite3AssistantMessage | None:
        return self._message

    def feed(self, chunk: str | bytes) -> list[Delta]:
        # The steady lane: the usual streamed chunk, a piece of answer text (or of the
        # sections) holding no character that can start a marker, is finished here,
        # with no call into the stages (see _steady_answer and _steady_collect).
        steady = self._steady
        if (
            steady is not None
            and chunk.__class__ is str
            and chunk
            and chunk.isascii()  # nothing to decode or replace
            and steady[0].isdisjoint(chunk)
        ):
            deltas = steady[1](chunk)
            if deltas is not None:
                return deltas
        if self._closed:
            raise RuntimeError("this stream parser is closed; create a new one per output")
        if chunk.__class__ is str and not self._text.decoding:
            self._write(chunk)
        else:
            # (Once bytes were given, a str chunk may end a character they left
            # incomplete, and the steady lane, which skips the decoder, is closed.)
            self._steady = None
            self._write(self._text(chunk))
        pieces = self._outbox.pieces
        if not pieces:
            return []
        if len(pieces) == 1 and pieces[0][0] != TOOL_CALL:
            # One piece of text (the usual streamed chunk): one delta, built directly.
            self._outbox.pieces = []
            channel, text = pieces[0]
            delta = content_delta(text) if channel == CONTENT else reasoning_delta(text)
            return self._first([delta])
        return self._first(self._deltas())

    def _first(self, deltas: list[Delta]) -> list[Delta]:
        # The first delta of the stream carries the role.
        if deltas and not self._role_sent:
            self._role_sent = True
            deltas[0] = attrs.evolve(deltas[0], role="assistant")
        return deltas

    def _steady_answer(self, chunk: str) -> list[Delta] | None:
        """What the fast lane into the tag remover would do with ``chunk``, fused, or
        ``None`` (nothing done) when a stage on the way is not in its steady state.

        Past the reasoning splitter and the tool-call and section stages (which would
        pass the marker-free chunk on unchanged), the tag remover holds trailing
        whitespace and passes the rest on after the whitespace it held; the trimmer,
        started and holding nothing, passes on text that does not end in whitespace
        unchanged, so it reaches the content channel and becomes this chunk's delta.
        """
        tags, trim = self._tags, self._content_trim
        assert tags is not None  # an _ANSWER lane ends in the tag remover
        if tags._cluster is not None or not trim._started or trim._held:
            return None
        body = chunk.rstrip(WHITESPACE)
        if body and body[-1].isspace():
            return None  # whitespace the trimmer would hold (not the remover's)
        self._raw.append(chunk)
        splitter = self._splitter
        splitter._last_was_space = chunk[-1] in WHITESPACE
        held = tags._held
        if not body:
            held.append(chunk)
            return []
        splitter._fresh = False
        size = len(body)
        if held:
            held.append(body)
            body = "".join(held)
            held.clear()  # (only a cluster keeps the remover's list: there is none)
        if size < len(chunk):
            held.append(chunk[size:])
        tags._out += len(body)
        tags._last = body[-1]
        self._content.chunks.append(body)
        delta = content_delta(body)
        return [delta] if self._role_sent else self._first([delta])

    def _steady_collect(self, chunk: str) -> list[Delta] | None:
        """What the fast lane into the collecting section splitter would do with ``chunk``
        (the reasoning splitter's bookkeeping, then the chunk collected): no delta."""
        assert self._sections is not None  # a _COLLECT lane ends in the section splitter
        collected = self._sections._sections  # (SectionSplitter.write, once collecting)
        assert collected is not None
        self._raw.append(chunk)
        splitter = self._splitter
        splitter._last_was_space = chunk[-1] in WHITESPACE
        if splitter._fresh and chunk.strip(WHITESPACE):
            splitter._fresh = False
        collected.append(chunk)
        return []

    def _write(self, chunk: str) -> None:
        if not chunk:
            return
        safe = None if chunk.isascii() else text_safe(chunk)
        if safe is not None:
            # Noted first in the message, whichever chunk held it (see _build_message).
            self._surrogates = True
            chunk = safe
        self._raw.append(chunk)
        if self._held:
            # The beginning of a marker, held here (see below): decided now?
            chunk = self._held + chunk
            assert self._lane is not None  # text is only held on a lane
            if chunk in self._lane.union.holds:
                self._held = chunk
                return
            self._held = ""
            self._splitter.write(chunk)
            self._lane = self._plan()
            return
        # The fast lane: a chunk that cannot touch any marker of the stages it would
        # otherwise cross goes straight to the first stage that must look at it.
        lane = self._lane
        while lane is not None:
            union = lane.union
            if union.chars.isdisjoint(chunk):
                lane.write(chunk)
                # A busy stage still holding text back (a marker arriving in small
                # chunks) is in the state it was planned for, and so are those before it.
                if lane.stable or (lane.busy is not None and lane.busy._pending):
                    return
                self._lane = self._plan()
                return
            found = union.first.search(chunk)
            assert found is not None  # chunk holds one of union.chars
            start = found.start()
            if not start:
                if chunk in union.holds:
                    # The beginning of a marker of a stage on the way: each stage before
                    # that one would pass it on or hold it, and that one would hold it,
                    # so it is held here until it is decided, and written once, instead
                    # of being scanned by the stages again with each chunk of the marker.
                    self._held = chunk
                    self._steady = None
                    return
                if not self._passes(chunk, union):
                    break
                start = len(chunk)
            # The text before what needs a scan takes the lane; the rest is looked at again.
            lane.write(chunk[:start])
            chunk = chunk[start:]
            if not (lane.stable or (lane.busy is not None and lane.busy._pending)):
                lane = self._lane = self._plan()
            if not chunk:
                return
        self._splitter.write(chunk)
        self._lane = self._plan()

    @staticmethod
    def _passes(chunk: str, union: _Union) -> bool:
        """Whether the stages crossed would pass ``chunk`` on whole: it holds none of
        their markers, no other character they react to and no marker beginning at its
        end (one that a stage sees at the end of what the stage before it passed on could
        be longer than any at the end of the chunk, so none at all is asked for)."""
        return (
            union.others.isdisjoint(chunk)
            and MarkerSearch(chunk, union.markers).next() is None
            and not partial_marker_length(chunk, union.markers)
        )

    def _plan(self) -> _Lane | None:
        """The fast lane for the stages' current state (``None``: the full path).

        Each stage on the way says which characters need its scan now (``lane()``,
        ``None`` when it is mid-marker or has text pending); a chunk holding none of
        them is handed to the first stage that is busy, or past every stage to the
        trimmer, as the stages would have passed it. A lane into a busy stage is only
        used while that stage holds text back (its state may change); the others stay
        valid until the next chunk that takes the full path. The lane also knows the
        beginnings of the markers of the stages it crosses (see :meth:`_write`).
        """
        self._steady = None
        splitter = self._splitter
        chars = splitter.lane()
        if chars is None or not self._fast_lanes:
            return None
        target: Callable[[str], None]
        stable = False
        steady: int | None = None
        busy: ScanningSink | None = None
        crossed = [chars]
        markers = [splitter._markers()]
        if splitter.thinking:
            return _Lane(
                _lane_union(tuple(crossed), tuple(markers)), splitter.reasoning.write, True, None
            )
        tools = self._tools
        tools_chars = tools.lane()
        sections, tags = self._sections, self._tags
        if tools_chars is None:
            target, busy = tools.write, tools
        else:
            crossed.append(tools_chars)
            markers.append(tools._scan_markers)
            if sections is None or tags is None:
                target, stable = self._content_trim.write, True
            elif sections.collecting:
                target, stable = sections.write, True
                steady = _COLLECT
            else:
                section_chars = sections.lane()
                if section_chars is None:
                    target, busy = sections.write, sections
                else:
                    crossed.append(section_chars)
                    markers.append(sections._markers)
                    tag_chars = tags.lane()
                    if tag_chars is None:
                        target, busy = tags.write, tags
                    else:
                        crossed.append(tag_chars)
                        markers.append(tags.grammar.markers)
                        target, stable = tags.text, True
                        steady = _ANSWER
        union = _lane_union(tuple(crossed), tuple(markers))
        lanes = self._content_lanes
        lane = lanes.get(target)
        if lane is None:
            lane = lanes[target] = splitter.content_lane(target)
        if steady is not None and not self._text.decoding:
            finish = self._steady_answer if steady == _ANSWER else self._steady_collect
            self._steady = (union.chars, finish)
        return _Lane(union, lane, stable, busy)

    def _close(self, finish_reason: str | None, stop_reason: str | None) -> list[Delta]:
        """End the stream: the remaining deltas, the last carrying ``finish_reason``.

        ``finish_reason`` is what the backend reported, when it is not a plain stop
        (``"length"`` when it hit its token limit); by default it is ``"tool_calls"``
        when calls were parsed, else ``"stop"``. ``stop_reason`` (the stop string or
        token id the backend matched, as vLLM reports it) is copied to the message.
        """
        if self._closed:
            return []
        self._finish()
        deltas = self._deltas()
        self._message = self._build_message(stop_reason)
        return finish_deltas(
            deltas,
            first=not self._role_sent,
            finish_reason=finish_reason,
            tool_calls=bool(self._tool_calls),
        )

    def parse_whole(self, text: str, stop_reason: str | None = None) -> Granite3AssistantMessage:
        """The batch parse: ``text`` as the only chunk, then the end; the message.

        The stages see exactly what ``feed(text)`` then ``close()`` gives them; only
        the deltas, which a batch parse would throw away, are not assembled (the
        tool calls are taken from the outbox as :meth:`_deltas` takes them).
        """
        if self._closed:
            raise RuntimeError("this stream parser is closed; create a new one per output")
        self._write(text if text.__class__ is str else self._text(text))
        self._finish()
        for channel, value in self._outbox.drain():
            if channel == TOOL_CALL:
                self._tool_calls.append(value[1])
        message = self._message = self._build_message(stop_reason)
        return message

    def _finish(self) -> None:
        """No more text: flush the decoder, the marker beginning held back and the stages."""
        self._closed = True
        self._write(self._text.end())
        if self._held:
            self._splitter.write(self._held)
            self._held = ""
        # No lane after the end (feed's steady lane would take a chunk instead of refusing it).
        self._lane = self._steady = None
        self._splitter.end()

    def _deltas(self) -> list[Delta]:
        # Consecutive pieces of one channel become one delta; the pieces are collected
        # and joined once (adding them one by one would be quadratic).
        deltas: list[Delta] = []
        channel_of_run: str | None = None
        run: list[Any] = []

        def flush() -> None:
            if not run:
                return
            if channel_of_run == TOOL_CALL:
                deltas.append(Delta(tool_calls=tuple(run)))
            elif channel_of_run == REASONING:
                deltas.append(Delta(reasoning_content="".join(run)))
            else:
                deltas.append(Delta(content="".join(run)))
            run.clear()

        for channel, value in self._outbox.drain():
            kind = channel if channel in (TOOL_CALL, REASONING) else None
            if kind != channel_of_run:
                flush()
                channel_of_run = kind
            if channel == TOOL_CALL:
                index, call = value
                self._tool_calls.append(call)
                run.append(tool_call_delta(index, call))
            else:
                run.append(value)
        flush()
        return deltas

    def _read_sections(self, text: str) -> str:
        """Read the collected sections once; return the text that goes back to the answer.

        Kept in the answer (issue: nothing the model wrote is lost): the body of a
        section of unknown kind, text after a section's closing token and, when no
        request was given, header-like lines that are not the model's section syntax
        (3.3: a header not opened by ``<|start_of_plugin|>``; 3.1/3.2: a header whose
        section cannot be read, i.e. one that does not end the answer with citation or
        hallucination lines).
        """
        outbox = self._outbox
        cite = self._cite
        assert cite is not None  # sections are only collected with a citation format
        blocks, strays = split_section_blocks(
            text,
            cite.section_patterns,
            open_token=cite.section_open,
            close_token=cite.section_close,
        )
        recovered: list[str] = []
        no_request = self._request is None
        kinds_seen: set[str] = set()
        tag_markers = marker_pattern(cite.tag_grammar.markers)
        for block in blocks:
            if block.kind is None:
                outbox.note(
                    f"a section of unknown kind is kept in the content: {excerpt(block.body)}"
                )
                recovered.append(block.body)
                continue
            if no_request and cite.section_open and not block.token:
                recovered.append(block.header + block.body)
                continue
            block_notes: list[str] = []
            entries: list[CitationEntry] = []
            items: list[Hallucination] = []
            if block.kind == "citations":
                entries = list(cite.read_section(block.body, block_notes))
                # A citation tag inside a quoted context is noise (prior defect B33).
                # Contexts are made of the body's lines, and no tag marker spans a line
                # break: a body without a marker has no tag to remove.
                if tag_markers is not None and tag_markers.search(block.body) is not None:
                    for number, entry in enumerate(entries):
                        if tag_markers.search(entry.context) is None:
                            continue
                        context = remove_citation_tags(entry.context, cite.tag_grammar)[0]
                        if context != entry.context:
                            entries[number] = CitationEntry(entry.key, entry.document, context)
            else:
                items = parse_hallucinations_text(block.body, block_notes)
            unreadable = not (entries or items) or any(
                note.startswith("could not read") for note in block_notes
            )
            if no_request and not cite.section_open and unreadable:
                recovered.append(block.header + block.body)
                continue
            if block.kind in kinds_seen:
                outbox.note(f"the {block.kind} section appears more than once; all are read")
            kinds_seen.add(block.kind)
            for note in block_notes:
                outbox.note(note)
            self._blocks.append(block)
            self._entries.extend(entries)
            self._hallucination_items.extend(items)
        for stray in strays:
            if stray.strip():
                outbox.note(f"text after a section is kept in the content: {excerpt(stray)}")
        recovered.extend(strays)
        return "".join(recovered)

    def _build_message(self, stop_reason: str | None) -> Granite3AssistantMessage:
        notes = self._outbox.notes
        if self._surrogates:
            # First, as a batch parse (one chunk) would record it, in any chunking.
            notes.insert(0, _SURROGATES_REPLACED)
        content = self._content.text()
        raw = "".join(self._raw)
        citations: list[Citation] = []
        hallucinations: list[Hallucination] = []
        documents: list[Document] = []
        cite = self._cite
        if self._tags is not None and cite is not None:
            request_documents = self._request.documents if self._request is not None else None
            index = DocumentIndex(request_documents, by_position=cite.documents_by_position)
            lead = self._content_trim.lead
            size = len(content)
            events = self._tags.events
            if lead or (events and max(map(itemgetter(2), events)) > size):
                # Direct construction: NamedTuple._replace costs several times more.
                events = [
                    TagEvent(kind, ref, min(max(position - lead, 0), size), flag)
                    for kind, ref, position, flag in events
                ]
            # One sentence split per parse, shared by citations and hallucinations.
            found = CitationInput(
                events,
                self._entries,
                content,
                index,
                self._blocks,
                notes,
                self._processor.sentence_splitter,
            )
            if events or self._entries:
                citations = cite.build_citations(found)
            if self._hallucination_items:
                grammar = cite.tag_grammar
                hallucinations = add_hallucination_response_spans(
                    self._hallucination_items,
                    content,
                    lambda text: remove_citation_tags(text, grammar)[0],
                    sentences=found.sentences(),
                    notes=notes,
                )
            documents = index.cited()
        _logger.debug("parsed %d characters: %d notes", len(raw), len(notes))
        return Granite3AssistantMessage(
            content=content,
            reasoning_content=self._reasoning.text() if self._splitter.thinking_seen else None,
            tool_calls=self._tool_calls,
            raw_content=raw,
            notes=list(dict.fromkeys(notes)),
            citations=citations,
            documents=documents,
            hallucinations=hallucinations,
            stop_reason=stop_reason,
        )
