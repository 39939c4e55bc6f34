"""rocm-spirv: one universal AMDGCN-flavoured SPIR-V binary instead of one code object per GPU."""

from __future__ import annotations

from rocm_spirv.resources import cmake_dir, templates_dir

__version__ = "0.1.0"

__all__ = ["__version__", "cmake_dir", "templates_dir"]
