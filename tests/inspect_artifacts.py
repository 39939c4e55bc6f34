"""Real HIP build outputs for the inspect tests, made with clang on this machine.

The compiler is $ROCM_SPIRV_TEST_CXX (a clang++ that needs no extra flags) or the clang inside the
ziglang wheel, with a folder of stand-ins it lacks: llvm-link (one input: a copy), lld (`zig ld.lld`)
and clang-offload-bundler (Debian's LLVM 19 build).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import zipfile
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
KERNEL = DATA / "inspect_kernel.hip"
LLVM_BIN = Path("/usr/lib/llvm-19/bin")


def find_bundler() -> Path | None:
    for cand in (os.environ.get("ROCM_SPIRV_TEST_BUNDLER"), shutil.which("clang-offload-bundler"),
                 str(LLVM_BIN / "clang-offload-bundler")):
        if cand and Path(cand).is_file():
            return Path(cand)
    return None


def find_tool(name: str) -> Path | None:
    found = shutil.which(name) or (str(LLVM_BIN / name) if (LLVM_BIN / name).is_file() else None)
    return Path(found) if found else None


@dataclass(frozen=True)
class Compiler:
    argv: tuple[str, ...]  # the driver command, before any flags

    def hip(self, src: Path, out: Path, archs: list[str], *extra: str) -> Path:
        flags = ["-x", "hip", "-nogpuinc", "-nogpulib", *(f"--offload-arch={a}" for a in archs)]
        if "amdgcnspirv" in archs:
            flags.append("-use-spirv-backend")
        subprocess.run([*self.argv, *flags, *extra, str(src), "-o", str(out)], check=True, capture_output=True)
        return out

    def link_shared(self, objs: list[Path], out: Path) -> Path:
        subprocess.run([*self.argv, "-shared", *map(str, objs), "-o", str(out)], check=True, capture_output=True)
        return out


def _script(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def find_compiler(tmp: Path) -> tuple[Compiler | None, str]:
    """(compiler, "") or (None, why not)."""
    env = os.environ.get("ROCM_SPIRV_TEST_CXX")
    if env:
        return Compiler((env,)), ""
    try:
        import ziglang
    except ImportError:
        return None, "ziglang is not installed and ROCM_SPIRV_TEST_CXX is not set"
    zig = Path(ziglang.__file__).resolve().parent / "zig"
    if not zig.is_file():
        return None, f"ziglang has no zig executable at {zig}"
    bundler = find_bundler()
    if bundler is None:
        return None, "clang-offload-bundler not found (apt install llvm-19 or set ROCM_SPIRV_TEST_BUNDLER)"
    bindir = tmp / "standins"
    bindir.mkdir(parents=True, exist_ok=True)
    _script(bindir / "llvm-link", '#!/bin/sh\nout=""; n=0; in=""\n'
            'while [ $# -gt 0 ]; do case "$1" in -o) out="$2"; shift 2;; -*) shift;; '
            '*) in="$1"; n=$((n+1)); shift;; esac; done\n'
            '[ $n -eq 1 ] && exec cp "$in" "$out"\necho "llvm-link stand-in: one input only" >&2; exit 1\n')
    _script(bindir / "lld", f'#!/bin/sh\n[ "$1" = "-flavor" ] && shift 2\nexec "{zig}" ld.lld "$@"\n')
    link = bindir / "clang-offload-bundler"
    if not link.exists():
        link.symlink_to(bundler)
    zigdir = zig.parent
    return Compiler((str(zig), "clang", "--driver-mode=g++", "--target=x86_64-linux-gnu",
                     "-resource-dir", str(zigdir / "lib"), f"-B{bindir}")), ""


def dump_section(obj: Path, name: str, out: Path) -> Path:
    objcopy = find_tool("llvm-objcopy")
    assert objcopy is not None
    subprocess.run([str(objcopy), f"--dump-section={name}={out}", str(obj), str(out.with_suffix(".junk"))],
                   check=True, capture_output=True)
    return out


def build_all(comp: Compiler, out: Path) -> dict[str, Path]:
    """Objects (SPIR-V, per-arch, mixed, compressed, generic), a linked library, an archive and a wheel."""
    out.mkdir(parents=True, exist_ok=True)
    a: dict[str, Path] = {}
    a["spv.o"] = comp.hip(KERNEL, out / "spv.o", ["amdgcnspirv"], "-c")
    a["native.o"] = comp.hip(KERNEL, out / "native.o", ["gfx90a", "gfx942:xnack-", "gfx1100"], "-c", "-DNAME=scale_n")
    a["hybrid.o"] = comp.hip(KERNEL, out / "hybrid.o", ["gfx942", "amdgcnspirv"], "-c", "-DNAME=scale_h")
    a["hybridz.o"] = comp.hip(KERNEL, out / "hybridz.o", ["gfx942", "amdgcnspirv"], "-c", "--offload-compress",
                              "-DNAME=scale_z")
    a["generic.o"] = comp.hip(KERNEL, out / "generic.o", ["gfx9-4-generic", "gfx11-generic"], "-c", "-DNAME=scale_g")
    a["lib.so"] = comp.link_shared([a["native.o"], a["spv.o"], a["hybridz.o"]], out / "lib.so")
    a["spv.so"] = comp.hip(KERNEL, out / "spv.so", ["amdgcnspirv"], "-fPIC", "-shared")
    a["native.fb"] = dump_section(a["native.o"], ".hip_fatbin", out / "native.fb")
    a["libk.a"] = out / "libk.a"
    subprocess.run(["ar", "rcs", str(a["libk.a"]), str(a["spv.o"]), str(a["native.o"])], check=True)
    a["pkg.whl"] = out / "pkg-1.0-py3-none-linux_x86_64.whl"
    with zipfile.ZipFile(a["pkg.whl"], "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("pkg/__init__.py", "")
        z.write(a["lib.so"], "pkg/lib/libk.so")
        z.write(a["libk.a"], "pkg/lib/libk.a")
        z.writestr("pkg-1.0.dist-info/RECORD", "")
    return a


def bundler_listing(lib: Path, tmp: Path) -> tuple[float, list[str]]:
    """What one does by hand to list a library's offload entries: dump .hip_fatbin with llvm-objcopy,
    split it at the bundle magic, `clang-offload-bundler --list` each bundle. Seconds and entry ids."""
    import time

    objcopy, bundler = find_tool("llvm-objcopy"), find_bundler()
    if objcopy is None or bundler is None:
        raise SystemExit("llvm-objcopy and clang-offload-bundler are needed (apt-get install llvm-22 clang-tools-22)")
    t = time.perf_counter()
    fb = tmp / "dump.fb"
    subprocess.run([str(objcopy), f"--dump-section=.hip_fatbin={fb}", str(lib), str(tmp / "junk.so")], check=True)
    blob = fb.read_bytes()
    starts, pos = [], blob.find(b"__CLANG_OFFLOAD_BUNDLE__")
    while pos >= 0:
        starts.append(pos)
        pos = blob.find(b"__CLANG_OFFLOAD_BUNDLE__", pos + 24)
    ids: list[str] = []
    one = tmp / "one.fb"
    for a, b in zip(starts, [*starts[1:], len(blob)], strict=True):
        one.write_bytes(blob[a:b])
        out = subprocess.run([str(bundler), "--list", "-type=o", f"-input={one}"], capture_output=True, text=True,
                             check=True)
        ids += out.stdout.split()
    return time.perf_counter() - t, ids
