"""Granite 3.3 formatter plugin for granite-formatters.

The package imports nothing: the ``granite_formatters`` entry point loads :mod:`.plugin`
(the hook that registers the model names), and the core imports :mod:`.releases` (the
release declarations) when a model is first used, reaching it through the model
catalogue of the distribution's entry points without the hook module.
"""

__all__: list[str] = []
