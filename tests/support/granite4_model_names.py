"""Test support: the real-world names of Granite 4.0 and 4.1, for ``test_model_names.py``
(same shape as :mod:`support.granite3_model_names`)."""

from __future__ import annotations

from support.granite3_model_names import Typos

SMALL, TINY, HMICRO, MICRO = (
    "granite-4.0-h-small",
    "granite-4.0-h-tiny",
    "granite-4.0-h-micro",
    "granite-4.0-micro",
)
H1B, H350M, D1B, D350M = (
    "granite-4.0-h-1b",
    "granite-4.0-h-350m",
    "granite-4.0-1b",
    "granite-4.0-350m",
)
G3B, G8B, G30B = "granite-4.1-3b", "granite-4.1-8b", "granite-4.1-30b"
MODELS_40 = [SMALL, TINY, HMICRO, MICRO, H1B, H350M, D1B, D350M]
MODELS_41 = [G3B, G8B, G30B]

# (name as used in the wild, model id, rule that must match)
RESOLVE_40: list[tuple[str, str, str]] = [
    *[(model, model, "id") for model in MODELS_40],
    *[(f"ibm-granite/{model}", model, "alias") for model in MODELS_40],
    # Hugging Face ids in any case
    ("IBM-Granite/Granite-4.0-H-Tiny", TINY, "normalized"),
    ("ibm-granite/granite-4.0-H-Small", SMALL, "normalized"),
    # Ollama library tags (and quantised tags, the ibm/ namespace, LiteLLM prefixes)
    ("granite4", MICRO, "alias"),
    ("granite4:latest", MICRO, "alias"),
    ("granite4:micro", MICRO, "alias"),
    ("granite4:3b", MICRO, "alias"),
    ("granite4:micro-h", HMICRO, "alias"),
    ("granite4:3b-h", HMICRO, "alias"),
    ("granite4:tiny-h", TINY, "alias"),
    ("granite4:small-h", SMALL, "alias"),
    ("granite4:350m", D350M, "alias"),
    ("granite4:350m-h", H350M, "alias"),
    ("granite4:1b", D1B, "alias"),
    ("granite4:1b-h", H1B, "alias"),
    ("granite4:tiny-h-q8_0", TINY, "normalized"),
    ("granite4:small-h-q4_K_M", SMALL, "normalized"),
    ("granite4:micro-q4_K_M", MICRO, "normalized"),
    ("ibm/granite4:tiny-h", TINY, "normalized"),
    ("ibm/granite4:tiny-h-q8_0", TINY, "normalized"),
    ("ibm/granite4:micro", MICRO, "normalized"),
    ("ollama/granite4:tiny-h", TINY, "normalized"),
    ("ollama_chat/granite4:small-h", SMALL, "normalized"),
    ("ollama/granite4", MICRO, "normalized"),
    # GGUF repositories and files, both naming styles
    ("ibm-granite/granite-4.0-h-tiny-GGUF", TINY, "normalized"),
    ("unsloth/granite-4.0-micro-GGUF", MICRO, "normalized"),
    ("granite-4.0-h-small-Q4_K_M.gguf", SMALL, "normalized"),
    ("granite-4.0-h-tiny-Q8_0.gguf", TINY, "normalized"),
    ("bartowski/ibm-granite_granite-4.0-h-tiny-GGUF", TINY, "normalized"),
    ("ibm-granite_granite-4.0-h-tiny-Q4_K_M.gguf", TINY, "normalized"),
    ("lmstudio-community/granite-4.0-h-micro-GGUF", HMICRO, "normalized"),
    # MLX and other conversions
    ("mlx-community/granite-4.0-h-tiny-8bit", TINY, "normalized"),
    ("ibm-granite/granite-4.0-h-small-FP8", SMALL, "normalized"),
    # LiteLLM provider prefixes
    ("hosted_vllm/ibm-granite/granite-4.0-h-small", SMALL, "normalized"),
    ("huggingface/ibm-granite/granite-4.0-h-tiny", TINY, "normalized"),
    # watsonx ids
    ("ibm/granite-4-h-small", SMALL, "alias"),
    ("ibm/granite-4-h-tiny", TINY, "alias"),
    ("watsonx/ibm/granite-4-h-small", SMALL, "normalized"),
    ("watsonx_text/ibm/granite-4-h-tiny", TINY, "normalized"),
]
RESOLVE_41: list[tuple[str, str, str]] = [
    *[(model, model, "id") for model in MODELS_41],
    *[(f"ibm-granite/{model}", model, "alias") for model in MODELS_41],
    ("Granite-4.1-8B", G8B, "normalized"),
    ("granite4.1:3b", G3B, "alias"),
    ("granite4.1:8b", G8B, "alias"),
    ("granite4.1:30b", G30B, "alias"),
    ("granite4.1:8b-q4_K_M", G8B, "normalized"),
    ("granite4.1:30b-q8_0", G30B, "normalized"),
    ("ibm/granite4.1:8b", G8B, "normalized"),
    ("ollama/granite4.1:3b", G3B, "normalized"),
    ("ibm-granite_granite-4.1-8b-Q6_K.gguf", G8B, "normalized"),
    ("granite-4.1-30b-UD-Q4_K_XL.gguf", G30B, "normalized"),
    ("mlx-community/granite-4.1-3b-4bit", G3B, "normalized"),
    ("openai/ibm-granite/granite-4.1-8b", G8B, "normalized"),
]

