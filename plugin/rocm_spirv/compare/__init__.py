"""`rocm-spirv compare`: measured build time and artifact size, per-arch vs SPIR-V."""
