"""Test support: the real-world names of each Granite 3 release, for ``test_model_names.py``.

Keyed by release label: the names that must resolve (name, model id, rule), the names
that must never reach the release's plugin, and the typos whose suggestions are checked.
"""

from __future__ import annotations

from typing import NamedTuple

I8_32 = "granite-3.2-8b-instruct"
I2_32 = "granite-3.2-2b-instruct"
PREVIEW_32 = "granite-3.2-8b-instruct-preview"

RESOLVE_32: list[tuple[str, str, str]] = [
    # ids
    (I8_32, I8_32, "id"),
    (I2_32, I2_32, "id"),
    (PREVIEW_32, PREVIEW_32, "id"),
    # aliases: Hugging Face ids, Ollama tags, watsonx ids, preview names
    ("ibm-granite/granite-3.2-8b-instruct", I8_32, "alias"),
    ("ibm-granite/granite-3.2-2b-instruct", I2_32, "alias"),
    ("granite3.2:8b", I8_32, "alias"),
    ("granite3.2:2b", I2_32, "alias"),
    ("granite3.2", I8_32, "alias"),
    ("granite3.2:latest", I8_32, "alias"),
    ("ibm/granite-3-2-8b-instruct", I8_32, "alias"),
    ("ibm-granite/granite-3.2-8b-instruct-preview", PREVIEW_32, "alias"),
    ("granite-8b-instruct-preview-4k", PREVIEW_32, "alias"),
    ("ibm-granite/granite-8b-instruct-preview-4k", PREVIEW_32, "alias"),
    # case and whitespace
    ("IBM-Granite/granite-3.2-8b-instruct", I8_32, "normalized"),
    ("ibm-granite/Granite-3.2-8B-Instruct", I8_32, "normalized"),
    ("  granite-3.2-2b-instruct\n", I2_32, "normalized"),
    ("GRANITE3.2:8B", I8_32, "normalized"),
    ("Granite 3.2", I8_32, "normalized"),
    ("granite-3.2-8b", I8_32, "normalized"),
    # provider prefixes (LiteLLM and friends)
    ("ollama/granite3.2:8b", I8_32, "normalized"),
    ("ollama_chat/granite3.2:2b", I2_32, "normalized"),
    ("ollama/granite3.2", I8_32, "normalized"),
    ("ollama/granite3.2:latest", I8_32, "normalized"),
    ("openai/ibm-granite/granite-3.2-8b-instruct", I8_32, "normalized"),
    ("hosted_vllm/ibm-granite/granite-3.2-8b-instruct", I8_32, "normalized"),
    ("vllm/ibm-granite/granite-3.2-2b-instruct", I2_32, "normalized"),
    ("huggingface/ibm-granite/granite-3.2-8b-instruct", I8_32, "normalized"),
    ("replicate/ibm-granite/granite-3.2-8b-instruct", I8_32, "normalized"),
    ("hf:ibm-granite/granite-3.2-8b-instruct", I8_32, "normalized"),
    ("watsonx/ibm/granite-3-2-8b-instruct", I8_32, "normalized"),
    ("watsonx_text/ibm/granite-3-2-8b-instruct", I8_32, "normalized"),
    ("ibm/granite3.2:8b", I8_32, "normalized"),
    ("ibm/granite3.2:2b", I2_32, "normalized"),
    # Ollama tags with quantisation
    ("granite3.2:8b-instruct-q4_K_M", I8_32, "normalized"),
    ("granite3.2:2b-instruct-q4_K_M", I2_32, "normalized"),
    ("granite3.2:8b-instruct-fp16", I8_32, "normalized"),
    ("granite3.2:2b-instruct-fp16", I2_32, "normalized"),
    ("granite3.2:8b-instruct-q8_0", I8_32, "normalized"),
    # GGUF repositories and files
    ("ibm-research/granite-3.2-8b-instruct-GGUF", I8_32, "normalized"),
    ("ibm-research/granite-3.2-2b-instruct-GGUF", I2_32, "normalized"),
    ("lmstudio-community/granite-3.2-8b-instruct-GGUF", I8_32, "normalized"),
    ("bartowski/ibm-granite_granite-3.2-8b-instruct-GGUF", I8_32, "normalized"),
    ("granite-3.2-8b-instruct-Q4_K_M.gguf", I8_32, "normalized"),
    ("granite-3.2-2b-instruct-Q6_K.gguf", I2_32, "normalized"),
    ("granite-3.2-8b-instruct-f16.gguf", I8_32, "normalized"),
    ("ibm-granite_granite-3.2-2b-instruct-Q4_K_M.gguf", I2_32, "normalized"),
    ("ibm-granite_granite-3.2-8b-instruct-IQ4_XS.gguf", I8_32, "normalized"),
    ("hf.co/bartowski/ibm-granite_granite-3.2-8b-instruct-GGUF:Q4_K_M", I8_32, "normalized"),
    ("/models/granite-3.2-8b-instruct-Q5_K_M.gguf", I8_32, "normalized"),
    ("C:\\models\\granite-3.2-2b-instruct-Q8_0.gguf", I2_32, "normalized"),
    ("granite-3.2-8b-instruct-Q4_K_M-00001-of-00002.gguf", I8_32, "normalized"),
    ("granite-3.2-8b-instruct@q4_k_m", I8_32, "normalized"),
    ("mlx-community/granite-3.2-8b-instruct-4bit", I8_32, "normalized"),
    ("Triangle104/granite-3.2-8b-instruct-preview-Q4_K_M-GGUF", PREVIEW_32, "normalized"),
    # leftover suffixes: the plugin's patterns
    ("huihui-ai/granite-3.2-8b-instruct-abliterated", I8_32, "pattern"),
    ("granite-3.2-2b-instruct-abliterated-Q4_K_M.gguf", I2_32, "pattern"),
    ("granite-3.2-8b-instruct-preview-abliterated", PREVIEW_32, "pattern"),
]

