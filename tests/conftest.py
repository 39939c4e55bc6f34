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

# Tests that use a provisioned prefix build with real clang (CMake, pip, Bazel): they are the
# slow set, marked here from the fixtures they reach so that no new build test can slip into the
# fast subset (`pytest -m "not slow"`, README) by a forgotten decorator.
BUILD_FIXTURES = frozenset({"toolchain", "user_prefix", "wheelhouse", "toolchain_hip"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if BUILD_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


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
def user_prefix() -> Path:
    """The prefix `rocm-spirv toolchain provision` makes for the user (.ci/setup runs it): what a
    plain `pip wheel .` finds with no setting at all."""
    from rocm_spirv.toolchain.paths import default_prefix

    prefix = default_prefix()
    if not (prefix / "manifest.json").is_file() or not (prefix / "bin" / "clang++").is_file():
        pytest.skip(f"no provisioned toolchain at {prefix}: run `rocm-spirv toolchain provision` (.ci/setup does)")
    return prefix


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Third-party wheels and a rocm-spirv wheel of the checkout, for isolated offline pip builds."""
    from wheelhouse import fill

    wh = tmp_path_factory.mktemp("wheelhouse")
    try:
        fill(REPO, wh)
    except RuntimeError as err:
        pytest.skip(str(err))
    return wh


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
