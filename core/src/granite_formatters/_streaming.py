"""Incremental (streaming) output parsing: the delta records and the parser interface.

A stream parser turns a model's output, received in chunks of any size, into
:class:`Delta` records in the shape of OpenAI chat-completion stream deltas:

>>> parser = formatter.output_processor.stream_parser(request)   # doctest: +SKIP
>>> for chunk in chunks:                                          # doctest: +SKIP
...     for delta in parser.feed(chunk):
...         send(delta.to_openai())
>>> for delta in parser.close():                                  # doctest: +SKIP
...     send(delta.to_openai())
>>> parser.message                                                # doctest: +SKIP

Text that might still turn out to be part of a marker is held back until it is
decided, so no delta ever contains a partial marker, nothing is emitted twice and
nothing is lost: the concatenated deltas equal the final message's ``content`` and
``reasoning_content``. Parsers never raise on model output.

A tool call is emitted once its JSON is complete and valid, as one
:class:`ToolCallDelta` carrying its id, name and whole argument text (a valid OpenAI
stream shape); invalid JSON becomes content instead, which could not be taken back
had its pieces been streamed. Records that need the whole answer (citations,
hallucinations) are only in the final :attr:`StreamParser.message`.
"""

from __future__ import annotations

import codecs
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

import attrs

from ._jsonwriter import tojson
from ._types import AssistantMessage, ToolCall

__all__ = [
    "BufferedStreamParser",
    "ChunkText",
    "Delta",
    "StreamParser",
    "ToolCallDelta",
    "content_delta",
    "finish_deltas",
    "reasoning_delta",
    "tool_call_delta",
]


@attrs.frozen
class ToolCallDelta:
    """One tool call (or a piece of one) in OpenAI streaming form.

    ``index`` identifies the call within the message; ``id`` and ``name`` come with
    the call's first piece, ``arguments`` is (a piece of) the JSON argument text.
    """

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str | None = None

    def to_openai(self) -> dict[str, Any]:
        """``{"index", "id", "type", "function": {"name", "arguments"}}`` (absent parts omitted)."""
        function: dict[str, Any] = {}
        if self.name is not None:
            function["name"] = self.name
        if self.arguments is not None:
            function["arguments"] = self.arguments
        out: dict[str, Any] = {"index": self.index}
        if self.id is not None:
            out["id"] = self.id
            out["type"] = "function"
        if function:
            out["function"] = function
        return out


