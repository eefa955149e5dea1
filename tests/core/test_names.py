"""Normalisation of model names (granite_formatters._names), without any plugin."""

from __future__ import annotations

import fnmatch

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from granite_formatters._names import normalize_model_name

# (name as people write it, exact normal form)
CASES: list[tuple[str, str]] = [
    # case, whitespace, the canonical id itself
    ("granite-3.3-8b-instruct", "granite-3.3-8b-instruct"),
    ("  Granite-3.3-8B-Instruct\t\n", "granite-3.3-8b-instruct"),
    ("GRANITE-3.2-2B-INSTRUCT", "granite-3.2-2b-instruct"),
    ("Granite 3.3 8B Instruct", "granite-3.3-8b-instruct"),
    # organisations and provider prefixes
    ("ibm-granite/granite-3.3-8b-instruct", "granite-3.3-8b-instruct"),
    ("IBM-Granite/granite-3.2-8b-instruct", "granite-3.2-8b-instruct"),
    ("ibm-research/granite-3.2-8b-instruct", "granite-3.2-8b-instruct"),
    ("ollama/granite3.3:8b", "granite-3.3-8b-instruct"),
    ("ollama_chat/granite3.2:2b", "granite-3.2-2b-instruct"),
    ("openai/ibm-granite/granite-3.3-2b-instruct", "granite-3.3-2b-instruct"),
    ("hosted_vllm/ibm-granite/granite-3.3-8b-instruct", "granite-3.3-8b-instruct"),
    ("vllm/ibm-granite/granite-3.2-8b-instruct", "granite-3.2-8b-instruct"),
    ("watsonx/ibm/granite-3-3-8b-instruct", "granite-3.3-8b-instruct"),
    ("watsonx_text/ibm/granite-3-2-8b-instruct", "granite-3.2-8b-instruct"),
    ("huggingface/ibm-granite/granite-3.2-2b-instruct", "granite-3.2-2b-instruct"),
    ("hf.co/ibm-granite/granite-3.3-8b-instruct-GGUF", "granite-3.3-8b-instruct"),
    ("hf:ibm-granite/granite-3.3-8b-instruct", "granite-3.3-8b-instruct"),
    ("hf:granite-3.3-8b-instruct", "granite-3.3-8b-instruct"),
    ("replicate/ibm-granite/granite-3.3-8b-instruct", "granite-3.3-8b-instruct"),
    ("ibm/granite3.3:8b", "granite-3.3-8b-instruct"),
    ("some-org/granite-3.2-8b-instruct", "granite-3.2-8b-instruct"),
    ("https://huggingface.co/ibm-granite/granite-3.3-2b-instruct", "granite-3.3-2b-instruct"),
    ("ibm-granite/granite-3.3-8b-instruct/", "granite-3.3-8b-instruct"),
    # local files, GGUF, quantisations, shards
    ("/models/granite-3.3-8b-instruct-Q4_K_M.gguf", "granite-3.3-8b-instruct"),
    ("C:\\models\\granite-3.2-2b-instruct-f16.gguf", "granite-3.2-2b-instruct"),
    ("./granite-3.3-2b-instruct-Q8_0.gguf", "granite-3.3-2b-instruct"),
    ("granite-3.3-8b-instruct-GGUF", "granite-3.3-8b-instruct"),
    ("lmstudio-community/granite-3.2-8b-instruct-GGUF", "granite-3.2-8b-instruct"),
    ("bartowski/ibm-granite_granite-3.3-8b-instruct-GGUF", "granite-3.3-8b-instruct"),
    ("ibm-granite_granite-3.3-2b-instruct-Q3_K_M.gguf", "granite-3.3-2b-instruct"),
    ("granite-3.3-8B-Instruct-Q4_K_M.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-Q2_K.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-Q3_K_L.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-Q3_K_S.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-Q4_0.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-Q4_1.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-Q4_K_S.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-Q5_0.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-Q5_1.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-Q5_K_M.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-Q5_K_S.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-Q6_K.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-IQ4_XS.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-IQ3_XXS.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-Q4_0_4_4.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-bf16.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-fp16.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-f32.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct.Q4_K_M.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct.i1-Q4_K_M.gguf", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct-Q8_0-00001-of-00002.gguf", "granite-3.3-8b-instruct"),
    ("hf.co/bartowski/ibm-granite_granite-3.3-8b-instruct-GGUF:Q4_K_M", "granite-3.3-8b-instruct"),
    ("granite-3.3-8b-instruct@q4_k_m", "granite-3.3-8b-instruct"),
    ("mlx-community/granite-3.3-8b-instruct-4bit", "granite-3.3-8b-instruct"),
    ("ibm-granite-granite-3.3-2B-Instruct.jinja", "granite-3.3-2b-instruct"),
    # Ollama tags
    ("granite3.2:8b", "granite-3.2-8b-instruct"),
    ("granite3.2:2b", "granite-3.2-2b-instruct"),
    ("granite3.2", "granite-3.2"),
    ("granite3.2:latest", "granite-3.2"),
    ("Granite 3.2", "granite-3.2"),
    ("granite3.2:8b-instruct-q4_K_M", "granite-3.2-8b-instruct"),
    ("granite3.2:2b-instruct-fp16", "granite-3.2-2b-instruct"),
    ("granite3.3:8b-instruct-q8_0", "granite-3.3-8b-instruct"),
    # watsonx and NVIDIA spellings of the release
    ("ibm/granite-3-3-8b-instruct", "granite-3.3-8b-instruct"),
    ("ibm/granite-3-2-8b-instruct", "granite-3.2-8b-instruct"),
    ("ibm/granite-3_0-8b-instruct", "granite-3.0-8b-instruct"),
    # release unknown: stays "3"
    ("ibm/granite-3-8b-instruct", "granite-3-8b-instruct"),
    ("ibm/granite-3-2b-instruct", "granite-3-2b-instruct"),
    ("granite-3-2b-instruct", "granite-3-2b-instruct"),
    # other variants keep their variant word
    ("ibm-granite/granite-3.3-8b-base", "granite-3.3-8b-base"),
    ("ibm-granite/granite-3.2-2b-base-Q4_K_M.gguf", "granite-3.2-2b-base"),
    ("ibm-granite/granite-vision-3.2-2b", "granite-3.2-vision-2b"),
    ("granite3.2-vision:2b", "granite-3.2-vision-2b"),
    ("ibm/granite-vision-3-2-2b", "granite-3.2-vision-2b"),
    ("ibm-granite/granite-vision-3.3-2b", "granite-3.3-vision-2b"),
    ("ibm-granite/granite-guardian-3.2-5b", "granite-3.2-guardian-5b"),
    ("granite3-guardian:2b", "granite-3-guardian-2b"),
    ("ibm-granite/granite-speech-3.3-8b", "granite-3.3-speech-8b"),
    ("granite-embedding", "granite-embedding"),
    ("ibm-granite/granite-embedding-30m-english", "granite-embedding-30m-english"),
    ("granite-code:3b", "granite-code-3b"),
    ("ibm-granite/granite-20b-functioncalling", "granite-20b-functioncalling"),
    ("ibm/granite-13b-chat-v2", "granite-13b-chat-v2"),
    # other releases
    ("ibm-granite/granite-3.1-8b-instruct", "granite-3.1-8b-instruct"),
    ("ibm-granite/granite-3.1-3b-a800m-instruct", "granite-3.1-3b-a800m-instruct"),
    ("granite3.1-moe:3b", "granite-3.1-moe-3b"),
    ("granite3-dense:8b", "granite-3-dense-8b"),
    ("ibm-granite/granite-4.0-h-tiny", "granite-4.0-h-tiny"),
    ("granite4:micro", "granite-4-micro"),
    ("ibm/granite-4-h-small", "granite-4-h-small"),
    ("unsloth/granite-4.0-micro-GGUF", "granite-4.0-micro"),
    # previews
    ("ibm-granite/granite-3.2-8b-instruct-preview", "granite-3.2-8b-instruct-preview"),
    ("Triangle104/granite-3.2-8b-instruct-preview-Q4_K_M-GGUF", "granite-3.2-8b-instruct-preview"),
    ("ibm-granite/granite-8b-instruct-preview-4k", "granite-8b-instruct-preview-4k"),
    # typos stay typos (so close-match suggestions can find them)
    ("granite-3.2-8b-instrct", "granite-3.2-8b-instrct"),
    ("granit-3.3-8b-instruct", "granit-3.3-8b-instruct"),
    # not Granite at all: same cleaning, nothing else
    ("gpt-4o-mini", "gpt-4o-mini"),
    ("ollama/llama3.1:8b-instruct-q4_K_M", "llama3.1-8b-instruct"),
    ("GraniteX:Latest", "granitex"),
    # Unicode look-alikes fold onto ASCII; anything else separates
    (
        "\uff47\uff52\uff41\uff4e\uff49\uff54\uff45\uff13\uff0e\uff13\uff1a\uff18\uff42",
        "granite-3.3-8b-instruct",
    ),
    ("granite\u20113.3\u20118b\u2011instruct", "granite-3.3-8b-instruct"),
    # degenerate input
    ("", ""),
    ("   ", ""),
    ("///", ""),
    ("model.gguf", "model"),
    ("gguf", ""),
]


@pytest.mark.parametrize(("name", "expected"), CASES)
def test_normal_forms(name: str, expected: str) -> None:
    assert normalize_model_name(name) == expected


@pytest.mark.parametrize(
    "pattern",
    [
        "granite-3.2-8b-instruct-*",
        "granite-3.3-2b-instruct-*",
        "granite-3.2-8b-instruct-preview-*",
        "granite-9.9-*-instruct*",
        "granite-3.?-8b-instruct",
        "granite-3.[23]-[28]b-instruct",
        "granite-3.3-[!2]b-instruct",
        "granite-[3-4].*",
        "granite-*",
    ],
)
def test_glob_patterns_in_normal_form_are_kept(pattern: str) -> None:
    # The registry normalises patterns before matching, so a pattern written in normal
    # form must come out unchanged (wildcards included).
    assert normalize_model_name(pattern) == pattern


def test_glob_patterns_are_normalised_like_names() -> None:
    assert normalize_model_name("IBM-Granite/Granite3.3*") == "granite-3.3*"
    pattern = normalize_model_name("granite-3.3-8b-instruct-*")
    assert fnmatch.fnmatchcase(normalize_model_name("granite-3.3-8b-instruct-abliterated"), pattern)
    assert not fnmatch.fnmatchcase(normalize_model_name("granite-3.3-8b-base"), pattern)


@pytest.mark.parametrize(
    "name",
    [
        "granite-3.3-8b-base",
        "ibm-granite/granite-vision-3.2-2b",
        "granite3.2-vision:2b",
        "ibm-granite/granite-guardian-3.3-8b",
        "ibm-granite/granite-speech-3.3-8b",
        "ibm/granite-3-8b-instruct",
        "granite-3-2b-instruct",
        "ibm-granite/granite-3.1-8b-instruct",
        "ibm-granite/granite-3.3-8b-instruct-lora-something",
    ],
)
def test_other_models_never_become_an_instruct_id(name: str) -> None:
    normal = normalize_model_name(name)
    for release in ("3.2", "3.3"):
        for size in ("2b", "8b"):
            assert normal != f"granite-{release}-{size}-instruct"


def test_long_adversarial_input_is_handled() -> None:
    # Shapes that make naive regular expressions backtrack; a quadratic implementation
    # would not finish this test in any reasonable time.
    n = 50_000
    assert normalize_model_name("q" + "4" * n + "x") == "q" + "4" * n + "x"
    assert normalize_model_name("q4" + "_1" * n + "_granite") == "q4" + "_1" * n + "-granite"
    assert normalize_model_name("q4" + "_1" * n + "x") == ""  # one long quantisation name
    assert normalize_model_name("granite" + "-gguf" * n) == "granite"
    assert normalize_model_name("granite" + "-3" * n) == "granite-" + ".".join(["3"] * n)
    assert normalize_model_name("/" * n + "granite3.3" + " " * n) == "granite-3.3"
    assert normalize_model_name("3." * n) == ".".join(["3"] * n)
    assert normalize_model_name("ibm-" * n + "granite") == "granite"


# -- properties -------------------------------------------------------------------

# Names built from the pieces real names are made of, so that the properties exercise
# every rule (random text alone rarely spells "granite").
_PIECES = [
    "granite",
    "Granite",
    "GRANITE",
    "granite3.3",
    "granite3.2",
    "ibm",
    "ibm-granite",
    "research",
    "hf",
    "ollama",
    "3",
    "3.3",
    "3.2",
    "0",
    "2",
    "8b",
    "2B",
    "350m",
    "a800m",
    "instruct",
    "base",
    "vision",
    "preview",
    "latest",
    "gguf",
    "GGUF",
    "Q4_K_M",
    "q8_0",
    "IQ4_XS",
    "q4_k_m_x",
    "f16",
    "bf16",
    "00001",
    "of",
    "00002",
    "*",
    "?",
    "[",
    "]",
    "!",
    "x",
    "",
]
_SEPARATORS = ["-", "_", ".", ":", "/", "\\", " ", "@", "", "\u2011"]

model_like_names = st.lists(
    st.tuples(st.sampled_from(_PIECES), st.sampled_from(_SEPARATORS)), max_size=12
).map(lambda parts: "".join(piece + sep for piece, sep in parts))
any_text = st.text(alphabet=st.characters(exclude_categories=()))
ascii_text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127))


