"""A tiny deterministic GGUF model for a real ``llama-server``, written with the ``gguf`` package.

Architecture ``llama``, one layer whose attention and feed-forward outputs are zero, so
the hidden state that reaches the output is the current token's embedding; embeddings
are one-hot (``n_embd >= n_vocab``), and the output matrix gives each scripted token its
successor a large logit. The model is a bigram chain: greedy or sampled, generation
follows the chain from whatever token starts it, and each chain writes one scripted
answer and ends with the release's end token (an end-of-generation token in llama.cpp).

A chain starts at the token a request favours with ``logit_bias`` (``+100``, OpenAI's
largest): the prompt's last token (``<|end_of_role|>`` for Granite 3.x/4.0/4.1; for 4.2 a
newline after an opened ``<think>``, or ``</think>`` with thinking off) gives its
successor only a small logit,
and within a chain the successor's logit dwarfs the bias, so the bias only picks the
start. A bigram model cannot write one token twice with two different successors, so
every piece below is used once across all answers (:func:`build_vocab` checks it).

The vocabulary is byte-level BPE ("gpt2"): all 256 byte tokens, every bundled release's
special tokens typed as the real checkpoints type them (``CONTROL`` for special tokens,
which llama.cpp prints only with ``--special``; ``USER_DEFINED`` for added tokens that are
not special, such as Granite 4's ``<tool_call>``), and whole-piece tokens for the answers.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

#: Token types as GGUF stores them (llama.cpp's ``llama_token_type``).
NORMAL, CONTROL, USER_DEFINED = 1, 3, 4

#: Special tokens (``CONTROL``): Granite 3.2/3.3, 3.3's citation and plugin markers,
#: Granite 4.0/4.1's special added tokens, and 4.2's ChatML turn markers.
CONTROL_TOKENS = (
    "<|end_of_text|>", "<|start_of_role|>", "<|end_of_role|>", "<|tool_call|>",
    "<fim_prefix>", "<fim_middle>", "<fim_suffix>", "<fim_pad>",
    "<filename>", "<gh_stars>", "<reponame>",
    "<issue_start>", "<issue_comment>", "<issue_closed>",
    "<jupyter_start>", "<jupyter_text>", "<jupyter_code>", "<jupyter_output>", "<empty_output>",
    "<commit_before>", "<commit_msg>", "<commit_after>",
    "<|start_of_cite|>", "<|end_of_cite|>", "<|start_of_plugin|>", "<|end_of_plugin|>",
    "<|pad|>", "<|unused_1|>", "<|unk|>", "<think_on>", "<think_off>",
    "<schema>", "</schema>", "<tools>", "</tools>", "<documents>", "</documents>",
    "<|im_start|>", "<|im_end|>",
)  # fmt: skip
#: Added tokens that are not special (``USER_DEFINED``): printed with or without ``--special``.
USER_DEFINED_TOKENS = (
    "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
    "<|filename|>", "<|reponame|>",
    "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>",
    "<think>", "</think>",
)  # fmt: skip

#: A piece of an answer: text (one token), or raw bytes (one byte token; part of a character).
Piece = str | bytes


@attrs.frozen
class Answer:
    """One scripted answer: the pieces the model writes, one token each, in order."""

    name: str
    pieces: tuple[Piece, ...]

    @property
    def text(self) -> str:
        """The answer as llama.cpp prints it with ``--special`` (the end token included)."""
        return b"".join(p if isinstance(p, bytes) else p.encode() for p in self.pieces).decode()


def _words(text: str) -> tuple[str, ...]:
    """``text`` cut before each space: one piece per word."""
    out: list[str] = []
    for word in text.split(" "):
        out.append(word if not out else " " + word)
    return tuple(w for w in out if w)


END3 = "<|end_of_text|>"  # 3.x and 4.0/4.1 end of turn (EOS)
END42 = "<|im_end|>"  # 4.2 end of turn
COUNT = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"  # fmt: skip

#: Every scripted answer. ``pieces`` are the tokens; their texts never repeat (see module doc).
ANSWERS = (
    # Granite 3.2 and 3.3 (same vocabulary): a tool call after the special token.
    Answer("tool3", ("<|tool_call|>", '[{"name": "', "get_weather", '", "arguments": {"city": "', "Paris", '"}}]', END3)),
    # The same call with <|tool_call|> written as three ordinary tokens.
    Answer("split3", ("<|", "tool", "_call|>", '[{"name": "get_time', '", "arguments": {"zone": "', "UTC", '"}}]\n', END3)),
    # Granite 3.3 citations: the cite markers are special tokens.
    Answer("cite33", ("Par", "is is", " the capital", "<|start_of_cite|>", '{"document_id": "1"}', "<|end_of_cite|>", ".", END3)),
    # The second turn of the agent loop (3.x).
    Answer("answer3", ("It", " is sunny", " in Paris", " today.", END3)),
    # UTF-8 split across tokens: é (c3 a9) and € (e2 82 ac), one byte token each.
    Answer("utf8", ("Caf", b"\xc3", b"\xa9", " costs 3", " ", b"\xe2", b"\x82", b"\xac", END3)),
    # A long answer: with no max_tokens the whole of it must come back.
    Answer("count", (*(f"{w}," for w in _words(COUNT)), " done!", END3)),
    # Granite 4.0/4.1: a JSON call block; <tool_call> (an added token) written as ordinary pieces.
    Answer("tool4", ("<tool_", "call>\n", '{"name": "', "get_stock", '", "arguments": {"symbol": "', "IBM", '"}}\n', "</tool_", "call>", END3)),
    # Granite 4.2: reasoning (the prompt opened <think>), then an XML call with the added tokens.
    # </think> (which ends a prompt with thinking off) as two ordinary pieces.
    Answer("think42", ("Need", " the weather", " first.", "</thi", "nk>\n\n", "<tool_call>", "\n<function=get_weather>", "\n<parameter=city>\nLima", "\n</parameter>", "\n</function>\n", "</tool_call>", END42)),
    # Granite 4.2 prose: reasoning when thinking is on, content when it is off.
    Answer("plain42", ("Lima is", " in Peru", "!", END42)),
)  # fmt: skip

#: The prompt's last token per family: its successor gets only :data:`START_LOGIT`.
START_TOKENS = ("<|end_of_role|>", "\n", "</think>")
START_LOGIT = 8.0  # what a prompt's last token gives the end token: below any logit_bias
CHAIN_LOGIT = 400.0
CONTEXT = 16384  # tokens: prompts are mostly one token per byte here (no merges)  # what a chain token gives its successor: far above logit_bias + 100


@functools.cache
def byte_chars() -> tuple[str, ...]:
    """GPT-2's byte-to-character table: the text of the byte token of each byte value."""
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    chars = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + extra)
            extra += 1
    return tuple(chars[b] for b in range(256))


