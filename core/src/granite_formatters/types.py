"""The request and message models users send and receive (pydantic v2)."""

from __future__ import annotations

from ._types import AssistantMessage, ChatCompletion, ChatMessage, Document, ToolCall

__all__ = ["AssistantMessage", "ChatCompletion", "ChatMessage", "Document", "ToolCall"]
