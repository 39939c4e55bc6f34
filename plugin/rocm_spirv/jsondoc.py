"""One home for the `--json` contract: every command's document carries a schema id
`rocm-spirv/<command>/<major>` as its first key, and a JSON Schema file for each id ships in the
package (`rocm_spirv/schemas/`, listed in docs/cli.md). Fields may be added within a major version;
renaming or removing one raises the major."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

# command (as typed) -> schema id. migrate and compare kept the ids they shipped with.
SCHEMA_IDS: dict[str, str] = {
    "toolchain list": "rocm-spirv/toolchain-list/1",
    "toolchain provision": "rocm-spirv/toolchain-provision/1",
    "toolchain generate": "rocm-spirv/toolchain-generate/1",
    "presets generate": "rocm-spirv/presets-generate/1",
    "doctor": "rocm-spirv/doctor/1",
    "compare": "rocm-spirv/compare/1",
    "inspect": "rocm-spirv/inspect/1",
    "bazel generate": "rocm-spirv/bazel-generate/1",
    "migrate": "rocm-spirv/migrate-report/1",
    "wheel metadata": "rocm-spirv/wheel-metadata/1",
    "wheel repair": "rocm-spirv/wheel-repair/1",
    "config": "rocm-spirv/config/1",
}


def schema_id(command: str) -> str:
    return SCHEMA_IDS[command]


def document(command: str, body: dict[str, Any]) -> dict[str, Any]:
    """The body with its schema id first, as every `--json` document starts."""
    return {"schema": SCHEMA_IDS[command], **body}


def dumps(command: str, body: dict[str, Any]) -> str:
    return json.dumps(document(command, body), indent=2)


def schema_file(schema: str) -> str:
    """The shipped file name of a schema id: rocm-spirv/doctor/1 -> doctor-1.schema.json."""
    _, name, major = schema.split("/")
    return f"{name}-{major}.schema.json"


def load_schema(schema: str) -> dict[str, Any]:
    text = resources.files("rocm_spirv").joinpath("schemas").joinpath(schema_file(schema)).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data
