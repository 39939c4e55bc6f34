"""Sizes of what a build produced: files, stored device-code bytes, bytes per device entry."""

from __future__ import annotations

import zipfile
from pathlib import Path

from rocm_spirv.compare.model import Artifact
from rocm_spirv.errors import UserError
from rocm_spirv.inspect.base import FormatError, NotBinary
from rocm_spirv.inspect.scan import inspect_path


def artifact(path: Path) -> Artifact | None:
    """Device entries and bytes of one build output, or None when it holds no GPU code."""
    try:
        report = inspect_path(path)
    except NotBinary:
        return None  # a script (a configured run.sh), a thin archive: no GPU code of its own to count
    except FormatError as err:
        raise UserError(f"the build wrote {err}", "inspect it with `rocm-spirv inspect`; a build that "
                        "writes a broken binary is not comparable") from None
    except OSError as err:
        raise UserError(f"cannot read the build output {path}: {err.strerror or err}",
                        "check the build tree") from None
    entries: dict[str, int] = {}
    by_target: dict[str, set[str]] = {}
    stored = 0
    for f in report.files:
        stored += sum(b.stored_size for b in f.bundles)
        for e in f.device_entries:
            entries[e.id] = entries.get(e.id, 0) + e.size
            if e.code_object is not None:
                by_target.setdefault(e.code_object.target, set()).update(e.code_object.kernels)
    if not entries:
        return None
    kernels = sorted(set[str]().union(*by_target.values()))
    differ = {t: sorted(ks) for t, ks in sorted(by_target.items()) if sorted(ks) != kernels}
    return Artifact(str(path), path.stat().st_size, stored, entries, kernels=kernels, target_kernels=differ)


def find_artifacts(build_dir: Path) -> list[Artifact]:
    """Libraries and executables with GPU code, outside CMake's own scratch dirs."""
    found = []
    for p in sorted(build_dir.rglob("*")):
        if "CMakeFiles" in p.parts or not p.is_file() or p.is_symlink():
            continue
        if p.suffix in (".so", ".a") or (p.suffix == "" and p.stat().st_mode & 0o111):
            a = artifact(p)
            if a is not None:
                found.append(a)
    return found


def wheel_artifact(wheel: Path) -> Artifact:
    """A built wheel: its file size, its members unpacked, and the device code inside."""
    with zipfile.ZipFile(wheel) as z:
        installed = sum(i.file_size for i in z.infolist())
    found = artifact(wheel)
    entries, stored = (found.entries, found.fatbin_bytes) if found is not None else ({}, 0)
    return Artifact(wheel.name, wheel.stat().st_size, stored, entries, installed)
