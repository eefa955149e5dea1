"""Shared helpers for the doctor's tests: the official templates and synthetic patches."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import oracle


def official(name: str) -> str:
    """An official template's text (skips without the reference folder)."""
    folder = oracle.require_shared() / "chat-templates"
    return (folder / name).read_text(encoding="utf-8")


@pytest.fixture
def reference_dir() -> Path:
    return oracle.require_shared() / "chat-templates"
