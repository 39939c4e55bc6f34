"""What the device bytes are: samples/python_ext's small kernels (SPIRV_DEMO_LIBRARY_KERNELS=OFF,
54 kernels with hip_runtime.h) as one gfx942 code object, by ELF section, and as the amdgcnspirv
module, by SPIR-V opcode; each raw and deflated (zlib level 6, about what a wheel's zip does).

Both wheels are built the way a user builds them (`pip wheel`, isolated, offline wheelhouse, the
release build scikit-build-core defaults to). Writes benchmarks/results/device_bytes.{json,md};
docs/wheels.md ("What the device bytes are") cites them. Needs spirv-dis (spirv-tools) for the
opcode names.

    PYTHONPATH=plugin:tests python benchmarks/device_bytes.py [--prefix TOOLCHAIN]
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import platform
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# This folder stays off sys.path: only plugin/ and tests/ are imported from.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path[:0] = [str(REPO / "plugin"), str(REPO / "tests")]

from elftools.elf.elffile import ELFFile  # noqa: E402
from rocm_spirv.fsutil import write_atomic  # noqa: E402
from rocm_spirv.inspect.bundle import find_bundles  # noqa: E402
from rocm_spirv.inspect.elf import read_host_elf  # noqa: E402
from wheelhouse import build_wheel, fill  # noqa: E402

SMALL = ["cmake.define.SPIRV_DEMO_LIBRARY_KERNELS=OFF"]
VARIANTS = {
    "gfx942": ["cmake.define.ROCM_SPIRV_OFFLOAD=native", "cmake.define.CMAKE_HIP_ARCHITECTURES=gfx942", *SMALL],
    "amdgcnspirv": ["cmake.define.ROCM_SPIRV_OFFLOAD=spirv", *SMALL],
}


def deflated(data: bytes) -> int:
    return len(zlib.compress(data, 6))


def device_entry(so: bytes, target: str) -> bytes:
    """The one bundle entry for `target` in the shared object's .hip_fatbin."""
    sec = read_host_elf(so, "shared object").section(".hip_fatbin")
    assert sec is not None, "no .hip_fatbin"
    found = [bytes(b.data[e.offset:e.offset + e.size]) for b in find_bundles(so, sec.offset, sec.offset + sec.size)
             for e in b.entries if e.id.endswith(f"--{target}")]
    assert len(found) == 1, f"{len(found)} entries for {target}"
    return found[0]


def code_object_sections(co: bytes) -> dict[str, Any]:
    elf = ELFFile(io.BytesIO(co))
    sections = []
    for s in elf.iter_sections():
        if s["sh_type"] == "SHT_NOBITS" or not s["sh_size"]:
            continue
        data = s.data()
        sections.append({"name": s.name, "bytes": len(data), "deflated": deflated(data)})
    listed = sum(s["bytes"] for s in sections)
    kernels = sum(1 for s in elf.get_section_by_name(".symtab").iter_symbols()  # type: ignore[union-attr]
                  if s.name.endswith(".kd"))
    return {"bytes": len(co), "deflated": deflated(co), "kernels": kernels,
            "sections": sorted(sections, key=lambda s: -s["bytes"]),
            "headers_and_padding": len(co) - listed}


