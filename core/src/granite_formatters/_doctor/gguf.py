"""The string metadata of a GGUF file, read without its tensors.

A GGUF file starts with the magic ``GGUF``, a version (2 or 3), the tensor count and the
key/value count, then the key/value pairs; the tensors follow and are never read here.
Every value is skipped or read by its type; only scalar strings are kept (the chat
templates ``tokenizer.chat_template`` and ``tokenizer.chat_template.<name>``, the
model's name and architecture). Reading is linear in the metadata's size; a length that
runs past the end of the file is an error, not a huge allocation.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

from .._errors import FormatterError

__all__ = ["MAGIC", "GGUFError", "read_strings"]

MAGIC = b"GGUF"

#: Fixed sizes of the scalar value types, by GGUF type number.
_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9


class GGUFError(FormatterError, ValueError):
    """A file that is not a readable GGUF file."""


class _Reader:
    def __init__(self, stream: BinaryIO, size: int, label: str) -> None:
        self.stream, self.size, self.label = stream, size, label

    def take(self, count: int) -> bytes:
        if count > self.size - self.stream.tell():
            raise GGUFError(f"{self.label}: the GGUF metadata runs past the end of the file")
        return self.stream.read(count)

    def skip(self, count: int) -> None:
        if count > self.size - self.stream.tell():
            raise GGUFError(f"{self.label}: the GGUF metadata runs past the end of the file")
        self.stream.seek(count, 1)

    def number(self, fmt: str) -> int:
        value: int = struct.unpack("<" + fmt, self.take(struct.calcsize(fmt)))[0]
        return value

    def string(self) -> bytes:
        return self.take(self.number("Q"))

    def skip_value(self, kind: int) -> None:
        if kind in _SIZES:
            self.skip(_SIZES[kind])
        elif kind == _STRING:
            self.skip(self.number("Q"))
        elif kind == _ARRAY:
            item, count = self.number("I"), self.number("Q")
            if item in _SIZES:
                self.skip(_SIZES[item] * count)
            else:
                for _ in range(count):
                    self.skip_value(item)
        else:
            raise GGUFError(f"{self.label}: unknown GGUF value type {kind}")


def read_strings(path: Path) -> dict[str, str]:
    """The scalar string values of ``path``'s GGUF metadata, by key."""
    label = str(path)
    with path.open("rb") as stream:
        size = path.stat().st_size
        reader = _Reader(stream, size, label)
        if stream.read(4) != MAGIC:
            raise GGUFError(f"{label} is not a GGUF file (it does not start with 'GGUF')")
        version = reader.number("I")
        if version not in (2, 3):
            raise GGUFError(f"{label}: GGUF version {version} is not supported (2 and 3 are)")
        reader.number("Q")  # the tensor count
        pairs = reader.number("Q")
        found: dict[str, str] = {}
        for _ in range(pairs):
            key = reader.string().decode("utf-8", "replace")
            kind = reader.number("I")
            if kind == _STRING:
                raw = reader.string()
                try:
                    found[key] = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise GGUFError(f"{label}: the value of {key} is not UTF-8") from None
            else:
                reader.skip_value(kind)
        return found