@given(any_text)
@example("\ud800granite\udfff3.3")
def test_never_raises_and_returns_lowercase_ascii(name: str) -> None:
    normal = normalize_model_name(name)
    assert isinstance(normal, str)
    assert normal.isascii()
    assert normal == normal.lower()
    assert normal.strip() == normal


@given(st.one_of(model_like_names, any_text))
@example("granite-gguf-3")
@example("granite-x-00001-of-00002")
@example("ibm-granite_granite-ibm-3")
def test_idempotent(name: str) -> None:
    normal = normalize_model_name(name)
    assert normalize_model_name(normal) == normal


@given(st.one_of(model_like_names, ascii_text))
def test_case_insensitive(name: str) -> None:
    normal = normalize_model_name(name)
    assert normalize_model_name(name.upper()) == normal
    assert normalize_model_name(name.lower()) == normal
    assert normalize_model_name(name.swapcase()) == normal


@given(st.sampled_from(["3.2", "3.3", "3-2", "3-3", "3_3"]), model_like_names)
def test_the_release_after_granite_is_kept(release: str, tail: str) -> None:
    # Whatever follows, a name that starts with a release keeps that release: a 3.3
    # name can never normalise onto a 3.2 name (and so never match a 3.2 pattern).
    tail = tail.replace("/", "").replace("\\", "")
    normal = normalize_model_name(f"granite-{release}-{tail}")
    dotted = release.replace("-", ".").replace("_", ".")
    assert normal.startswith(f"granite-{dotted}")
    other = "3.2" if dotted == "3.3" else "3.3"
    assert not normal.startswith(f"granite-{other}")
