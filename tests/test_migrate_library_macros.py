"""The per-arch macros of library headers (migrate/source_checks/library_macros.py): the table's shape, and,
where the pinned header is on this machine, clang 22's answer again."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path

import pytest
from rocm_spirv.migrate.source_checks.library_macros import (
    LIBRARY_HEADERS,
    WAVE_SIZE_NAMES,
    LibraryHeader,
    included,
    per_arch,
)


def test_the_table_is_pinned_sorted_and_names_project_macros() -> None:
    assert LIBRARY_HEADERS
    for h in LIBRARY_HEADERS:
        assert re.fullmatch(r"[0-9a-f]{40}", h.commit) and re.fullmatch(r"[0-9a-f]{64}", h.sha256)
        assert any(h.include.startswith(r) if r.endswith("/") else h.include == r for r in h.reached_by)
        assert list(h.macros) == sorted(set(h.macros))
        assert all(not n.startswith("__") for n in h.macros)
    ck = included(("ck/utility/data_type.hpp",))
    assert ck["CK_USE_AMD_V_DOT2_F32_F16"] == "ck/ck.hpp"
    assert "CK_USE_AMD_INLINE_ASM" not in ck  # 1 on every target: a configuration, not per-arch
    assert included(("hip/hip_runtime.h", "ckx/ck.hpp")) == {}
    fp8 = included(("hip/hip_fp8.h",))
    assert fp8["HIP_FP8_CVT_FAST_PATH"] == "hip/amd_detail/amd_hip_fp8.h" and "CK_USE_AMD_MFMA" not in fp8
    assert included(("hip/hip_fp8.hpp", "hip/hip_fp16.h")) == {}  # one header is that name, not a prefix
    for w in WAVE_SIZE_NAMES:
        assert re.fullmatch(r"[0-9a-f]{40}", w.commit) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]+", w.name)
        assert "/" in w.upstream and w.path.endswith((".h", ".hpp")) and w.read


# where each pinned library's include folder is on this machine: ROCM_SPIRV_TEST_INCLUDE_<UPSTREAM NAME>
INCLUDE_ENV = {h.include: f"ROCM_SPIRV_TEST_INCLUDE_{re.sub(r'[^A-Z0-9]', '_', h.upstream.split('/')[1].upper())}"
               for h in LIBRARY_HEADERS}


@pytest.mark.parametrize("header", LIBRARY_HEADERS, ids=lambda h: h.include)
def test_clang_answers_as_the_table_says(header: LibraryHeader) -> None:
    folder = os.environ.get(INCLUDE_ENV[header.include], "")
    if not folder or shutil.which("clang-22") is None:
        pytest.skip(f"needs {INCLUDE_ENV[header.include]}=<{header.upstream}'s include folder at {header.commit[:12]}, "
                    f"where {header.path} is {header.include}> and clang-22 on PATH")
    assert hashlib.sha256((Path(folder) / header.include).read_bytes()).hexdigest() == header.sha256
    assert per_arch("clang-22", header.include, [f"-I{folder}", *header.args]) == header.macros


def test_clang_tells_a_per_arch_macro_from_a_configuration(tmp_path: Path) -> None:
    """The generator on a header written here: what differs between targets is per-arch, a constant is not."""
    if shutil.which("clang-22") is None:
        pytest.skip("needs clang-22 on PATH (Debian bookworm-security: apt install clang-22)")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "cfg.hpp").write_text(
        "#define LIB_INLINE_ASM 1\n"
        "#if defined(__gfx90a__) || defined(__gfx942__)\n#define LIB_HAS_MFMA\n#endif\n"
        "#if defined(__GFX11__)\n#define LIB_WAVE 32\n#else\n#define LIB_WAVE 64\n#endif\n"
        "#define __lib_gfx9__\n")
    assert per_arch("clang-22", "lib/cfg.hpp", [f"-I{tmp_path}"]) == ("LIB_HAS_MFMA", "LIB_WAVE")
