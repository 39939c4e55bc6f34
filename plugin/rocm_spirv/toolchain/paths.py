"""Default locations: the provisioned prefix and the caches, overridable by environment."""

from __future__ import annotations

import os
from pathlib import Path


def _xdg(var: str, fallback: str) -> Path:
    value = os.environ.get(var)
    return Path(value) if value else Path.home() / fallback


def default_prefix() -> Path:
    env = os.environ.get("ROCM_SPIRV_PREFIX")
    if env:
        return Path(env)
    return _xdg("XDG_DATA_HOME", ".local/share") / "rocm-spirv" / "toolchain"


def cache_dir() -> Path:
    env = os.environ.get("ROCM_SPIRV_CACHE")
    if env:
        return Path(env)
    return _xdg("XDG_CACHE_HOME", ".cache") / "rocm-spirv"