UNKNOWN_32: list[str] = [
    # base models
    "ibm-granite/granite-3.2-8b-base",
    "granite-3.2-2b-base",
    # vision, guardian, speech, embedding, code, function calling
    "ibm-granite/granite-vision-3.2-2b",
    "granite3.2-vision:2b",
    "ibm/granite-vision-3-2-2b",
    "ibm-granite/granite-guardian-3.2-5b",
    "ibm-granite/granite-guardian-3.2-3b-a800m",
    "granite3-guardian:2b",
    "ibm-granite/granite-speech-3.3-8b",
    "granite-embedding",
    "ibm-granite/granite-embedding-30m-english",
    "granite-code:3b",
    "ibm-granite/granite-20b-functioncalling",
    "ibm/granite-13b-chat-v2",
    # Granite 3.3 (another plugin's models)
    "granite-3.3-8b-instruct",
    "ibm-granite/granite-3.3-2b-instruct",
    "granite3.3:8b",
    "granite3.3",
    "ibm/granite-3-3-8b-instruct",
    "ibm-granite_granite-3.3-8b-instruct-Q4_K_M.gguf",
    "granite-3.3-8b-instruct-abliterated",
    # contrived suffixes: not a known derivative of the instruct model (the patterns
    # once matched any "-instruct-*")
    "granite-3.2-8b-instruct-embedding",
    "granite-3.2-2b-instruct-embedding-Q4_K_M.gguf",
    "ibm-granite/granite-3.2-8b-instruct-vision",
    "granite-3.2-8b-instruct-guardian",
    "granite-3.2-8b-instruct-base",
    "granite-3.2-2b-instruct-speech",
    "granite-3.2-8b-instruct-anything-goes",
    "granite-3.2-8b-instruct-abliterated-embedding",
    # other releases
    "ibm-granite/granite-3.1-8b-instruct",
    "granite3.1-dense:8b",
    "ibm-granite/granite-3.1-3b-a800m-instruct",
    "ibm-granite/granite-3.0-8b-instruct",
    "ibm/granite-3_0-8b-instruct",
    "granite3-dense:8b",
    "granite3-moe:3b",
    "ibm-granite/granite-4.0-h-tiny",
    "granite4:micro",
    "ibm/granite-4-h-small",
    "granite4.1:8b",
    # release unknown (watsonx generic ids)
    "ibm/granite-3-8b-instruct",
    "ibm/granite-3-2b-instruct",
    "granite-3-2b-instruct",
    # typos and nonsense
    "granite-3.2-8b-instrct",
    "granit-3.2-8b-instruct",
    "granite-32-8b-instruct",
    "granite3.22:8b",
    "granite-3.2-7b-instruct",
    "granite",
    "gguf",
    "",
    "   ",
]

I8_33 = "granite-3.3-8b-instruct"
I2_33 = "granite-3.3-2b-instruct"

