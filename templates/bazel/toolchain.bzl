"""The HIP toolchain of @rocm_spirv: the compiler and the offload flags for the current build."""

load(":flags.bzl", "ArchsInfo", "OffloadInfo")

HipToolchainInfo = provider(
    doc = "The HIP compiler and the --offload-arch flags selected by the build settings.",
    fields = {
        "compiler": "absolute path of clang++",
        "default_copts": "flags every HIP compile gets",
        "mode": "spirv, native or hybrid",
        "archs": "native gfx targets (native and hybrid)",
        "offload_flags": "--offload-arch=... and the flags SPIR-V needs",
        "spirv_flags": "extra flags for amdgcnspirv (device-only ones behind -Xarch_amdgcnspirv)",
        "valid_archs": "every gfx target the compiler accepts",
        "key_file": "a file holding the prefix's content key: an input of every compile action",
    },
)

def offload_flags(mode, archs, spirv_flags):
    spirv = ["--offload-arch=amdgcnspirv"] + spirv_flags
    native = ["--offload-arch=" + a for a in archs]
    if mode == "spirv":
        return spirv
    if mode == "native":
        return native
    return spirv + native

def _hip_toolchain_impl(ctx):
    mode = ctx.attr.offload[OffloadInfo].mode
    archs = ctx.attr.archs[ArchsInfo].archs
    if mode != "native" and not ctx.attr.spirv_supported:
        fail("--@rocm_spirv//:offload={}: {} cannot emit amdgcnspirv; ".format(mode, ctx.attr.compiler) +
             "use --@rocm_spirv//:offload=native, or run `rocm-spirv toolchain provision` and " +
             "`rocm-spirv bazel generate` again")
    key_file = ctx.actions.declare_file(ctx.label.name + ".prefix_key")
    ctx.actions.write(key_file, ctx.attr.prefix_key + "\n")
    return [HipToolchainInfo(
        key_file = key_file,
        compiler = ctx.attr.compiler,
        default_copts = ctx.attr.default_copts,
        mode = mode,
        archs = archs if mode != "spirv" else [],
        offload_flags = offload_flags(mode, archs, ctx.attr.spirv_flags),
        spirv_flags = ctx.attr.spirv_flags,
        valid_archs = ctx.attr.valid_archs,
    )]

hip_toolchain = rule(
    implementation = _hip_toolchain_impl,
    attrs = {
        "archs": attr.label(mandatory = True, providers = [ArchsInfo]),
        "compiler": attr.string(mandatory = True),
        "default_copts": attr.string_list(),
        "offload": attr.label(mandatory = True, providers = [OffloadInfo]),
        "prefix_key": attr.string(),
        "spirv_flags": attr.string_list(),
        "spirv_supported": attr.bool(default = True),
        "valid_archs": attr.string_list(),
    },
)
