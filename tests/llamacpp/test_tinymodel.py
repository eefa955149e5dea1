"""The tiny model's file, read back with ``gguf``'s reader and run greedily with numpy.

No llama.cpp needed: this checks the design (one-hot residual, RMS norm, bigram output)
on the tensors as written, so a broken model shows here before it shows as a wrong
answer from ``llama-server``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gguf
import numpy as np
import pytest

from .tinymodel import ANSWERS, END3, END42, START_TOKENS, build_vocab, write_model


def _logits(path: Path) -> tuple[np.ndarray[Any, Any], list[str]]:
    """Each token's next-token logits (one row per current token), and the token texts."""
    reader = gguf.GGUFReader(str(path))
    tensors = {t.name: np.array(t.data, dtype=np.float32) for t in reader.tensors}
    embedding = tensors["token_embd.weight"]  # (n_vocab, n_embd)
    norm = embedding / np.sqrt((embedding**2).mean(axis=1, keepdims=True) + 1e-6)
    logits = norm @ tensors["output.weight"].T  # row: current token, column: next token
    field = reader.fields["tokenizer.ggml.tokens"]
    texts = [bytes(field.parts[i]).decode() for i in field.data]
    return logits, texts


@pytest.mark.parametrize("start", START_TOKENS)
def test_logit_bias_picks_each_answer_from_every_prompt_end(tmp_path: Path, start: str) -> None:
    path = tmp_path / "tiny.gguf"
    vocab = write_model(path)
    logits, texts = _logits(path)
    assert texts == list(vocab.texts)
    ends = {vocab.id(END3), vocab.id(END42)}
    for answer in ANSWERS:
        chosen = vocab.start(answer.name)
        written = []
        token = vocab.id(start)
        for _ in range(len(answer.pieces)):
            row = logits[token].copy()
            row[chosen] += 100  # the request's logit_bias, applied at every step
            token = int(row.argmax())
            written.append(token)
            if token in ends:
                break
        assert tuple(written) == vocab.chains[answer.name]


def test_without_bias_the_prompt_end_writes_the_end_token(tmp_path: Path) -> None:
    path = tmp_path / "tiny.gguf"
    vocab = write_model(path)
    logits, _ = _logits(path)
    for start in START_TOKENS:
        assert int(logits[vocab.id(start)].argmax()) == vocab.id(END3)


def test_every_piece_is_one_token_used_once() -> None:
    vocab = build_vocab()
    used = [t for answer in ANSWERS for t in vocab.chains[answer.name][:-1]]
    assert len(used) == len(set(used))
    assert len(vocab.texts) == len(set(vocab.texts))
