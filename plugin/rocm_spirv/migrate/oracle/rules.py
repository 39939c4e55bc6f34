"""Rules only the oracle reports: what a real device compile for amdgcnspirv says that no source rule names."""

from __future__ import annotations

from rocm_spirv.migrate.findings import E, Rule

RSM208 = Rule("RSM208", "spirv-compile-error", E, "the amdgcnspirv device compile fails",
              "A translation unit that does not compile for amdgcnspirv cannot be shipped as SPIR-V; "
              "`migrate --configure` compiles each one and reports what clang says.",
              example=("k.hip", "__global__ void k(int* o) { o[0] = helper_nobody_declared(); }\n"))
RULES = (RSM208,)
