"""Rules only the oracle reports: what a real device compile for amdgcnspirv says that no source rule names."""

from __future__ import annotations

from rocm_spirv.migrate.findings import E, Rule

RSM208 = Rule("RSM208", "spirv-compile-error", E, "the amdgcnspirv device compile fails",
              "A translation unit that does not compile for amdgcnspirv cannot be shipped as SPIR-V; "
              "`migrate --configure` compiles each one and reports what clang says.",
              # An error every target gets says nothing about SPIR-V (the oracle drops it), and a construct
              # the static scan knows merges into its finding: the example fails for amdgcnspirv alone,
              # through a macro only the native targets define.
              example=("k.hip", "#ifdef __AMDGCN_CUMODE__\n__device__ int per_cu() { return 1; }\n#endif\n"
                                "__global__ void k(int* o) {\n#ifdef __HIP_DEVICE_COMPILE__\n  o[0] = per_cu();\n"
                                "#endif\n}\n"))
RULES = (RSM208,)
