"""compare's JIT proxy (compare/jit.py): a TU's device bitcode before optimization, then the
device-library link, opt, llc and ld.lld timed; its code objects checked against the native
build's kernels. Real clang and LLVM 22 on a real HIP source with ocml math."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from rocm_spirv.compare import jit
from rocm_spirv.compare.model import Run

SOURCE = """#include <hip/hip_runtime.h>
template <typename T> __global__ void scale(T* x, T a) { x[threadIdx.x] = sin(x[threadIdx.x]) * a; }
template __global__ void scale<float>(float*, float);
template __global__ void scale<double>(double*, double);
__global__ void add(int* x) { atomicAdd(x, 1); }
"""


def test_device_command_replaces_outputs_targets_and_dependency_files() -> None:
    argv = shlex.split("clang++ -DX=1 -Iinc -O3 --offload-arch=gfx90a --offload-arch gfx1100 -x hip -MD "
                       "-MT a.o -MF a.d --offload-compress -o a.o -c a.hip")
    got = jit.device_command(argv, "gfx942", Path("/s/a.bc"))
    assert got[:6] == ["clang++", "-DX=1", "-Iinc", "-O3", "-x", "hip"]
    assert got[6] == "a.hip"
    assert got[7:] == ["--offload-arch=gfx942", "--cuda-device-only", "--no-gpu-bundle-output", "-nogpulib",
                       "-emit-llvm", "-Xclang", "-disable-llvm-passes", "-c", "-o", "/s/a.bc"]


def test_per_kernel_figures_share_each_units_time_among_its_kernels() -> None:
    run = jit.JitRun("gfx942", [jit.JitUnit("a.hip", ["k1", "k2"], {"link": 0.1, "opt": 0.3, "llc": 0.4, "lld": 0.0},
                                            {"link": 0.2, "opt": 0.6, "llc": 0.8, "lld": 0.2}),
                                jit.JitUnit("b.hip", ["k3"], {"link": 0.1, "opt": 0.1, "llc": 0.1, "lld": 0.0},
                                            {"link": 0.1, "opt": 0.1, "llc": 0.1, "lld": 0.1})])
    assert run.per_kernel(cpu=True) == pytest.approx([400.0, 400.0, 300.0])
    assert run.per_unit(cpu=False) == pytest.approx([1800.0, 400.0])
    r = Run(1.0, 2.0, 3.0, jit=run)
    assert r.jit_kernel_cpu_ms == pytest.approx(400.0) and r.jit_total_cpu_s == pytest.approx(1.1)
    assert jit.p90([float(v) for v in range(1, 11)]) == pytest.approx(9.1)
    assert Run(1.0, 2.0, 3.0).jit_kernel_cpu_ms is None  # not the baseline build: not measured


def test_each_jit_target_is_checked_against_a_native_build_of_that_target() -> None:
    """--jit-targets: a target's code objects are held against that target's kernels in a native build
    (arch-conditional code can give one target other kernels), and a target no build has is unchecked."""
    from rocm_spirv.compare.model import Artifact, Comparison, Variant, VariantResult
    from rocm_spirv.compare.session import check_jit
    from rocm_spirv.compare.view import jit_note, jit_targets

    def unit(*kernels: str) -> jit.JitUnit:
        return jit.JitUnit("k.hip", list(kernels), {"link": 0.01, "opt": 0.02, "llc": 0.03, "lld": 0.0},
                           {"link": 0.01, "opt": 0.02, "llc": 0.03, "lld": 0.01})

    entries = {f"hipv4-amdgcn-amd-amdhsa--{t}": 100 for t in ("gfx942", "gfx1100:xnack-")}
    native = Artifact("lib.so", 1, 1, entries, kernels=["a", "b"], target_kernels={"gfx1100": ["a"]})
    assert native.kernels_for("gfx942") == ["a", "b"] and native.kernels_for("gfx1100") == ["a"]
    assert native.kernels_for("gfx90a") is None
    baseline = jit.JitRun("gfx942", [unit("a", "b")])
    baseline.check(["a", "b"], "native-1")
    others = [jit.JitRun("gfx1100", [unit("a", "b")]), jit.JitRun("gfx90a", [unit("a", "b")])]
    one = Artifact("lib.so", 1, 1, {"hipv4-amdgcn-amd-amdhsa--gfx942": 100}, kernels=["a", "b"])
    c = Comparison("p", {}, {}, [
        VariantResult(Variant("native", "native", ("gfx942", "gfx1100")), [Run(1, 1, 1, [native])]),
        VariantResult(Variant("native-1", "native", ("gfx942",)),
                      [Run(1, 1, 1, [one], jit=baseline, jit_others=others)])])
    check_jit(c)
    assert (others[0].kernels_match, others[0].checked_against) == (False, "native")  # gfx1100 has only a
    assert (others[1].kernels_match, others[1].checked_against) == (None, None)  # no build of gfx90a
    assert baseline.checked_against == "native-1" and baseline.kernels_match is True
    shown = {t.target: t for t in jit_targets(c)}
    assert list(shown) == ["gfx942", "gfx1100", "gfx90a"] and shown["gfx942"].baseline
    assert shown["gfx1100"].figures[0][1].median == pytest.approx(30.0)  # (0.01+0.02+0.03) s / 2 kernels
    note = jit_note(c) or ""
    assert "JIT figures for gfx942, gfx1100, gfx90a: " + jit.METHOD in note
    assert "kernels native's code objects for gfx1100 do not list" in note
    assert "not checked: no native build of gfx90a" in note


@pytest.mark.slow
def test_the_proxy_on_a_real_tu_links_ocml_and_finds_the_native_kernels(toolchain: Path, tmp_path: Path) -> None:
    clang = str(toolchain / "bin" / "clang++")
    (tmp_path / "k.hip").write_text(SOURCE)
    build = tmp_path / "build"
    build.mkdir()
    (build / "k.o").write_bytes(b"")  # the build compiled it (hip_units skips TUs without an object)
    db = [{"directory": str(build), "file": str(tmp_path / "k.hip"), "output": "k.o",
           "command": f"{clang} -O3 -std=c++17 --offload-arch=gfx90a -x hip -o k.o -c {tmp_path / 'k.hip'}"},
          {"directory": str(build), "file": str(tmp_path / "host.cpp"), "output": "host.o",
           "command": f"{clang} -O3 -o host.o -c {tmp_path / 'host.cpp'}"}]
    (build / "compile_commands.json").write_text(json.dumps(db))
    libs = jit.device_libs(shlex.split(db[0]["command"]), "gfx942", build)
    names = {Path(p).name for p in libs}
    assert {"ocml.bc", "ockl.bc", "oclc_isa_version_942.bc", "oclc_wavefrontsize64_on.bc"} <= names

    native = ["_Z3addPi", "_Z5scaleIdEvPT_S0_", "_Z5scaleIfEvPT_S0_"]
    run = jit.measure(clang, build, tmp_path, "gfx942", tmp_path / "scratch", native, "native-1")
    assert run.error is None, run.error
    (unit,) = run.units
    assert unit.source == "k.hip" and unit.kernels == native and run.kernels_match is True
    assert set(unit.cpu_s) == set(jit.STEPS) and all(v >= 0 for v in unit.cpu_s.values())
    assert unit.total_wall_s > 0 and unit.cpu_s["llc"] > 0
    assert not list((tmp_path / "scratch").iterdir())  # bitcode and objects removed

    missing = jit.measure(clang, build, tmp_path, "gfx942", tmp_path / "scratch", [*native, "_Z5otherv"],
                          "native-1")
    assert missing.kernels_match is False and missing.missing_kernels == ["_Z5otherv"]

    (build / "compile_commands.json").write_text("not json")
    broken = jit.measure(clang, build, tmp_path, "gfx942", tmp_path / "scratch", native, "native-1")
    assert broken.error is not None and "compile_commands.json" in broken.error
