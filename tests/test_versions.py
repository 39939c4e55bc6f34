"""One way to read version strings (packaging's), and one version for the Python and CMake packages."""

from __future__ import annotations

import re

import rocm_spirv
from conftest import REPO
from rocm_spirv import versions


def test_tool_versions() -> None:
    assert versions.major("22.1.8") == 22 and versions.major("7.1.25424") == 7
    assert versions.major("not a version") is None and versions.major(None) is None
    assert versions.parts("7.1") == (7, 1, 0) and versions.parts("3.25.1.4") == (3, 25, 1)
    assert versions.parts("junk") == (0, 0, 0)


def test_one_version_for_both_packages() -> None:
    cmake = (REPO / "cmake" / "RocmSpirvConfigVersion.cmake").read_text()
    found = re.search(r'set\(PACKAGE_VERSION "([^"]+)"\)', cmake)
    assert found and found[1] == rocm_spirv.__version__
    # pyproject.toml takes the version from __init__.py (hatch), so it cannot disagree.
    pyproject = (REPO / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and 'path = "plugin/rocm_spirv/__init__.py"' in pyproject