@attrs.frozen(weakref_slot=False)  # no __weakref__ slot: see _DeltaBuilder
class Delta:
    """A piece of an assistant message: new reasoning text, answer text or tool calls.

    The first delta of a stream carries ``role="assistant"`` and the last one carries
    ``finish_reason`` (``"tool_calls"`` when the message has tool calls, ``"stop"``
    otherwise, or what the caller passed to :meth:`StreamParser.close`, such as
    ``"length"``), as in OpenAI's stream chunks. The last delta may carry nothing else.
    """

    reasoning_content: str | None = None
    content: str | None = None
    tool_calls: tuple[ToolCallDelta, ...] = ()
    role: str | None = None
    finish_reason: str | None = None

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI ``choices[].delta`` dict (absent parts omitted).

        ``finish_reason`` belongs to the choice, not the delta: see :meth:`to_openai_choice`.
        """
        out: dict[str, Any] = {}
        if self.role is not None:
            out["role"] = self.role
        if self.reasoning_content is not None:
            out["reasoning_content"] = self.reasoning_content
        if self.content is not None:
            out["content"] = self.content
        if self.tool_calls:
            out["tool_calls"] = [call.to_openai() for call in self.tool_calls]
        return out

    def to_openai_choice(self, index: int = 0) -> dict[str, Any]:
        """The OpenAI ``choices[]`` item of a stream chunk (index, delta, finish_reason)."""
        return {"index": index, "delta": self.to_openai(), "finish_reason": self.finish_reason}


class _DeltaBuilder:
    """A :class:`Delta` under construction: the same slots without the frozen
    ``__setattr__``.

    A stream makes one delta per chunk, so the common ones are built here: the slots
    filled with plain attribute stores (which CPython specialises), then the object
    becomes a ``Delta`` (``__class__`` assignment, allowed between classes of the same
    slots; CPython refuses it when they have a ``__weakref__`` slot, hence none on
    ``Delta``). The result is an ordinary, frozen ``Delta``, equal in every way to one
    made by its constructor, at less than half the cost of setting the frozen slots
    through their descriptors.
    """

    __slots__ = tuple(field.name for field in attrs.fields(Delta))

    reasoning_content: str | None
    content: str | None
    tool_calls: tuple[ToolCallDelta, ...]
    role: str | None
    finish_reason: str | None


# Deltas of token-sized texts, shared: a stream's chunks are mostly tokens, and a model
# writes the same few thousand tokens over and over. A Delta is frozen, so one instance
# can stand for every equal delta, as CPython shares small ints and interned strings.
# Bounded: cleared when full, and only short texts are kept.
_SHARED_TEXT = 16
_SHARED_KEPT = 4096
_content_deltas: dict[str, Delta] = {}
_reasoning_deltas: dict[str, Delta] = {}


def content_delta(text: str) -> Delta:
    """``Delta(content=text)``, built faster (a stream parser makes one per chunk).

    A short text's delta may be an instance shared with earlier equal deltas (a frozen
    ``Delta`` is a value: equal, same hash, same ``to_openai()``).
    """
    delta = _content_deltas.get(text)
    if delta is None:
        delta = _build_content(text)
        if len(text) <= _SHARED_TEXT:
            if len(_content_deltas) >= _SHARED_KEPT:
                _content_deltas.clear()
            _content_deltas[text] = delta
    return delta


def reasoning_delta(text: str) -> Delta:
    """``Delta(reasoning_content=text)``, built faster (see :func:`content_delta`)."""
    delta = _reasoning_deltas.get(text)
    if delta is None:
        delta = _build_reasoning(text)
        if len(text) <= _SHARED_TEXT:
            if len(_reasoning_deltas) >= _SHARED_KEPT:
                _reasoning_deltas.clear()
            _reasoning_deltas[text] = delta
    return delta


def _build_content(text: str) -> Delta:
    delta = _DeltaBuilder()
    delta.reasoning_content = None
    delta.content = text
    delta.tool_calls = ()
    delta.role = None
    delta.finish_reason = None
    delta.__class__ = Delta  # type: ignore[assignment]
    return delta  # type: ignore[return-value]


def _build_reasoning(text: str) -> Delta:
    delta = _DeltaBuilder()
    delta.reasoning_content = text
    delta.content = None
    delta.tool_calls = ()
    delta.role = None
    delta.finish_reason = None
    delta.__class__ = Delta  # type: ignore[assignment]
    return delta  # type: ignore[return-value]


def tool_call_delta(index: int, call: ToolCall) -> ToolCallDelta:
    """The stream form of a complete tool call (id, name and the whole argument text,
    as :meth:`ToolCall.to_openai` writes it)."""
    arguments = call.arguments
    return ToolCallDelta(index, call.id, call.name, tojson({} if arguments is None else arguments))


def finish_deltas(
    deltas: list[Delta], *, first: bool, finish_reason: str | None, tool_calls: bool
) -> list[Delta]:
    """``deltas`` with ``role`` on the first (when ``first``) and ``finish_reason`` on the last.

    ``finish_reason`` ``None`` means ``"tool_calls"`` when the message has tool calls and
    ``"stop"`` otherwise. A delta carrying only the finish reason is added when needed.
    """
    reason = finish_reason or ("tool_calls" if tool_calls else "stop")
    out = list(deltas) or [Delta()]
    out[-1] = attrs.evolve(out[-1], finish_reason=reason)
    if first:
        out[0] = attrs.evolve(out[0], role="assistant")
    return out


class StreamParser(ABC):
    """Parses one model output incrementally.

    Call :meth:`feed` with each chunk, then :meth:`close` once; after that,
    :attr:`message` is the parsed message, equal to what the output processor's
    ``transform`` returns for the whole text.

    A parser implements :meth:`feed`, :attr:`message` and ``_close(finish_reason,
    stop_reason)``, which :meth:`close` calls once it has checked its arguments (the
    check is this class's, the same for every parser). A parser written before that
    overrides :meth:`close` itself; ``Formatter.stream_parser`` checks the arguments
    for it.
    """

    @abstractmethod
    def feed(self, chunk: str) -> list[Delta]:
        """Consume the next chunk; return the deltas that can be emitted now."""

    def close(
        self, finish_reason: str | None = None, *, stop_reason: str | None = None
    ) -> list[Delta]:
        """The output is complete: return the remaining deltas and build :attr:`message`.

        The last delta returned carries ``finish_reason``: the one given (pass
        ``"length"`` when the backend stopped at its token limit, or whatever it
        reported), else ``"tool_calls"`` or ``"stop"``. ``stop_reason`` (the stop string
        or token the backend matched) is copied to the message. A second call returns
        ``[]``. Each argument must be a non-empty string or ``None``, else
        :class:`~granite_formatters._errors.InvalidRequestError` naming it is raised
        before the stream is closed.
        """
        if finish_reason is not None or stop_reason is not None:
            _check_close(finish_reason, stop_reason)
        return self._close(finish_reason, stop_reason)

    def _close(self, finish_reason: str | None, stop_reason: str | None) -> list[Delta]:
        """:meth:`close`, its arguments checked (see the class docstring)."""
        raise NotImplementedError(f"{type(self).__qualname__} implements neither close nor _close")

    @property
    @abstractmethod
    def message(self) -> AssistantMessage | None:
        """The parsed message once :meth:`close` has been called, else ``None``."""


class ChunkText:
    """The text of the chunks fed to one stream parser.

    A ``str`` is its own text; ``bytes`` (or a ``bytearray`` or ``memoryview``) are
    decoded as UTF-8 by one incremental decoder, so a character split across chunks is
    decoded whole, and bytes that are not UTF-8 become U+FFFD; ``None`` is no text and
    anything else its ``str()``. Text keeps the order of the chunks: a chunk that is not
    bytes ends a character left incomplete by the bytes before it, which becomes U+FFFD
    ahead of that chunk's text (as when the stream ends). Call :meth:`end` when the
    stream ends: the bytes of a character left incomplete become U+FFFD there rather
    than being lost.
    """

    __slots__ = ("_decoder", "decoding")

    def __init__(self) -> None:
        self._decoder: codecs.IncrementalDecoder | None = None
        #: Whether bytes were given: a parser that takes ``str`` chunks as they are (a
        #: fast path) must pass them through this object from then on.
        self.decoding = False

    def __call__(self, chunk: object) -> str:
        if isinstance(chunk, bytes | bytearray | memoryview):
            if self._decoder is None:
                self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
                self.decoding = True
            return self._decoder.decode(bytes(chunk))
        text = chunk if isinstance(chunk, str) else "" if chunk is None else str(chunk)
        if self._decoder is not None and self._decoder.getstate()[0]:
            return self._decoder.decode(b"", final=True) + text
        return text

    def end(self) -> str:
        """What the decoder still holds, as text (``""`` when nothing is pending)."""
        return "" if self._decoder is None else self._decoder.decode(b"", final=True)


class BufferedStreamParser(StreamParser):
    """The fallback stream parser for output processors without an incremental one.

    It holds every chunk back and, on :meth:`close`, parses the whole text with the
    processor's ``transform`` and emits the result as one delta. Correct for any
    processor, but nothing reaches the user before the end of the stream.
    """

    def __init__(self, transform: Callable[[str], AssistantMessage]) -> None:
        self._transform = transform
        self._chunks: list[str] = []
        self._text = ChunkText()
        self._message: AssistantMessage | None = None

    def feed(self, chunk: str | bytes) -> list[Delta]:
        if self._message is not None:
            raise RuntimeError("feed() after close()")
        self._chunks.append(self._text(chunk))
        return []

    def _close(self, finish_reason: str | None, stop_reason: str | None) -> list[Delta]:
        if self._message is not None:
            return []
        message = self._transform("".join(self._chunks) + self._text.end())
        if stop_reason is not None:
            message = message.model_copy(update={"stop_reason": stop_reason})
        self._message = message
        delta = Delta(
            reasoning_content=message.reasoning_content or None,
            content=message.content or None,
            tool_calls=tuple(tool_call_delta(i, call) for i, call in enumerate(message.tool_calls)),
        )
        return finish_deltas(
            [delta], first=True, finish_reason=finish_reason, tool_calls=bool(message.tool_calls)
        )

    @property
    def message(self) -> AssistantMessage | None:
        return self._message


def _check_close(finish_reason: object, stop_reason: object) -> None:
    """The arguments of a stream's ``close``, checked once for every release (by the
    formatter's stream): each a non-empty string or ``None``."""
    for value, field in ((finish_reason, "finish_reason"), (stop_reason, "stop_reason")):
        if value is not None and not (isinstance(value, str) and value):
            from ._errors import InvalidRequestError, quote

            raise InvalidRequestError(
                f"must be a non-empty string or None, not {quote(value)}", field=field
            )


#: Stream parser classes whose ``close`` takes ``stop_reason`` (see :class:`_CheckedStream`).
_TAKES_STOP_REASON: dict[type, bool] = {}


def _takes_stop_reason(parser: StreamParser) -> bool:
    kind = parser.__class__
    known = _TAKES_STOP_REASON.get(kind)
    if known is None:
        import inspect

        try:
            parameters = inspect.signature(parser.close).parameters
        except (TypeError, ValueError):  # pragma: no cover - a builtin close
            parameters = {}  # type: ignore[assignment]
        known = "stop_reason" in parameters or any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
        )
        if len(_TAKES_STOP_REASON) < 64:
            _TAKES_STOP_REASON[kind] = known
    return known


