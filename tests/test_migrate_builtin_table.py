"""The builtin tables (migrate/source_checks/builtin_table.py) against clang 22 itself: each name in
EVERY_TARGET is declared for every target of pp.ROCM_TARGET_FAMILIES, each in TARGET_ONLY lacks on at least
one of them, and the feature builtins the scan reports are not in EVERY_TARGET."""

from __future__ import annotations

import shutil

import pytest
from rocm_spirv.migrate.source_checks.amdgcn_builtins import FEATURE_BUILTIN
from rocm_spirv.migrate.source_checks.builtin_table import EVERY_TARGET, TARGET_ONLY, declared, on_every_target

CLANG = shutil.which("clang-22")
needs_clang = pytest.mark.skipif(CLANG is None, reason="clang-22 (Debian clang-22) is not on PATH")

# Gated on some GPUs: MFMA (gfx908+ GFX9), WMMA (GFX11+), s_memtime (not GFX11+), permlane16 (GFX10+).
GATED = ("mfma_f32_32x32x8f16", "wmma_f32_16x16x16_f16_w32", "s_memtime", "permlane16", "global_load_lds")


@needs_clang
def test_every_name_in_the_table_is_declared_for_every_rocm_gpu() -> None:
    assert CLANG is not None
    assert on_every_target(CLANG, EVERY_TARGET) == EVERY_TARGET
    assert len(EVERY_TARGET) > 150  # the table was cut from clang 22's 788 names, 184 on every target


@needs_clang
def test_builtins_some_gpus_lack_are_left_out() -> None:
    assert CLANG is not None
    assert not on_every_target(CLANG, GATED)
    assert not set(GATED) & EVERY_TARGET
    assert set(GATED) & declared(CLANG, GATED, "gfx942")  # known names: the probe answers, it is not empty


@needs_clang
def test_every_target_only_name_is_missing_on_some_rocm_gpu_and_reported() -> None:
    """TARGET_ONLY is clang's own answer, not a list kept by hand: no name in it is declared for every GPU, the
    two tables do not meet, and the scan's feature pattern matches each name whole."""
    assert CLANG is not None
    assert not on_every_target(CLANG, TARGET_ONLY)
    assert not TARGET_ONLY & EVERY_TARGET
    assert len(TARGET_ONLY) > 500  # clang 22 declares 788 names, 184 of them on every target
    assert all(FEATURE_BUILTIN.fullmatch("__builtin_amdgcn_" + n) for n in TARGET_ONLY)
    # gfx90a and gfx942 have no image instructions (the backend: "requested image instruction is not supported")
    assert "image_sample_lz_1d_v4f32_f32" in TARGET_ONLY
