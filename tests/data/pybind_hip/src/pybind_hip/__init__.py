from ._core import device_count, saxpy_device

__all__ = ["device_count", "saxpy_device"]
