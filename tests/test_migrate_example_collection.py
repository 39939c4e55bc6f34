"""`migrate --apply` on a HIP example collection: the whole tree and each example project build SPIR-V only.

tests/data/example_collection is laid out as AMD's public example collection is: a top level that adds a
category, which adds the examples, and every example directory a project of its own. Its HIP targets
are named through variables (`add_executable(${example_name} ${sources})`, `LANGUAGE ${GPU_RUNTIME}`,
`.cpp` files made HIP in a static library, executables added in a foreach). migrate must find all five
definitions (RSM120), and after --apply (twice: the second changes nothing) the tree must configure and
build from the top and from example directories alone, every GPU artifact holding only amdgcnspirv (the
real clang-offload-bundler and `rocm-spirv inspect --require spirv-only`); -DROCM_SPIRV_OFFLOAD=native
from the top gives the collection's own gfx lists back.

Expected time on 2 cores: one top-level build ~15 s per mode, three example builds ~8 s each; ~70 s.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bundles import device_entries
from test_migrate_apply_samples import SPIRV, apply_twice, inspect_spirv_only, migrate_json, package_defs, snapshot
from test_migration_samples import configure_and_build, gfx

COLLECTION = Path(__file__).resolve().parent / "data" / "example_collection"
# build-dir path of each GPU artifact when the whole collection is configured -> its gfx list as shipped
ARTIFACTS = {
    "HIP-Basic/saxpy/hip_saxpy": gfx("gfx90a", "gfx942", "gfx1100"),
    "HIP-Basic/vector_add/hip_vector_add": gfx("gfx90a", "gfx942", "gfx1100"),
    "HIP-Basic/matrix_transpose/hip_matrix_transpose": gfx("gfx90a", "gfx942", "gfx1100"),
    "HIP-Basic/static_library/libhip_saxpy_library.a": gfx("gfx90a", "gfx942", "gfx1100"),
    "HIP-Basic/static_library/hip_static_library": gfx("gfx90a", "gfx942", "gfx1100"),  # host code + the library
    "HIP-Basic/warp_ops/hip_warp_shuffle": gfx("gfx90a", "gfx942"),  # HIP_ARCHITECTURES "${GPU_TARGETS}"
    "HIP-Basic/warp_ops/hip_warp_vote": gfx("gfx90a", "gfx942"),
}
# (file, line) of each HIP target definition
DEFINITIONS = {
    ("HIP-Basic/saxpy/CMakeLists.txt", 29): "hip_saxpy",
    ("HIP-Basic/vector_add/CMakeLists.txt", 26): "hip_vector_add",
    ("HIP-Basic/matrix_transpose/CMakeLists.txt", 22): "hip_matrix_transpose",
    ("HIP-Basic/static_library/CMakeLists.txt", 12): "hip_saxpy_library",
    ("HIP-Basic/warp_ops/CMakeLists.txt", 19): "${example} (each of hip_warp_shuffle, hip_warp_vote)",
}
EXAMPLES = ("saxpy", "vector_add", "matrix_transpose", "static_library", "warp_ops")
ALONE = ("saxpy", "static_library", "warp_ops")  # example projects configured on their own


def hip_target_notes(report: dict[str, object]) -> list[dict[str, object]]:
    findings = report["findings"]
    assert isinstance(findings, list)
    return [f for f in findings if f["rule"] == "RSM120"]


def test_migrate_finds_every_hip_target_then_none_left(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    shutil.copytree(COLLECTION, src)
    _, before = migrate_json(capsys, str(src), "--select", "RSM120")
    notes = hip_target_notes(before)
    assert {(f["path"], f["line"]): f["message"] for f in notes} == {
        k: f"HIP target {name} is not handed to rocm_spirv_target()" for k, name in DEFINITIONS.items()}
    assert not any(f["handled"] for f in notes)
    done = subprocess.run([sys.executable, "-m", "rocm_spirv", "migrate", str(src), "--diff"], capture_output=True,
                          check=False, timeout=120)
    assert done.returncode == 1, done.stderr  # edits pending
    diff = done.stdout
    apply_twice(src, capsys)
    # --diff is exactly what --apply wrote: patched into a fresh copy, it gives the same tree.
    copy = tmp_path / "patched"
    shutil.copytree(COLLECTION, copy)
    subprocess.run(["patch", "-s", "-p1"], input=diff, cwd=copy, check=True)
    assert snapshot(copy) == snapshot(src)
    _, after = migrate_json(capsys, str(src), "--select", "RSM120")
    notes = hip_target_notes(after)
    assert len(notes) == len(DEFINITIONS) and all(f["handled"] for f in notes)
    # find_package(RocmSpirv) once in each example project, and at the top (whose target list --apply
    # guards); nothing in the category, which defines no target.
    for rel in ["", *(f"HIP-Basic/{e}/" for e in EXAMPLES)]:
        assert (src / rel / "CMakeLists.txt").read_text().count("find_package(RocmSpirv REQUIRED)") == 1, rel
    assert "RocmSpirv" not in (src / "HIP-Basic" / "CMakeLists.txt").read_text()
    # Nothing left for a hand edit: the gate is green on the migrated collection (warpSize as an index in
    # warp_ops is run-time use, not a compile-time constant).
    gate = subprocess.run([sys.executable, "-m", "rocm_spirv", "migrate", str(src), "--check"], capture_output=True,
                          text=True, check=False, timeout=120)
    assert gate.returncode == 0, gate.stdout


def test_apply_builds_spirv_only_from_the_top_and_alone(toolchain: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    shutil.copytree(COLLECTION, src)
    apply_twice(src, capsys)
    bundler = toolchain / "bin" / "clang-offload-bundler"

    top = tmp_path / "spirv"
    out = configure_and_build(src, top, toolchain, *package_defs())
    # Six find_package(RocmSpirv) calls configure quietly, and no target handed to rocm_spirv_target()
    # lacks GPU code (it would warn "compiles no GPU code").
    assert "CMake Warning" not in out and "Unknown CMake command" not in out, out[-3000:]
    for rel in ARTIFACTS:
        assert device_entries(bundler, top / rel) == SPIRV, rel
    inspect_spirv_only([top / rel for rel in ARTIFACTS], capsys)

    for example in ALONE:
        build = tmp_path / f"alone-{example}"
        out = configure_and_build(src / "HIP-Basic" / example, build, toolchain, *package_defs())
        assert "CMake Warning" not in out, out[-3000:]
        mine = [build / Path(rel).name for rel in ARTIFACTS if rel.startswith(f"HIP-Basic/{example}/")]
        for path in mine:
            assert device_entries(bundler, path) == SPIRV, path
        inspect_spirv_only(mine, capsys)
    # The binary links and loads the HIP runtime; this machine has no AMD GPU, so no kernel runs.
    run = subprocess.run([str(tmp_path / "alone-saxpy" / "hip_saxpy")], capture_output=True, text=True,
                         check=False, timeout=60)
    assert run.returncode == 0 and run.stdout.startswith("hip_saxpy: no HIP device"), run.stdout + run.stderr

    native = tmp_path / "native"
    configure_and_build(src, native, toolchain, *package_defs(), "ROCM_SPIRV_OFFLOAD=native")
    for rel, archs in ARTIFACTS.items():
        assert device_entries(bundler, native / rel) == archs, rel
