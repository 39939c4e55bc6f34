"""Every `ROCM_SPIRV_*` environment variable the tool reads: one table, typed readers.

docs/cli.md's "Environment" table lists the same names (tests/test_settings.py holds the two equal,
and finds every variable the package reads in this table). CMake cache options of the same prefix
(ROCM_SPIRV_OFFLOAD, ROCM_SPIRV_NATIVE_ARCHS, …) are the CMake package's, documented in docs/cmake.md.
Reads happen when a value is needed, so a test or a build step that sets a variable is seen.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Kind = Literal["path", "switch", "text"]
ON = ("1", "on", "yes", "true")
OFF = ("0", "off", "no", "false")


@dataclass(frozen=True)
class Setting:
    name: str
    kind: Kind  # path: a file or folder; switch: 1/on/yes/true or 0/off/no/false; text: a word
    meaning: str


PREFIX = Setting("ROCM_SPIRV_PREFIX", "path",
                 "the toolchain prefix `toolchain provision` builds and discovery finds "
                 "(default `$XDG_DATA_HOME/rocm-spirv/toolchain`)")
CACHE = Setting("ROCM_SPIRV_CACHE", "path",
                "the folder of cached compiler probes (default `$XDG_CACHE_HOME/rocm-spirv`)")
COMPILER = Setting("ROCM_SPIRV_COMPILER", "path", "the clang++ to use where no `--compiler` is given")
LLVM = Setting("ROCM_SPIRV_LLVM", "text",
               "the LLVM `toolchain provision` wraps: `ziglang`, or a bin folder or clang path (as `--llvm`)")
BUNDLER = Setting("ROCM_SPIRV_BUNDLER", "path",
                  "clang-offload-bundler for a prefix on ziglang's clang (as `toolchain provision --bundler`)")
SKBUILD = Setting("ROCM_SPIRV_SKBUILD", "switch",
                  "`0` keeps the scikit-build-core provider out of a build (docs/wheels.md)")
DEVICE_DEBUG = Setting("ROCM_SPIRV_DEVICE_DEBUG", "switch",
                       "`1` keeps debug info in the SPIR-V device pass under `-g` (docs/toolchain.md)")
VALIDATE = Setting("ROCM_SPIRV_VALIDATE", "switch",
                   "`0` skips the prefix wrappers' build-time spirv-val check of SPIR-V objects (docs/toolchain.md)")

SETTINGS: tuple[Setting, ...] = (PREFIX, CACHE, COMPILER, LLVM, BUNDLER, SKBUILD, DEVICE_DEBUG, VALIDATE)


def text(setting: Setting, environ: Mapping[str, str] | None = None) -> str | None:
    """The value, None when unset or empty (an empty variable means "not set", as in a shell)."""
    value = (os.environ if environ is None else environ).get(setting.name, "")
    return value or None


def path(setting: Setting, environ: Mapping[str, str] | None = None) -> Path | None:
    value = text(setting, environ)
    return Path(value) if value is not None else None


def switch(setting: Setting, default: bool, environ: Mapping[str, str] | None = None) -> bool:
    """On for 1/on/yes/true, off for 0/off/no/false (any case), else the default."""
    value = (text(setting, environ) or "").strip().lower()
    return True if value in ON else False if value in OFF else default
