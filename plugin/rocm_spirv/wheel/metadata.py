"""rocm_spirv.json: what GPU code a wheel's shared objects carry, written at install time."""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_spirv import __version__
from rocm_spirv.fsutil import sha256_file
from rocm_spirv.generate.ownership import plan_record, write_planned
from rocm_spirv.inspect.base import FormatError
from rocm_spirv.inspect.model import SPIRV, Entry, FileReport
from rocm_spirv.inspect.scan import inspect_path
from rocm_spirv.toolchain.provision import read_manifest

SCHEMA = 1
FILENAME = "rocm_spirv.json"
# A record lists kernels by name; far below this even for a library with thousands.
MAX_RECORD_BYTES = 64 << 20


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


def entry_json(e: Entry) -> dict[str, Any]:
    ks = e.kernels
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
        "kernel_count": sum(len(e.kernels) for e in entries),
    }


def compiler_json(path: str, compiler_id: str, version: str) -> dict[str, str]:
    """The compiler as a published wheel may name it: by file name, id, version and the sha256 of the
    clang that did the work (a provisioned prefix's wrapper names the clang it wraps), never by the
    build machine's path (a home folder, a user name)."""
    out = {"name": Path(path).name, "id": compiler_id, "version": version}
    if path:
        exe = Path(path).resolve()
        manifest = read_manifest(exe.parent.parent) if exe.parent.name == "bin" else None
        if manifest is not None and Path(manifest.llvm_clang).is_file():
            exe = Path(manifest.llvm_clang).resolve()
        if exe.is_file():
            out["sha256"] = sha256_file(exe)
    return out


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
    plan = plan_record(output, json.dumps(record, indent=2) + "\n", SCHEMA,
                       "pass an --output path that does not exist yet (or remove that file)")
    write_planned(plan)


def read_record(wheel: Path) -> dict[str, Any]:
    """The rocm_spirv.json a wheel carries in its .dist-info (bounded: a record is small)."""
    try:
        with zipfile.ZipFile(wheel) as z:
            names = [i for i in z.infolist() if i.filename.count("/") == 1
                     and i.filename.split("/")[0].endswith(".dist-info") and i.filename.endswith("/" + FILENAME)]
            if not names:
                raise FormatError(f"{wheel}: no {FILENAME} in the wheel's .dist-info (it was built without "
                                  "rocm_spirv_wheel_metadata())")
            if names[0].file_size > MAX_RECORD_BYTES:
                raise FormatError(f"{wheel}: {names[0].filename} is {names[0].file_size} bytes, more than a "
                                  f"record can be ({MAX_RECORD_BYTES})")
            data = json.loads(z.read(names[0]).decode("utf-8"))
    except (zipfile.BadZipFile, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise FormatError(f"{wheel}: not a wheel with a readable {FILENAME} ({err})") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise FormatError(f"{wheel}: {FILENAME} is not a schema {SCHEMA} record")
    return data


def describe(wheel: Path, record: dict[str, Any]) -> list[str]:
    """The record in lines a log keeps: one per shared object, the wheel's totals first."""
    compiler = record.get("compiler") or {}
    lines = [f"{wheel}: offload {record.get('offload', '?')}, built by "
             f"{compiler.get('name') or compiler.get('path') or '?'} "
             f"({compiler.get('id', '')} {compiler.get('version', '')})".rstrip()]
    for so in record.get("shared_objects", []):
        targets = ",".join(so.get("targets", [])) or "no device code"
        kind = "spirv-only" if so.get("spirv_only") else so.get("offload", "?")
        lines.append(f"  {so.get('path', '?')}: {kind}, targets {targets}, {so.get('kernel_count', 0)} kernels, "
                     f"device code {so.get('device_size', 0)} of {so.get('size', 0)} bytes")
    return lines