def spirv_opcodes(module: bytes) -> dict[str, Any]:
    """Bytes per opcode: word counts from the binary, names from spirv-dis (one line per instruction)."""
    words = struct.unpack(f"<{len(module) // 4}I", module)
    assert words[0] == 0x07230203, "not a little-endian SPIR-V module"
    sizes, i = [], 5
    while i < len(words):
        n = words[i] >> 16
        sizes.append(4 * n)
        i += n
    with tempfile.NamedTemporaryFile(suffix=".spv") as f:
        f.write(module)
        f.flush()
        text = subprocess.run(["spirv-dis", "--no-header", "--no-color", "--raw-id", f.name], check=True,
                              capture_output=True, text=True).stdout
    names = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(";"):
            continue
        op = line.split("=", 1)[1].split()[0] if line.startswith("%") else line.split()[0]
        names.append(op)
    assert len(names) == len(sizes), f"{len(names)} disassembled instructions for {len(sizes)} in the binary"
    per_op: collections.Counter[str] = collections.Counter()
    for name, size in zip(names, sizes, strict=True):
        per_op[name] += size
    cmdline = next((ln for ln in text.splitlines() if "llvm.cmdline" in ln), "")
    return {"bytes": len(module), "deflated": deflated(module), "instructions": len(sizes),
            "entry_points": names.count("OpEntryPoint"), "functions": names.count("OpFunction"),
            "opcodes": [{"op": op, "bytes": b} for op, b in per_op.most_common()],
            "has_llvm_cmdline": bool(cmdline)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prefix", type=Path, default=Path.home() / ".local/share/rocm-spirv/toolchain",
                    help="provisioned toolchain prefix")
    ap.add_argument("--out", type=Path, default=HERE / "results")
    args = ap.parse_args()
    if shutil.which("spirv-dis") is None:
        print("device_bytes: spirv-dis is not on PATH; apt-get install spirv-tools", file=sys.stderr)
        return 2
    clang = args.prefix / "bin" / "clang++"
    entries: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory(prefix="device-bytes-") as tmp:
        wh = Path(tmp) / "wheelhouse"
        fill(REPO, wh)
        for target, settings in VARIANTS.items():
            whl = build_wheel(REPO / "samples" / "python_ext", Path(tmp) / target, wh, settings,
                              {"ROCM_SPIRV_COMPILER": str(clang)})
            with zipfile.ZipFile(whl) as z:
                (so,) = [z.read(i) for i in z.infolist() if ".so" in Path(i.filename).name]
            entries[target] = device_entry(so, target)
    co, spv = code_object_sections(entries["gfx942"]), spirv_opcodes(entries["amdgcnspirv"])
    doc = {"project": "samples/python_ext, SPIRV_DEMO_LIBRARY_KERNELS=OFF (54 small kernels), release build",
           "how": "pip wheel (isolated, offline wheelhouse) per target; the bundle entry read from the wheel's .so",
           "compiler": str(clang), "python": platform.python_version(),
           "code_object_gfx942": co, "spirv_module": spv}
    args.out.mkdir(parents=True, exist_ok=True)
    write_atomic(args.out / "device_bytes.json", json.dumps(doc, indent=2) + "\n")
    md = ["# What the device bytes are", "",
          f"{doc['project']}; {doc['how']}. Deflated: zlib level 6.", "",
          f"## One gfx942 code object: {co['bytes']:,} B ({co['kernels']} kernels), deflated {co['deflated']:,} B",
          "", "| section | bytes | deflated alone |", "| --- | ---: | ---: |"]
    md += [f"| `{s['name']}` | {s['bytes']:,} | {s['deflated']:,} |" for s in co["sections"]]
    md += [f"| ELF headers and alignment | {co['headers_and_padding']:,} | |", "",
           f"## The amdgcnspirv module: {spv['bytes']:,} B, deflated {spv['deflated']:,} B",
           "", f"{spv['instructions']:,} instructions, {spv['entry_points']} entry points, "
           f"{spv['functions']} functions; embedded `llvm.cmdline`: {'yes' if spv['has_llvm_cmdline'] else 'no'}.",
           "", "| opcode | bytes | share |", "| --- | ---: | ---: |"]
    md += [f"| {o['op']} | {o['bytes']:,} | {o['bytes'] / spv['bytes']:.1%} |" for o in spv["opcodes"][:20]]
    rest = sum(o["bytes"] for o in spv["opcodes"][20:])
    md += [f"| {len(spv['opcodes']) - 20} other opcodes | {rest:,} | {rest / spv['bytes']:.1%} |", "",
           f"SPIR-V module / code object: {spv['bytes'] / co['bytes']:.2f} raw, "
           f"{spv['deflated'] / co['deflated']:.2f} deflated.", ""]
    text = "\n".join(md)
    write_atomic(args.out / "device_bytes.md", text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
