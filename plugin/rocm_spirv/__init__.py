"""rocm-spirv: one universal AMDGCN-flavoured SPIR-V binary instead of one code object per GPU."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "cmake_dir", "templates_dir"]

TYPE_CHECKING = False  # not typing's: importing typing alone costs tens of milliseconds
if TYPE_CHECKING:
    from rocm_spirv.resources import cmake_dir, templates_dir


def __getattr__(name: str) -> object:
    # Loaded on first use: `rocm-spirv` installs its signal handlers before anything heavy is imported.
    if name in ("cmake_dir", "templates_dir"):
        from rocm_spirv import resources

        return getattr(resources, name)
    raise AttributeError(f"module 'rocm_spirv' has no attribute {name!r}")