RESOLVE_33: list[tuple[str, str, str]] = [
    # ids
    (I8_33, I8_33, "id"),
    (I2_33, I2_33, "id"),
    # aliases: Hugging Face ids, Ollama tags, watsonx ids
    ("ibm-granite/granite-3.3-8b-instruct", I8_33, "alias"),
    ("ibm-granite/granite-3.3-2b-instruct", I2_33, "alias"),
    ("granite3.3:8b", I8_33, "alias"),
    ("granite3.3:2b", I2_33, "alias"),
    ("granite3.3", I8_33, "alias"),
    ("granite3.3:latest", I8_33, "alias"),
    ("ibm/granite-3-3-8b-instruct", I8_33, "alias"),
    ("ibm/granite-3-3-2b-instruct", I2_33, "alias"),
    # case and whitespace
    ("IBM-Granite/granite-3.3-8b-instruct", I8_33, "normalized"),
    ("ibm-granite/Granite-3.3-8B-Instruct", I8_33, "normalized"),
    ("granite-3.3-2B-Instruct", I2_33, "normalized"),
    (" granite3.3:2b ", I2_33, "normalized"),
    ("GRANITE3.3", I8_33, "normalized"),
    ("Granite 3.3", I8_33, "normalized"),
    ("Granite 3.3 8B Instruct", I8_33, "normalized"),
    # provider prefixes (LiteLLM and friends)
    ("ollama/granite3.3:8b", I8_33, "normalized"),
    ("ollama_chat/granite3.3:2b", I2_33, "normalized"),
    ("ollama/granite3.3", I8_33, "normalized"),
    ("ibm/granite3.3:8b", I8_33, "normalized"),
    ("ibm/granite3.3:2b", I2_33, "normalized"),
    ("openai/ibm-granite/granite-3.3-8b-instruct", I8_33, "normalized"),
    ("hosted_vllm/ibm-granite/granite-3.3-8b-instruct", I8_33, "normalized"),
    ("vllm/ibm-granite/granite-3.3-2b-instruct", I2_33, "normalized"),
    ("huggingface/ibm-granite/granite-3.3-8b-instruct", I8_33, "normalized"),
    ("replicate/ibm-granite/granite-3.3-8b-instruct", I8_33, "normalized"),
    ("hf:ibm-granite/granite-3.3-2b-instruct", I2_33, "normalized"),
    ("watsonx/ibm/granite-3-3-8b-instruct", I8_33, "normalized"),
    ("watsonx_text/ibm/granite-3-3-8b-instruct", I8_33, "normalized"),
    # Ollama tags with quantisation
    ("granite3.3:8b-instruct-q4_K_M", I8_33, "normalized"),
    ("granite3.3:2b-instruct-fp16", I2_33, "normalized"),
    ("granite3.3:8b-instruct-q8_0", I8_33, "normalized"),
    # GGUF repositories and files
    ("ibm-granite/granite-3.3-8b-instruct-GGUF", I8_33, "normalized"),
    ("ibm-granite/granite-3.3-2b-instruct-GGUF", I2_33, "normalized"),
    ("granite-3.3-8b-instruct-Q4_K_M.gguf", I8_33, "normalized"),
    ("granite-3.3-8b-instruct-f16.gguf", I8_33, "normalized"),
    ("granite-3.3-2b-instruct-Q8_0.gguf", I2_33, "normalized"),
    ("lmstudio-community/granite-3.3-2b-instruct-GGUF", I2_33, "normalized"),
    ("granite-3.3-2b-instruct-Q3_K_L.gguf", I2_33, "normalized"),
    ("bartowski/ibm-granite_granite-3.3-8b-instruct-GGUF", I8_33, "normalized"),
    ("ibm-granite_granite-3.3-8b-instruct-Q4_K_M.gguf", I8_33, "normalized"),
    ("ibm-granite_granite-3.3-2b-instruct-Q3_K_M.gguf", I2_33, "normalized"),
    ("lm-kit/granite-3.3-8b-instruct-gguf", I8_33, "normalized"),
    ("granite-3.3-8B-Instruct-Q4_K_M.gguf", I8_33, "normalized"),
    ("hf.co/ibm-granite/granite-3.3-8b-instruct-GGUF:Q4_K_M", I8_33, "normalized"),
    ("hf.co/bartowski/ibm-granite_granite-3.3-2b-instruct-GGUF:Q6_K", I2_33, "normalized"),
    ("/models/granite-3.3-8b-instruct-IQ4_XS.gguf", I8_33, "normalized"),
    ("C:\\models\\granite-3.3-2b-instruct-bf16.gguf", I2_33, "normalized"),
    ("granite-3.3-8b-instruct-Q8_0-00001-of-00002.gguf", I8_33, "normalized"),
    ("granite-3.3-8b-instruct.i1-Q4_K_M.gguf", I8_33, "normalized"),
    ("granite-3.3-8b-instruct@q4_k_m", I8_33, "normalized"),
    ("mlx-community/granite-3.3-8b-instruct-4bit", I8_33, "normalized"),
    ("ibm-granite-granite-3.3-2B-Instruct.jinja", I2_33, "normalized"),
    # leftover suffixes: the plugin's patterns
    ("huihui-ai/granite-3.3-8b-instruct-abliterated", I8_33, "pattern"),
    ("granite-3.3-2b-instruct-abliterated-Q4_K_M.gguf", I2_33, "pattern"),
]

