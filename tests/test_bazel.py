"""bazel: generate @rocm_spirv, then real offline Bazel builds of samples/bazel in every offload mode."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from bundles import device_entries
from conftest import SAMPLES
from rocm_spirv.bazel import BazelConfig, render
from rocm_spirv.errors import UserError
from rocm_spirv.offload import spirv_device_flags
from rocm_spirv.toolchain.discover import explicit_candidate
from rocm_spirv.toolchain.probe import ProbeResult, probe

SPIRV = "spirv64-amd-amdhsa--amdgcnspirv"
# What each sample target leaves in bazel-bin; every one must carry the device code.
ARTIFACTS = ["libkernels.a", "app", "app_cc", "kernels_test", "libreal.a", "real_app"]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rocm_spirv", *args], capture_output=True, text=True,
                          check=False, timeout=300)


def targets(entries: list[str]) -> list[str]:
    """Bundle entry ids without the offload kind (hip-/hipv4-), which depends on the mix."""
    return sorted(re.sub(r"^hip(v4)?-", "", e) for e in entries)


@dataclass
class Workspace:
    root: Path
    bazel: str
    user_root: Path
    bundler: Path

    def run(self, command: str, *args: str) -> subprocess.CompletedProcess[str]:
        argv = [self.bazel, f"--output_user_root={self.user_root}", "--max_idle_secs=600", command,
                "--noshow_progress", *args]
        return subprocess.run(argv, cwd=self.root, capture_output=True, text=True, check=False, timeout=900)

    def build(self, *flags: str) -> subprocess.CompletedProcess[str]:
        out = self.run("build", *flags, "//...")
        assert "Download from" not in out.stderr, "Bazel tried to download something"
        return out

    def entries(self, artifact: str) -> list[str]:
        return targets(device_entries(self.bundler, self.root / "bazel-bin" / artifact))


@pytest.fixture(scope="module")
def workspace(toolchain: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    """samples/bazel with a generated @rocm_spirv, and one Bazel server for the module's builds."""
    bazel = shutil.which("bazel")
    if bazel is None:
        pytest.skip("bazel is not on PATH (apt-get install bazel-bootstrap)")
    base = tmp_path_factory.mktemp("bazel")
    root = base / "sample"
    shutil.copytree(SAMPLES / "bazel", root, ignore=shutil.ignore_patterns("rocm_spirv", "bazel-*"))
    out = cli("bazel", "generate", "--output", str(root / "rocm_spirv"),
              "--compiler", str(toolchain / "bin" / "clang++"))
    assert out.returncode == 0, out.stderr
    # A library pinned to its own native targets, beside the sample's packages.
    (root / "pinned").mkdir()
    shutil.copy(root / "saxpy.hip", root / "pinned" / "saxpy.hip")
    (root / "pinned" / "BUILD.bazel").write_text(
        'load("@rocm_spirv//:defs.bzl", "hip_library")\n'
        'hip_library(name = "pinned", srcs = ["saxpy.hip"], deps = ["//:kernels"], archs = ["gfx90a"],\n'
        '            copts = ["-nogpuinc", "-nogpulib"])\n')
    ws = Workspace(root, bazel, base / "user_root", toolchain / "bin" / "clang-offload-bundler")
    yield ws
    ws.run("shutdown")


