"""The records the library hands out (models, plugins, name resolutions) and the demo a
plugin may register with a model."""

from __future__ import annotations

from ._plugin_records import Demo
from ._records import ModelInfo, PluginInfo, Resolution

__all__ = ["Demo", "ModelInfo", "PluginInfo", "Resolution"]
