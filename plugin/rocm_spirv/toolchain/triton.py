"""The PyPI triton wheel as a source of ROCm 7 parts: HIP headers and ocml/ockl bitcode.

The wheel is downloaded once into the cache and read as a zip; triton itself is
never installed. Only named members are extracted, with a size bound, so a
crafted wheel cannot write outside the destination or fill the disk.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

from rocm_spirv.errors import UserError
from rocm_spirv.term import traced
from rocm_spirv.toolchain.paths import cache_dir

INCLUDE = "triton/backends/amd/include/"
LIB = "triton/backends/amd/lib/"
# The headers are a few MB and ocml/ockl under 1 MB; anything far larger is not
# the wheel we expect.
MAX_EXTRACT_BYTES = 64 * 1024 * 1024


def fetch(offline_wheel: Path | None = None, say: Callable[[str], None] | None = None) -> Path:
    """A triton wheel on disk: the one given, the cached one, or a fresh download (announced through
    `say`, with pip's own lines on stderr: the wheel is hundreds of MB)."""
    if offline_wheel is not None:
        if not offline_wheel.is_file():
            raise UserError(f"wheel {offline_wheel} does not exist", "pass an existing triton wheel")
        return offline_wheel
    dest = cache_dir() / "wheels"
    dest.mkdir(parents=True, exist_ok=True)
    cached = sorted(dest.glob("triton-*.whl"))
    if cached:
        return cached[-1]
    if say is not None:
        say(f"downloading the triton wheel from PyPI into {dest} (ROCm 7 HIP headers and device "
            "libraries; once, then cached)")
    argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", str(dest), "triton"]
    with traced(argv) as trace:
        proc = subprocess.run(argv, stdout=sys.stderr if say is not None else subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, check=False)
        trace.status = proc.returncode
    cached = sorted(dest.glob("triton-*.whl"))
    if proc.returncode != 0 or not cached:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise UserError(f"could not download the triton wheel for the ROCm 7 parts ({tail})",
                        "check network access to PyPI, or pass --triton-wheel FILE")
    return cached[-1]


def extract(wheel: Path, member_prefix: str, dest: Path, names: set[str] | None = None) -> list[Path]:
    """Copy the members under member_prefix (only `names`, if given) into dest."""
    out: list[Path] = []
    total = 0
    try:
        zf = zipfile.ZipFile(wheel)
    except (OSError, zipfile.BadZipFile) as err:
        raise UserError(f"{wheel} is not a readable wheel ({err})", "delete it and provision again") from None
    with zf:
        for info in zf.infolist():
            if not info.filename.startswith(member_prefix) or info.is_dir():
                continue
            rel = Path(info.filename[len(member_prefix):])
            if names is not None and str(rel) not in names:
                continue
            if rel.is_absolute() or ".." in rel.parts:
                raise UserError(f"unsafe path {info.filename!r} in {wheel.name}", "use a genuine triton wheel")
            total += info.file_size
            if total > MAX_EXTRACT_BYTES:
                raise UserError(f"{wheel.name} declares more bytes under {member_prefix} than expected",
                                "use a genuine triton wheel")
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, target.open("wb") as dst:
                shutil.copyfileobj(src, dst)
            out.append(target)
    missing = sorted((names or set()) - {str(p.relative_to(dest)) for p in out})
    if missing:
        raise UserError(f"{wheel.name} lacks {', '.join(member_prefix + m for m in missing)}",
                        "use a triton wheel with the AMD backend (manylinux x86_64)")
    return out
