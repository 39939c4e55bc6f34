"""Build settings of @rocm_spirv: which device code a HIP compile embeds.

    --@rocm_spirv//:offload=spirv|native|hybrid
    --@rocm_spirv//:archs=gfx90a,gfx942

Modelled on rules_cuda's archs flag, with Bazel's built-in config.string and
config.string_list build settings, so no bazel_skylib is needed.
"""

OFFLOAD_MODES = ["spirv", "native", "hybrid"]

OffloadInfo = provider(
    doc = "Value of --@rocm_spirv//:offload.",
    fields = {"mode": "spirv, native or hybrid"},
)

ArchsInfo = provider(
    doc = "Value of --@rocm_spirv//:archs.",
    fields = {"archs": "list of gfx target names"},
)

def _offload_flag_impl(ctx):
    mode = ctx.build_setting_value
    if mode not in OFFLOAD_MODES:
        fail("--{}='{}' is not an offload mode; use one of: {}".format(
            ctx.label,
            mode,
            ", ".join(OFFLOAD_MODES),
        ))
    return [OffloadInfo(mode = mode)]

offload_flag = rule(
    implementation = _offload_flag_impl,
    build_setting = config.string(flag = True),
    doc = "spirv: one amdgcnspirv entry; native: one entry per arch; hybrid: both.",
)

def validate_archs(archs, valid, what):
    """Fails analysis unless every name in archs is a gfx target the compiler accepts."""
    bad = [a for a in archs if a not in valid]
    if bad:
        fail("{}: {} not a valid AMD GPU target for this compiler; valid targets: {}".format(
            what,
            ", ".join(["'{}'".format(a) for a in bad]) + (" is" if len(bad) == 1 else " are"),
            ", ".join(valid),
        ))
    if not archs:
        fail("{}: empty; name at least one target, e.g. gfx942 (valid targets: {})".format(
            what,
            ", ".join(valid),
        ))

def _archs_flag_impl(ctx):
    archs = []
    for item in ctx.build_setting_value:
        # "gfx90a,gfx942" arrives split already; also accept "gfx90a;gfx942" and spaces.
        for a in item.replace(";", ",").split(","):
            a = a.strip()
            if a and a not in archs:
                archs.append(a)
    validate_archs(archs, ctx.attr.valid, "--{}".format(ctx.label))
    return [ArchsInfo(archs = archs)]

archs_flag = rule(
    implementation = _archs_flag_impl,
    build_setting = config.string_list(flag = True),
    attrs = {
        "valid": attr.string_list(doc = "gfx targets the compiler accepts"),
    },
    doc = "Native gfx targets for offload=native and offload=hybrid.",
)
