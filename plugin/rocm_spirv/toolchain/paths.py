"""Default locations: the provisioned prefix and the caches, overridable by environment."""

from __future__ import annotations

import os
from pathlib import Path

from rocm_spirv import settings


def _xdg(var: str, fallback: str) -> Path:
    value = os.environ.get(var)
    return Path(value) if value else Path.home() / fallback


def default_prefix() -> Path:
    return settings.path(settings.PREFIX) or _xdg("XDG_DATA_HOME", ".local/share") / "rocm-spirv" / "toolchain"


def cache_dir() -> Path:
    return settings.path(settings.CACHE) or _xdg("XDG_CACHE_HOME", ".cache") / "rocm-spirv"
