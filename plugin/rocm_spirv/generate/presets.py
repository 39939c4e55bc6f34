"""CMake presets for native, spirv and hybrid builds, merged into a project's presets file."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from rocm_spirv.errors import UserError
from rocm_spirv.offload import MODES

TOOLCHAIN_DIR = ".rocm-spirv"  # beside the presets file; holds this machine's toolchain files
MIN_VERSION = 3  # toolchainFile appeared in presets version 3 (CMake 3.21)
VENDOR = "rocm-spirv"

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
    updated: list[str] = field(default_factory=list)  # our unedited presets, rewritten
    kept: list[str] = field(default_factory=list)  # our presets the user edited: theirs now, left alone


def preset_hash(preset: dict[str, Any]) -> str:
    """sha256 of a preset without our vendor entry: what the vendor entry records at generation."""
    vendor = {k: v for k, v in (preset.get("vendor") or {}).items() if k != VENDOR}
    bare = {k: v for k, v in preset.items() if k != "vendor"}
    if vendor:
        bare["vendor"] = vendor
    return hashlib.sha256(json.dumps(bare, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _marked(preset: dict[str, Any]) -> dict[str, Any]:
    preset["vendor"] = {VENDOR: {"generated": True, "sha256": preset_hash(preset)}}
    return preset


def ownership(old: dict[str, Any], ours: dict[str, Any]) -> str:
    """same, ours (unedited: may be rewritten), edited (ours once, the user's now) or foreign."""
    if old == ours:
        return "same"
    vendor = old.get("vendor")
    mark = vendor.get(VENDOR) if isinstance(vendor, dict) else None
    if not isinstance(mark, dict):
        return "foreign"
    recorded = mark.get("sha256")
    if recorded is None:  # written before presets carried a hash: ours only if exactly as written then
        legacy = {k: v for k, v in ours.items() if k != "vendor"}
        return "ours" if {k: v for k, v in old.items() if k != "vendor"} == legacy else "edited"
    return "ours" if recorded == preset_hash(old) else "edited"


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
        })
        build.append(_marked({"name": name, "configurePreset": name}))
        _marked(configure[-1])
    return configure, build


def _indent_of(text: str) -> str:
    """One level of the file's own indentation: spaces or tabs, as its first indented line has."""
    m = re.search(r"^([ \t]+)\S", text, re.MULTILINE)
    return m.group(1) if m else "  "


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _Duplicate(key)
        seen[key] = value
    return seen


class _Duplicate(ValueError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(key)


def merge(existing: str | None, prefix: str = "", where: str = "CMakePresets.json") -> MergeResult:
    """Add our presets to a presets document; a user preset of the same name is never replaced."""
    if existing is None or not existing.strip():  # absent or empty: a new document
        doc: dict[str, Any] = {"version": MIN_VERSION,
                               "cmakeMinimumRequired": {"major": 3, "minor": 21, "patch": 0}}
        indent, newline = "  ", "\n"
    else:
        try:
            # Two values under one key: json keeps the last and drops the first without a word.
            loaded = json.loads(existing, object_pairs_hook=_no_duplicates)
        except _Duplicate as dup:
            raise UserError(f"{where} has the key {dup.key!r} twice in one object, and CMake would read only one",
                            "remove the duplicate, or pass --output to write the presets elsewhere") from None
        except json.JSONDecodeError as err:
            raise UserError(f"{where} is not valid JSON ({err.msg} at line {err.lineno}, column {err.colno})",
                            "fix the file, or pass --output to write the presets elsewhere") from None
        except RecursionError:
            raise UserError(f"{where} nests arrays or objects too deeply to be a presets file",
                            "fix the file, or pass --output to write the presets elsewhere") from None
        if not isinstance(loaded, dict):
            raise UserError(f"{where} does not hold a JSON object", "fix the file, or pass --output elsewhere")
        doc = loaded
        indent = _indent_of(existing)
        newline = "\r\n" if "\r\n" in existing else "\n"
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
        for i, p in enumerate(have):
            if isinstance(p, dict) and not isinstance(p.get("name", ""), str):
                raise UserError(f"{where}: {key}[{i}] has a \"name\" that is a {type(p['name']).__name__}, "
                                "not a string", "fix the file, or pass --output elsewhere")
        index = {p.get("name"): i for i, p in enumerate(have) if isinstance(p, dict)}
        configure_list = key == "configurePresets"
        for preset in ours:
            at = index.get(preset["name"])
            if at is None:
                have.append(preset)
                if configure_list:
                    result.added.append(preset["name"])
                continue
            state = ownership(have[at], preset)
            if state == "foreign":
                raise UserError(
                    f"{where} already has a {key[:-1]} named {preset['name']!r} that rocm-spirv did not write",
                    "rename that preset, or pass --name-prefix (e.g. --name-prefix rocm-spirv-)")
            if state == "ours":
                have[at] = preset
            if configure_list:
                {"same": result.unchanged, "ours": result.updated, "edited": result.kept}[state].append(
                    preset["name"])
    # The file's own indentation, line ends and characters: a merge adds presets, not a reformatting.
    result.text = (json.dumps(doc, indent=indent, ensure_ascii=False) + "\n").replace("\n", newline)
    return result