def byte_text(data: bytes) -> str:
    """The token text of ``data`` in the byte-level vocabulary."""
    table = byte_chars()
    return "".join(table[b] for b in data)


@attrs.frozen
class Vocab:
    """The vocabulary (texts and types, by id) and each answer's token ids."""

    texts: tuple[str, ...]
    types: tuple[int, ...]
    chains: dict[str, tuple[int, ...]]

    def id(self, text: str) -> int:
        """The id of a special token or of an ordinary piece's token."""
        special = text in CONTROL_TOKENS or text in USER_DEFINED_TOKENS
        return self.texts.index(text if special else byte_text(text.encode()))

    def start(self, answer: str) -> int:
        """The token that starts ``answer``: favour it with ``logit_bias`` to get the answer."""
        return self.chains[answer][0]


def _piece_text(piece: Piece) -> str:
    if isinstance(piece, bytes):
        return byte_text(piece)
    if piece in CONTROL_TOKENS or piece in USER_DEFINED_TOKENS:
        return piece
    return byte_text(piece.encode())


@functools.cache
def build_vocab() -> Vocab:
    """Bytes, then the special tokens, then every answer piece that is not yet a token."""
    texts = [*byte_chars(), *CONTROL_TOKENS, *USER_DEFINED_TOKENS]
    types = (
        [NORMAL] * 256 + [CONTROL] * len(CONTROL_TOKENS) + [USER_DEFINED] * len(USER_DEFINED_TOKENS)
    )
    index = {text: i for i, text in enumerate(texts)}
    used: dict[str, str] = {}
    ends = {END3, END42}
    starts = {_piece_text(t) for t in START_TOKENS}
    chains = {}
    for answer in ANSWERS:
        ids = []
        for piece in answer.pieces:
            text = _piece_text(piece)
            if text in starts:
                raise ValueError(f"{answer.name}: {piece!r} ends prompts; it cannot be in a chain")
            if piece not in ends:
                if text in used:
                    raise ValueError(f"{answer.name}: {piece!r} is already used by {used[text]}")
                used[text] = answer.name
            if text not in index:
                index[text] = len(texts)
                texts.append(text)
                types.append(NORMAL)
            ids.append(index[text])
        chains[answer.name] = tuple(ids)
    return Vocab(tuple(texts), tuple(types), chains)