class _CheckedStream(StreamParser):
    """A plugin's stream parser that overrides :meth:`close` (one written before
    ``_close``), as ``Formatter.stream_parser`` hands it out: :meth:`close`'s arguments
    are checked here, as :class:`StreamParser` checks them, then passed to
    :attr:`parser`; a ``close`` without ``stop_reason`` gets it copied onto its message.
    """

    # ``feed`` is a slot holding the parser's bound method (no extra call per chunk).
    __slots__ = ("_message", "feed", "parser")

    def __init__(self, parser: StreamParser) -> None:
        self.parser = parser
        self.feed = parser.feed  # type: ignore[method-assign]
        self._message: AssistantMessage | None = None

    def _close(self, finish_reason: str | None, stop_reason: str | None) -> list[Delta]:
        parser = self.parser
        if stop_reason is None:
            return parser.close(finish_reason)
        if _takes_stop_reason(parser):
            return parser.close(finish_reason, stop_reason=stop_reason)
        deltas = parser.close(finish_reason)
        message = parser.message
        if self._message is None and message is not None:
            self._message = message.model_copy(update={"stop_reason": stop_reason})
        return deltas

    @property
    def message(self) -> AssistantMessage | None:
        return self._message if self._message is not None else self.parser.message


def _checked_stream(parser: StreamParser) -> StreamParser:
    """``parser``, or a wrapper checking ``close``'s arguments when its class overrides
    :meth:`StreamParser.close` (see :class:`_CheckedStream`)."""
    if parser.__class__.close is StreamParser.close:
        return parser
    return _CheckedStream(parser)  # type: ignore[abstract]  # (feed: a slot)
