"""AMDGCN builtins clang declares for every GPU ROCm serves: a `__has_builtin` test of one of them has the
same answer on every target and under amdgcnspirv (a compiler-version check, not an arch test), so it is no
RSM206. clang's `__has_builtin` knows each builtin's target features (`__builtin_amdgcn_mfma_f32_32x32x8f16`
is true for gfx942, false for gfx900 and gfx1100, true for spirv64-amd-amdhsa); the table is what clang 22
answers for all of pp.ROCM_TARGET_FAMILIES, names without the `__builtin_amdgcn_` prefix. A builtin clang
22 does not know stays an arch test. TARGET_ONLY is the rest of clang 22's names: declared for some of those
GPUs (or only for newer ones, gfx1250's cluster and async loads), so an unguarded call compiles to SPIR-V and
fails the JIT on a GPU without it (RSM205). Regenerate both with

    python -m rocm_spirv.migrate.source_checks.builtin_table /usr/lib/llvm-22/lib/libclang-cpp.so.22.1

(the names are read out of clang's library, the answers come from its preprocessor);
tests/test_migrate_builtin_table.py asks clang again for each name in both tables.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from rocm_spirv.migrate.pp import ROCM_TARGET_FAMILIES

PREFIX = "__builtin_amdgcn_"
EVERY_TARGET: frozenset[str] = frozenset({
    "alignbit", "alignbyte", "atomic_dec32", "atomic_dec64", "atomic_inc32", "atomic_inc64", "ballot_w64",
    "buffer_wbinvl1", "buffer_wbinvl1_vol", "class", "classf", "classh", "cosf", "cosh", "cubeid", "cubema",
    "cubesc", "cubetc", "cvt_off_f32_i4", "cvt_pk_i16", "cvt_pk_u16", "cvt_pk_u8_f32", "cvt_pknorm_i16",
    "cvt_pknorm_u16", "cvt_pkrtz", "dispatch_ptr", "div_fixup", "div_fixupf", "div_fixuph", "div_fmas",
    "div_fmasf", "div_scale", "div_scalef", "ds_append", "ds_atomic_fadd_f32", "ds_bpermute", "ds_consume",
    "ds_faddf", "ds_fmaxf", "ds_fminf", "ds_gws_sema_release_all", "ds_permute", "ds_swizzle", "endpgm",
    "exp2f", "fcmp", "fcmpf", "fence", "fmed3f", "fmed3h", "fract", "fractf", "fracth", "frexp_exp",
    "frexp_expf", "frexp_exph", "frexp_mant", "frexp_mantf", "frexp_manth", "get_fpenv", "grid_size_x",
    "grid_size_y", "grid_size_z", "groupstaticsize", "iglp_opt", "implicitarg_ptr", "interp_mov", "interp_p1",
    "interp_p1_f16", "interp_p2", "interp_p2_f16", "is_private", "is_shared", "kernarg_segment_ptr", "ldexp",
    "ldexpf", "ldexph", "lerp", "log_clampf", "logf", "make_buffer_rsrc", "mbcnt_hi", "mbcnt_lo", "mov_dpp",
    "mqsad_pk_u16_u8", "mqsad_u32_u8", "msad_u8", "perm", "qsad_pk_u16_u8", "queue_ptr", "raw_buffer_load_b128",
    "raw_buffer_load_b16", "raw_buffer_load_b32", "raw_buffer_load_b64", "raw_buffer_load_b8",
    "raw_buffer_load_b96", "raw_buffer_store_b128", "raw_buffer_store_b16", "raw_buffer_store_b32",
    "raw_buffer_store_b64", "raw_buffer_store_b8", "raw_buffer_store_b96", "raw_ptr_buffer_atomic_add_i32",
    "rcp", "rcpf", "rcph", "read_exec", "read_exec_hi", "read_exec_lo", "readfirstlane", "readlane", "rsq",
    "rsq_clamp", "rsq_clampf", "rsqf", "rsqh", "s_barrier", "s_dcache_inv", "s_dcache_inv_vol", "s_dcache_wb",
    "s_decperflevel", "s_getpc", "s_getreg", "s_incperflevel", "s_sendmsg", "s_sendmsghalt", "s_setprio",
    "s_setreg", "s_sleep", "s_ttracedata", "s_waitcnt", "sad_hi_u8", "sad_u16", "sad_u8", "sbfe",
    "sched_barrier", "sched_group_barrier", "set_fpenv", "sicmp", "sicmpl", "sinf", "sinh", "sqrt", "sqrtf",
    "sqrth", "trig_preop", "trig_preopf", "ubfe", "uicmp", "uicmpl", "update_dpp", "wave_barrier",
    "wave_reduce_add_u32", "wave_reduce_add_u64", "wave_reduce_and_b32", "wave_reduce_and_b64",
    "wave_reduce_fadd_f32", "wave_reduce_fmax_f32", "wave_reduce_fmin_f32", "wave_reduce_fsub_f32",
    "wave_reduce_max_i32", "wave_reduce_max_i64", "wave_reduce_max_u32", "wave_reduce_max_u64",
    "wave_reduce_min_i32", "wave_reduce_min_i64", "wave_reduce_min_u32", "wave_reduce_min_u64",
    "wave_reduce_or_b32", "wave_reduce_or_b64", "wave_reduce_sub_u32", "wave_reduce_sub_u64",
    "wave_reduce_xor_b32", "wave_reduce_xor_b64", "wavefrontsize", "workgroup_id_x", "workgroup_id_y",
    "workgroup_id_z", "workgroup_size_x", "workgroup_size_y", "workgroup_size_z", "workitem_id_x",
    "workitem_id_y", "workitem_id_z"
})
TARGET_ONLY: frozenset[str] = frozenset({
    "add_max_i32", "add_max_u32", "add_min_i32", "add_min_u32", "ashr_pk_i8_i32", "ashr_pk_u8_i32", "ballot_w32",
    "bitop3_b16", "bitop3_b32", "cluster_id_x", "cluster_id_y", "cluster_id_z", "cluster_load_async_to_lds_b128",
    "cluster_load_async_to_lds_b32", "cluster_load_async_to_lds_b64", "cluster_load_async_to_lds_b8",
    "cluster_load_b128", "cluster_load_b32", "cluster_load_b64", "cluster_workgroup_flat_id",
    "cluster_workgroup_id_x", "cluster_workgroup_id_y", "cluster_workgroup_id_z", "cluster_workgroup_max_flat_id",
    "cluster_workgroup_max_id_x", "cluster_workgroup_max_id_y", "cluster_workgroup_max_id_z",
    "cooperative_atomic_load_16x8", "cooperative_atomic_load_32x4", "cooperative_atomic_load_8x16",
    "cooperative_atomic_store_16x8", "cooperative_atomic_store_32x4", "cooperative_atomic_store_8x16", "cos_bf16",
    "cvt_f16_bf8", "cvt_f16_fp8", "cvt_f32_bf8", "cvt_f32_fp8", "cvt_f32_fp8_e5m3", "cvt_pk_bf8_f16",
    "cvt_pk_bf8_f32", "cvt_pk_f16_bf8", "cvt_pk_f16_fp8", "cvt_pk_f32_bf8", "cvt_pk_f32_fp8", "cvt_pk_fp8_f16",
    "cvt_pk_fp8_f32", "cvt_pk_fp8_f32_e5m3", "cvt_scale_pk16_bf16_bf6", "cvt_scale_pk16_bf16_fp6",
    "cvt_scale_pk16_f16_bf6", "cvt_scale_pk16_f16_fp6", "cvt_scale_pk16_f32_bf6", "cvt_scale_pk16_f32_fp6",
    "cvt_scale_pk8_bf16_bf8", "cvt_scale_pk8_bf16_fp4", "cvt_scale_pk8_bf16_fp8", "cvt_scale_pk8_f16_bf8",
    "cvt_scale_pk8_f16_fp4", "cvt_scale_pk8_f16_fp8", "cvt_scale_pk8_f32_bf8", "cvt_scale_pk8_f32_fp4",
    "cvt_scale_pk8_f32_fp8", "cvt_scalef32_2xpk16_bf6_f32", "cvt_scalef32_2xpk16_fp6_f32", "cvt_scalef32_f16_bf8",
    "cvt_scalef32_f16_fp8", "cvt_scalef32_f32_bf8", "cvt_scalef32_f32_fp8", "cvt_scalef32_pk16_bf6_bf16",
    "cvt_scalef32_pk16_bf6_f16", "cvt_scalef32_pk16_bf6_f32", "cvt_scalef32_pk16_fp6_bf16",
    "cvt_scalef32_pk16_fp6_f16", "cvt_scalef32_pk16_fp6_f32", "cvt_scalef32_pk32_bf16_bf6",
    "cvt_scalef32_pk32_bf16_fp6", "cvt_scalef32_pk32_bf6_bf16", "cvt_scalef32_pk32_bf6_f16",
    "cvt_scalef32_pk32_f16_bf6", "cvt_scalef32_pk32_f16_fp6", "cvt_scalef32_pk32_f32_bf6",
    "cvt_scalef32_pk32_f32_fp6", "cvt_scalef32_pk32_fp6_bf16", "cvt_scalef32_pk32_fp6_f16",
    "cvt_scalef32_pk8_bf8_bf16", "cvt_scalef32_pk8_bf8_f16", "cvt_scalef32_pk8_bf8_f32", "cvt_scalef32_pk8_fp4_bf16",
    "cvt_scalef32_pk8_fp4_f16", "cvt_scalef32_pk8_fp4_f32", "cvt_scalef32_pk8_fp8_bf16", "cvt_scalef32_pk8_fp8_f16",
    "cvt_scalef32_pk8_fp8_f32", "cvt_scalef32_pk_bf16_bf8", "cvt_scalef32_pk_bf16_fp4", "cvt_scalef32_pk_bf16_fp8",
    "cvt_scalef32_pk_bf8_bf16", "cvt_scalef32_pk_bf8_f16", "cvt_scalef32_pk_bf8_f32", "cvt_scalef32_pk_f16_bf8",
    "cvt_scalef32_pk_f16_fp4", "cvt_scalef32_pk_f16_fp8", "cvt_scalef32_pk_f32_bf8", "cvt_scalef32_pk_f32_fp4",
    "cvt_scalef32_pk_f32_fp8", "cvt_scalef32_pk_fp4_bf16", "cvt_scalef32_pk_fp4_f16", "cvt_scalef32_pk_fp4_f32",
    "cvt_scalef32_pk_fp8_bf16", "cvt_scalef32_pk_fp8_f16", "cvt_scalef32_pk_fp8_f32", "cvt_scalef32_sr_bf8_bf16",
    "cvt_scalef32_sr_bf8_f16", "cvt_scalef32_sr_bf8_f32", "cvt_scalef32_sr_fp8_bf16", "cvt_scalef32_sr_fp8_f16",
    "cvt_scalef32_sr_fp8_f32", "cvt_scalef32_sr_pk16_bf6_bf16", "cvt_scalef32_sr_pk16_bf6_f16",
    "cvt_scalef32_sr_pk16_bf6_f32", "cvt_scalef32_sr_pk16_fp6_bf16", "cvt_scalef32_sr_pk16_fp6_f16",
    "cvt_scalef32_sr_pk16_fp6_f32", "cvt_scalef32_sr_pk32_bf6_bf16", "cvt_scalef32_sr_pk32_bf6_f16",
    "cvt_scalef32_sr_pk32_bf6_f32", "cvt_scalef32_sr_pk32_fp6_bf16", "cvt_scalef32_sr_pk32_fp6_f16",
    "cvt_scalef32_sr_pk32_fp6_f32", "cvt_scalef32_sr_pk8_bf8_bf16", "cvt_scalef32_sr_pk8_bf8_f16",
    "cvt_scalef32_sr_pk8_bf8_f32", "cvt_scalef32_sr_pk8_fp4_bf16", "cvt_scalef32_sr_pk8_fp4_f16",
    "cvt_scalef32_sr_pk8_fp4_f32", "cvt_scalef32_sr_pk8_fp8_bf16", "cvt_scalef32_sr_pk8_fp8_f16",
    "cvt_scalef32_sr_pk8_fp8_f32", "cvt_scalef32_sr_pk_fp4_bf16", "cvt_scalef32_sr_pk_fp4_f16",
    "cvt_scalef32_sr_pk_fp4_f32", "cvt_sr_bf16_f32", "cvt_sr_bf8_f16", "cvt_sr_bf8_f32", "cvt_sr_f16_f32",
    "cvt_sr_fp8_f16", "cvt_sr_fp8_f32", "cvt_sr_fp8_f32_e5m3", "cvt_sr_pk_bf16_f32", "cvt_sr_pk_f16_f32",
    "dot4_f32_bf8_bf8", "dot4_f32_bf8_fp8", "dot4_f32_fp8_bf8", "dot4_f32_fp8_fp8",
    "ds_atomic_async_barrier_arrive_b64", "ds_atomic_barrier_arrive_rtn_b64", "ds_atomic_fadd_f64",
    "ds_atomic_fadd_v2bf16", "ds_atomic_fadd_v2f16", "ds_bpermute_fi_b32", "ds_bvh_stack_push4_pop1_rtn",
    "ds_bvh_stack_push8_pop1_rtn", "ds_bvh_stack_push8_pop2_rtn", "ds_bvh_stack_rtn", "ds_gws_barrier", "ds_gws_init",
    "ds_gws_sema_br", "ds_gws_sema_p", "ds_gws_sema_v", "ds_load_tr16_b128_v8bf16", "ds_load_tr16_b128_v8f16",
    "ds_load_tr16_b128_v8i16", "ds_load_tr4_b64_v2i32", "ds_load_tr6_b96_v3i32", "ds_load_tr8_b64_v2i32",
    "ds_read_tr16_b64_v4bf16", "ds_read_tr16_b64_v4f16", "ds_read_tr16_b64_v4i16", "ds_read_tr4_b64_v2i32",
    "ds_read_tr6_b96_v3i32", "ds_read_tr8_b64_v2i32", "exp2_bf16", "fdot2", "fdot2_bf16_bf16", "fdot2_f16_f16",
    "fdot2_f32_bf16", "fdot2c_f32_bf16", "flat_atomic_fadd_f32", "flat_atomic_fadd_f64", "flat_atomic_fadd_v2bf16",
    "flat_atomic_fadd_v2f16", "flat_atomic_fmax_f64", "flat_atomic_fmin_f64", "flat_load_monitor_b128",
    "flat_load_monitor_b32", "flat_load_monitor_b64", "flat_prefetch", "global_atomic_fadd_f32",
    "global_atomic_fadd_f64", "global_atomic_fadd_v2bf16", "global_atomic_fadd_v2f16", "global_atomic_fmax_f64",
    "global_atomic_fmin_f64", "global_load_async_to_lds_b128", "global_load_async_to_lds_b32",
    "global_load_async_to_lds_b64", "global_load_async_to_lds_b8", "global_load_lds", "global_load_monitor_b128",
    "global_load_monitor_b32", "global_load_monitor_b64", "global_load_tr16_b128_v8bf16",
    "global_load_tr16_b128_v8f16", "global_load_tr16_b128_v8i16", "global_load_tr4_b64_v2i32",
    "global_load_tr6_b96_v3i32", "global_load_tr8_b64_v2i32", "global_load_tr_b128_v4bf16",
    "global_load_tr_b128_v4f16", "global_load_tr_b128_v4i16", "global_load_tr_b128_v8bf16",
    "global_load_tr_b128_v8f16", "global_load_tr_b128_v8i16", "global_load_tr_b64_i32", "global_load_tr_b64_v2i32",
    "global_prefetch", "global_store_async_from_lds_b128", "global_store_async_from_lds_b32",
    "global_store_async_from_lds_b64", "global_store_async_from_lds_b8", "image_bvh8_intersect_ray",
    "image_bvh_dual_intersect_ray", "image_bvh_intersect_ray", "image_bvh_intersect_ray_h",
    "image_bvh_intersect_ray_l", "image_bvh_intersect_ray_lh", "image_gather4_lz_2d_v4f32_f32",
    "image_load_1d_v4f16_i32", "image_load_1d_v4f32_i32", "image_load_1darray_v4f16_i32",
    "image_load_1darray_v4f32_i32", "image_load_2d_f32_i32", "image_load_2d_v4f16_i32", "image_load_2d_v4f32_i32",
    "image_load_2darray_f32_i32", "image_load_2darray_v4f16_i32", "image_load_2darray_v4f32_i32",
    "image_load_3d_v4f16_i32", "image_load_3d_v4f32_i32", "image_load_cube_v4f16_i32", "image_load_cube_v4f32_i32",
    "image_load_mip_1d_v4f16_i32", "image_load_mip_1d_v4f32_i32", "image_load_mip_1darray_v4f16_i32",
    "image_load_mip_1darray_v4f32_i32", "image_load_mip_2d_f32_i32", "image_load_mip_2d_v4f16_i32",
    "image_load_mip_2d_v4f32_i32", "image_load_mip_2darray_f32_i32", "image_load_mip_2darray_v4f16_i32",
    "image_load_mip_2darray_v4f32_i32", "image_load_mip_3d_v4f16_i32", "image_load_mip_3d_v4f32_i32",
    "image_load_mip_cube_v4f16_i32", "image_load_mip_cube_v4f32_i32", "image_sample_1d_v4f16_f32",
    "image_sample_1d_v4f32_f32", "image_sample_1darray_v4f16_f32", "image_sample_1darray_v4f32_f32",
    "image_sample_2d_f32_f32", "image_sample_2d_v4f16_f32", "image_sample_2d_v4f32_f32",
    "image_sample_2darray_f32_f32", "image_sample_2darray_v4f16_f32", "image_sample_2darray_v4f32_f32",
    "image_sample_3d_v4f16_f32", "image_sample_3d_v4f32_f32", "image_sample_cube_v4f16_f32",
    "image_sample_cube_v4f32_f32", "image_sample_d_1d_v4f16_f32", "image_sample_d_1d_v4f32_f32",
    "image_sample_d_1darray_v4f16_f32", "image_sample_d_1darray_v4f32_f32", "image_sample_d_2d_f32_f32",
    "image_sample_d_2d_v4f16_f32", "image_sample_d_2d_v4f32_f32", "image_sample_d_2darray_f32_f32",
    "image_sample_d_2darray_v4f16_f32", "image_sample_d_2darray_v4f32_f32", "image_sample_d_3d_v4f16_f32",
    "image_sample_d_3d_v4f32_f32", "image_sample_l_1d_v4f16_f32", "image_sample_l_1d_v4f32_f32",
    "image_sample_l_1darray_v4f16_f32", "image_sample_l_1darray_v4f32_f32", "image_sample_l_2d_f32_f32",
    "image_sample_l_2d_v4f16_f32", "image_sample_l_2d_v4f32_f32", "image_sample_l_2darray_f32_f32",
    "image_sample_l_2darray_v4f16_f32", "image_sample_l_2darray_v4f32_f32", "image_sample_l_3d_v4f16_f32",
    "image_sample_l_3d_v4f32_f32", "image_sample_l_cube_v4f16_f32", "image_sample_l_cube_v4f32_f32",
    "image_sample_lz_1d_v4f16_f32", "image_sample_lz_1d_v4f32_f32", "image_sample_lz_1darray_v4f16_f32",
    "image_sample_lz_1darray_v4f32_f32", "image_sample_lz_2d_f32_f32", "image_sample_lz_2d_v4f16_f32",
    "image_sample_lz_2d_v4f32_f32", "image_sample_lz_2darray_f32_f32", "image_sample_lz_2darray_v4f16_f32",
    "image_sample_lz_2darray_v4f32_f32", "image_sample_lz_3d_v4f16_f32", "image_sample_lz_3d_v4f32_f32",
    "image_sample_lz_cube_v4f16_f32", "image_sample_lz_cube_v4f32_f32", "image_store_1d_v4f16_i32",
    "image_store_1d_v4f32_i32", "image_store_1darray_v4f16_i32", "image_store_1darray_v4f32_i32",
    "image_store_2d_f32_i32", "image_store_2d_v4f16_i32", "image_store_2d_v4f32_i32", "image_store_2darray_f32_i32",
    "image_store_2darray_v4f16_i32", "image_store_2darray_v4f32_i32", "image_store_3d_v4f16_i32",
    "image_store_3d_v4f32_i32", "image_store_cube_v4f16_i32", "image_store_cube_v4f32_i32",
    "image_store_mip_1d_v4f16_i32", "image_store_mip_1d_v4f32_i32", "image_store_mip_1darray_v4f16_i32",
    "image_store_mip_1darray_v4f32_i32", "image_store_mip_2d_f32_i32", "image_store_mip_2d_v4f16_i32",
    "image_store_mip_2d_v4f32_i32", "image_store_mip_2darray_f32_i32", "image_store_mip_2darray_v4f16_i32",
    "image_store_mip_2darray_v4f32_i32", "image_store_mip_3d_v4f16_i32", "image_store_mip_3d_v4f32_i32",
    "image_store_mip_cube_v4f16_i32", "image_store_mip_cube_v4f32_i32", "inverse_ballot_w32", "inverse_ballot_w64",
    "load_to_lds", "log_bf16", "mfma_f32_16x16x16bf16_1k", "mfma_f32_16x16x16f16", "mfma_f32_16x16x1f32",
    "mfma_f32_16x16x2bf16", "mfma_f32_16x16x32_bf16", "mfma_f32_16x16x32_bf8_bf8", "mfma_f32_16x16x32_bf8_fp8",
    "mfma_f32_16x16x32_f16", "mfma_f32_16x16x32_fp8_bf8", "mfma_f32_16x16x32_fp8_fp8", "mfma_f32_16x16x4bf16_1k",
    "mfma_f32_16x16x4f16", "mfma_f32_16x16x4f32", "mfma_f32_16x16x8_xf32", "mfma_f32_16x16x8bf16",
    "mfma_f32_32x32x16_bf16", "mfma_f32_32x32x16_bf8_bf8", "mfma_f32_32x32x16_bf8_fp8", "mfma_f32_32x32x16_f16",
    "mfma_f32_32x32x16_fp8_bf8", "mfma_f32_32x32x16_fp8_fp8", "mfma_f32_32x32x1f32", "mfma_f32_32x32x2bf16",
    "mfma_f32_32x32x2f32", "mfma_f32_32x32x4_xf32", "mfma_f32_32x32x4bf16", "mfma_f32_32x32x4bf16_1k",
    "mfma_f32_32x32x4f16", "mfma_f32_32x32x8bf16_1k", "mfma_f32_32x32x8f16", "mfma_f32_4x4x1f32",
    "mfma_f32_4x4x2bf16", "mfma_f32_4x4x4bf16_1k", "mfma_f32_4x4x4f16", "mfma_f64_16x16x4f64", "mfma_f64_4x4x4f64",
    "mfma_i32_16x16x16i8", "mfma_i32_16x16x32_i8", "mfma_i32_16x16x4i8", "mfma_i32_16x16x64_i8",
    "mfma_i32_32x32x16_i8", "mfma_i32_32x32x32_i8", "mfma_i32_32x32x4i8", "mfma_i32_32x32x8i8", "mfma_i32_4x4x4i8",
    "mfma_scale_f32_16x16x128_f8f6f4", "mfma_scale_f32_32x32x64_f8f6f4", "mov_dpp8", "perm_pk16_b4_u4",
    "perm_pk16_b6_u4", "perm_pk16_b8_u4", "permlane16", "permlane16_swap", "permlane16_var", "permlane32_swap",
    "permlane64", "permlane_bcast", "permlane_down", "permlane_idx_gen", "permlane_up", "permlane_xor", "permlanex16",
    "permlanex16_var", "pk_add_max_i16", "pk_add_max_u16", "pk_add_min_i16", "pk_add_min_u16", "prng_b32",
    "raw_ptr_buffer_atomic_fadd_f32", "raw_ptr_buffer_atomic_fadd_v2f16", "raw_ptr_buffer_atomic_fmax_f32",
    "raw_ptr_buffer_atomic_fmax_f64", "raw_ptr_buffer_atomic_fmin_f32", "raw_ptr_buffer_atomic_fmin_f64",
    "raw_ptr_buffer_load_lds", "rcp_bf16", "rsq_bf16", "s_barrier_init", "s_barrier_join", "s_barrier_leave",
    "s_barrier_signal", "s_barrier_signal_isfirst", "s_barrier_signal_var", "s_barrier_wait",
    "s_buffer_prefetch_data", "s_cluster_barrier", "s_get_barrier_state", "s_get_named_barrier_state",
    "s_memrealtime", "s_memtime", "s_monitor_sleep", "s_prefetch_data", "s_sendmsg_rtn", "s_sendmsg_rtnl",
    "s_setprio_inc_wg", "s_sleep_var", "s_ttracedata_imm", "s_wait_asynccnt", "s_wait_event_export_ready",
    "s_wait_tensorcnt", "s_wakeup_barrier", "sat_pk4_i4_i8", "sat_pk4_u4_u8", "sdot2", "sdot4", "sdot8", "sin_bf16",
    "smfmac_f32_16x16x128_bf8_bf8", "smfmac_f32_16x16x128_bf8_fp8", "smfmac_f32_16x16x128_fp8_bf8",
    "smfmac_f32_16x16x128_fp8_fp8", "smfmac_f32_16x16x32_bf16", "smfmac_f32_16x16x32_f16", "smfmac_f32_16x16x64_bf16",
    "smfmac_f32_16x16x64_bf8_bf8", "smfmac_f32_16x16x64_bf8_fp8", "smfmac_f32_16x16x64_f16",
    "smfmac_f32_16x16x64_fp8_bf8", "smfmac_f32_16x16x64_fp8_fp8", "smfmac_f32_32x32x16_bf16",
    "smfmac_f32_32x32x16_f16", "smfmac_f32_32x32x32_bf16", "smfmac_f32_32x32x32_bf8_bf8",
    "smfmac_f32_32x32x32_bf8_fp8", "smfmac_f32_32x32x32_f16", "smfmac_f32_32x32x32_fp8_bf8",
    "smfmac_f32_32x32x32_fp8_fp8", "smfmac_f32_32x32x64_bf8_bf8", "smfmac_f32_32x32x64_bf8_fp8",
    "smfmac_f32_32x32x64_fp8_bf8", "smfmac_f32_32x32x64_fp8_fp8", "smfmac_i32_16x16x128_i8", "smfmac_i32_16x16x64_i8",
    "smfmac_i32_32x32x32_i8", "smfmac_i32_32x32x64_i8", "sqrt_bf16", "struct_ptr_buffer_load_lds", "sudot4", "sudot8",
    "swmmac_bf16_16x16x32_bf16_w32", "swmmac_bf16_16x16x32_bf16_w64", "swmmac_bf16_16x16x64_bf16",
    "swmmac_bf16f32_16x16x64_bf16", "swmmac_f16_16x16x128_bf8_bf8", "swmmac_f16_16x16x128_bf8_fp8",
    "swmmac_f16_16x16x128_fp8_bf8", "swmmac_f16_16x16x128_fp8_fp8", "swmmac_f16_16x16x32_f16_w32",
    "swmmac_f16_16x16x32_f16_w64", "swmmac_f16_16x16x64_f16", "swmmac_f32_16x16x128_bf8_bf8",
    "swmmac_f32_16x16x128_bf8_fp8", "swmmac_f32_16x16x128_fp8_bf8", "swmmac_f32_16x16x128_fp8_fp8",
    "swmmac_f32_16x16x32_bf16_w32", "swmmac_f32_16x16x32_bf16_w64", "swmmac_f32_16x16x32_bf8_bf8_w32",
    "swmmac_f32_16x16x32_bf8_bf8_w64", "swmmac_f32_16x16x32_bf8_fp8_w32", "swmmac_f32_16x16x32_bf8_fp8_w64",
    "swmmac_f32_16x16x32_f16_w32", "swmmac_f32_16x16x32_f16_w64", "swmmac_f32_16x16x32_fp8_bf8_w32",
    "swmmac_f32_16x16x32_fp8_bf8_w64", "swmmac_f32_16x16x32_fp8_fp8_w32", "swmmac_f32_16x16x32_fp8_fp8_w64",
    "swmmac_f32_16x16x64_bf16", "swmmac_f32_16x16x64_f16", "swmmac_i32_16x16x128_iu8", "swmmac_i32_16x16x32_iu4_w32",
    "swmmac_i32_16x16x32_iu4_w64", "swmmac_i32_16x16x32_iu8_w32", "swmmac_i32_16x16x32_iu8_w64",
    "swmmac_i32_16x16x64_iu4_w32", "swmmac_i32_16x16x64_iu4_w64", "tanh_bf16", "tanhf", "tanhh", "tensor_load_to_lds",
    "tensor_load_to_lds_d2", "tensor_store_from_lds", "tensor_store_from_lds_d2", "udot2", "udot4", "udot8",
    "wmma_bf16_16x16x16_bf16_tied_w32", "wmma_bf16_16x16x16_bf16_tied_w64", "wmma_bf16_16x16x16_bf16_w32",
    "wmma_bf16_16x16x16_bf16_w32_gfx12", "wmma_bf16_16x16x16_bf16_w64", "wmma_bf16_16x16x16_bf16_w64_gfx12",
    "wmma_bf16_16x16x32_bf16", "wmma_bf16f32_16x16x32_bf16", "wmma_f16_16x16x128_bf8_bf8",
    "wmma_f16_16x16x128_bf8_fp8", "wmma_f16_16x16x128_fp8_bf8", "wmma_f16_16x16x128_fp8_fp8",
    "wmma_f16_16x16x16_f16_tied_w32", "wmma_f16_16x16x16_f16_tied_w64", "wmma_f16_16x16x16_f16_w32",
    "wmma_f16_16x16x16_f16_w32_gfx12", "wmma_f16_16x16x16_f16_w64", "wmma_f16_16x16x16_f16_w64_gfx12",
    "wmma_f16_16x16x32_f16", "wmma_f16_16x16x64_bf8_bf8", "wmma_f16_16x16x64_bf8_fp8", "wmma_f16_16x16x64_fp8_bf8",
    "wmma_f16_16x16x64_fp8_fp8", "wmma_f32_16x16x128_bf8_bf8", "wmma_f32_16x16x128_bf8_fp8",
    "wmma_f32_16x16x128_f8f6f4", "wmma_f32_16x16x128_fp8_bf8", "wmma_f32_16x16x128_fp8_fp8",
    "wmma_f32_16x16x16_bf16_w32", "wmma_f32_16x16x16_bf16_w32_gfx12", "wmma_f32_16x16x16_bf16_w64",
    "wmma_f32_16x16x16_bf16_w64_gfx12", "wmma_f32_16x16x16_bf8_bf8_w32_gfx12", "wmma_f32_16x16x16_bf8_bf8_w64_gfx12",
    "wmma_f32_16x16x16_bf8_fp8_w32_gfx12", "wmma_f32_16x16x16_bf8_fp8_w64_gfx12", "wmma_f32_16x16x16_f16_w32",
    "wmma_f32_16x16x16_f16_w32_gfx12", "wmma_f32_16x16x16_f16_w64", "wmma_f32_16x16x16_f16_w64_gfx12",
    "wmma_f32_16x16x16_fp8_bf8_w32_gfx12", "wmma_f32_16x16x16_fp8_bf8_w64_gfx12",
    "wmma_f32_16x16x16_fp8_fp8_w32_gfx12", "wmma_f32_16x16x16_fp8_fp8_w64_gfx12", "wmma_f32_16x16x32_bf16",
    "wmma_f32_16x16x32_f16", "wmma_f32_16x16x4_f32", "wmma_f32_16x16x64_bf8_bf8", "wmma_f32_16x16x64_bf8_fp8",
    "wmma_f32_16x16x64_fp8_bf8", "wmma_f32_16x16x64_fp8_fp8", "wmma_f32_32x16x128_f4", "wmma_i32_16x16x16_iu4_w32",
    "wmma_i32_16x16x16_iu4_w32_gfx12", "wmma_i32_16x16x16_iu4_w64", "wmma_i32_16x16x16_iu4_w64_gfx12",
    "wmma_i32_16x16x16_iu8_w32", "wmma_i32_16x16x16_iu8_w32_gfx12", "wmma_i32_16x16x16_iu8_w64",
    "wmma_i32_16x16x16_iu8_w64_gfx12", "wmma_i32_16x16x32_iu4_w32_gfx12", "wmma_i32_16x16x32_iu4_w64_gfx12",
    "wmma_i32_16x16x64_iu8", "wmma_scale16_f32_16x16x128_f8f6f4", "wmma_scale16_f32_32x16x128_f4",
    "wmma_scale_f32_16x16x128_f8f6f4", "wmma_scale_f32_32x16x128_f4"
})


def declared(clang: str, names: Iterable[str], target: str) -> frozenset[str]:
    """The names whose `__has_builtin` is true for one GPU, as clang's preprocessor answers."""
    text = "".join(f"#if __has_builtin({PREFIX}{n})\n{n}\n#endif\n" for n in names)
    out = subprocess.run([clang, "-E", "-P", "-x", "c", "-", "-target", "amdgcn-amd-amdhsa", f"-mcpu={target}"],
                         input=text, capture_output=True, text=True, check=True, timeout=120).stdout
    return frozenset(out.split())


def on_every_target(clang: str, names: Iterable[str]) -> frozenset[str]:
    wanted = sorted(set(names))
    every = frozenset(wanted)
    for target, _family in ROCM_TARGET_FAMILIES:
        every &= declared(clang, wanted, target)
    return every


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m rocm_spirv.migrate.source_checks.builtin_table LIBCLANG_CPP", file=sys.stderr)
        return 2
    blob = Path(argv[0]).read_bytes()
    names = {m.decode()[len(PREFIX):] for m in re.findall(rb"__builtin_amdgcn_[a-z0-9_]+", blob)}
    every = on_every_target("clang-22", names)
    for title, table in (("EVERY_TARGET", every), ("TARGET_ONLY", names - every)):
        print(f"{title}:", " ".join(sorted(table)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
