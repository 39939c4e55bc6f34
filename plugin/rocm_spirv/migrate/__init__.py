"""`rocm-spirv migrate`: find per-architecture build settings and sources, and retarget the build."""
