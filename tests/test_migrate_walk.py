"""The walk and reads of a migrate scan keep nothing per file (issue 29: memory flat on 50,000 files), and
a file reached through symlinks is still scanned once."""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

from rocm_spirv.migrate.scan import scan
from rocm_spirv.migrate.walk import walk


def tree(root: Path, files: int) -> Path:
    """files small sources in folders of 100, as a library's tree is spread."""
    for i in range(files):
        d = root / f"d{i // 100}"
        if i % 100 == 0:
            d.mkdir(parents=True)
        (d / f"util{i}.cpp").write_text("int f() { return 0; }\n")
    return root


def walk_peak(root: Path) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        files = sum(1 for _ in walk(root))
        return tracemalloc.get_traced_memory()[1] if files else 0
    finally:
        tracemalloc.stop()


def test_walk_memory_does_not_grow_with_the_files(tmp_path: Path) -> None:
    small, large = walk_peak(tree(tmp_path / "small", 300)), walk_peak(tree(tmp_path / "large", 3000))
    # a set of every path walked grew by ~145 bytes a file: 0.4 MB more for 2,700 more files
    assert large < 1.5 * small, (small, large)


def test_scan_reads_by_file_size(tmp_path: Path) -> None:
    """A read of the 4 MiB cap allocated that much for every file, whatever its size."""
    root = tree(tmp_path, 20)
    gc.collect()
    tracemalloc.start()
    try:
        scan(root)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak


def test_a_file_reached_through_symlinks_is_scanned_once(tmp_path: Path) -> None:
    root, outside = tmp_path / "p", tmp_path / "outside.hip"
    for rel in ("a.hip", "build/b.hip", "ex/c.hip", ".git/d.hip", "notes.txt", "sub/e.hip"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("int x;\n")
    (root / "build" / "CMakeCache.txt").write_text("")
    outside.write_text("int y;\n")
    links = {"to_a.hip": "a.hip",  # yielded as a.hip itself
             "to_b.hip": "build/b.hip",  # a CMake build tree is not entered: only the link reaches it
             "to_c.hip": "ex/c.hip",  # excluded folder
             "to_d.hip": ".git/d.hip",  # skipped folder
             "to_notes.hip": "notes.txt",  # not a file the walk yields under its own name
             "to_out1.hip": str(outside), "to_out2.hip": str(outside),  # the first link only
             "sub/to_e.hip": "e.hip", "sub/dangling.hip": "missing.hip"}
    for link, target in links.items():
        (root / link).symlink_to(target)
    assert [rel for rel, _ in walk(root, ["ex"])] == [
        "a.hip", "sub/e.hip", "to_b.hip", "to_c.hip", "to_d.hip", "to_notes.hip", "to_out1.hip",
        "sub/dangling.hip"]


def test_a_dangling_link_is_named_as_one(tmp_path: Path) -> None:
    """An editor's lock file (`.#k.hip` -> `user@host.123`) or a link into a submodule that is not checked out: one
    line saying so, not "unreadable (No such file or directory)", which reads like a permission problem."""
    (tmp_path / "k.hip").write_text("__global__ void k() {}\n")
    (tmp_path / ".#k.hip").symlink_to("user@host.1234:1708528147")
    (tmp_path / "cub.cuh").symlink_to("../third_party/cub/cub.cuh")
    errors = {r.path: r.error for r in scan(tmp_path).result.files if r.error}
    assert errors == {".#k.hip": "a symbolic link to a missing file (user@host.1234:1708528147); skipped",
                      "cub.cuh": "a symbolic link to a missing file (../third_party/cub/cub.cuh); skipped"}


def test_configure_file_templates_named_for_what_they_become(tmp_path: Path) -> None:
    """`kmp_config.h.cmake` (hcc2-rt) is a header template, `protobuf.pc.cmake` a pkg-config one: not CMake scripts,
    which the scan refused as syntax errors. The header is read as a source (its `#cmakedefine` lines are no
    condition; an arch test in it is one), the pkg-config file not at all; `hip-config.cmake` is still CMake."""
    (tmp_path / "kmp_config.h.cmake").write_text(
        "// generated\n#cmakedefine KMP_USE_HIP 1\n#define KMP_VERSION @VERSION@\n#if defined(__gfx90a__)\n"
        "#define KMP_WAVE 64\n#endif\n")
    (tmp_path / "protobuf.pc.cmake").write_text("prefix=@CMAKE_INSTALL_PREFIX@\nName: Protocol Buffers\n")
    (tmp_path / "hip-config.cmake").write_text("set(GPU_TARGETS gfx90a)\n")
    result = scan(tmp_path).result
    assert not [r.error for r in result.files if r.error]
    assert {(f.path, f.line) for f in result.findings} == {("kmp_config.h.cmake", 4), ("hip-config.cmake", 1)}
    assert result.files_scanned == 2
