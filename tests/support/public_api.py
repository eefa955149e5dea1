"""The whole public surface: every public module of the core and of the bundled plugin
packages, with the names it exports.

What ``docs/api.md`` and ``docs/plugins/`` document is public; every other module has a
leading underscore. ``tests/core/test_public_face.py`` checks that this list equals the
installed packages (each public module, its ``__all__``, what it defines), so a module
or a name is added or removed here and in the code together, and that the docs name
every entry.
"""

from __future__ import annotations

#: The core, ``granite_formatters``: module -> the names of its ``__all__``.
CORE: dict[str, tuple[str, ...]] = {
    "granite_formatters": (
        # Looking up formatters and plugins.
        "get_formatter",
        "resolve_model",
        "list_models",
        "list_plugins",
        "plugin_errors",
        "register_plugin",
        "unregister_plugin",
        # What they return and take.
        "Formatter",
        "InputProcessor",
        "OutputProcessor",
        "RequestLike",
        "AssistantMessage",
        "ChatCompletion",
        "Release",
        # The errors a caller catches.
        "FormatterError",
        "InvalidRequestError",
        "UnknownModelError",
        # The plugin contract's everyday names.
        "PLUGIN_API_VERSION",
        "Register",
        "hookimpl",
        "__version__",
    ),
    "granite_formatters.errors": (
        "AmbiguousModelError",
        "DroppedInputWarning",
        "FormatterError",
        "InvalidRequestError",
        "PluginLoadError",
        "PluginWarning",
        "UnknownModelError",
        "quote",
    ),
    "granite_formatters.types": (
        "AssistantMessage",
        "ChatCompletion",
        "ChatMessage",
        "Document",
        "ToolCall",
    ),
    "granite_formatters.streaming": (
        "BufferedStreamParser",
        "ChunkText",
        "Delta",
        "MessageStream",
        "StreamParser",
        "ToolCallDelta",
    ),
    "granite_formatters.records": ("Demo", "ModelInfo", "PluginInfo", "Resolution"),
    "granite_formatters.export": (
        "ExportError",
        "release_response_template",
        "response_template",
        "write_response_template",
    ),
    "granite_formatters.hookspecs": (
        "PLUGIN_API_VERSION",
        "Register",
        "RegisterHint",
        "check_api_version",
        "hookimpl",
        "register_formatters",
    ),
    "granite_formatters.serve": ("ServeConfig", "create_app"),
    "granite_formatters.batch": ("FormatStage", "ParseStage"),
    "granite_formatters.release": ("Option", "Release"),
    "granite_formatters.special_tokens": ("SpecialTokens",),
    "granite_formatters.samples": ("RAG_REQUEST", "SAMPLE_DAY", "TOOL_REQUEST"),
    "granite_formatters.syntax": (
        "BlockReader",
        "HistoryCall",
        "HistoryWriter",
        "MarkedReasoningSyntax",
        "ReasoningSyntax",
        "ToolCallDefaults",
        "ToolCallSyntax",
        "TurnSyntax",
        "CHATML",
        "GRANITE_ROLES",
        "JSON_BLOCKS",
        "JSON_LIST",
        "XML_FUNCTIONS",
        "OPENED_THINK",
        "THINK_RESPONSE",
        "THOUGHT_PHRASES",
        "CONTROLS",
        "DatedLayout",
        "SystemBlocksLayout",
        "DatedSystemPrompt",
        "DocumentTurnPerDocument",
        "DocumentsTurn",
        "SystemBlock",
        "ToolsTurn",
        "listed_function",
        "effort_option_error",
        "think_option_error",
        "thinking_option_error",
    ),
    "granite_formatters.granite3": (
        "START_OF_ROLE",
        "END_OF_ROLE",
        "END_OF_TEXT",
        "TOOL_CALL",
        "GRANITE3_SPECIAL_TOKENS",
        "CO_CITATIONS",
        "CITE_TOKEN_CITATIONS",
        "CitationFormat",
        "Citation",
        "Hallucination",
        "Granite3AssistantMessage",
        "Granite3ChatCompletion",
        "Granite3Controls",
        "Granite3Kwargs",
        "sanitize",
    ),
    "granite_formatters.granite3.prompt_format": (
        "PREAMBLE",
        "TOOLS_INSTRUCTION",
        "TOOLS_AND_DOCUMENTS_INSTRUCTION",
        "DOCUMENTS_INSTRUCTION",
        "CO_CITATIONS_INSTRUCTION",
        "HALLUCINATIONS_INSTRUCTION",
        "PLAIN_INSTRUCTION",
        "THINKING_INSTRUCTION_INTRO",
    ),
    "granite_formatters.testing": (
        "FormatterContractTests",
        "GoldenCase",
        "load_golden_cases",
        "render_chat_template",
        "isolated_host",
        "isolated_host_factory",
        "register_test_plugin",
        "FUZZ_MARKERS",
    ),
    "granite_formatters.testing.granite3": ("Granite3InputContractTests",),
}

#: The bundled plugin packages: the package, its hook module and its release declarations
#: (both named by the entry points of its pyproject).
PLUGINS: dict[str, tuple[str, ...]] = {
    "granite_formatters_granite32": (),
    "granite_formatters_granite32.plugin": ("register_formatters",),
    "granite_formatters_granite32.releases": ("GRANITE32", "GRANITE32_SYSTEM_PROMPT"),
    "granite_formatters_granite33": (),
    "granite_formatters_granite33.plugin": ("register_formatters",),
    "granite_formatters_granite33.releases": (
        "GRANITE33",
        "GRANITE33_SPECIAL_TOKENS",
        "GRANITE33_SYSTEM_PROMPT",
    ),
    "granite_formatters_granite4": (),
    "granite_formatters_granite4.plugin": (
        "GRANITE40_MODELS",
        "GRANITE41_MODELS",
        "register_formatters",
    ),
    "granite_formatters_granite4.releases": (
        "GRANITE4_DEFAULT_SYSTEM_MESSAGE",
        "GRANITE4_MODEL_RECORD_TOKENS",
        "GRANITE4_SPECIAL_TOKENS",
        "GRANITE40",
        "GRANITE41",
    ),
    "granite_formatters_granite42": (),
    "granite_formatters_granite42.plugin": ("GRANITE42_MODELS", "register_formatters"),
    "granite_formatters_granite42.releases": ("GRANITE42", "GRANITE42_SPECIAL_TOKENS"),
}

#: The example plugin of the tutorial (``examples/granite-formatters-granite31``), checked
#: when it is installed.
EXAMPLE: dict[str, tuple[str, ...]] = {
    "granite_formatters_granite31": ("MODELS", "register_formatters"),
    "granite_formatters_granite31.releases": ("GRANITE31",),
}

#: The public faces that need an optional extra (without the serve extra, which both
#: build on, importing them is an ImportError naming the extra to install).
FACE_EXTRAS: dict[str, str] = {
    "granite_formatters.serve": "serve",
    "granite_formatters.batch": "ray",
}

#: Every public module, whichever distribution holds it.
PUBLIC_API: dict[str, tuple[str, ...]] = {**CORE, **PLUGINS, **EXAMPLE}
