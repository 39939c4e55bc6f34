"""`rocm-spirv toolchain list|provision|generate`: compilers found, a clang 22 prefix, toolchain files."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rocm_spirv import config, jsondoc
from rocm_spirv.errors import UserError
from rocm_spirv.generate.ownership import plan_write, state_of, write_planned
from rocm_spirv.generate.toolchain_file import ToolchainRequest, render
from rocm_spirv.offload import MODES, parse_archs
from rocm_spirv.term import note, say
from rocm_spirv.toolchain.choose import choose, probe_all, resolve
from rocm_spirv.toolchain.launcher import resolve_launcher
from rocm_spirv.toolchain.paths import default_prefix
from rocm_spirv.toolchain.provision import provision


def register(sub: Any) -> None:
    p = sub.add_parser("toolchain", help="find, probe and provision HIP compilers")
    tsub = p.add_subparsers(dest="toolchain_command", metavar="ACTION", required=True)

    ls = tsub.add_parser("list", help="every HIP-capable compiler found, best first")
    ls.add_argument("--compiler", help="probe only this compiler")
    ls.add_argument("--prefix", type=Path, help="provisioned prefix to look in")
    ls.add_argument("--no-cache", action="store_true", help="probe again, ignoring the cache")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=_list)

    pv = tsub.add_parser("provision", help="assemble a ROCm 7 device toolchain prefix around clang 22")
    pv.add_argument("--prefix", type=Path, default=None, help=f"where (default {default_prefix()})")
    pv.add_argument("--llvm", metavar="DIR|ziglang",
                    help="LLVM to wrap: a bin dir such as /usr/lib/llvm-22/bin, or ziglang "
                         "(default: the newest full LLVM >= 22 installed, else ziglang)")
    pv.add_argument("--bundler", type=Path, help="clang-offload-bundler to use (ziglang only needs one)")
    pv.add_argument("--triton-wheel", "--hip-headers-wheel", dest="triton_wheel", type=Path,
                    help="a triton wheel already on disk (ROCm 7 HIP headers and device libraries)")
    pv.add_argument("--hip-headers", action="store_true", help=argparse.SUPPRESS)  # always on now
    pv.add_argument("--json", action="store_true")
    pv.set_defaults(func=_provision)

    gen = tsub.add_parser("generate", help="write a CMake toolchain file that retargets an unmodified project")
    gen.add_argument("--offload", choices=MODES, default=None,
                     help="GPU code to build (default: offload in [tool.rocm-spirv], else spirv)")
    gen.add_argument("--native-archs", metavar="LIST",
                     help="native targets for native/hybrid mode (gfx942,gfx1100); default: the project's list")
    gen.add_argument("--compiler", default="auto", help="clang++ to use (default auto: what doctor picks)")
    gen.add_argument("--launcher", metavar="ccache|sccache|PATH",
                     help="compiler launcher for every compile (default: $ROCM_SPIRV_LAUNCHER, else none)")
    gen.add_argument("--output", type=Path, help="file to write (default: a per-options file; its path is printed)")
    gen.add_argument("--force", action="store_true",
                     help="replace --output even if rocm-spirv did not write it or it was edited since")
    gen.add_argument("--json", action="store_true")
    gen.set_defaults(func=_generate)


def _list(args: argparse.Namespace) -> int:
    results = probe_all(args.compiler, args.prefix, not args.no_cache)
    best = choose(results)
    if args.json:
        print(jsondoc.dumps("toolchain list", {"compilers": [{**r.to_json(), "chosen": r is best} for r in results]}))
        return 0
    # A list, not a table: paths stay whole in a pipe or an 80-column log.
    for r in results:
        mark = "  <- chosen" if r is best else ""
        say(f"{r.path} ({r.source}, clang {r.version or '?'}){mark}")
        say(f"    HIP: {'yes' if r.hip else 'no'}, amdgcnspirv: {r.spirv_path or 'no'}, "
              f"gfx targets: {len(r.gfx_targets)}, complete ROCm 7 toolchain: {'yes' if r.complete else 'no'}")
        for h in r.hip_headers:
            say(f"    HIP headers {h.version}: {h.include_dir}")
        if r.llvm:
            say(f"    wraps {r.llvm}")
        for e in r.errors:
            say(f"    problem: {e}")
    if best is None:
        say("chosen: none (no HIP-capable clang++; run `rocm-spirv doctor` for the remedy)")
    return 0


def _provision(args: argparse.Namespace) -> int:
    result = provision(args.prefix or default_prefix(), args.bundler, args.triton_wheel, args.llvm, note)
    if args.json:
        print(jsondoc.dumps("toolchain provision", {"prefix": result.prefix, "changed": result.changed,
                                                    "manifest": asdict(result.manifest)}))
    else:
        state = "provisioned" if result.changed else "already up to date"
        m = result.manifest
        say(f"{result.prefix}: {state}")
        say(f"  clang {m.llvm_version} ({m.llvm_kind} LLVM, {m.llvm_clang})")
        say(f"  why this LLVM: {m.llvm_why}")
        say(f"  HIP {m.hip_version}; device libraries for {len(m.gfx_targets)} targets")
        say(f"  CMAKE_HIP_COMPILER / CMAKE_CXX_COMPILER: {result.prefix}/bin/clang++")
    return 0


def _records_identity(path: Path, identity: str) -> bool:
    try:
        data = path.read_bytes() if path.is_file() else b""
    except OSError:
        return False
    return state_of(data) == "foreign" and f"# Identity:        {identity}\n".encode() in data[:4096]


def _generate(args: argparse.Namespace) -> int:
    config.resolve(args, "toolchain generate", Path.cwd())  # the project's settings file; flags win
    req = ToolchainRequest(args.offload or "spirv", parse_archs(args.native_archs),
                           launcher=resolve_launcher(args.launcher))
    tc = render(req, resolve(args.compiler, req.mode))
    out: Path = args.output or tc.default_path()
    if out.is_dir():
        raise UserError(f"--output {out} is a directory", "name the toolchain file, e.g. --output spirv.cmake")
    # The default path is content-addressed in rocm-spirv's own folder: a file there from a version
    # that wrote no marker is still recognised by the identity it records.
    legacy = args.output is None and _records_identity(out, tc.identity)
    plan = plan_write(out, tc.text, args.force or legacy, "pass --force to replace it, or a different --output")
    changed = write_planned(plan)
    if args.json:
        print(jsondoc.dumps("toolchain generate", {
            "path": str(out.absolute()), "identity": tc.identity, "offload": req.mode,
            "native_archs": list(req.native_archs), "compiler": tc.compiler,
            "launcher": req.launcher.to_json() if req.launcher else None, "changed": changed}))
    else:
        say(out.absolute())
    return 0
