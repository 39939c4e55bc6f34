"""Findings for CMakePresets.json / CMakeUserPresets.json: per-arch cacheVariables and environment."""

from __future__ import annotations

import json
import re
from typing import Any

from rocm_spirv.migrate.cmake_checks.env import RSM111
from rocm_spirv.migrate.cmake_words import ENV_VARS, GFX, TARGET_VARS
from rocm_spirv.migrate.findings import FileReport, Finding, Redirect, Rule, W
from rocm_spirv.migrate.make_rules import ARCH_FLAG, names_gpu
from rocm_spirv.offload import NON_AMD_ARCH_PREFIXES, SPIRV_TARGET

FLAG_KEYS = re.compile(r"^CMAKE_(HIP|CXX|C)_FLAGS")

RSM112 = Rule("RSM112", "preset-arch-list", W, "a CMake preset sets a per-arch list",
              "Preset cacheVariables are applied with -D before the toolchain file, so only CACHE FORCE overrides "
              "them.",
              example=('CMakePresets.json', '{"version": 3, "configurePresets": [{"name": "mi300",\n'
                                            '  "cacheVariables": {"GPU_TARGETS": "gfx942"}}]}\n'))
RULES = (RSM112,)  # and RSM111, declared by cmake_checks.env


def per_arch_flags(value: str) -> bool:
    """Whether a preset's flags pass an AMD GPU target of their own: an arch flag in any spelling the compiler
    takes (offload.ARCH_FLAG_OPTIONS) with a value other than amdgcnspirv (a gfx name, native, `$env{ARCH}`),
    or -mcpu= naming a GPU (-mcpu=native tunes the host). CUDA's sm_* and MUSA's mp_* are not AMD's."""
    for m in ARCH_FLAG.finditer(value):
        v = m.group("value")
        if m.group(0).startswith("-mcpu="):
            if names_gpu(v):
                return True
        elif v.lower() != SPIRV_TARGET and not v.startswith(NON_AMD_ARCH_PREFIXES):
            return True
    return False


class _Locator:
    """Line numbers of `"key":` occurrences, consumed in document order (json keeps that order)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos: dict[str, int] = {}

    def line(self, key: str) -> int:
        m = re.compile(r'"' + re.escape(key) + r'"\s*:').search(self.text, self.pos.get(key, 0))
        if m is None:
            return 1
        self.pos[key] = m.end()
        return self.text.count("\n", 0, m.start()) + 1


def _value(v: Any) -> str:
    if isinstance(v, dict):
        v = v.get("value", "")
    return v if isinstance(v, str) else json.dumps(v)


def analyze(path: str, text: str) -> FileReport:
    report = FileReport(path, "presets")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        report.error = f"invalid JSON: {err.msg} at line {err.lineno}"
        return report
    if not isinstance(data, dict):
        report.error = "a presets file must hold a JSON object"
        return report
    loc = _Locator(text)
    for preset in data.get("configurePresets", []) or []:
        if not isinstance(preset, dict):
            continue
        name = str(preset.get("name", "?"))
        for key, raw in (preset.get("cacheVariables") or {}).items():
            line = loc.line(key)
            value = _value(raw)
            if key in TARGET_VARS and value.lower() != SPIRV_TARGET and value:
                msg = f"preset {name} sets {key}={value}"
            elif FLAG_KEYS.match(key) and per_arch_flags(value):
                msg = f"preset {name} passes per-arch flags in {key}: {value}"
            else:
                continue
            report.findings.append(Finding(
                RSM112, path, line, 1, msg,
                f'set "{key}": "amdgcnspirv" in a SPIR-V preset (or add one); a toolchain file can override it '
                'only with CACHE … FORCE', Redirect.TOOLCHAIN_FORCE, False, f'"{key}": {json.dumps(raw)}'))
        for key, raw in (preset.get("environment") or {}).items():
            line = loc.line(key)
            if key in ENV_VARS and isinstance(raw, str) and GFX.search(raw):
                report.findings.append(Finding(
                    RSM111, path, line, 1, f"preset {name} exports {key}={raw}",
                    f'set "{key}": "amdgcnspirv" in the SPIR-V preset', Redirect.ENVIRONMENT, False,
                    f'"{key}": {json.dumps(raw)}'))
    return report
