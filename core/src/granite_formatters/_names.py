"""Normalisation of the model names people really use.

:func:`normalize_model_name` maps a Hugging Face id, a GGUF repository or file, an
Ollama tag, a watsonx id or an LM Studio key of one Granite model onto one canonical
spelling (``ibm-granite/granite-3.3-8b-instruct``, ``granite3.3:8b`` ->
``granite-3.3-8b-instruct``), which the registry compares with the normalised form of
each registered id and alias. The rules are specified in ``docs/model-names.md``.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["normalize_model_name"]

# A quantisation name (q4_k_m, q8_0, iq4_xs, tq1_0, q4_0_4_4) keeps its underscores;
# any other token is a run of letters, digits and glob characters (* ? [ ] !) in
# which a dot survives only between digits or glob characters: "3.3", "granite3.3",
# "1.5b", "3.[23]".
_TOKEN = re.compile(
    r"(?:i?q|tq)[0-9]+(?:_[a-z0-9]{1,3})*(?![a-z0-9*?!\[\]])"
    r"|[a-z0-9*?!\[\]]+(?:(?<=[0-9*?\]])\.[0-9*?\[][a-z0-9*?!\[\]]*)*",
    re.ASCII,
)
_QUANT = re.compile(r"(?:i?q|tq)[0-9]+(?:_[a-z0-9]{1,3})*", re.ASCII)
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)*", re.ASCII)
_SIZE = re.compile(r"[0-9]+(?:\.[0-9]+)?[bm]|a[0-9]+m", re.ASCII)
_SHARD_NUMBER = re.compile(r"[0-9]{5}", re.ASCII)

_FAMILY = "granite"
_FAMILY_LEN = len(_FAMILY)

#: Tokens that may precede ``granite`` and are dropped there.
_PREFIXES = frozenset({"ibm", "research", "hf", "huggingface", "ollama", _FAMILY})

#: Trailing tokens that name a file format, a quantisation or a packaging, not a model.
_PACKAGING = frozenset(
    {
        "gguf",
        "ggml",
        "safetensors",
        "bin",
        "llamafile",
        "jinja",
        "mlx",
        "awq",
        "gptq",
        "exl2",
        "onnx",
        "bnb",
        "hf",
        "2bit",
        "3bit",
        "4bit",
        "5bit",
        "6bit",
        "8bit",
        "int4",
        "int8",
        "fp4",
        "fp8",
        "mxfp4",
        "nvfp4",
        "f16",
        "fp16",
        "bf16",
        "f32",
        "fp32",
        "float16",
        "bfloat16",
        "float32",
        "w4a16",
        "w8a8",
        "w8a16",
        "quantized",
        "dynamic",
        "imat",
        "imatrix",
        "i1",
        "ud",
        "unsloth",
        "latest",
    }
)


def _leaf(text: str) -> str:
    """The last path component that holds a token (``a/b/`` -> ``b``)."""
    parts = text.replace("\\", "/").split("/")
    for part in reversed(parts):
        if _TOKEN.search(part):
            return part
    return ""


def _tokens(leaf: str) -> list[str]:
    tokens: list[str] = []
    for token in _TOKEN.findall(leaf):
        if len(token) > _FAMILY_LEN and token.startswith(_FAMILY) and token[_FAMILY_LEN].isdigit():
            tokens.append(_FAMILY)
            tokens.append(token[_FAMILY_LEN:])
        else:
            tokens.append(token)
    return tokens


def _drop_packaging(tokens: list[str], floor: int) -> None:
    """Remove trailing packaging tokens in place, never going below ``floor``."""
    while len(tokens) > floor:
        last = tokens[-1]
        if last in _PACKAGING or _QUANT.fullmatch(last):
            tokens.pop()
        elif (
            len(tokens) - floor >= 3
            and tokens[-2] == "of"
            and _SHARD_NUMBER.fullmatch(last)
            and _SHARD_NUMBER.fullmatch(tokens[-3])
        ):
            del tokens[-3:]
        else:
            break


def _family_start(tokens: list[str]) -> int | None:
    """Index of the ``granite`` token that starts a Granite name, if any."""
    start: int | None = None
    for index, token in enumerate(tokens):
        if token not in _PREFIXES:
            break
        if token == _FAMILY:
            start = index
    return start


def _canonical_granite(rest: list[str]) -> list[str]:
    """Canonicalise what follows ``granite``: release first, packaging gone."""
    _drop_packaging(rest, 0)
    release: str | None = None
    for index, token in enumerate(rest):
        if _SIZE.fullmatch(token):
            break
        if _NUMBER.fullmatch(token):
            end = index + 1
            while end < len(rest) and _NUMBER.fullmatch(rest[end]):
                end += 1
            release = ".".join(rest[index:end])
            rest = [release, *rest[:index], *rest[end:]]
            break
    _drop_packaging(rest, 0)
    if (
        release is not None
        and len(rest) > 1
        and rest[0] == release
        and all(_SIZE.fullmatch(token) for token in rest[1:])
    ):
        rest.append("instruct")
    return rest


def normalize_model_name(name: str) -> str:
    """Return the canonical form of a model name, used for registry lookups.

    >>> normalize_model_name("ollama/granite3.3:8b")
    'granite-3.3-8b-instruct'
    >>> normalize_model_name("bartowski/ibm-granite_granite-3.2-8b-instruct-Q4_K_M.gguf")
    'granite-3.2-8b-instruct'
    >>> normalize_model_name("watsonx/ibm/granite-3-3-8b-instruct")
    'granite-3.3-8b-instruct'
    >>> normalize_model_name("ibm-granite/granite-vision-3.2-2b")
    'granite-3.2-vision-2b'
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    tokens = _tokens(_leaf(folded))
    start = _family_start(tokens)
    if start is None:
        _drop_packaging(tokens, 0)
        return "-".join(tokens)
    return "-".join([_FAMILY, *_canonical_granite(tokens[start + 1 :])])
