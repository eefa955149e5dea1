"""Real-world Granite 4.0 and 4.1 names resolve to the right model; other names do not.

Runs with only the core and the granite4 plugin loaded (the module fixture restricts
plugin loading to it even when other plugins are installed), so a name of another
release must fail here: nothing else could claim it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import UnknownModelError, get_formatter, plugins, resolve_model
from granite_formatters.plugins import ENV_LOAD, PluginHost
from granite_formatters_granite4 import releases

PLUGIN = "granite-formatters-granite4"
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
GRANITE40 = [SMALL, TINY, HMICRO, MICRO, H1B, H350M, D1B, D350M]
GRANITE41 = [G3B, G8B, G30B]


@pytest.fixture(scope="module", autouse=True)
def only_this_plugin() -> Iterator[None]:
    host = PluginHost(environ={ENV_LOAD: PLUGIN})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(plugins, "_default_host", host)
        yield


# (name as used in the wild, model id, rule that must match)
RESOLVE: list[tuple[str, str, str]] = [
    *[(model, model, "id") for model in GRANITE40 + GRANITE41],
    *[(f"ibm-granite/{model}", model, "alias") for model in GRANITE40 + GRANITE41],
    # Hugging Face ids in any case
    ("IBM-Granite/Granite-4.0-H-Tiny", TINY, "normalized"),
    ("ibm-granite/granite-4.0-H-Small", SMALL, "normalized"),
    ("Granite-4.1-8B", G8B, "normalized"),
    ("granite-4.0-micro", MICRO, "id"),
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
    ("granite4.1:3b", G3B, "alias"),
    ("granite4.1:8b", G8B, "alias"),
    ("granite4.1:30b", G30B, "alias"),
    ("granite4.1:8b-q4_K_M", G8B, "normalized"),
    ("granite4.1:30b-q8_0", G30B, "normalized"),
    ("ibm/granite4.1:8b", G8B, "normalized"),
    ("ollama/granite4.1:3b", G3B, "normalized"),
    # GGUF repositories and files, both naming styles
    ("ibm-granite/granite-4.0-h-tiny-GGUF", TINY, "normalized"),
    ("unsloth/granite-4.0-micro-GGUF", MICRO, "normalized"),
    ("granite-4.0-h-small-Q4_K_M.gguf", SMALL, "normalized"),
    ("granite-4.0-h-tiny-Q8_0.gguf", TINY, "normalized"),
    ("bartowski/ibm-granite_granite-4.0-h-tiny-GGUF", TINY, "normalized"),
    ("ibm-granite_granite-4.0-h-tiny-Q4_K_M.gguf", TINY, "normalized"),
    ("ibm-granite_granite-4.1-8b-Q6_K.gguf", G8B, "normalized"),
    ("lmstudio-community/granite-4.0-h-micro-GGUF", HMICRO, "normalized"),
    ("granite-4.1-30b-UD-Q4_K_XL.gguf", G30B, "normalized"),
    # MLX and other conversions
    ("mlx-community/granite-4.1-3b-4bit", G3B, "normalized"),
    ("mlx-community/granite-4.0-h-tiny-8bit", TINY, "normalized"),
    ("ibm-granite/granite-4.0-h-small-FP8", SMALL, "normalized"),
    # LiteLLM provider prefixes
    ("hosted_vllm/ibm-granite/granite-4.0-h-small", SMALL, "normalized"),
    ("openai/ibm-granite/granite-4.1-8b", G8B, "normalized"),
    ("huggingface/ibm-granite/granite-4.0-h-tiny", TINY, "normalized"),
    # watsonx ids
    ("ibm/granite-4-h-small", SMALL, "alias"),
    ("ibm/granite-4-h-tiny", TINY, "alias"),
    ("watsonx/ibm/granite-4-h-small", SMALL, "normalized"),
    ("watsonx_text/ibm/granite-4-h-tiny", TINY, "normalized"),
]


@pytest.mark.parametrize(("name", "model_id", "rule"), RESOLVE)
def test_real_world_names_resolve(name: str, model_id: str, rule: str) -> None:
    resolution = resolve_model(name)
    assert (resolution.model.model_id, resolution.rule) == (model_id, rule)
    assert resolution.model.plugin.name == PLUGIN


@pytest.mark.parametrize("model_id", GRANITE40)
def test_granite40_models_use_the_40_format(model_id: str) -> None:
    assert get_formatter(model_id).input_processor.release is releases.GRANITE40  # type: ignore[attr-defined]


@pytest.mark.parametrize("model_id", GRANITE41)
def test_granite41_models_use_the_41_format(model_id: str) -> None:
    assert get_formatter(model_id).input_processor.release is releases.GRANITE41  # type: ignore[attr-defined]


UNKNOWN = [
    # base models
    "ibm-granite/granite-4.0-h-tiny-base",
    "granite-4.0-h-small-base",
    "ibm-granite/granite-4.0-micro-base",
    "granite-4.1-8b-base",
    "ibm-granite/granite-4.0-1b-base",
    # Granite 4.2: another format (ChatML, thinking) that no installed plugin provides
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


@pytest.mark.parametrize("name", UNKNOWN)
def test_other_names_are_unknown(name: str) -> None:
    with pytest.raises(UnknownModelError):
        resolve_model(name)


def test_the_table_is_large_enough() -> None:
    assert len(RESOLVE) >= 60
    assert {model for _, model, _ in RESOLVE} == set(GRANITE40 + GRANITE41)


@given(
    st.sampled_from(["granite4", "granite4.1", "ibm/granite4", "ollama/granite4.1"]),
    st.sampled_from(["", ":latest"]),
)
def test_bare_ollama_names_are_unknown_or_40(base: str, tag: str) -> None:
    # granite4 (latest) is the 4.0 micro model; granite4.1 has no documented latest tag
    # and must not be guessed.
    name = base + tag
    if "4.1" in base:
        with pytest.raises(UnknownModelError):
            resolve_model(name)
    else:
        assert resolve_model(name).model.model_id == MICRO