def test_generate_renders_the_probed_compiler(toolchain: Path, tmp_path: Path) -> None:
    clang = toolchain / "bin" / "clang++"
    result = probe(explicit_candidate(str(clang)))
    out = cli("bazel", "generate", "--output", str(tmp_path / "repo"), "--compiler", str(clang))
    assert out.returncode == 0, out.stderr
    assert f'local_repository(name = "rocm_spirv", path = "{tmp_path / "repo"}")' in out.stdout
    repo = tmp_path / "repo"
    config = (repo / "toolchain_config.bzl").read_text()
    assert f"CLANG = {json.dumps(str(clang))}" in config
    assert f"GFX_TARGETS = {json.dumps(result.gfx_targets)}" in config
    assert f"SPIRV_FLAGS = {json.dumps(spirv_device_flags(result.spirv_flags))}" in config
    for name in ("WORKSPACE", "MODULE.bazel", "BUILD.bazel", "defs.bzl", "flags.bzl", "toolchain.bzl",
                 "offline/rules_cc/cc/defs.bzl", "offline/rules_java/java/defs.bzl",
                 "offline/remote_coverage_tools/BUILD"):
        assert (repo / name).is_file(), name
    assert os.access(repo / "offline/remote_coverage_tools/unavailable.sh", os.X_OK)
    # Regenerating over an earlier output is fine, and --json says what was generated.
    again = cli("bazel", "generate", "--output", str(repo), "--compiler", str(clang), "--json")
    assert again.returncode == 0, again.stderr
    data = json.loads(again.stdout)
    assert data["output"] == str(repo) and data["compiler"] == str(clang)
    assert data["gfx_targets"] == result.gfx_targets and data["spirv_flags"] == spirv_device_flags(result.spirv_flags)
    assert f'path = "{repo}"' in data["workspace"]


def test_generate_bad_input(toolchain: Path, tmp_path: Path) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine\n")
    out = cli("bazel", "generate", "--output", str(tmp_path / "busy"), "--compiler",
              str(toolchain / "bin" / "clang++"))
    assert out.returncode == 2 and "not a generated @rocm_spirv repository" in out.stderr
    assert "Traceback" not in out.stderr
    out = cli("bazel", "generate", "--output", str(tmp_path / "x"), "--compiler", str(tmp_path / "nope"))
    assert out.returncode == 2 and "not found or not executable" in out.stderr
    with pytest.raises(UserError, match="lists no AMD GPU targets"):
        BazelConfig.from_probe(ProbeResult(path="/x/clang++", source="explicit", argv=["/x/clang++"],
                                           version="22.1.0", hip=True))
    (tmp_path / "file").write_text("")
    with pytest.raises(UserError, match="is not a folder"):
        render(BazelConfig.from_probe(probe(explicit_candidate(str(toolchain / "bin" / "clang++")))),
               tmp_path / "file")


def test_spirv_builds_one_spirv_entry(workspace: Workspace) -> None:
    out = workspace.build("--@rocm_spirv//:offload=spirv")
    assert out.returncode == 0, out.stderr[-4000:]
    for artifact in [*ARTIFACTS, "pinned/libpinned.a"]:
        assert workspace.entries(artifact) == [SPIRV], artifact
    # The default mode is spirv: nothing to rebuild.
    again = workspace.build()
    assert again.returncode == 0 and workspace.entries("app") == [SPIRV]
    test = workspace.run("test", "//:kernels_test")
    assert test.returncode == 0, test.stderr[-4000:]
    run = workspace.run("run", "//:real_app")
    assert run.returncode == 0 and "real_app: no AMD GPU (no ROCm-capable device is detected)" in run.stdout, \
        (run.stdout, run.stderr[-3000:])


def test_native_builds_the_listed_archs(workspace: Workspace) -> None:
    out = workspace.build("--@rocm_spirv//:offload=native", "--@rocm_spirv//:archs=gfx90a,gfx942")
    assert out.returncode == 0, out.stderr[-4000:]
    for artifact in ARTIFACTS:
        assert workspace.entries(artifact) == ["amdgcn-amd-amdhsa--gfx90a", "amdgcn-amd-amdhsa--gfx942"], artifact


def test_hybrid_builds_spirv_and_the_listed_archs(workspace: Workspace) -> None:
    out = workspace.build("--@rocm_spirv//:offload=hybrid", "--@rocm_spirv//:archs=gfx942")
    assert out.returncode == 0, out.stderr[-4000:]
    for artifact in ARTIFACTS:
        assert workspace.entries(artifact) == ["amdgcn-amd-amdhsa--gfx942", SPIRV], artifact
    assert workspace.entries("pinned/libpinned.a") == ["amdgcn-amd-amdhsa--gfx90a", SPIRV]