UNKNOWN_33: list[str] = [
    # base models
    "ibm-granite/granite-3.3-8b-base",
    "granite-3.3-2b-base",
    "granite-3.3-8b-base-Q4_K_M.gguf",
    # vision, guardian, speech, embedding, code, function calling
    "ibm-granite/granite-vision-3.3-2b",
    "ibm-granite/granite-vision-3.2-2b",
    "granite3.2-vision:2b",
    "ibm-granite/granite-guardian-3.3-8b",
    "granite3-guardian:2b",
    "ibm-granite/granite-speech-3.3-8b",
    "ibm-granite/granite-speech-3.3-2b",
    "granite-embedding",
    "ibm-granite/granite-embedding-30m-english",
    "granite-code:3b",
    "ibm-granite/granite-20b-functioncalling",
    "ibm/granite-13b-chat-v2",
    # Granite 3.2 (another plugin's models)
    "granite-3.2-8b-instruct",
    "ibm-granite/granite-3.2-2b-instruct",
    "granite3.2:8b",
    "granite3.2",
    "ibm/granite-3-2-8b-instruct",
    "ibm-research/granite-3.2-8b-instruct-GGUF",
    "granite-3.2-8b-instruct-preview",
    "granite-8b-instruct-preview-4k",
    "granite-3.2-8b-instruct-abliterated",
    # contrived suffixes: not a known derivative of the instruct model (the patterns
    # once matched any "-instruct-*")
    "granite-3.3-8b-instruct-embedding",
    "granite-3.3-2b-instruct-embedding-Q4_K_M.gguf",
    "ibm-granite/granite-3.3-8b-instruct-vision",
    "granite-3.3-8b-instruct-guardian",
    "granite-3.3-8b-instruct-base",
    "granite-3.3-2b-instruct-speech",
    "granite-3.3-8b-instruct-anything-goes",
    "granite-3.3-8b-instruct-abliterated-embedding",
    # other releases
    "ibm-granite/granite-3.1-8b-instruct",
    "granite3.1-dense:8b",
    "ibm-granite/granite-3.0-8b-instruct",
    "ibm/granite-3_0-8b-instruct",
    "granite3-dense:8b",
    "granite3-moe:1b",
    "ibm-granite/granite-4.0-micro",
    "unsloth/granite-4.0-micro-GGUF",
    "granite4:latest",
    "granite4.1:3b",
    "ibm/granite-4-h-small",
    # release unknown (watsonx generic ids)
    "ibm/granite-3-8b-instruct",
    "ibm/granite-3-2b-instruct",
    "granite-3-8b-instruct",
    # typos and nonsense
    "granite-3.3-8b-instrct",
    "granite-33-8b-instruct",
    "granite3.33:8b",
    "granite-3.3-7b-instruct",
    "granite",
    "ibm-granite",
    "",
]


class Typos(NamedTuple):
    """A typo of the release's main id and the message it gets; an Ollama tag typo and the
    model it must suggest; the release labels that must never be claimed."""

    typo: str
    message_start: str
    suggested: str
    ollama_typo: str
    ollama_suggested: str
    other_releases: tuple[str, ...]


RESOLVE = {"3.2": RESOLVE_32, "3.3": RESOLVE_33}
UNKNOWN = {"3.2": UNKNOWN_32, "3.3": UNKNOWN_33}
TYPOS = {
    "3.2": Typos(
        "granite-3.2-8b-instrct",
        "Unknown model 'granite-3.2-8b-instrct'.\nDid you mean: 'granite-3.2-8b-instruct'",
        I8_32,
        "granite3.2:8bb",
        I8_32,
        ("3.3", "3-3", "3_3", "3.1", "3-1", "3.0", "4.0", "3.3.0"),
    ),
    "3.3": Typos(
        "granite-3.3-8b-instrct",
        "Unknown model 'granite-3.3-8b-instrct'.\nDid you mean: 'granite-3.3-8b-instruct'",
        I8_33,
        "granite3.3:2bb",
        I2_33,
        ("3.2", "3-2", "3_2", "3.1", "3-1", "3.0", "4.0", "3.2.0"),
    ),
}