#: Names no release of the granite4 plugin may claim (only that plugin is loaded).
UNKNOWN_4: list[str] = [
    # base models
    "ibm-granite/granite-4.0-h-tiny-base",
    "granite-4.0-h-small-base",
    "ibm-granite/granite-4.0-micro-base",
    "granite-4.1-8b-base",
    "ibm-granite/granite-4.0-1b-base",
    # Granite 4.2: another format (ChatML, thinking) that no loaded plugin provides
    "granite-4.2-8b",
    "ibm-granite/granite-4.2-8b",
    "granite4.2:8b",
    "granite4.2",
    # non-chat or other-format models
    "ibm-granite/granite-embedding-english-r2",
    "granite-embedding",
    "ibm-granite/granite-guardian-4.0-8b",
    "ibm-granite/granite-4.0-h-tiny-guardian",
    "ibm-granite/granite-speech-4.0-1b",
    "ibm-granite/granite-vision-4.0-3b",
    "granite-docling-258m",
    # other releases (no 3.x plugin is loaded here)
    "granite3.3:8b",
    "ibm-granite/granite-3.3-8b-instruct",
    # too vague or not Granite
    "granite-4.0",
    "granite-4.1",
    "llama3.1:8b",
]

#: Labels of releases other plugins provide (4.0 and 4.1 share the granite4 plugin).
_OTHERS = ("4.2", "4-2", "4.3", "4-3", "3.3", "3.2", "3-3", "4.2.0")
TYPOS_40 = Typos(
    "granite-4.0-h-smalll",
    "Unknown model 'granite-4.0-h-smalll'.\nDid you mean: 'granite-4.0-h-small'?",
    SMALL,
    "granite4:tiny-hh",
    TINY,
    _OTHERS,
)
TYPOS_41 = Typos(
    "granite-4.1-8bb",
    "Unknown model 'granite-4.1-8bb'.\nDid you mean: 'granite-4.1-8b', 'granite-4.1-3b'",
    G8B,
    "granite4.1:30bb",
    G30B,
    _OTHERS,
)

#: Bare Ollama names (no size) and the model each means: ``granite4`` (latest) is the
#: 4.0 micro model; ``granite4.1`` has no documented latest tag and must not be guessed.
BARE_OLLAMA: dict[str, list[tuple[str, str | None]]] = {
    "4.0": [
        (f"{base}{tag}", MICRO) for base in ("granite4", "ibm/granite4") for tag in ("", ":latest")
    ],
    "4.1": [
        (f"{base}{tag}", None)
        for base in ("granite4.1", "ollama/granite4.1")
        for tag in ("", ":latest")
    ],
}
