"""samples/migration, unmodified, with a generated toolchain file: SPIR-V-only artifacts.

The same samples and artifact tables as tests/test_migration_samples.py (which builds them per-arch
as shipped); here every device entry must be the one SPIR-V entry, host-only targets must stay
host-only, and patterns no toolchain file can redirect must be named at configure time.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bundles import bundle_entries, device_entries
from tcfile import SPIRV_ONLY, build, configure, generate
from test_migration_samples import MIGRATION, SAMPLE_LIST, Sample

REDIRECTABLE = [s for s in SAMPLE_LIST if s.name != "unredirectable"]


@pytest.fixture(scope="module")
def spirv_toolchain_file(toolchain: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate(toolchain, tmp_path_factory.mktemp("tc") / "spirv.cmake")


@pytest.mark.parametrize("sample", REDIRECTABLE, ids=[s.name for s in REDIRECTABLE])
def test_sample_builds_spirv_only_unmodified(sample: Sample, spirv_toolchain_file: Path, toolchain: Path,
                                            tmp_path: Path) -> None:
    b = tmp_path / "build"
    out = configure(MIGRATION / sample.name, b, spirv_toolchain_file)
    assert "Retargeting cannot change this" not in out.stderr, out.stderr[-3000:]
    build(b)
    bundler = toolchain / "bin" / "clang-offload-bundler"
    for rel, native in sample.fatbins.items():
        assert device_entries(bundler, b / rel) == (SPIRV_ONLY if native else []), rel
    for rel in sample.bundles:
        data = (b / rel).read_bytes()
        assert data.startswith(b"__CLANG_OFFLOAD_BUNDLE__"), f"{rel} is not an offload bundle"
        device = [e for e in bundle_entries(bundler, data) if not e.startswith("host-")]
        assert len(device) == 1 and device[0].endswith("spirv64-amd-amdhsa--amdgcnspirv"), (rel, device)
    # Reconfiguring with the same file changes no compile line and rebuilds nothing.
    lines = (b / "build.ninja").read_text()
    configure(MIGRATION / sample.name, b, spirv_toolchain_file)
    again = (b / "build.ninja").read_text()
    flags = [ln for ln in lines.splitlines() if ln.strip().startswith(("FLAGS", "LINK_FLAGS", "COMMAND"))]
    assert flags == [ln for ln in again.splitlines() if ln.strip().startswith(("FLAGS", "LINK_FLAGS", "COMMAND"))]
    assert "no work to do" in build(b).stdout


def test_unredirectable_patterns_are_named_with_file_and_line(spirv_toolchain_file: Path, tmp_path: Path) -> None:
    src = MIGRATION / "unredirectable"
    out = configure(src, tmp_path / "build", spirv_toolchain_file, check=False)
    text = " ".join(out.stderr.split())
    # The project's own allow-list stops configure; before it, every unreachable pattern is named.
    for line, rule in ((18, "RSM108"), (33, "RSM106"), (42, "RSM107")):
        assert f"RocmSpirv: {src}/CMakeLists.txt:{line}:" in text and f"[{rule}]" in text, (line, rule)
    assert f"rocm-spirv migrate {src} --diff" in text
    assert out.returncode != 0 and "'amdgcnspirv' is not a gfx target name" in text


def test_configure_hook_honours_suppression_comments(spirv_toolchain_file: Path, tmp_path: Path) -> None:
    import shutil

    src = tmp_path / "src"
    shutil.copytree(MIGRATION / "unredirectable", src)
    cml = src / "CMakeLists.txt"
    lines = cml.read_text().splitlines(keepends=True)
    assert lines[32].startswith('if(GPU_TARGETS MATCHES "gfx9")')
    lines[32] = lines[32].rstrip("\n") + "  # rocm-spirv: ignore[RSM106]\n"
    cml.write_text("".join(lines))
    out = configure(src, tmp_path / "build", spirv_toolchain_file, check=False)
    text = " ".join(out.stderr.split())
    assert f"RocmSpirv: {src}/CMakeLists.txt:18:" in text and f"RocmSpirv: {src}/CMakeLists.txt:42:" in text
    assert f"RocmSpirv: {src}/CMakeLists.txt:33:" not in text
