"""The doctor's side of a running server: error answers read in every runtime's shape,
URLs, and the vLLM verdict by token ids when decoding is not exact."""

from __future__ import annotations

import json

import attrs
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters._doctor import remote, vllm
from granite_formatters._doctor.behaviour import TODAY, compare_renders, our_prompt
from granite_formatters._doctor.probes import PROBES, Probe


def test_error_messages_in_each_runtime_s_shape() -> None:
    flat = {"object": "error", "message": "The model `x` does not exist.", "code": 404}
    nested = {"error": {"message": "bad tokens", "type": "BadRequestError", "code": 400}}
    cases = {
        json.dumps(flat): "'The model `x` does not exist.'",  # vLLM
        json.dumps(nested): "'bad tokens'",  # newer vLLM
        '{"error": "model \'g\' not found"}': "\"model 'g' not found\"",  # Ollama, llama.cpp
        '{"detail": "Not Found"}': "'Not Found'",  # FastAPI
        "404 page not found": "'404 page not found'",
        '{"error": {"code": 500}}': '\'{"error": {"code": 500}}\'',
    }
    for raw, message in cases.items():
        assert remote._error_message(raw.encode()) == message


def test_a_long_error_is_quoted_short() -> None:
    message = remote._error_message(json.dumps({"message": "x" * 5000}).encode())
    assert message == repr("x" * 80) + "... (5000 characters)"


@given(st.binary(max_size=300))
def test_any_error_answer_gives_a_short_message(raw: bytes) -> None:
    message = remote._error_message(raw)
    assert isinstance(message, str) and len(message) <= 120


def test_root() -> None:
    for url in ("http://h:8000", "http://h:8000/", "http://h:8000/v1", "http://h:8000/v1/"):
        assert remote.root(url) == "http://h:8000"


@attrs.define
class _Tokenizer:
    """A server whose decode drops what ``lost`` names (a lossy ``/detokenize``), whose
    template renders ``rendered`` for every probe."""

    rendered: str
    lost: str
    model: str = "m"

    def tokenize_chat(self, probe: Probe) -> list[int]:
        return self.tokenize_text(self.rendered)

    def tokenize_text(self, text: str) -> list[int]:
        return [ord(c) for c in text]

    def detokenize(self, tokens: list[int]) -> str:
        return "".join(chr(t) for t in tokens).replace(self.lost, "")


def test_other_ids_with_our_text_decoded_still_differ() -> None:
    from granite_formatters import get_formatter

    (hi,) = [p for p in PROBES if p.name == "hi"]
    ours = our_prompt(get_formatter("granite-4.2-8b"), hi)
    # the server renders ours with an extra "@" that its decode drops
    server = _Tokenizer(ours + "@", "@")
    lossy: list[str] = []
    theirs = vllm._renders(server, "granite-4.2-8b", TODAY, lossy)  # type: ignore[arg-type]
    assert theirs(hi) == ours + vllm.SAME_TEXT_OTHER_TOKENS
    behaviour = compare_renders(theirs, "granite-4.2-8b", (hi,), label="the server")
    assert behaviour.differing == ("hi",)
    assert lossy == []  # our own prompt decodes exactly: no note


def test_equal_ids_agree_whatever_the_decode() -> None:
    from granite_formatters import get_formatter

    formatter = get_formatter("granite-4.2-8b")
    (hi,) = [p for p in PROBES if p.name == "hi"]
    server = _Tokenizer(our_prompt(formatter, hi), "<|im_start|>")
    lossy: list[str] = []
    theirs = vllm._renders(server, "granite-4.2-8b", TODAY, lossy)  # type: ignore[arg-type]
    assert compare_renders(theirs, "granite-4.2-8b", (hi,), label="s").differing == ()
    assert lossy == []
