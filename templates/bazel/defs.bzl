"""hip_library, hip_binary and hip_test: HIP sources built for AMDGCN SPIR-V, native gfx targets, or both.

    load("@rocm_spirv//:defs.bzl", "hip_binary", "hip_library", "hip_test")

The device code is chosen per build with --@rocm_spirv//:offload=spirv|native|hybrid and
--@rocm_spirv//:archs=gfx90a,gfx942. hip_library compiles with the clang++ that
`rocm-spirv bazel generate` found, archives the objects, and returns CcInfo, so it can
be a dep of cc_library, cc_binary and cc_test.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load(":flags.bzl", "validate_archs")
load(":toolchain.bzl", "HipToolchainInfo", "offload_flags")

_HIP_RUNTIME = Label("//:hip_runtime")
_HIP_EXTENSIONS = [".hip", ".cu", ".cc", ".cpp", ".cxx", ".c++"]
_HDR_EXTENSIONS = [".h", ".hh", ".hpp", ".hxx", ".inc", ".cuh"]

def _object_name(ctx, src):
    stem = src.basename[:-len(src.extension) - 1] if src.extension else src.basename
    return "_objs/{}/{}/{}.o".format(ctx.label.name, src.dirname.replace("/", "_"), stem)

def _include_flags(cc):
    flags = ["-D" + d for d in cc.defines.to_list()]
    for d in cc.includes.to_list():
        flags += ["-I", d]
    for d in cc.quote_includes.to_list():
        flags += ["-iquote", d]
    for d in cc.system_includes.to_list():
        flags += ["-isystem", d]
    return flags

def _hip_library_impl(ctx):
    tc = ctx.attr._hip_toolchain[HipToolchainInfo]
    if ctx.attr.archs:
        validate_archs(ctx.attr.archs, tc.valid_archs, "{} archs".format(ctx.label))
        offload = offload_flags(tc.mode, ctx.attr.archs, tc.spirv_flags)
    else:
        offload = tc.offload_flags

    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )

    pkg = ctx.label.package
    root = ctx.label.workspace_root
    base = "/".join([p for p in [root, pkg] if p])
    own_includes = []
    for inc in ctx.attr.includes:
        path = "/".join([p for p in [base, inc] if p and p != "."])
        own_includes += [path or ".", ctx.bin_dir.path + "/" + path if path else ctx.bin_dir.path]
    own_context = cc_common.create_compilation_context(
        headers = depset(ctx.files.hdrs),
        includes = depset(own_includes),
        quote_includes = depset([base or ".", ctx.bin_dir.path + ("/" + base if base else "")]),
        defines = depset(ctx.attr.defines),
    )
    deps_cc = [d[CcInfo] for d in ctx.attr.deps]
    compile_cc = cc_common.merge_cc_infos(
        cc_infos = [CcInfo(compilation_context = own_context)] + deps_cc,
    ).compilation_context

    headers = depset(
        [f for f in ctx.files.srcs if "." + f.extension in _HDR_EXTENSIONS],
        transitive = [compile_cc.headers],
    )
    flags = (["-x", "hip", "-fPIC"] + offload + tc.default_copts + _include_flags(compile_cc) +
             ["-D" + d for d in ctx.attr.local_defines] + ctx.attr.copts)

    objects = []
    for src in ctx.files.srcs:
        if "." + src.extension not in _HIP_EXTENSIONS:
            continue
        obj = ctx.actions.declare_file(_object_name(ctx, src))
        args = ctx.actions.args()
        args.add_all(flags)
        args.add_all(["-c", src.path, "-o", obj.path])
        ctx.actions.run(
            executable = tc.compiler,
            arguments = [args],
            # The key file stands for what clang reads from its prefix (device libraries,
            # headers) by absolute path, which Bazel never sees: a changed prefix misses.
            inputs = depset([src, tc.key_file], transitive = [headers]),
            outputs = [obj],
            mnemonic = "HipCompile",
            progress_message = "Compiling HIP ({}) {}".format(tc.mode, src.short_path),
            use_default_shell_env = True,
        )
        objects.append(obj)

    linker_inputs = []
    outputs = []
    if objects:
        archive = ctx.actions.declare_file("lib{}.a".format(ctx.label.name))
        ar_args = ctx.actions.args()
        ar_args.add("rcsD")
        ar_args.add(archive)
        ar_args.add_all(objects)
        ctx.actions.run(
            executable = cc_toolchain.ar_executable,
            arguments = [ar_args],
            inputs = depset(objects, transitive = [cc_toolchain.all_files]),
            outputs = [archive],
            mnemonic = "HipArchive",
            progress_message = "Archiving HIP objects of {}".format(ctx.label),
            use_default_shell_env = True,
        )
        outputs.append(archive)
        library = cc_common.create_library_to_link(
            actions = ctx.actions,
            feature_configuration = feature_configuration,
            cc_toolchain = cc_toolchain,
            static_library = archive,
            # Each object registers its kernels from a static constructor that nothing references.
            alwayslink = True,
        )
        linker_inputs.append(cc_common.create_linker_input(
            owner = ctx.label,
            libraries = depset([library]),
            user_link_flags = depset(ctx.attr.linkopts),
        ))
    elif ctx.attr.linkopts:
        linker_inputs.append(cc_common.create_linker_input(
            owner = ctx.label,
            user_link_flags = depset(ctx.attr.linkopts),
        ))

    own = CcInfo(
        compilation_context = own_context,
        linking_context = cc_common.create_linking_context(linker_inputs = depset(linker_inputs)),
    )
    return [
        DefaultInfo(files = depset(outputs + objects)),
        cc_common.merge_cc_infos(cc_infos = [own] + deps_cc),
        OutputGroupInfo(objects = depset(objects), archive = depset(outputs)),
    ]

hip_library = rule(
    implementation = _hip_library_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = _HIP_EXTENSIONS + _HDR_EXTENSIONS),
        "hdrs": attr.label_list(allow_files = _HDR_EXTENSIONS),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(),
        "defines": attr.string_list(),
        "local_defines": attr.string_list(),
        "includes": attr.string_list(),
        "linkopts": attr.string_list(),
        "archs": attr.string_list(doc = "native targets for this library, instead of --@rocm_spirv//:archs"),
        "_hip_toolchain": attr.label(default = Label("//:toolchain")),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    doc = "HIP sources compiled to objects with an offload bundle (.hip_fatbin), as a CcInfo library.",
)

_LIB_ATTRS = ["hdrs", "copts", "defines", "local_defines", "includes", "archs"]

def _hip_cc(kind, name, srcs, deps, kwargs):
    lib_kwargs = {k: kwargs.pop(k) for k in _LIB_ATTRS if k in kwargs}
    hip_deps = list(deps)
    if srcs:
        hip_library(
            name = name + "_hip",
            srcs = srcs,
            deps = deps,
            testonly = kwargs.get("testonly", kind == "test"),
            visibility = ["//visibility:private"],
            tags = kwargs.get("tags", []),
            **lib_kwargs
        )
        hip_deps = [":" + name + "_hip"]
    rule = native.cc_test if kind == "test" else native.cc_binary
    rule(name = name, deps = hip_deps + [_HIP_RUNTIME], **kwargs)

def hip_binary(name, srcs = [], deps = [], **kwargs):
    """A cc_binary whose srcs are HIP: hip_library(name + "_hip") linked with the HIP runtime."""
    _hip_cc("binary", name, srcs, deps, kwargs)

def hip_test(name, srcs = [], deps = [], **kwargs):
    """A cc_test whose srcs are HIP, like hip_binary."""
    _hip_cc("test", name, srcs, deps, kwargs)
