"""HIP kernels in a Python extension, shipped as one universal AMDGCN SPIR-V binary."""

from spirv_demo._core import NoDeviceError, device_count, saxpy

__all__ = ["NoDeviceError", "device_count", "saxpy"]
