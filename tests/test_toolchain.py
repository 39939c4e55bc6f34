"""Foundation: provisioning, doctor, and real builds of the samples for gfx* and amdgcnspirv."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from bundles import device_entries, fatbin_sections, split_bundles, unbundle
from cmakebuild import SPIRV_FLAGS, cmake_build
from conftest import SAMPLES
from rocm_spirv.toolchain.provision import provision, read_manifest

SPIRV_ENTRY = "hip-spirv64-amd-amdhsa--amdgcnspirv"


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rocm_spirv", *args], capture_output=True,
                          text=True, check=False, env={**os.environ, **(env or {})})


def test_version_and_cmakedir() -> None:
    out = cli("--version")
    assert out.returncode == 0 and out.stdout.startswith("rocm-spirv ")
    cmakedir = Path(cli("--cmakedir").stdout.strip())
    assert cmakedir.is_dir() and cmakedir.name == "cmake"


def test_provision_is_idempotent_and_has_manifest(toolchain: Path, tmp_path: Path) -> None:
    manifest = read_manifest(toolchain)
    assert manifest is not None and manifest.llvm_version.startswith("22.")
    for tool in ("clang", "clang++", "lld", "ld.lld", "llvm-link", "clang-offload-bundler", "llvm-dis",
                 "llvm-objcopy"):
        assert (toolchain / "bin" / tool).exists(), tool
    fresh = tmp_path / "tc"
    first = provision(fresh)
    second = provision(fresh)
    assert first.changed and not second.changed
    assert second.manifest.files == first.manifest.files


def test_provision_refuses_a_foreign_folder(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("user data")
    out = cli("toolchain", "provision", "--prefix", str(tmp_path / "mine"))
    assert out.returncode == 2 and "not a rocm-spirv toolchain prefix" in out.stderr
    assert (tmp_path / "mine" / "notes.txt").read_text() == "user data"


def test_doctor_reports_clang22_spirv_in_tree(toolchain: Path) -> None:
    out = cli("doctor", "--json", "--compiler", str(toolchain / "bin" / "clang++"))
    data = json.loads(out.stdout)
    assert out.returncode == 0, out.stderr
    comp = data["compiler"]
    assert comp["version"].startswith("22.") and comp["spirv_path"] == "in-tree"
    assert "-use-spirv-backend" in comp["spirv_flags"]
    assert "gfx942" in comp["gfx_targets"] and "gfx940" not in comp["gfx_targets"]
    assert {m["mode"]: m["ready"] for m in data["modes"]} == {"native": True, "spirv": True, "hybrid": True}


def test_kernels_spirv_bundle_holds_one_valid_spirv_entry(toolchain: Path, tmp_path: Path) -> None:
    build = cmake_build(SAMPLES / "kernels", tmp_path / "b", toolchain, "amdgcnspirv", SPIRV_FLAGS)
    lib = build / "librk_kernels.so"
    bundler = toolchain / "bin" / "clang-offload-bundler"
    assert device_entries(bundler, lib) == [SPIRV_ENTRY]
    if shutil.which("spirv-val") is None:
        pytest.skip("spirv-val missing (apt-get install spirv-tools)")
    blobs = [b for s in fatbin_sections(lib) for b in split_bundles(s)]
    assert len(blobs) == 4  # one bundle per source file
    for i, blob in enumerate(blobs):
        spv = unbundle(bundler, blob, SPIRV_ENTRY, tmp_path / f"{i}.spv")
        assert spv.read_bytes()[:4] == b"\x03\x02\x23\x07"
        val = subprocess.run(["spirv-val", str(spv)], capture_output=True, text=True, check=False)
        assert val.returncode == 0, val.stderr


def test_kernels_native_bundle_holds_three_code_objects(toolchain: Path, tmp_path: Path) -> None:
    build = cmake_build(SAMPLES / "kernels", tmp_path / "b", toolchain, "gfx90a;gfx942;gfx1100")
    entries = device_entries(toolchain / "bin" / "clang-offload-bundler", build / "librk_kernels.so")
    assert entries == sorted(f"hipv4-amdgcn-amd-amdhsa--{g}" for g in ("gfx90a", "gfx942", "gfx1100"))


def test_hip_app_builds_for_spirv_and_runs_to_no_gpu(toolchain_hip: Path, tmp_path: Path) -> None:
    build = cmake_build(SAMPLES / "hip_app", tmp_path / "b", toolchain_hip, "amdgcnspirv", SPIRV_FLAGS)
    exe = build / "hip_app"
    assert device_entries(toolchain_hip / "bin" / "clang-offload-bundler", exe) == [SPIRV_ENTRY]
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "no AMD GPU present" in run.stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["doctor", "--compiler", "/nonexistent/clang++"], "not found or not executable"),
        (["toolchain", "list", "--compiler", "/bin/true"], "cannot compile HIP"),
        (["toolchain", "provision", "--bundler", "/nonexistent/bundler"], "clang-offload-bundler"),
    ],
)
def test_bad_input_is_one_line_exit_2(args: list[str], needle: str, tmp_path: Path) -> None:
    out = cli(*args, env={"ROCM_SPIRV_PREFIX": str(tmp_path / "p"), "ROCM_SPIRV_CACHE": str(tmp_path / "c")})
    assert out.returncode == 2
    assert needle in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_provisioned_clang_accepts_amdgcnspirv_alone(toolchain: Path, tmp_path: Path) -> None:
    """As ROCm's clang does: no -use-spirv-backend needed, visibility default for SPIR-V device code only."""
    src = SAMPLES / "cmake" / "common" / "saxpy.hip"
    clang = str(toolchain / "bin" / "clang++")
    # A PATH without any llvm-spirv: the wrapper picks the in-tree backend.
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    out = tmp_path / "s.o"
    base = [clang, "-x", "hip", "-nogpuinc", "--offload-arch=amdgcnspirv", "--offload-arch=gfx942",
            "-fvisibility=hidden", "-c", str(src), "-o", str(out)]
    subprocess.run(base, check=True, env=env, capture_output=True)
    assert device_entries(toolchain / "bin" / "clang-offload-bundler", out) == [
        "hipv4-amdgcn-amd-amdhsa--gfx942", "hipv4-spirv64-amd-amdhsa--amdgcnspirv"]
    plan = subprocess.run([*base, "-###"], check=True, env=env, capture_output=True, text=True).stderr
    jobs = [ln for ln in plan.splitlines() if '"-cc1"' in ln]
    spirv = [j for j in jobs if '"spirv64-amd-amdhsa"' in j]
    others = [j for j in jobs if '"spirv64-amd-amdhsa"' not in j]
    assert spirv and all('"-fvisibility=default"' in j for j in spirv)
    assert others and all('"-fvisibility=default"' not in j for j in others)