def test_bad_archs_fail_analysis_listing_valid_targets(workspace: Workspace, toolchain: Path) -> None:
    valid = probe(explicit_candidate(str(toolchain / "bin" / "clang++"))).gfx_targets
    out = workspace.build("--@rocm_spirv//:offload=native", "--@rocm_spirv//:archs=gfx90a,gfx9999")
    assert out.returncode != 0
    assert "Analysis of target" in out.stderr and "0 processes" in out.stderr
    assert "'gfx9999' is not a valid AMD GPU target for this compiler" in out.stderr
    assert f"valid targets: {', '.join(valid)}" in out.stderr
    pinned_bad = workspace.root / "pinned" / "bad" / "BUILD.bazel"
    pinned_bad.parent.mkdir()
    pinned_bad.write_text('load("@rocm_spirv//:defs.bzl", "hip_library")\n'
                          'hip_library(name = "bad", archs = ["gfx9000"])\n')
    try:
        out = workspace.run("build", "//pinned/bad")
    finally:
        shutil.rmtree(pinned_bad.parent)
    assert out.returncode != 0
    assert "//pinned/bad:bad archs: 'gfx9000' is not a valid AMD GPU target" in out.stderr
    bad_mode = workspace.build("--@rocm_spirv//:offload=fast")
    assert bad_mode.returncode != 0
    assert "'fast' is not an offload mode; use one of: spirv, native, hybrid" in bad_mode.stderr


@pytest.mark.slow
def test_spirv_needs_a_spirv_compiler(tmp_path: Path) -> None:
    """With a compiler that cannot emit SPIR-V (Debian's clang 19), spirv and hybrid fail analysis."""
    bazel, clang19 = shutil.which("bazel"), shutil.which("clang++-19")
    if bazel is None or clang19 is None:
        pytest.skip("needs bazel and clang++-19 on PATH (apt-get install bazel-bootstrap clang-19)")
    result = probe(explicit_candidate(clang19))
    if result.can_spirv or not result.hip:
        pytest.skip(f"{clang19} is not a HIP compiler without SPIR-V")
    root = tmp_path / "sample"
    shutil.copytree(SAMPLES / "bazel", root, ignore=shutil.ignore_patterns("rocm_spirv", "bazel-*"))
    assert cli("bazel", "generate", "--output", str(root / "rocm_spirv"), "--compiler", clang19).returncode == 0
    ws = Workspace(root, bazel, tmp_path / "user_root", Path(result.bundler or "clang-offload-bundler"))
    try:
        for mode in ("spirv", "hybrid"):
            out = ws.build(f"--@rocm_spirv//:offload={mode}")
            assert out.returncode != 0 and "0 processes" in out.stderr
            assert f"--@rocm_spirv//:offload={mode}: {clang19} cannot emit amdgcnspirv" in out.stderr
    finally:
        ws.run("shutdown")


def test_stub_runtime_without_libamdhip64(toolchain: Path, tmp_path: Path) -> None:
    """Generated where no libamdhip64 was found: binaries link the stub and run."""
    bazel = shutil.which("bazel")
    if bazel is None:
        pytest.skip("bazel is not on PATH (apt-get install bazel-bootstrap)")
    root = tmp_path / "sample"
    shutil.copytree(SAMPLES / "bazel", root, ignore=shutil.ignore_patterns("rocm_spirv", "bazel-*"))
    cfg = BazelConfig.from_probe(probe(explicit_candidate(str(toolchain / "bin" / "clang++"))))
    cfg.hip_runtime = None
    render(cfg, root / "rocm_spirv")
    ws = Workspace(root, bazel, tmp_path / "user_root", toolchain / "bin" / "clang-offload-bundler")
    try:
        # Only the builtin-only app: the real-HIP targets call the runtime API, which a
        # registration-only stub cannot provide.
        out = ws.run("build", "//:app")
        assert out.returncode == 0, out.stderr[-4000:]
        assert ws.entries("app") == [SPIRV]
        run = subprocess.run([str(root / "bazel-bin" / "app")], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0 and "no HIP runtime was linked (stub)" in run.stderr
    finally:
        ws.run("shutdown")
