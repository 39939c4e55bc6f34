"""compare: real builds of a sample both ways, report files, a failing mode reported."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, SAMPLES
from jsoncheck import conforms

pytestmark = pytest.mark.slow  # every test here builds real projects several ways


def compare(toolchain: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rocm_spirv", "compare", "--compiler", str(toolchain / "bin" / "clang++"), *args],
        capture_output=True, text=True, check=False, env={**os.environ, "COLUMNS": "160"}, timeout=900,
    )


def test_compare_kernels_report(toolchain: Path, tmp_path: Path) -> None:
    out = compare(toolchain, str(SAMPLES / "kernels"), "--archs", "gfx90a,gfx942,gfx1100", "--repeat", "1",
                  "--compress", "--scaling", "1,2,3", "--report", str(tmp_path), "--json")
    assert out.returncode == 0, out.stderr[-3000:]
    data = conforms(json.loads(out.stdout))
    assert data["schema"] == "rocm-spirv/compare/1" and not data["partial"]
    by_name = {r["variant"]["name"]: r for r in data["results"]}
    assert set(by_name) == {"native", "spirv", "native-1", "native+compress", "spirv+compress", "scaling-2",
                            "native-1+compress", "scaling-2+compress"}
    assert all(r["ok"] for r in by_name.values())
    spirv_art = by_name["spirv"]["runs"][0]["artifacts"]
    assert [a["path"] for a in spirv_art] == ["librk_kernels.so"]
    assert set(spirv_art[0]["entries"]) == {"hip-spirv64-amd-amdhsa--amdgcnspirv"}
    native_entries = set(by_name["native"]["runs"][0]["artifacts"][0]["entries"])
    assert native_entries == {f"hipv4-amdgcn-amd-amdhsa--{g}" for g in ("gfx90a", "gfx942", "gfx1100")}
    s = data["summary"]
    # Three targets against one: device code is built three times. The build-time ratio is measured, not
    # asserted against a threshold (a timing is a benchmark's: benchmarks/compare_samples.py; in the full suite the
    # CPU ratio came out at 1.45 once, below the 1.5 this test used to require); the device-code ratio below
    # is deterministic.
    assert s["build_cpu_ratio_native_over_spirv"] > 0
    # The JIT proxy on builtin-only kernels (-nogpulib: no device library to link).
    assert s["jit_kernel_cpu_ms"] > 0 and by_name["native-1"]["runs"][0]["jit"]["kernels_match"] is True
    assert s["fatbin_ratio_native_over_spirv"] > 1.5
    assert s["jit_estimate_s"] > 0
    kernels = by_name["native-1"]["runs"][0]["artifacts"][0]["kernels"]
    assert len(kernels) > 10 and s["jit_estimate_per_kernel_ms"] == pytest.approx(
        1000 * by_name["native-1"]["stats"]["build_s"]["median"] / len(kernels))
    # Measured at 1, 2 and 3 targets: every metric has a break-even answer.
    assert {b["key"] for b in data["break_even"]} == {"build_time", "build_cpu", "device_code",
                                                     "device_code_compressed", "file_size", "file_size_compressed"}
    assert all(b["measured_from"] == 1 and b["measured_up_to"] == 3 and b["text"] for b in data["break_even"])
    assert data["compiler"]["version"].startswith("22.")
    # compare's own time is what its wall time holds beyond the configures and builds it timed.
    timed = sum(run["configure_s"] + run["build_s"] + run["jit_s"] for r in data["results"] for run in r["runs"])
    over = data["overhead"]
    assert over["timed_s"] == pytest.approx(timed) and over["wall_s"] > timed
    assert over["fraction"] == pytest.approx((over["wall_s"] - timed) / over["wall_s"])
    assert (tmp_path / "scaling.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (tmp_path / "report.md").read_text()
    assert "| spirv | amdgcnspirv |" in md and "estimate" in md and "compare's own overhead:" in md
    assert json.loads((tmp_path / "report.json").read_text())["summary"] == s


def test_failing_mode_is_reported_and_the_other_still_runs(toolchain: Path, tmp_path: Path) -> None:
    out = compare(toolchain, str(REPO / "tests" / "data" / "arch_branch"), "--archs", "gfx942", "--repeat", "1",
                  "--no-compress", "--json")
    assert out.returncode == 1
    by_name = {r["variant"]["name"]: r for r in json.loads(out.stdout)["results"]}
    assert by_name["native"]["ok"] and by_name["native-1"]["ok"]
    assert not by_name["spirv"]["ok"] and "needs a gfx9 or gfx11 target" in by_name["spirv"]["error"]
    assert by_name["spirv"]["error"].startswith(("configure failed: ", "build failed: "))  # with the command
    # In a pipe, progress is a line per build on stderr (a CI log is never silent for minutes).
    steps = [ln for ln in out.stderr.splitlines() if ln.startswith("[")]
    assert steps and all(re.fullmatch(r"\[\d+/3\] building (native|spirv|native-1), repeat 1/1", ln) for ln in steps)


def test_compare_bad_input(toolchain: Path, tmp_path: Path) -> None:
    out = compare(toolchain, str(tmp_path))
    assert out.returncode == 2 and "has no CMakeLists.txt" in out.stderr and "Traceback" not in out.stderr
    out = compare(toolchain, str(SAMPLES / "kernels"), "--archs", "gfx940")
    assert out.returncode == 2 and "unknown GPU target(s) gfx940" in out.stderr


def test_compare_needs_no_edits_on_hard_coded_flags(toolchain: Path) -> None:
    out = compare(toolchain, str(REPO / "tests" / "data" / "hardcoded"), "--repeat", "1",
                  "--archs", "gfx90a,gfx1100", "--native-archs", "gfx942", "--json")
    assert out.returncode == 0, out.stderr[-3000:]
    by_name = {r["variant"]["name"]: r for r in json.loads(out.stdout)["results"]}

    def entries(name: str) -> set[str]:
        return set(by_name[name]["runs"][0]["artifacts"][0]["entries"])

    assert entries("spirv") == {"hip-spirv64-amd-amdhsa--amdgcnspirv"}
    assert entries("hybrid") == {"hipv4-spirv64-amd-amdhsa--amdgcnspirv", "hipv4-amdgcn-amd-amdhsa--gfx942"}
    # Native is --archs through a native toolchain file, whatever the project hard-codes (gfx90a;gfx942).
    assert entries("native") == {"hipv4-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx1100"}


def test_second_run_reproduces_sizes_against_the_first_report(toolchain: Path, tmp_path: Path) -> None:
    project = str(SAMPLES / "cmake" / "raw_flags")
    first = compare(toolchain, project, "--archs", "gfx90a", "--repeat", "1", "--no-compress",
                    "--report", str(tmp_path / "one"))
    assert first.returncode == 0, first.stderr[-3000:]
    again = compare(toolchain, project, "--archs", "gfx90a", "--repeat", "1", "--no-compress", "--json",
                    "--against", str(tmp_path / "one" / "report.json"), "--report", str(tmp_path / "two"))
    assert again.returncode == 0, again.stderr[-3000:]
    rep = json.loads(again.stdout)["reproduction"]
    sizes = [c for c in rep["checks"] if c["metric"].endswith("_bytes")]
    assert {c["variant"] for c in sizes} == {"native", "spirv", "native-1"}
    # Device code is bit-for-bit the same size on a second run (timings are the benchmark's business).
    assert all(c["within"] and c["median"] == c["earlier_median"] for c in sizes), sizes
    size_ratios = {c["metric"]: c for c in rep["checks"] if c["ratio"] and "fatbin" in c["metric"]}
    assert size_ratios["fatbin_ratio_native_over_spirv"]["within"], size_ratios
    assert rep["sizes_within"] is True and isinstance(rep["timing_drift"], float)
    # One repeat a side: no interval, so timings are listed but only sizes decide, and it says why.
    assert rep["reproduced"] is True and rep["timing_checks"] == 0 and "single repeat" in rep["timings_not_judged"]
    assert "## Reproduction" in (tmp_path / "two" / "report.md").read_text()
    bad = compare(toolchain, project, "--against", str(tmp_path / "one" / "report.md"))
    assert bad.returncode == 2 and "cannot read the earlier report" in bad.stderr


def test_real_project_with_cache_entries_targets_and_baseline(toolchain: Path, tmp_path: Path) -> None:
    """-D and --target pass through; --baseline picks the one-target build; spaces separate --archs."""
    out = compare(toolchain, str(SAMPLES / "hip_library"), "--archs", "gfx942 gfx1100", "--reference-arch", "gfx90a",
                  "-D", "HIPLIB_BUILD_APP=OFF", "--target", "hiplib", "--repeat", "1", "--no-compress", "--json")
    assert out.returncode == 0, out.stderr[-3000:]
    data = json.loads(out.stdout)
    by_name = {r["variant"]["name"]: r for r in data["results"]}
    assert by_name["native-1"]["variant"]["archs"] == ["gfx90a"]
    assert by_name["native"]["variant"]["archs"] == ["gfx942", "gfx1100"]
    for r in by_name.values():
        assert [a["path"] for a in r["runs"][0]["artifacts"]] == ["libhiplib.a"]  # no app: -D and --target held
    assert any("-DHIPLIB_BUILD_APP=OFF" in c for c in data["commands"][1])
    assert data["commands"][-1][-2:] == ["--target", "hiplib"]
    for key in ("build_wall_ratio_native_over_spirv", "build_wall_ratio_spirv_over_native1",
                "fatbin_ratio_native_over_spirv", "file_ratio_native_over_spirv", "jit_estimate_per_kernel_ms",
                "build_cpu_ratio_native_over_spirv", "jit_kernel_cpu_ms", "jit_kernel_cpu_p90_ms"):
        assert data["summary"][key] is not None, key
    # The JIT proxy's gfx90a code objects hold exactly the native build's kernels (.kd symbols).
    jit = by_name["native-1"]["runs"][0]["jit"]
    assert jit["target"] == "gfx90a" and jit["error"] is None and jit["kernels_match"] is True, jit
    kernels = {k for u in jit["units"] for k in u["kernels"]}
    assert kernels == {k for a in by_name["native-1"]["runs"][0]["artifacts"] for k in a["kernels"]}
    assert len(kernels) > 30 and {u["source"] for u in jit["units"]} >= {"src/softmax.hip", "src/elementwise.hip"}
    assert all(set(u["cpu_s"]) == {"link", "opt", "llc", "lld"} for u in jit["units"])
    assert data["summary"]["jit_kernel_cpu_p90_ms"] >= data["summary"]["jit_kernel_cpu_ms"] > 0


def test_jit_targets_measures_each_target_and_checks_its_kernels(toolchain: Path, tmp_path: Path) -> None:
    """--jit-targets gfx942,gfx1100 on the smallest sample: both targets measured from the baseline build,
    each checked against a native build of that target, in the terminal, report.json and report.md."""
    out = compare(toolchain, str(SAMPLES / "cmake" / "raw_flags"), "--archs", "gfx942,gfx1100",
                  "--jit-targets", "gfx942;gfx1100", "--repeat", "1", "--no-compress", "--report", str(tmp_path))
    assert out.returncode == 0, out.stderr[-3000:]
    data = conforms(json.loads((tmp_path / "report.json").read_text()))
    by_name = {r["variant"]["name"]: r for r in data["results"]}
    run = by_name["native-1"]["runs"][0]
    assert [j["target"] for j in [run["jit"], *run["jit_others"]]] == ["gfx942", "gfx1100"]
    targets = {t["target"]: t for t in data["jit_targets"]}
    assert list(targets) == ["gfx942", "gfx1100"] and targets["gfx942"]["baseline"] is True
    native = {k for a in by_name["native"]["runs"][0]["artifacts"] for k in a["kernels"]}
    assert native
    for target, against in (("gfx942", "native-1"), ("gfx1100", "native")):
        t = targets[target]
        assert t["error"] is None and t["kernels_match"] is True and t["checked_against"] == against, t
        assert t["stats"]["jit_kernel_cpu_ms"]["median"] > 0 and t["stats"]["jit_unit_cpu_ms"]["median"] > 0
        assert t["method"] == data["jit_targets"][0]["method"] and "offline proxy" in t["method"]
        j = run["jit"] if target == "gfx942" else run["jit_others"][0]
        assert {k for u in j["units"] for k in u["kernels"]} == native
    # The summary's JIT figures stay the reference arch's.
    assert data["summary"]["jit_kernel_cpu_ms"] == targets["gfx942"]["stats"]["jit_kernel_cpu_ms"]["median"]
    # Every view names both targets: the terminal (stdout in a pipe) and report.md.
    assert "JIT work per target" in out.stdout and "  gfx1100: 1 TUs" in out.stdout, out.stdout
    assert "JIT figures for gfx942, gfx1100:" in " ".join(out.stdout.split())
    md = (tmp_path / "report.md").read_text()
    assert "| gfx942 (reference arch) | 1 |" in md and "| gfx1100 | 1 |" in md
    assert "the same kernels as native's code objects for gfx1100" in md

    bad = compare(toolchain, str(SAMPLES / "cmake" / "raw_flags"), "--jit-targets", "gfx942,gfx9999")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines() == [bad.stderr.strip()] and "gfx9999 in --jit-targets" in bad.stderr
    # [tool.rocm-spirv.compare] jit-targets is read, and the flag wins (--scaling 0 then fails after it).
    project = tmp_path / "raw_flags"
    shutil.copytree(SAMPLES / "cmake" / "raw_flags", project)
    (project / "rocm-spirv.toml").write_text('[compare]\njit-targets = ["gfx942", "gfx9999"]\n')
    from_file = compare(toolchain, str(project))
    assert from_file.returncode == 2 and "gfx9999 in --jit-targets" in from_file.stderr, from_file.stderr
    flag = compare(toolchain, str(project), "--jit-targets", "gfx1100", "--scaling", "0")
    assert flag.returncode == 2 and "--scaling counts" in flag.stderr, flag.stderr


@pytest.mark.parametrize(("args", "needle"), [
    (["--archs", ""], "--archs '' names no GPU target"),
    (["--jobs", "-3"], "--jobs -3 is not a number of parallel jobs"),
    (["-D", "NOVALUE"], "-D 'NOVALUE' is not VAR=VALUE"),
    (["-D", "GPU_TARGETS=gfx942"], "-D GPU_TARGETS is set by every variant's toolchain file"),
    (["--reference-arch", "gfx9999"], "unknown GPU target(s) gfx9999 in --reference-arch"),
    (["--jit-targets", "gfx90a:xnack+"], "unknown GPU target(s) gfx90a:xnack+ in --jit-targets"),
    (["--jit-targets", ";"], "--jit-targets ';' names no GPU target"),
])
def test_compare_options_bad_input(args: list[str], needle: str, toolchain: Path) -> None:
    out = compare(toolchain, str(SAMPLES / "kernels"), *args)
    assert out.returncode == 2 and needle in out.stderr and "Traceback" not in out.stderr, out.stderr


def test_an_unmodified_example_collection_with_several_executables(toolchain: Path) -> None:
    """The layout of AMD's HIP example collection, untouched (no migrate): `-D` sets its GPU_RUNTIME cache
    entry and `--target` picks three executables from three example projects; every ratio is reported."""
    wanted = ["hip_saxpy", "hip_vector_add", "hip_warp_shuffle"]
    out = compare(toolchain, str(REPO / "tests" / "data" / "example_collection"), "--archs", "gfx942 gfx1100",
                  "-D", "GPU_RUNTIME=HIP", *(a for t in wanted for a in ("--target", t)), "--repeat", "1",
                  "--no-compress", "--json")
    assert out.returncode == 0, out.stderr[-3000:]
    data = json.loads(out.stdout)
    by_name = {r["variant"]["name"]: r for r in data["results"]}
    expected = {"native": {"gfx942", "gfx1100"}, "native-1": {"gfx942"}, "spirv": {"amdgcnspirv"}}
    for name, archs in expected.items():
        artifacts = by_name[name]["runs"][0]["artifacts"]
        assert sorted(Path(a["path"]).name for a in artifacts) == wanted, name  # only the targets asked for
        for a in artifacts:
            assert {e.rsplit("--", 1)[1] for e in a["entries"]} == archs, (name, a)
    assert data["commands"][-1][-4:] == ["--target", *wanted]
    for key in ("build_wall_ratio_native_over_spirv", "build_wall_ratio_spirv_over_native1",
                "fatbin_ratio_native_over_spirv", "file_ratio_native_over_spirv", "jit_estimate_per_kernel_ms"):
        assert data["summary"][key] is not None, key
    assert {b["key"] for b in data["break_even"]} >= {"build_time", "device_code", "file_size"}
