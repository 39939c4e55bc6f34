"""The WORKSPACE lines `bazel generate` prints name the repository relative to the workspace it is run
in (lines a team can commit), and by absolute path outside any workspace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import REPO


def generate(cwd: Path, toolchain: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rocm_spirv", "bazel", "generate", "--compiler",
                           str(toolchain / "bin" / "clang++"), *argv], capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(REPO / "plugin"), "PATH": "/usr/bin:/bin"}, check=False, timeout=300)


def test_paths_are_relative_inside_a_workspace(toolchain: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "WORKSPACE").write_text("")
    done = generate(ws / "src", toolchain, "--output-dir", "../third_party/rocm_spirv")  # run from a subfolder
    assert done.returncode == 0, done.stderr
    assert 'local_repository(name = "rocm_spirv", path = "third_party/rocm_spirv")\n' in done.stdout
    assert 'path = "third_party/rocm_spirv/offline/rules_cc")' in done.stdout
    assert (ws / "third_party" / "rocm_spirv" / "toolchain_config.bzl").is_file()
    # The lines are what samples/bazel, a workspace Bazel builds in the tests, commits.
    assert 'name = "rocm_spirv",\n    path = "rocm_spirv",' in (REPO / "samples/bazel/WORKSPACE").read_text()


def test_paths_are_absolute_outside_a_workspace(toolchain: Path, tmp_path: Path) -> None:
    done = generate(tmp_path, toolchain, "--output-dir", "out")
    assert done.returncode == 0, done.stderr
    assert f'local_repository(name = "rocm_spirv", path = "{tmp_path / "out"}")' in done.stdout
