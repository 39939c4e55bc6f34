"""`rocm-spirv migrate --apply` on samples/migration, then real builds: SPIR-V only, and per arch with native.

Each sample (but `unredirectable`) is copied, migrated with `--apply` (a second `--apply` must change
nothing, sources stay byte-identical), then configured with nothing but the compilers, RocmSpirv_DIR
and ROCM_SPIRV_PYTHON: every GPU artifact of the sample's table in test_migration_samples.py must hold
exactly the SPIR-V entry (checked with the real clang-offload-bundler and with `rocm-spirv inspect
--require spirv-only`), host-only ones none. A second build dir with -DROCM_SPIRV_OFFLOAD=native must
give the sample's original gfx lists. `unredirectable` keeps findings only a hand edit fixes: --check
exits 1 naming them, --apply marks them and keeps the per-arch build working.

Expected time on 2 cores: two configure+builds per sample, ~5-8 s each, so about a minute for the file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bundles import bundle_entries, device_entries
from cmakebuild import tool
from conftest import REPO
from rocm_spirv.cli import main
from test_migration_samples import MIGRATION, SAMPLE_LIST, Sample, check_artifacts, configure_and_build

SPIRV = ["hip-spirv64-amd-amdhsa--amdgcnspirv"]
SOURCES = {".hip", ".cpp", ".h", ".hpp", ".cl"}
REDIRECTABLE = [s for s in SAMPLE_LIST if s.name != "unredirectable"]
UNREDIRECTABLE = next(s for s in SAMPLE_LIST if s.name == "unredirectable")


def package_defs() -> tuple[str, str]:
    return f"RocmSpirv_DIR={REPO / 'cmake'}", f"ROCM_SPIRV_PYTHON={sys.executable}"


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def migrate_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    capsys.readouterr()
    code = main(["migrate", *argv, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def apply_twice(src: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    """--apply, then a second --apply that must change nothing; sources are never edited."""
    before = snapshot(src)
    code, report = migrate_json(capsys, str(src), "--apply")
    assert code == 0 and report["changed_files"], report
    after = snapshot(src)
    for rel, data in before.items():
        if Path(rel).suffix in SOURCES:
            assert after[rel] == data, f"--apply edited the source {rel}"
    assert set(after) == set(before)  # nothing added or removed
    code, again = migrate_json(capsys, str(src), "--apply")
    assert code == 0 and again["changed_files"] == [] and snapshot(src) == after
    capsys.readouterr()
    assert main(["migrate", str(src), "--diff"]) == 0 and capsys.readouterr().out == ""
    return again


def inspect_spirv_only(paths: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    code = main(["inspect", "--require", "spirv-only", *map(str, paths)])
    out = capsys.readouterr().out
    assert code == 0 and "requirement spirv-only met" in out, out[-3000:]


def check_spirv(sample: Sample, build: Path, bundler: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gpu = []
    for rel, original in sample.fatbins.items():
        assert device_entries(bundler, build / rel) == (SPIRV if original else []), rel
        if original:
            gpu.append(build / rel)
    for rel in sample.bundles:
        data = (build / rel).read_bytes()
        assert data.startswith(b"__CLANG_OFFLOAD_BUNDLE__"), f"{rel} is not a raw offload bundle"
        assert [e for e in bundle_entries(bundler, data) if not e.startswith("host-")] == SPIRV, rel
        gpu.append(build / rel)
    assert gpu, f"{sample.name} lists no GPU artifact"
    inspect_spirv_only(gpu, capsys)


@pytest.mark.parametrize("sample", REDIRECTABLE, ids=[s.name for s in REDIRECTABLE])
def test_apply_builds_spirv_only_and_native_per_arch(sample: Sample, toolchain: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    shutil.copytree(MIGRATION / sample.name, src)
    apply_twice(src, capsys)
    bundler = toolchain / "bin" / "clang-offload-bundler"
    configure_and_build(src, tmp_path / "spirv", toolchain, *package_defs())
    check_spirv(sample, tmp_path / "spirv", bundler, capsys)
    configure_and_build(src, tmp_path / "native", toolchain, *package_defs(), "ROCM_SPIRV_OFFLOAD=native")
    check_artifacts(sample, tmp_path / "native", bundler)


def test_hip_language_spirv_mode_given_on_the_command_line(toolchain: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """-DROCM_SPIRV_OFFLOAD=spirv is seen before project(): the guarded list is amdgcnspirv, not empty."""
    src = tmp_path / "src"
    shutil.copytree(MIGRATION / "hip_language", src)
    apply_twice(src, capsys)
    out = configure_and_build(src, tmp_path / "spirv", toolchain, *package_defs(), "ROCM_SPIRV_OFFLOAD=spirv")
    assert "hip_language: building for amdgcnspirv" in out
    sample = next(s for s in SAMPLE_LIST if s.name == "hip_language")
    check_spirv(sample, tmp_path / "spirv", toolchain / "bin" / "clang-offload-bundler", capsys)


def test_unredirectable_check_lists_build_file_findings_and_apply_keeps_native(
        toolchain: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    shutil.copytree(MIGRATION / "unredirectable", src)
    code, report = migrate_json(capsys, str(src), "--check")
    assert code == 1
    findings = report["findings"]
    assert isinstance(findings, list)
    left = {(f["line"], f["rule"]) for f in findings if f["redirect"] == "build-file" and not f["handled"]}
    assert {(18, "RSM108"), (20, "RSM106"), (23, "RSM108"), (33, "RSM106"), (42, "RSM107"),
            (56, "RSM114")} <= left
    apply_twice(src, capsys)
    assert main(["migrate", str(src), "--check"]) == 1  # what needs a hand edit is still there
    capsys.readouterr()
    text = (src / "CMakeLists.txt").read_text()
    for rule in ("RSM106 arch-branch", "RSM107 per-arch-loop", "RSM108 arch-allow-list", "RSM114 arch-list-entry"):
        assert f"# rocm-spirv migrate: {rule}: needs an edit for SPIR-V" in text
    # The per-arch build is as before: gfx90a/gfx1100 code objects, the gfx9 branch taken.
    bundler = toolchain / "bin" / "clang-offload-bundler"
    configure_and_build(src, tmp_path / "native", toolchain, *package_defs(), "ROCM_SPIRV_OFFLOAD=native")
    check_artifacts(UNREDIRECTABLE, tmp_path / "native", bundler)
    # Under SPIR-V the project's own allow-list stops the configure, at the construct the note marks.
    clang = toolchain / "bin" / "clang++"
    proc = subprocess.run([tool("cmake"), "-S", str(src), "-B", str(tmp_path / "spirv"), "-G", "Ninja",
                           f"-DCMAKE_MAKE_PROGRAM={tool('ninja')}", f"-DCMAKE_HIP_COMPILER={clang}",
                           f"-DCMAKE_CXX_COMPILER={clang}", *(f"-D{d}" for d in package_defs())],
                          capture_output=True, text=True, env=dict(os.environ), check=False)
    assert proc.returncode != 0 and "'amdgcnspirv' is not a gfx target name" in proc.stdout + proc.stderr
