"""Incremental output parsing: the delta records and the stream parser interface."""

from __future__ import annotations

from ._processors import MessageStream
from ._streaming import BufferedStreamParser, ChunkText, Delta, StreamParser, ToolCallDelta

__all__ = [
    "BufferedStreamParser",
    "ChunkText",
    "Delta",
    "MessageStream",
    "StreamParser",
    "ToolCallDelta",
]