def test_provisioned_wrappers_take_a_hostile_prefix(toolchain: Path, tmp_path: Path) -> None:
    """Spaces, quotes, `$` and backticks in the prefix path are data to sh and to clang's config file."""
    fresh = tmp_path / "pre fix $HOME `true` 'q' \"d\""
    provision(fresh)
    src = SAMPLES / "cmake" / "common" / "saxpy.hip"
    out = tmp_path / "s.o"
    run = subprocess.run([str(fresh / "bin" / "clang++"), "-x", "hip", "-nogpuinc", "--offload-arch=amdgcnspirv",
                          "-c", str(src), "-o", str(out), "-v"], capture_output=True, text=True,
                         env={**os.environ, "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    (entry,) = device_entries(toolchain / "bin" / "clang-offload-bundler", out)
    assert entry.endswith("spirv64-amd-amdhsa--amdgcnspirv")
    # The config file's -isystem reached clang as one argument (-v prints it quoted, with \\$ and \\" escaped).
    shown = run.stderr.replace("\\$", "$").replace('\\"', '"')
    assert f'-isystem "{fresh}/include"' in shown


def test_provision_says_it_downloads_and_keeps_stdout_for_the_result(tmp_path: Path) -> None:
    """The triton wheel is hundreds of MB: provision announces the download and lets pip's lines
    through on stderr. Served here from a local folder holding a wheel without the AMD backend."""
    links = tmp_path / "links"
    links.mkdir()
    with zipfile.ZipFile(links / "triton-9.9.9-py3-none-any.whl", "w") as zf:
        zf.writestr("triton/__init__.py", "")
        zf.writestr("triton-9.9.9.dist-info/METADATA", "Metadata-Version: 2.1\nName: triton\nVersion: 9.9.9\n")
        zf.writestr("triton-9.9.9.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        zf.writestr("triton-9.9.9.dist-info/RECORD", "")
    env = {**os.environ, "ROCM_SPIRV_CACHE": str(tmp_path / "cache"), "PIP_NO_INDEX": "1",
           "PIP_FIND_LINKS": str(links)}
    out = subprocess.run([sys.executable, "-m", "rocm_spirv", "toolchain", "provision", "--prefix",
                          str(tmp_path / "tc"), "--json"], capture_output=True, text=True, env=env, check=False)
    assert out.returncode == 2 and out.stdout == ""  # the wheel lacks the headers: bad input, one line
    lines = out.stderr.splitlines()
    assert lines[0].startswith("rocm-spirv: downloading the triton wheel from PyPI into ")
    assert any("triton-9.9.9-py3-none-any.whl" in ln for ln in lines[1:-1])  # pip's own lines
    assert lines[-1].startswith("rocm-spirv: error: ") and "use a triton wheel with the AMD backend" in lines[-1]
