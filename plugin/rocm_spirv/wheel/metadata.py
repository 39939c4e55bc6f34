"""rocm_spirv.json: what GPU code a wheel's shared objects carry, written at install time."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_spirv import __version__
from rocm_spirv.fsutil import write_atomic
from rocm_spirv.inspect.report import SPIRV, Entry, FileReport
from rocm_spirv.inspect.scan import inspect_path

SCHEMA = 1
FILENAME = "rocm_spirv.json"


@dataclass(frozen=True)
class TargetLine:
    """One line of the list RocmSpirvWheel.cmake generates: name, built file, wheel dir, mode, archs."""

    name: str
    file: Path
    destination: str
    offload: str
    archs: tuple[str, ...]


def parse_targets(text: str) -> list[TargetLine]:
    out = []
    for raw in text.splitlines():
        if not raw.strip():
            continue
        cols = raw.split("\t")
        if len(cols) != 5:
            raise ValueError(f"bad target line (want 5 tab-separated fields): {raw!r}")
        name, file, dest, mode, archs = cols
        out.append(TargetLine(name, Path(file), dest.strip("/"), mode,
                              tuple(a for a in archs.split(",") if a)))
    return out


def kernels(e: Entry) -> tuple[str, ...]:
    if e.spirv is not None:
        return e.spirv.entry_points
    if e.code_object is not None:
        return e.code_object.kernels
    return ()


def entry_json(e: Entry) -> dict[str, Any]:
    ks = kernels(e)
    return {
        "id": e.id,
        "kind": e.kind,
        "target": e.target,
        "target_id": e.code_object.target_id if e.code_object is not None else e.target,
        "size": e.size,
        "compressed_size": e.compressed_size,
        "container": e.container,
        "kernel_count": len(ks),
        "kernels": list(ks),
    }


def object_json(t: TargetLine, reports: tuple[FileReport, ...], default_offload: str) -> dict[str, Any]:
    entries = [e for f in reports for e in f.device_entries]
    wheel_path = "/".join(p for p in (t.destination, t.file.name) if p)
    return {
        "path": wheel_path,
        "target": t.name,
        "offload": t.offload or default_offload,
        "managed": bool(t.offload),  # passed to rocm_spirv_target()
        "archs": list(t.archs),
        "size": t.file.stat().st_size,
        "device_size": sum(e.size for e in entries),
        "device_entries": [entry_json(e) for e in entries],
        "targets": sorted({e.target for e in entries}),
        "spirv_only": bool(entries) and all(e.kind == SPIRV for e in entries),
        "kernel_count": sum(len(kernels(e)) for e in entries),
    }


def build_record(targets: list[TargetLine], compiler: dict[str, str], project: str,
                 default_offload: str) -> dict[str, Any]:
    objects = [object_json(t, inspect_path(t.file).files, default_offload) for t in targets]
    modes = sorted({o["offload"] for o in objects})
    return {
        "schema": SCHEMA,
        "generator": f"rocm-spirv {__version__}",
        "project": project,
        "offload": modes[0] if len(modes) == 1 else "mixed",
        "compiler": compiler,
        "shared_objects": objects,
    }


def write_record(record: dict[str, Any], output: Path) -> None:
    write_atomic(output, json.dumps(record, indent=2) + "\n")
