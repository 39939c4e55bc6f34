"""The provisioned prefix as a ROCm 7 device toolchain: device libraries, one HIP version, doctor's truth."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bundles import fatbin_sections, split_bundles, unbundle
from rocm_spirv.errors import UserError
from rocm_spirv.toolchain import devicelibs
from rocm_spirv.toolchain.llvm import distribution_llvms
from rocm_spirv.toolchain.provision import provision, read_manifest

REAL_HIP = """
#include <hip/hip_runtime.h>
#include <cstdio>
__global__ void k(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { x[i] = expf(x[i]) + log1pf(x[i]) + __shfl_down(x[i], 1); atomicAdd(&x[0], 1.0f); }
}
int main() {
  int n = 0;
  hipError_t e = hipGetDeviceCount(&n);
  if (e != hipSuccess || n == 0) { std::printf("no AMD GPU: %s\\n", hipGetErrorString(e)); return 0; }
  hipDeviceProp_t p;
  return hipGetDeviceProperties(&p, 0) == hipSuccess ? 0 : 1;
}
"""


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rocm_spirv", *args], capture_output=True,
                          text=True, check=False, env={**os.environ, **(env or {})}, timeout=600)


def hip(prefix: Path, tmp: Path, archs: list[str], *extra: str,
        src: str = REAL_HIP) -> subprocess.CompletedProcess[str]:
    (tmp / "t.hip").write_text(src)
    return subprocess.run([str(prefix / "bin" / "clang++"), "-x", "hip", *(f"--offload-arch={a}" for a in archs),
                           "-O1", *extra, str(tmp / "t.hip")], capture_output=True, text=True, check=False, cwd=tmp)


@pytest.mark.parametrize(("target", "version"), [
    ("gfx90a", 9010), ("gfx90c", 9012), ("gfx942", 9402), ("gfx1030", 10300), ("gfx1151", 11501),
    ("gfx1201", 12001), ("gfx9-generic", 9000), ("gfx9-4-generic", 9402), ("gfx10-3-generic", 10300),
    ("gfx11-generic", 11000),
])
def test_isa_versions_follow_rocm_numbering(target: str, version: int) -> None:
    assert devicelibs.isa_version(target) == version


def test_device_library_folder_is_complete_and_holds_rocm_values(toolchain: Path) -> None:
    manifest = read_manifest(toolchain)
    assert manifest is not None and "gfx942" in manifest.gfx_targets and "gfx1201" in manifest.gfx_targets
    folder = toolchain / "amdgcn" / "bitcode"
    assert devicelibs.missing_pieces(folder, manifest.gfx_targets) == []
    dis = subprocess.run([str(toolchain / "bin" / "llvm-dis"), str(folder / "oclc_wavefrontsize64_on.bc"),
                          "-o", "-"], capture_output=True, text=True, check=True).stdout
    assert "@__oclc_wavefrontsize64 = linkonce_odr protected" in dis and "constant i8 1" in dis
    assert "@__oclc_wavefrontsize_log2" in dis and "constant i32 6" in dis
    isa = subprocess.run([str(toolchain / "bin" / "llvm-dis"), str(folder / "oclc_isa_version_90a.bc"),
                          "-o", "-"], capture_output=True, text=True, check=True).stdout
    assert "constant i32 9010" in isa and 'target triple = "amdgcn-amd-amdhsa"' in isa


def test_native_code_objects_link_the_device_libraries(toolchain: Path, tmp_path: Path) -> None:
    out = hip(toolchain, tmp_path, ["gfx942", "gfx1100"], "-c", "-o", "t.o")
    assert out.returncode == 0, out.stderr
    bundler = toolchain / "bin" / "clang-offload-bundler"
    blobs = [b for s in fatbin_sections(tmp_path / "t.o") for b in split_bundles(s)]
    for arch in ("gfx942", "gfx1100"):
        co = unbundle(bundler, blobs[0], f"hipv4-amdgcn-amd-amdhsa--{arch}", tmp_path / f"{arch}.co")
        undefined = subprocess.run([str(toolchain / "bin" / "llvm-nm"), "-u", str(co)],
                                   capture_output=True, text=True, check=True).stdout
        assert "__ocml_" not in undefined and "__ockl_" not in undefined, undefined
        assert co.stat().st_size > 1000


def test_no_header_comes_from_another_hip(toolchain: Path, tmp_path: Path) -> None:
    """Debian's /usr/include/hip (5.2) is on the default include path; nothing may be read from it."""
    deps = hip(toolchain, tmp_path, ["gfx942", "amdgcnspirv"], "-M")
    assert deps.returncode == 0, deps.stderr
    files = deps.stdout.replace("\\\n", " ").split()
    hip_headers = [f for f in files if "/hip/" in f]
    assert hip_headers and all(f.startswith(str(toolchain)) for f in hip_headers), hip_headers
    assert not [f for f in files if f.startswith("/usr/include/hip")]
    guarded = hip(toolchain, tmp_path, ["gfx942"], "-fsyntax-only", src="#include <hip/hip_bfloat16.h>\n")
    assert guarded.returncode != 0
    assert "hip/hip_bfloat16.h is not in the rocm-spirv prefix's ROCm 7" in guarded.stderr
    if Path("/usr/include/hip/hip_bfloat16.h").exists():
        assert "/usr/include/hip" not in guarded.stderr


