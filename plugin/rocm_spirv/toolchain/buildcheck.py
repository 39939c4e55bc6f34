"""Build-time SPIR-V validation: the provisioned wrappers run this after a compile or
link that asked for amdgcnspirv, so invalid device code fails the build step that made it.

`python -m rocm_spirv.toolchain.buildcheck PREFIX OUTPUT`: exit 0 when every SPIR-V
module in OUTPUT passes spirv-val (or OUTPUT holds none, or is not a binary, e.g.
-emit-llvm); exit 1 naming the construct spirv-val rejected and the remedy, after
removing OUTPUT so that make and ninja build it again. Without spirv-val it warns once
per output and passes: doctor reports the missing tool as a failed check.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from rocm_spirv import settings
from rocm_spirv.inspect.base import FormatError, NotBinary
from rocm_spirv.inspect.model import SPIRV
from rocm_spirv.inspect.scan import Sink, inspect_path
from rocm_spirv.inspect.validate import validate
from rocm_spirv.offload import DEVICE_DEBUG_ENV
from rocm_spirv.toolchain.spirv_val import REMEDY as INSTALL
from rocm_spirv.toolchain.spirv_val import SpirvVal, find_spirv_val, prefix_spirv_val

SKIP_ENV = settings.VALIDATE.name  # 0/off: the wrappers skip this check


@dataclass(frozen=True)
class Construct:
    """What a spirv-val message is about, and what to do."""

    pattern: str  # regex on spirv-val's first error line
    name: str
    remedy: str


# First match wins; the last row names the instruction spirv-val quotes.
CONSTRUCTS = (
    Construct(r"NonSemantic\.Shader\.DebugInfo|OpenCL\.DebugInfo|Debug[A-Z]\w+:",
              "device debug info (-g) in SPIR-V, which LLVM 22's in-tree backend writes in a form spirv-val rejects",
              f"build without it: unset {DEVICE_DEBUG_ENV} (the SPIR-V device pass then gets -Xarch_amdgcnspirv -g0; "
              "host and native debug info stay)"),
    Construct(r"Op(InBounds)?PtrAccessChain",
              "a pointer access chain with a run-time element index, which spirv-val before 2025.5 rejects",
              f"validate with spirv-val >= 2025.5: {INSTALL}"),
    Construct(r"(Op[A-Z]\w+)",
              "the instruction {0}",
              "build this target native or hybrid (ROCM_SPIRV_OFFLOAD=hybrid, or --offload-arch=gfx… beside "
              "amdgcnspirv), and report the source to LLVM's SPIR-V backend; "
              f"{SKIP_ENV}=0 skips this check"),
)
UNKNOWN = Construct("", "a construct spirv-val rejects",
                    "build this target native or hybrid and report the source to LLVM's SPIR-V backend; "
                    f"{SKIP_ENV}=0 skips this check")


def explain(message: str) -> tuple[str, str]:
    """(construct, remedy) for one spirv-val message."""
    for c in CONSTRUCTS:
        m = re.search(c.pattern, message)
        if m:
            return c.name.format(*m.groups()), c.remedy
    return UNKNOWN.name, UNKNOWN.remedy


def rejections(output: Path, tool: SpirvVal) -> list[tuple[str, str]]:
    """(entry id, spirv-val's message) for each SPIR-V module in output it rejects."""
    sink: Sink = {}
    try:
        report = inspect_path(output, sink=sink)
    except (NotBinary, FormatError, OSError):
        return []  # not a HIP build output (bitcode, assembly, a missing file): nothing to validate
    files = validate(list(report.files), sink, tool.path)
    return [(e.id, e.validation.message) for f in files for e in f.entries
            if e.kind == SPIRV and e.validation is not None and e.validation.ok is False]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m rocm_spirv.toolchain.buildcheck PREFIX OUTPUT", file=sys.stderr)
        return 2
    prefix, output = Path(argv[0]), Path(argv[1])
    tool = prefix_spirv_val(prefix) or find_spirv_val(prefix)
    if tool is None:
        print(f"{output}: warning: SPIR-V device code not validated: no spirv-val found; remedy: {INSTALL}",
              file=sys.stderr)
        return 0
    bad = rejections(output, tool)
    if not bad:
        return 0
    for entry, message in bad:
        construct, remedy = explain(message)
        print(f"{output}: error: {entry}: spirv-val {tool.version} rejects {construct} ({message}); "
              f"remedy: {remedy}", file=sys.stderr)
    # A failed step must not leave an output newer than its inputs (make would not rebuild it).
    with contextlib.suppress(OSError):
        os.unlink(output)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
