"""What the tool-call syntaxes whose bodies are JSON share: the reader and its note."""

from __future__ import annotations

from .._jsonscan import JsonScanner
from ._protocols import ToolCallDefaults

__all__ = ["JsonBody"]


class JsonBody(ToolCallDefaults):
    """A tool-call syntax's members for a JSON body: read by :class:`JsonScanner`, its
    errors noted as the JSON's."""

    __slots__ = ()

    def reader(self) -> JsonScanner:
        return JsonScanner()

    def reader_note(self, error: str) -> str:
        return f"holds JSON {error}"
