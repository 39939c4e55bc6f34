"""CMake presets for native, spirv and hybrid builds, merged into a project's presets file."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from rocm_spirv.errors import UserError
from rocm_spirv.offload import MODES

TOOLCHAIN_DIR = ".rocm-spirv"  # beside the presets file; holds this machine's toolchain files
MIN_VERSION = 3  # toolchainFile appeared in presets version 3 (CMake 3.21)
MARK = {"rocm-spirv": {"generated": True}}

DISPLAY = {
    "native": "Per-architecture GPU code (rocm-spirv)",
    "spirv": "One universal SPIR-V target, amdgcnspirv (rocm-spirv)",
    "hybrid": "SPIR-V plus native code objects (rocm-spirv)",
}


@dataclass
class MergeResult:
    text: str
    added: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    version_raised_from: int | None = None


def toolchain_file_name(mode: str) -> str:
    return f"{TOOLCHAIN_DIR}/{mode}.cmake"


def our_presets(prefix: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    configure: list[dict[str, Any]] = []
    build: list[dict[str, Any]] = []
    for mode in MODES:
        name = f"{prefix}{mode}"
        configure.append({
            "name": name,
            "displayName": DISPLAY[mode],
            "generator": "Ninja",
            "binaryDir": f"${{sourceDir}}/build/{name}",
            "toolchainFile": f"${{sourceDir}}/{toolchain_file_name(mode)}",
            "vendor": MARK,
        })
        build.append({"name": name, "configurePreset": name, "vendor": MARK})
    return configure, build


def _indent_of(text: str) -> int:
    m = re.search(r"^( +)\S", text, re.MULTILINE)
    return len(m.group(1)) if m else 2


def merge(existing: str | None, prefix: str = "", where: str = "CMakePresets.json") -> MergeResult:
    """Add our presets to a presets document; a user preset of the same name is never replaced."""
    if existing is None or not existing.strip():
        doc: dict[str, Any] = {"version": MIN_VERSION,
                               "cmakeMinimumRequired": {"major": 3, "minor": 21, "patch": 0}}
        indent = 2
    else:
        try:
            loaded = json.loads(existing)
        except json.JSONDecodeError as err:
            raise UserError(f"{where} is not valid JSON ({err.msg} at line {err.lineno}, column {err.colno})",
                            "fix the file, or pass --output to write the presets elsewhere") from None
        if not isinstance(loaded, dict):
            raise UserError(f"{where} does not hold a JSON object", "fix the file, or pass --output elsewhere")
        doc = loaded
        indent = _indent_of(existing)
    result = MergeResult("")
    version = doc.get("version")
    if not isinstance(version, int):
        raise UserError(f"{where} has no integer \"version\"", "add \"version\": 3 (or newer) to the file")
    if version < MIN_VERSION:
        result.version_raised_from = version
        doc["version"] = MIN_VERSION
    configure, build = our_presets(prefix)
    for key, ours in (("configurePresets", configure), ("buildPresets", build)):
        have = doc.setdefault(key, [])
        if not isinstance(have, list):
            raise UserError(f"{where}: \"{key}\" is not a list", "fix the file, or pass --output elsewhere")
        by_name = {p.get("name"): p for p in have if isinstance(p, dict)}
        for preset in ours:
            old = by_name.get(preset["name"])
            if old is None:
                have.append(preset)
                if key == "configurePresets":
                    result.added.append(preset["name"])
            elif old != preset:
                raise UserError(
                    f"{where} already has a {key[:-1]} named {preset['name']!r} that rocm-spirv did not write",
                    "rename that preset, or pass --name-prefix (e.g. --name-prefix rocm-spirv-)")
            elif key == "configurePresets":
                result.unchanged.append(preset["name"])
    result.text = json.dumps(doc, indent=indent) + "\n"
    return result