def write_model(path: Path) -> Vocab:
    """Write the GGUF file at ``path``; return its vocabulary."""
    import gguf
    import numpy as np

    vocab = build_vocab()
    n_vocab = len(vocab.texts)
    n_embd = -(-n_vocab // 64) * 64
    n_head, n_ff = 4, 64
    scale = 1 / math.sqrt(n_embd)  # RMS norm of a one-hot row is sqrt(n_embd) at its index

    output = np.zeros((n_vocab, n_embd), dtype=np.float32)
    end = vocab.id(END3)
    for token in range(n_vocab):
        output[end, token] = START_LOGIT * scale
    for ids in vocab.chains.values():
        for current, successor in itertools.pairwise(ids):
            output[:, current] = 0
            output[successor, current] = CHAIN_LOGIT * scale
    embedding = np.zeros((n_vocab, n_embd), dtype=np.float32)
    embedding[np.arange(n_vocab), np.arange(n_vocab)] = 1.0

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("granite-formatters tiny chain model")
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(n_embd)
    writer.add_block_count(1)
    writer.add_feed_forward_length(n_ff)
    writer.add_head_count(n_head)
    writer.add_head_count_kv(n_head)
    writer.add_rope_dimension_count(n_embd // n_head)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(list(vocab.texts))
    writer.add_token_types(list(vocab.types))
    writer.add_token_merges([f"{byte_text(b' ')} {byte_text(b't')}"])
    writer.add_bos_token_id(end)
    writer.add_eos_token_id(end)
    writer.add_add_bos_token(False)
    writer.add_add_eos_token(False)

    def zeros(*shape: int) -> np.ndarray[Any, Any]:
        return np.zeros(shape, dtype=np.float32)

    ones = np.ones(n_embd, dtype=np.float32)
    writer.add_tensor("token_embd.weight", embedding)
    writer.add_tensor("output_norm.weight", ones)
    writer.add_tensor("output.weight", output)
    writer.add_tensor("blk.0.attn_norm.weight", ones)
    for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
        writer.add_tensor(f"blk.0.{name}.weight", zeros(n_embd, n_embd))
    writer.add_tensor("blk.0.ffn_norm.weight", ones)
    writer.add_tensor("blk.0.ffn_gate.weight", zeros(n_ff, n_embd))
    writer.add_tensor("blk.0.ffn_up.weight", zeros(n_ff, n_embd))
    writer.add_tensor("blk.0.ffn_down.weight", zeros(n_embd, n_ff))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return vocab


def answer(name: str) -> Answer:
    """The scripted answer called ``name``."""
    return next(a for a in ANSWERS if a.name == name)


def bias(name: str) -> dict[str, int]:
    """The OpenAI ``logit_bias`` that makes the model write answer ``name``."""
    return {str(build_vocab().start(name)): 100}


__all__: Sequence[str] = (
    "ANSWERS",
    "Answer",
    "Vocab",
    "answer",
    "bias",
    "build_vocab",
    "write_model",
)
