"""Test support: the real-world names of Granite 4.2, for ``test_model_names.py`` (same
shape as :mod:`support.granite3_model_names`)."""

from __future__ import annotations

from support.granite3_model_names import Typos

G3, G8, G30 = "granite-4.2-3b", "granite-4.2-8b", "granite-4.2-30b"
_SIZES = {"3b": G3, "8b": G8, "30b": G30}

RESOLVE_42: list[tuple[str, str, str]] = [
    *[(model, model, "id") for model in _SIZES.values()],
    *[(f"ibm-granite/{model}", model, "alias") for model in _SIZES.values()],
    *[(f"granite4.2:{size}", model, "alias") for size, model in _SIZES.items()],
    # Hugging Face ids in any case, without the organisation
    ("IBM-Granite/Granite-4.2-8B", G8, "normalized"),
    ("Granite-4.2-30B", G30, "normalized"),
    ("granite_4.2_3b", G3, "normalized"),
    # official GGUF repositories and files
    *[(f"ibm-granite/{model}-GGUF", model, "normalized") for model in _SIZES.values()],
    ("granite-4.2-8b-Q4_K_M.gguf", G8, "normalized"),
    ("granite-4.2-3b-Q8_0.gguf", G3, "normalized"),
    ("granite-4.2-30b-f16.gguf", G30, "normalized"),
    ("granite-4.2-30b-Q4_K_M.gguf", G30, "normalized"),
    ("granite-4.2-3B-Q5_K_S.gguf", G3, "normalized"),
    ("ibm-granite_granite-4.2-8b-Q6_K.gguf", G8, "normalized"),
    ("bartowski/ibm-granite_granite-4.2-8b-GGUF", G8, "normalized"),
    ("hf.co/ibm-granite/granite-4.2-8b-GGUF:Q4_K_M", G8, "normalized"),
    # MLX conversions
    *[(f"ibm-granite/{model}-q4-mlx", model, "normalized") for model in _SIZES.values()],
    *[(f"ibm-granite/{model}-q8-mlx", model, "normalized") for model in _SIZES.values()],
    ("mlx-community/granite-4.2-8b-4bit", G8, "normalized"),
    ("mlx-community/granite-4.2-30b-8bit", G30, "normalized"),
    # Ollama: quantised tags, the ibm/ namespace
    ("granite4.2:8b-q4_K_M", G8, "normalized"),
    ("granite4.2:3b-q8_0", G3, "normalized"),
    *[(f"ibm/granite4.2:{size}", model, "normalized") for size, model in _SIZES.items()],
    ("ibm/granite4.2:30b-q4_K_M", G30, "normalized"),
    # LiteLLM provider prefixes
    ("ollama/granite4.2:8b", G8, "normalized"),
    ("ollama_chat/granite4.2:3b", G3, "normalized"),
    ("hosted_vllm/ibm-granite/granite-4.2-8b", G8, "normalized"),
    ("openai/ibm-granite/granite-4.2-30b", G30, "normalized"),
    ("watsonx/ibm-granite/granite-4.2-8b", G8, "normalized"),
]

UNKNOWN_42: list[str] = [
    # base models
    "ibm-granite/granite-4.2-8b-base",
    "granite-4.2-3b-base",
    "granite-4.2-30b-base-Q4_K_M.gguf",
    # releases that do not exist, and other releases (no other plugin is loaded here)
    "granite-4.3-8b",
    "granite4.3:8b",
    "ibm-granite/granite-4.1-8b",
    "granite4.1:8b",
    "granite-4.0-h-small",
    "granite-3.3-8b-instruct",
    # other sizes and vague names
    "granite-4.2-1b",
    "granite-4.2",
    "granite4.2",
    "ibm-granite/granite-guardian-4.2-8b",
    "ibm-granite/granite-vision-4.2-3b",
    "",
]

TYPOS_42 = Typos(
    "granite-4.2-8bb",
    "Unknown model 'granite-4.2-8bb'.\nDid you mean: 'granite-4.2-8b'",
    G8,
    "granite4.2:30bb",
    G30,
    ("4.1", "4-1", "4.3", "4-3", "4.0", "3.3", "4.2.1", "4.20"),
)