def test_amdgpu_backend_options_never_reach_spirv_compiles(toolchain: Path, tmp_path: Path) -> None:
    opt = "-amdgpu-early-inline-all=true"
    plan = hip(toolchain, tmp_path, ["amdgcnspirv", "gfx942"], "-mllvm", opt, "-c", "-o", "t.o", "-###")
    jobs = [ln for ln in plan.stderr.splitlines() if '"-cc1"' in ln]
    spirv = [j for j in jobs if '"spirv64-amd-amdhsa"' in j]
    gfx = [j for j in jobs if '"-target-cpu" "gfx942"' in j]
    assert spirv and gfx
    assert all(opt not in j for j in spirv) and all(opt in j for j in gfx)
    only = hip(toolchain, tmp_path, ["amdgcnspirv"], "-mllvm", opt, "-c", "-o", "t.o", "-###")
    assert opt not in only.stderr and only.returncode == 0


def test_doctor_builds_a_real_program_in_every_mode(toolchain: Path) -> None:
    out = cli("doctor", "--json", "--compiler", str(toolchain / "bin" / "clang++"))
    data = json.loads(out.stdout)
    modes = {m["mode"]: m for m in data["modes"]}
    assert all(m["ready"] for m in modes.values()), modes
    # The builds take a while: one progress line per mode on stderr (stdout stays the JSON).
    assert [ln.rsplit(" ", 2)[-2] for ln in out.stderr.splitlines() if "doctor: building" in ln] == list(modes)
    assert modes["hybrid"]["detail"].startswith("built hybrid for amdgcnspirv;gfx")
    checks = {c["name"]: c for c in data["checks"]}
    assert checks["prefix"]["ok"] and checks["device_libs"]["detail"].endswith("amdgcn/bitcode")
    assert data["compiler"]["complete"] and data["compiler"]["llvm"].startswith("distribution LLVM 22")
    # It names the spirv-val it validated with, and the SPIR-V of both SPIR-V modes passed it.
    assert re.search(r"spirv-val \(SPIRV-Tools v\d{4}\.\d+, ", checks["spirv_val"]["detail"]), checks["spirv_val"]
    assert all("SPIR-V valid (spirv-val " in modes[m]["detail"] for m in ("spirv", "hybrid"))
    # rocm-cmake: either new enough, or the missing modules and the remedy are named.
    rc = checks["rocm_cmake"]
    assert rc["ok"] or ("0.11.0" in rc["detail"] and "ROCmCMakeBuildTools" in rc["remedy"]), rc


@pytest.mark.slow
def test_doctor_fails_a_mode_whose_spirv_does_not_validate(toolchain: Path) -> None:
    """Device debug info kept (the opt-in) makes the test build's SPIR-V invalid: spirv and hybrid
    are not ready, at the validate step, with the construct and the remedy; native stays ready."""
    out = cli("doctor", "--json", "--compiler", str(toolchain / "bin" / "clang++"),
              env={"ROCM_SPIRV_DEVICE_DEBUG": "1"})
    assert out.returncode == 1, out.stderr
    modes = {m["mode"]: m for m in json.loads(out.stdout)["modes"]}
    assert modes["native"]["ready"]
    for mode in ("spirv", "hybrid"):
        m = modes[mode]
        assert not m["ready"] and m["step"] == "validate", m
        assert "device debug info" in m["detail"] and "DebugCompilationUnit" in m["detail"]
        assert "ROCM_SPIRV_DEVICE_DEBUG" in m["remedy"]
    text = cli("doctor", "--compiler", str(toolchain / "bin" / "clang++"), env={"ROCM_SPIRV_DEVICE_DEBUG": "1"})
    assert "mode spirv: not ready (validate failed: spirv-val " in text.stdout


