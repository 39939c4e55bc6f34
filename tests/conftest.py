"""Shared fixtures: a real provisioned clang 22 toolchain and helpers to read bundles."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from rocm_spirv.errors import UserError
from rocm_spirv.toolchain.provision import provision

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"


@pytest.fixture(scope="session")
def toolchain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A provisioned prefix (bin/clang++ …), built once per test session (~0.3 s)."""
    env = os.environ.get("ROCM_SPIRV_TEST_PREFIX")
    if env:
        return Path(env)
    try:
        return Path(provision(tmp_path_factory.mktemp("tc") / "toolchain").prefix)
    except UserError as err:
        pytest.skip(f"toolchain cannot be provisioned: {err.line()}")


@pytest.fixture(scope="session")
def toolchain_hip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A provisioned prefix with ROCm 7 HIP headers from the triton wheel (downloaded once)."""
    env = os.environ.get("ROCM_SPIRV_TEST_PREFIX_HIP")
    if env:
        return Path(env)
    try:
        return Path(provision(tmp_path_factory.mktemp("tchip") / "toolchain", hip_headers=True).prefix)
    except UserError as err:
        pytest.skip(f"toolchain with HIP headers cannot be provisioned: {err.line()}")


@pytest.fixture(scope="session")
def cmake_exe() -> str:
    exe = shutil.which("cmake")
    if exe is None:
        pytest.skip("cmake is not on PATH (pip install cmake)")
    return exe
