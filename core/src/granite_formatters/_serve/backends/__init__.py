"""One small adapter per kind of completions server."""

from __future__ import annotations

from .base import Backend, BackendError, Finish, Piece, Usage
from .llamacpp import LlamaCppBackend
from .ollama import OllamaBackend
from .openai import OpenAIBackend

__all__ = [
    "Backend",
    "BackendError",
    "Finish",
    "LlamaCppBackend",
    "OllamaBackend",
    "OpenAIBackend",
    "Piece",
    "Usage",
    "make_backend",
]

_KINDS: dict[str, type[Backend]] = {
    "openai": OpenAIBackend,
    "llamacpp": LlamaCppBackend,
    "ollama": OllamaBackend,
}


def make_backend(kind: str, base_url: str, default_max_tokens: int | None = None) -> Backend:
    return _KINDS[kind](base_url, default_max_tokens)
