"""Real-world Granite 3.2 names resolve to the right model; other models' names do not.

Runs with only the core and the granite32 plugin loaded (the module fixture restricts
plugin loading to it even when other plugins are installed), so a name of another
release must fail here: nothing else could claim it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import UnknownModelError, plugins, resolve_model
from granite_formatters.plugins import ENV_LOAD, PluginHost

PLUGIN = "granite-formatters-granite32"
I8 = "granite-3.2-8b-instruct"
I2 = "granite-3.2-2b-instruct"
PREVIEW = "granite-3.2-8b-instruct-preview"


@pytest.fixture(scope="module", autouse=True)
def only_this_plugin() -> Iterator[None]:
    # A fresh process-wide host that loads this plugin's entry point and nothing else.
    host = PluginHost(environ={ENV_LOAD: PLUGIN})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(plugins, "_default_host", host)
        yield


# (name as used in the wild, model id, rule that must match)
RESOLVE: list[tuple[str, str, str]] = [
    # ids
    (I8, I8, "id"),
    (I2, I2, "id"),
    (PREVIEW, PREVIEW, "id"),
    # aliases: Hugging Face ids, Ollama tags, watsonx ids, preview names
    ("ibm-granite/granite-3.2-8b-instruct", I8, "alias"),
    ("ibm-granite/granite-3.2-2b-instruct", I2, "alias"),
    ("granite3.2:8b", I8, "alias"),
    ("granite3.2:2b", I2, "alias"),
    ("granite3.2", I8, "alias"),
    ("granite3.2:latest", I8, "alias"),
    ("ibm/granite-3-2-8b-instruct", I8, "alias"),
    ("ibm-granite/granite-3.2-8b-instruct-preview", PREVIEW, "alias"),
    ("granite-8b-instruct-preview-4k", PREVIEW, "alias"),
    ("ibm-granite/granite-8b-instruct-preview-4k", PREVIEW, "alias"),
    # case and whitespace
    ("IBM-Granite/granite-3.2-8b-instruct", I8, "normalized"),
    ("ibm-granite/Granite-3.2-8B-Instruct", I8, "normalized"),
    ("  granite-3.2-2b-instruct\n", I2, "normalized"),
    ("GRANITE3.2:8B", I8, "normalized"),
    ("Granite 3.2", I8, "normalized"),
    ("granite-3.2-8b", I8, "normalized"),
    # provider prefixes (LiteLLM and friends)
    ("ollama/granite3.2:8b", I8, "normalized"),
    ("ollama_chat/granite3.2:2b", I2, "normalized"),
    ("ollama/granite3.2", I8, "normalized"),
    ("ollama/granite3.2:latest", I8, "normalized"),
    ("openai/ibm-granite/granite-3.2-8b-instruct", I8, "normalized"),
    ("hosted_vllm/ibm-granite/granite-3.2-8b-instruct", I8, "normalized"),
    ("vllm/ibm-granite/granite-3.2-2b-instruct", I2, "normalized"),
    ("huggingface/ibm-granite/granite-3.2-8b-instruct", I8, "normalized"),
    ("replicate/ibm-granite/granite-3.2-8b-instruct", I8, "normalized"),
    ("hf:ibm-granite/granite-3.2-8b-instruct", I8, "normalized"),
    ("watsonx/ibm/granite-3-2-8b-instruct", I8, "normalized"),
    ("watsonx_text/ibm/granite-3-2-8b-instruct", I8, "normalized"),
    ("ibm/granite3.2:8b", I8, "normalized"),
    ("ibm/granite3.2:2b", I2, "normalized"),
    # Ollama tags with quantisation
    ("granite3.2:8b-instruct-q4_K_M", I8, "normalized"),
    ("granite3.2:2b-instruct-q4_K_M", I2, "normalized"),
    ("granite3.2:8b-instruct-fp16", I8, "normalized"),
    ("granite3.2:2b-instruct-fp16", I2, "normalized"),
    ("granite3.2:8b-instruct-q8_0", I8, "normalized"),
    # GGUF repositories and files
    ("ibm-research/granite-3.2-8b-instruct-GGUF", I8, "normalized"),
    ("ibm-research/granite-3.2-2b-instruct-GGUF", I2, "normalized"),
    ("lmstudio-community/granite-3.2-8b-instruct-GGUF", I8, "normalized"),
    ("bartowski/ibm-granite_granite-3.2-8b-instruct-GGUF", I8, "normalized"),
    ("granite-3.2-8b-instruct-Q4_K_M.gguf", I8, "normalized"),
    ("granite-3.2-2b-instruct-Q6_K.gguf", I2, "normalized"),
    ("granite-3.2-8b-instruct-f16.gguf", I8, "normalized"),
    ("ibm-granite_granite-3.2-2b-instruct-Q4_K_M.gguf", I2, "normalized"),
    ("ibm-granite_granite-3.2-8b-instruct-IQ4_XS.gguf", I8, "normalized"),
    ("hf.co/bartowski/ibm-granite_granite-3.2-8b-instruct-GGUF:Q4_K_M", I8, "normalized"),
    ("/models/granite-3.2-8b-instruct-Q5_K_M.gguf", I8, "normalized"),
    ("C:\\models\\granite-3.2-2b-instruct-Q8_0.gguf", I2, "normalized"),
    ("granite-3.2-8b-instruct-Q4_K_M-00001-of-00002.gguf", I8, "normalized"),
    ("granite-3.2-8b-instruct@q4_k_m", I8, "normalized"),
    ("mlx-community/granite-3.2-8b-instruct-4bit", I8, "normalized"),
    ("Triangle104/granite-3.2-8b-instruct-preview-Q4_K_M-GGUF", PREVIEW, "normalized"),
    # leftover suffixes: the plugin's patterns
    ("huihui-ai/granite-3.2-8b-instruct-abliterated", I8, "pattern"),
    ("granite-3.2-2b-instruct-abliterated-Q4_K_M.gguf", I2, "pattern"),
    ("granite-3.2-8b-instruct-preview-abliterated", PREVIEW, "pattern"),
]


@pytest.mark.parametrize(("name", "model_id", "rule"), RESOLVE)
def test_real_world_names_resolve(name: str, model_id: str, rule: str) -> None:
    resolution = resolve_model(name)
    assert (resolution.model.model_id, resolution.rule) == (model_id, rule)
    assert resolution.model.plugin.name == PLUGIN


def test_the_table_is_large_enough() -> None:
    assert len({name for name, _, _ in RESOLVE}) == len(RESOLVE) >= 40


# Names that must never reach a Granite 3.2 instruct formatter.
UNKNOWN: list[str] = [
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


@pytest.mark.parametrize("name", UNKNOWN)
def test_other_names_are_unknown(name: str) -> None:
    with pytest.raises(UnknownModelError):
        resolve_model(name)


def test_unknown_name_suggests_close_matches_without_quoting_the_message() -> None:
    with pytest.raises(UnknownModelError) as info:
        resolve_model("granite-3.2-8b-instrct")
    error = info.value
    assert error.suggestions[0] == I8
    text = str(error)
    assert text.startswith(
        "Unknown model 'granite-3.2-8b-instrct'.\nDid you mean: 'granite-3.2-8b-instruct'"
    )
    assert text == error.args[0]


def test_typo_in_an_ollama_tag_suggests_the_model() -> None:
    with pytest.raises(UnknownModelError) as info:
        resolve_model("granite3.2:8bb")
    assert I8 in info.value.suggestions


@given(
    st.sampled_from(["3.3", "3-3", "3_3", "3.1", "3-1", "3.0", "4.0", "3.3.0"]),
    st.text(alphabet="-_.:@ 0123456789abgikmnoqrstuxKMQ*?"),
)
def test_no_other_release_is_ever_claimed(release: str, tail: str) -> None:
    # Whatever follows "granite-<release>", only a 3.2 name can reach this plugin.
    name = f"granite-{release}-{tail}"
    with pytest.raises(UnknownModelError):
        resolve_model(name)
