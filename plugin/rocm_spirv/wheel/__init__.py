"""Wheels that carry HIP code: the rocm_spirv.json record and the auditwheel repair step."""