@pytest.mark.slow
def test_doctor_without_device_libraries_is_not_ready_for_native(tmp_path: Path) -> None:
    prefix = Path(provision(tmp_path / "p").prefix)
    env = {"ROCM_SPIRV_CACHE": str(tmp_path / "cache")}
    # A probe cached while the libraries were there must not outlive them.
    before = cli("doctor", "--json", "--no-build", "--compiler", str(prefix / "bin" / "clang++"), env=env)
    assert all(m["ready"] for m in json.loads(before.stdout)["modes"])
    shutil.rmtree(prefix / "amdgcn")
    out = cli("doctor", "--json", "--compiler", str(prefix / "bin" / "clang++"), env=env)
    assert out.returncode == 0 and "Traceback" not in out.stderr  # spirv still ready: the JIT links them
    modes = {m["mode"]: m for m in json.loads(out.stdout)["modes"]}
    assert modes["spirv"]["ready"]
    for mode in ("native", "hybrid"):
        assert not modes[mode]["ready"]
        assert "rocm-spirv toolchain provision" in modes[mode]["remedy"]
    text = cli("doctor", "--compiler", str(prefix / "bin" / "clang++"), env=env)
    assert "mode native: not ready" in text.stdout and "remedy: rocm-spirv toolchain provision" in text.stdout


@pytest.mark.skipif(not distribution_llvms(), reason="no distribution LLVM >= 22 (apt-get install clang-22 lld-22 "
                    "llvm-22 clang-tools-22)")
@pytest.mark.slow
def test_a_prefix_whose_llvm_vanished_is_detected_not_trusted(tmp_path: Path) -> None:
    real = distribution_llvms()[0]
    assert real.bindir is not None
    farm = tmp_path / "llvm" / "bin"
    farm.mkdir(parents=True)
    for tool in real.bindir.iterdir():
        (farm / tool.name).symlink_to(tool.resolve())
    prefix = Path(provision(tmp_path / "p", llvm=str(farm)).prefix)
    env = {"ROCM_SPIRV_CACHE": str(tmp_path / "cache")}
    first = cli("doctor", "--json", "--no-build", "--compiler", str(prefix / "bin" / "clang++"), env=env)
    assert json.loads(first.stdout)["ok"], first.stdout
    shutil.rmtree(tmp_path / "llvm")
    run = subprocess.run([str(prefix / "bin" / "clang++"), "--version"], capture_output=True, text=True, check=False)
    assert run.returncode == 127 and "is gone; remedy:" in run.stderr
    again = cli("doctor", "--json", "--compiler", str(prefix / "bin" / "clang++"), env=env)
    assert "Traceback" not in again.stderr
    if again.returncode == 2:  # the explicit compiler no longer runs at all: bad input, one line
        assert len(again.stderr.strip().splitlines()) == 1
        return
    data = json.loads(again.stdout)
    assert not any(m["ready"] for m in data["modes"])


def test_provision_refuses_an_llvm_that_is_not_one(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="not a clang >= 22"):
        provision(tmp_path / "p", llvm=str(tmp_path))


def test_toolchain_list_says_which_compiler_is_chosen_and_why(toolchain: Path) -> None:
    out = cli("toolchain", "list", "--json", env={"ROCM_SPIRV_PREFIX": str(toolchain)})
    rows = json.loads(out.stdout)["compilers"]
    chosen = [r for r in rows if r["chosen"]]
    assert len(chosen) == 1 and chosen[0]["path"] == str(toolchain / "bin" / "clang++")
    assert "full LLVM 22" in chosen[0]["llvm"]
    text = cli("toolchain", "list", env={"ROCM_SPIRV_PREFIX": str(toolchain)}).stdout
    assert f"{toolchain / 'bin' / 'clang++'} (provisioned, clang 22." in text and "<- chosen" in text


@pytest.mark.slow
def test_a_ziglang_prefix_builds_real_hip_without_noise(tmp_path: Path) -> None:
    """The pip-only path: ziglang's clang with stand-ins, same device libraries, runtime and headers."""
    try:
        # A space and a quote in the prefix: the stand-ins quote every path they pass on.
        prefix = Path(provision(tmp_path / "zig prefix 'q'", llvm="ziglang").prefix)
    except UserError as err:
        pytest.skip(f"no ziglang prefix: {err.line()}")
    manifest = read_manifest(prefix)
    assert manifest is not None and manifest.llvm_kind == "ziglang" and "asked for" in manifest.llvm_why
    for archs in (["gfx942"], ["amdgcnspirv"], ["amdgcnspirv", "gfx942"]):
        out = hip(prefix, tmp_path, archs, "-c", "-o", "t.o")
        assert out.returncode == 0 and "zig:" not in out.stderr, out.stderr
        link = subprocess.run([str(prefix / "bin" / "clang++"), "--hip-link", "t.o", "-o", "t"], cwd=tmp_path,
                              capture_output=True, text=True, check=False)
        assert link.returncode == 0 and "zig:" not in link.stderr, link.stderr
        run = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True, check=False,
                             env={**os.environ, "LD_LIBRARY_PATH": str(prefix / "lib")})
        assert run.returncode == 0 and "no AMD GPU: no ROCm-capable device is detected" in run.stdout
