"""A ROCm device-library folder (`<prefix>/amdgcn/bitcode`) clang links for native targets.

ocml.bc, ockl.bc and asanrtl.bc are ROCm 7's own, from the triton wheel. The
`oclc_*` control libraries are not in it: each is one constant that ocml and
ockl read (ISA version, wave size, math modes, code object ABI), so they are
generated here, with the values ROCm's device-libs sources (`oclc/src/*.cl`)
use, for every target the compiler accepts. clang only accepts the folder when
every `_on`/`_off` pair and opencl.bc are present (RocmInstallationDetector),
so opencl.bc is written too, as an empty module (it is linked for OpenCL only).
SPIR-V builds never link any of this: the runtime's JIT does.
"""

from __future__ import annotations

import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from rocm_spirv.errors import UserError
from rocm_spirv.term import traced
from rocm_spirv.toolchain import triton

BITCODE_DIR = Path("amdgcn") / "bitcode"
FROM_ROCM = ("ocml.bc", "ockl.bc", "asanrtl.bc")
ABI_VERSIONS = (400, 500, 600)
# Control constants with an _on/_off pair: file stem -> constants (name, bits, on, off).
SWITCHES: dict[str, tuple[tuple[str, int, int, int], ...]] = {
    "daz_opt": (("__oclc_daz_opt", 8, 1, 0),),
    "finite_only": (("__oclc_finite_only_opt", 8, 1, 0),),
    "unsafe_math": (("__oclc_unsafe_math_opt", 8, 1, 0),),
    "correctly_rounded_sqrt": (("__oclc_correctly_rounded_sqrt32", 8, 1, 0),),
    "wavefrontsize64": (("__oclc_wavefrontsize64", 8, 1, 0), ("__oclc_wavefrontsize_log2", 32, 6, 5)),
}
# Generic targets take the version of the processor they match for the device
# libraries; upstream pins gfx9-4-generic to gfx942 (gfx940/941 are gone).
GENERIC_ISA = {"gfx9-4-generic": 9402}


@dataclass(frozen=True)
class DeviceLibs:
    folder: Path
    targets: tuple[str, ...]
    files: tuple[str, ...]


def isa_version(target: str) -> int:
    """`gfx90a` -> 9010, `gfx1151` -> 11501, `gfx10-3-generic` -> 10300 (ROCm's numbering)."""
    if target in GENERIC_ISA:
        return GENERIC_ISA[target]
    generic = re.fullmatch(r"gfx(\d+)(?:-(\d+))?-generic", target)
    if generic:
        return int(generic.group(1)) * 1000 + int(generic.group(2) or 0) * 100
    m = re.fullmatch(r"gfx(\d+)([0-9a-f])([0-9a-f])", target)
    if not m:
        raise ValueError(f"not an AMDGPU processor name: {target}")
    return int(m.group(1)) * 1000 + int(m.group(2), 16) * 100 + int(m.group(3), 16)


def isa_file(target: str) -> str:
    return f"oclc_isa_version_{target.removeprefix('gfx')}.bc"


def _constant(name: str, bits: int, value: int) -> str:
    align = bits // 8
    return (f"@{name} = linkonce_odr protected local_unnamed_addr addrspace(4) "
            f"constant i{bits} {value}, align {align}\n")


def control_modules(targets: list[str]) -> dict[str, str]:
    """File name -> LLVM IR text of every control library for these targets."""
    mods: dict[str, str] = {"opencl.bc": ""}
    for abi in ABI_VERSIONS:
        mods[f"oclc_abi_version_{abi}.bc"] = _constant("__oclc_ABI_version", 32, abi)
    for stem, consts in SWITCHES.items():
        mods[f"oclc_{stem}_on.bc"] = "".join(_constant(n, b, on) for n, b, on, _ in consts)
        mods[f"oclc_{stem}_off.bc"] = "".join(_constant(n, b, off) for n, b, _, off in consts)
    for t in targets:
        mods[isa_file(t)] = _constant("__oclc_ISA_version", 32, isa_version(t))
    return mods


def _assemble(cc1: list[str], ir: str, out: Path) -> str | None:
    # clang -cc1 on IR without a datalayout fills in the target's, which is what
    # lets the result link with code clang compiles (llvm-as would leave it empty).
    src = out.with_suffix(".ll")
    src.write_text('target triple = "amdgcn-amd-amdhsa"\n' + ir)
    # Relative names: the module records its source name, which must not carry the staging dir.
    argv = [*cc1, "-triple", "amdgcn-amd-amdhsa", "-emit-llvm-bc", "-x", "ir", src.name, "-o", out.name]
    with traced(argv, out.parent) as trace:
        proc = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=out.parent)
        trace.status = proc.returncode
    src.unlink(missing_ok=True)
    if proc.returncode != 0:
        return (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return None


def build(root: Path, cc1: list[str], targets: list[str], wheel: Path) -> DeviceLibs:
    """Write `root/amdgcn/bitcode`: ROCm's libraries from the wheel, control libraries generated."""
    folder = root / BITCODE_DIR
    folder.mkdir(parents=True, exist_ok=True)
    triton.extract(wheel, triton.LIB, folder, set(FROM_ROCM))
    usable = [t for t in targets if re.fullmatch(r"gfx[0-9a-z-]+", t)]
    mods = control_modules(usable)
    # root is the caller's staging dir, renamed as a whole: writing in place is atomic enough.
    with ThreadPoolExecutor(4) as pool:
        errors = list(pool.map(lambda n: _assemble(cc1, mods[n], folder / n), sorted(mods)))
    failed = [f"{n}: {e}" for n, e in zip(sorted(mods), errors, strict=True) if e]
    if failed:
        raise UserError(f"could not generate the device control libraries ({failed[0]})",
                        "check that the compiler has the AMDGPU backend (`rocm-spirv toolchain list`)")
    files = tuple(sorted(p.name for p in folder.iterdir()))
    return DeviceLibs(folder, tuple(usable), files)


def missing_pieces(folder: Path, targets: list[str]) -> list[str]:
    """What clang needs in the folder and does not find there, for these targets."""
    need = [*FROM_ROCM[:2], *control_modules(targets)]
    return [n for n in need if not (folder / n).is_file()]
