"""A damaged provisioned prefix: doctor and toolchain list say so in one line or fail the gate, never pass it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rocm_spirv.toolchain.provision import provision

pytestmark = pytest.mark.slow  # each test provisions its own prefix to damage (~20 s on a loaded machine)


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rocm_spirv", *args], capture_output=True,
                          text=True, check=False, env={**os.environ, **(env or {})}, timeout=600)


@pytest.fixture
def prefix(tmp_path: Path) -> Path:
    return Path(provision(tmp_path / "p").prefix)


def test_a_truncated_device_library_fails_doctor(prefix: Path, tmp_path: Path) -> None:
    env = {"ROCM_SPIRV_CACHE": str(tmp_path / "cache")}
    clang = str(prefix / "bin" / "clang++")
    assert cli("doctor", "--no-build", "--compiler", clang, env=env).returncode == 0
    ocml = prefix / "amdgcn" / "bitcode" / "ocml.bc"
    with ocml.open("r+b") as f:
        f.truncate(ocml.stat().st_size // 2)
    out = cli("doctor", "--json", "--no-build", "--compiler", clang, env=env)
    assert out.returncode == 1, out.stdout
    prefix_check = next(c for c in json.loads(out.stdout)["checks"] if c["name"] == "prefix")
    assert not prefix_check["ok"] and "ocml.bc was changed" in prefix_check["detail"]


def test_doctor_fails_when_a_required_mode_is_not_ready(prefix: Path, tmp_path: Path) -> None:
    import shutil
    env = {"ROCM_SPIRV_CACHE": str(tmp_path / "cache")}
    clang = str(prefix / "bin" / "clang++")
    assert cli("doctor", "--no-build", "--require", "native,hybrid", "--compiler", clang, env=env).returncode == 0
    shutil.rmtree(prefix / "amdgcn")  # native and hybrid need the device libraries; spirv does not
    assert cli("doctor", "--no-build", "--compiler", clang, env=env).returncode == 0
    out = cli("doctor", "--no-build", "--require", "native,hybrid", "--compiler", clang, env=env)
    assert out.returncode == 1 and "not ready: native, hybrid" in out.stdout, out.stdout
    bad = cli("doctor", "--no-build", "--require", "nativ", "--compiler", clang, env=env)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "nativ" in bad.stderr


@pytest.mark.parametrize(("field", "value"), [("files", ["bin/clang++"]), ("external", "x"),
                                              ("gfx_targets", {"a": 1}), ("bundler", 3)])
def test_a_manifest_with_wrong_field_types_is_one_line(prefix: Path, tmp_path: Path, field: str,
                                                       value: object) -> None:
    manifest = prefix / "manifest.json"
    data = json.loads(manifest.read_text())
    data[field] = value
    manifest.write_text(json.dumps(data))
    env = {"ROCM_SPIRV_CACHE": str(tmp_path / "cache")}
    for argv in (["doctor", "--no-build", "--compiler", str(prefix / "bin" / "clang++")],
                 ["toolchain", "list", "--prefix", str(prefix)]):
        out = cli(*argv, env=env)
        assert out.returncode == 2 and "Traceback" not in out.stderr, (argv, out.stderr)
        assert out.stderr.count("\n") == 1 and f"damaged ({field} is" in out.stderr, out.stderr
