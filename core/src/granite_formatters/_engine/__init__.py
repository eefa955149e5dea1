"""The engine: one renderer and one parser that run any :class:`~granite_formatters.Release`."""
