"""Which LLVM a provisioned prefix wraps: a distribution's full LLVM >= 22, else the ziglang wheel's clang.

A distribution LLVM (Debian's `llvm-22`, `clang-22`, `lld-22`, `clang-tools-22`)
brings every tool of one release: ld.lld, llvm-link, clang-offload-bundler,
llvm-dis, llvm-objcopy. The ziglang wheel brings clang alone, so a prefix built
on it needs stand-ins (see wrappers.py); it is the choice only for pip-only
installs.
"""

from __future__ import annotations

import glob
import os
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from rocm_spirv import settings, versions
from rocm_spirv.errors import UserError
from rocm_spirv.offload import GPU_NAME_PATTERN
from rocm_spirv.toolchain import programs

LlvmKind = Literal["distribution", "ziglang"]
MIN_MAJOR = 22
# Tools of the same release the driver calls or real projects use.
DISTRIBUTION_TOOLS = ("clang-offload-bundler", "ld.lld", "lld", "llvm-link", "llvm-dis", "llvm-objcopy",
                      "llvm-nm", "llvm-readelf", "llvm-objdump", "llvm-ar", "llvm-ranlib", "llvm-as",
                      "clang-offload-packager", "clang-linker-wrapper")
REQUIRED_TOOLS = ("clang-offload-bundler", "ld.lld", "llvm-link")


@dataclass(frozen=True)
class Llvm:
    kind: LlvmKind
    version: str
    clang: Path  # the clang binary; for ziglang the zig binary (`zig clang`)
    bindir: Path | None  # the release's tools (distribution only)
    resource_dir: Path | None  # ziglang only: its builtin headers live apart from the binary
    why: str

    @property
    def major(self) -> int:
        return versions.major(self.version) or 0

    def driver(self) -> list[str]:
        return [str(self.clang)] if self.kind == "distribution" else [str(self.clang), "clang"]

    def cc1(self) -> list[str]:
        return [*self.driver(), "-cc1"]


def parse_version(text: str) -> str | None:
    m = re.search(r"clang version (\d+\.\d+\.\d+)", text)
    return m.group(1) if m else None


def _version(argv: list[str]) -> str | None:
    return parse_version(programs.run_probe([*argv, "--version"]).stdout)


def _newest_first(paths: list[str]) -> list[str]:
    return sorted(paths, key=lambda p: [int(x) for x in re.findall(r"\d+", p)], reverse=True)


def distribution_bindirs() -> list[Path]:
    """The bin folders of Debian's LLVM releases (/usr/lib/llvm-N/bin), newest first."""
    return [Path(p) for p in _newest_first(glob.glob("/usr/lib/llvm-*/bin"))]


def distribution_llvms(pattern: str = "/usr/lib/llvm-*/bin/clang") -> list[Llvm]:
    """Full LLVM installs >= 22, newest first, with every required tool beside clang."""
    found: list[Llvm] = []
    for hit in _newest_first(glob.glob(pattern)):
        clang = Path(hit)
        bindir = clang.parent
        version = _version([str(clang)])
        if version is None or (versions.major(version) or 0) < MIN_MAJOR:
            continue
        missing = [t for t in REQUIRED_TOOLS if not os.access(bindir / t, os.X_OK)]
        if missing:
            continue
        found.append(Llvm("distribution", version, clang, bindir, None,
                          f"a full LLVM {version} install ({bindir}): clang, lld, llvm-link and "
                          "the offload bundler of one release"))
    return found


def ziglang_llvm() -> Llvm | None:
    try:
        import ziglang
    except ImportError:
        return None
    root = Path(ziglang.__file__).resolve().parent
    zig = root / ("zig.exe" if sys.platform == "win32" else "zig")
    if not zig.is_file():
        return None
    version = _version([str(zig), "clang"])
    if version is None:
        return None
    return Llvm("ziglang", version, zig, None, root / "lib",
                f"no full LLVM >= {MIN_MAJOR} installed; clang {version} from the ziglang wheel, "
                "with stand-ins for the tools it lacks")


def find_llvm(prefer: str | None = None) -> Llvm:
    """The LLVM to wrap: `prefer` (a bin dir or clang path, or "ziglang"), else the best found."""
    prefer = prefer or settings.text(settings.LLVM)
    if prefer == "ziglang":
        zl = ziglang_llvm()
        if zl is None:
            raise UserError("the ziglang package (clang 22) is not installed", "pip install 'rocm-spirv[clang]'")
        return replace(zl, why=f"asked for (--llvm ziglang or ROCM_SPIRV_LLVM): clang {zl.version} from the "
                               "ziglang wheel, with stand-ins for the tools it lacks")
    if prefer:
        path = Path(prefer)
        clang = path / "clang" if path.is_dir() else path
        hits = distribution_llvms(str(clang))
        if not hits:
            raise UserError(f"{prefer} is not a clang >= {MIN_MAJOR} with ld.lld, llvm-link and "
                            "clang-offload-bundler beside it",
                            "pass --llvm /usr/lib/llvm-22/bin (apt-get install clang-22 lld-22 llvm-22 clang-tools-22)")
        return replace(hits[0], why=f"asked for (--llvm or ROCM_SPIRV_LLVM): {hits[0].why}")
    hits = distribution_llvms()
    if hits:
        return hits[0]
    zl = ziglang_llvm()
    if zl is not None:
        return zl
    raise UserError(f"no clang >= {MIN_MAJOR} found",
                    "apt-get install clang-22 lld-22 llvm-22 clang-tools-22, or pip install 'rocm-spirv[clang]'")


def parse_supported_cpus(text: str) -> list[str]:
    """The GPU names (offload.GPU_NAME) in `-print-supported-cpus` output, one per indented line."""
    return sorted({w for w in re.findall(f"^\\s+({GPU_NAME_PATTERN})\\s*$", text, re.M)})


def gfx_targets(driver: list[str]) -> list[str]:
    """The AMDGPU processors this clang accepts, from `-print-supported-cpus`."""
    out = programs.run_probe([*driver, "--target=amdgcn-amd-amdhsa", "-nogpulib", "-print-supported-cpus"])
    return parse_supported_cpus(out.stdout + out.stderr)
