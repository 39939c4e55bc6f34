"""`rocm-spirv toolchain list|provision|generate`: compilers found, a clang 22 prefix, toolchain files."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from rocm_spirv.doctor import REMEDY, choose
from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import write_atomic
from rocm_spirv.generate.toolchain_file import MODES, ToolchainRequest, parse_archs, render
from rocm_spirv.toolchain.discover import candidates
from rocm_spirv.toolchain.paths import default_prefix
from rocm_spirv.toolchain.probe import ProbeResult, probe
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

    pv = tsub.add_parser("provision", help="assemble a clang 22 toolchain prefix from ziglang")
    pv.add_argument("--prefix", type=Path, default=None, help=f"where (default {default_prefix()})")
    pv.add_argument("--bundler", type=Path, help="clang-offload-bundler to use")
    pv.add_argument("--hip-headers", action="store_true",
                    help="add ROCm 7 HIP headers from the PyPI triton wheel (downloaded, not installed)")
    pv.add_argument("--hip-headers-wheel", type=Path, help="a triton wheel already on disk")
    pv.add_argument("--json", action="store_true")
    pv.set_defaults(func=_provision)

    gen = tsub.add_parser("generate", help="write a CMake toolchain file that retargets an unmodified project")
    gen.add_argument("--offload", choices=MODES, default="spirv", help="GPU code to build (default spirv)")
    gen.add_argument("--native-archs", metavar="LIST",
                     help="native targets for native/hybrid mode (gfx942,gfx1100); default: the project's list")
    gen.add_argument("--compiler", default="auto", help="clang++ to use (default auto: what doctor picks)")
    gen.add_argument("--output", type=Path, help="file to write (default: a per-options file; its path is printed)")
    gen.add_argument("--json", action="store_true")
    gen.set_defaults(func=_generate)


def probe_all(compiler: str | None, prefix: Path | None, use_cache: bool = True) -> list[ProbeResult]:
    results = [probe(c, use_cache) for c in candidates(compiler, prefix)]
    if compiler and not results[0].hip:
        why = results[0].errors[0] if results[0].errors else "no HIP support"
        raise UserError(f"{compiler} cannot compile HIP for AMD GPUs ({why})",
                        "pass a clang++ built with the AMDGPU backend, or run "
                        "`rocm-spirv toolchain provision` and use its bin/clang++")
    return results


def _list(args: argparse.Namespace) -> int:
    results = probe_all(args.compiler, args.prefix, not args.no_cache)
    if args.json:
        print(json.dumps([r.to_json() for r in results], indent=2))
        return 0
    table = Table(title="HIP compilers (best first)")
    for col in ("source", "path", "clang", "HIP", "amdgcnspirv", "gfx targets", "HIP headers"):
        table.add_column(col)
    for r in results:
        headers = ", ".join(f"{h.version} ({h.include_dir})" for h in r.hip_headers) or "none"
        table.add_row(r.source, r.path, r.version or "?", "yes" if r.hip else "no",
                      r.spirv_path or "no", str(len(r.gfx_targets)), headers)
    Console().print(table)
    return 0


def _provision(args: argparse.Namespace) -> int:
    result = provision(args.prefix or default_prefix(), args.bundler,
                       args.hip_headers, args.hip_headers_wheel)
    if args.json:
        print(json.dumps({"prefix": result.prefix, "changed": result.changed,
                          "manifest": result.manifest}, indent=2))
    else:
        state = "provisioned" if result.changed else "already up to date"
        print(f"{result.prefix}: {state} (clang {result.manifest['clang_version']}, "
              f"HIP headers {result.manifest['hip_version'] or 'none'})")
        print(f"  CMAKE_HIP_COMPILER / CMAKE_CXX_COMPILER: {result.prefix}/bin/clang++")
    return 0


def resolve_compiler(value: str, offload: str) -> ProbeResult:
    """`auto`: the compiler doctor would pick; else the probed path."""
    if value != "auto":
        return probe_all(value, None)[0]
    best = choose(probe_all(None, None))
    if best is None:
        raise UserError("no HIP-capable clang++ found", REMEDY["compiler"])
    if offload != "native" and not best.can_spirv:
        raise UserError(f"the best compiler found ({best.path}) cannot emit amdgcnspirv", REMEDY["spirv"])
    return best


def _generate(args: argparse.Namespace) -> int:
    req = ToolchainRequest(args.offload, parse_archs(args.native_archs))
    tc = render(req, resolve_compiler(args.compiler, req.mode))
    out: Path = args.output or tc.default_path()
    if out.is_dir():
        raise UserError(f"--output {out} is a directory", "name the toolchain file, e.g. --output spirv.cmake")
    changed = not out.is_file() or out.read_text() != tc.text
    if changed:
        write_atomic(out, tc.text)
    if args.json:
        print(json.dumps({"path": str(out.absolute()), "identity": tc.identity, "offload": req.mode,
                          "native_archs": list(req.native_archs), "compiler": tc.compiler, "changed": changed},
                         indent=2))
    else:
        print(out.absolute())
    return 0
