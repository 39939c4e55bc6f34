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
    """A provisioned ROCm 7 device toolchain prefix, built once per test session (~2 s)."""
    env = os.environ.get("ROCM_SPIRV_TEST_PREFIX")
    if env:
        return Path(env)
    try:
        return Path(provision(tmp_path_factory.mktemp("tc") / "toolchain").prefix)
    except UserError as err:
        pytest.skip(f"toolchain cannot be provisioned: {err.line()}")


@pytest.fixture(scope="session")
def toolchain_hip(toolchain: Path) -> Path:
    """Every prefix now carries ROCm 7 HIP headers; the name stays for the tests that need them."""
    return toolchain


@pytest.fixture(scope="session")
def cmake_exe() -> str:
    exe = shutil.which("cmake")
    if exe is None:
        pytest.skip("cmake is not on PATH (pip install cmake)")
    return exe
