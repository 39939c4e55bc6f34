"""AMDGCN builtins clang declares for every GPU ROCm serves: a `__has_builtin` test of one of them has the
same answer on every target and under amdgcnspirv (a compiler-version check, not an arch test), so it is no
RSM206. clang's `__has_builtin` knows each builtin's target features (`__builtin_amdgcn_mfma_f32_32x32x8f16`
is true for gfx942, false for gfx900 and gfx1100, true for spirv64-amd-amdhsa); the table is what clang 22
answers for all of pp.ROCM_TARGET_FAMILIES, names without the `__builtin_amdgcn_` prefix. A builtin clang
22 does not know stays an arch test. Regenerate with

    python -m rocm_spirv.migrate.source_checks.builtin_table /usr/lib/llvm-22/lib/libclang-cpp.so.22.1

(the names are read out of clang's library, the answers come from its preprocessor);
tests/test_migrate_builtin_table.py asks clang again for each name in the table and for the ones it left out.
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
    for name in sorted(on_every_target("clang-22", names)):
        print(name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
