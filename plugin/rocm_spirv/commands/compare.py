"""`rocm-spirv compare`: build a project per-arch and as SPIR-V, and say what SPIR-V buys."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from rocm_spirv import config
from rocm_spirv.commands import flags
from rocm_spirv.compare import plan as planning
from rocm_spirv.compare import reproduce
from rocm_spirv.compare.model import DEFAULT_ARCHS, JIT_ESTIMATE_ARCH
from rocm_spirv.compare.report import to_json, write_report
from rocm_spirv.compare.runner import Setup, offload_compress_supported
from rocm_spirv.compare.session import compare
from rocm_spirv.compare.view import print_human
from rocm_spirv.errors import UserError
from rocm_spirv.resources import _PKG
from rocm_spirv.term import console as make_console
from rocm_spirv.term import esc, plain, progress_wanted
from rocm_spirv.toolchain.choose import choose, probe_all
from rocm_spirv.toolchain.launcher import resolve_launcher


def default_project(sample: str = "hip_library") -> Path:
    for candidate in (_PKG / "samples" / sample, _PKG.parent.parent / "samples" / sample):
        if candidate.is_dir():
            return candidate
    raise UserError(f"samples/{sample} is not available in this installation", "pass a PROJECT_DIR")


# Set by every variant's toolchain file: a -D of one would be replaced or fight the variant.
VARIANT_OWNED = ("CMAKE_TOOLCHAIN_FILE", "CMAKE_HIP_ARCHITECTURES", "GPU_TARGETS", "AMDGPU_TARGETS",
                 "HCC_AMDGPU_TARGET", "ROCM_SPIRV_OFFLOAD", "ROCM_SPIRV_NATIVE_ARCHS")


def check_define(text: str) -> str:
    name, eq, _ = text.partition("=")
    var = name.split(":")[0]
    if not eq or not var or any(c.isspace() for c in var):
        raise UserError(f"-D {text!r} is not VAR=VALUE", "pass e.g. -D BUILD_TESTING=ON")
    if var in VARIANT_OWNED:
        raise UserError(f"-D {var} is set by every variant's toolchain file",
                        "use --archs, --native-archs or --reference-arch for targets")
    return text


def register(sub: Any) -> None:
    p = sub.add_parser("compare", help="measure build time and size, per-arch vs SPIR-V")
    p.add_argument("project", nargs="?", type=Path,
                   help="CMake project (default: samples/hip_library, a real-HIP library; "
                        "samples/kernels is the builtin-only lower bound; with --wheel, samples/python_ext)")
    p.add_argument("--archs", help="native targets, separated by , ; or spaces "
                                   f"(default: {','.join(DEFAULT_ARCHS[:8])})")
    reference = p.add_argument("--reference-arch", default=None, metavar="GFX",
                               help=f"the one native target SPIR-V is held against (default {JIT_ESTIMATE_ARCH})")
    flags.deprecated(p, "--baseline", reference)  # --baseline is a findings file (migrate)
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="VAR=VALUE",
                   help="a CMake cache entry for every variant (repeatable), e.g. -D BUILD_TESTING=ON")
    p.add_argument("--target", dest="targets", action="append", default=[], metavar="NAME",
                   help="build only this target (repeatable; default: all)")
    p.add_argument("--native-archs", help="also build hybrid: SPIR-V plus these native targets")
    p.add_argument("--scaling", help="numbers of native targets to plot against, e.g. 1,2,4,8,16")
    p.add_argument("--repeat", type=int, default=None, help="repeats per variant (default 3)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="build parallelism (at least 1)")
    p.add_argument("--compress", action=argparse.BooleanOptionalAction, default=None,
                   help="also build with --offload-compress, as ROCm libraries ship (default: on when the "
                        "compiler supports it; --no-compress measures uncompressed builds only)")
    p.add_argument("--no-jit", action="store_true",
                   help="skip measuring the first-launch JIT work on the baseline build (an offline proxy: "
                        "device-library link, opt, llc, ld.lld per HIP source)")
    p.add_argument("--jit-targets", metavar="GFX[,GFX]",
                   help="also measure the first-launch JIT work for these targets, separated by , or ; "
                        "(default: the --reference-arch target alone), from the same baseline build")
    p.add_argument("--compiler", help="clang++ to use (default: discovered)")
    p.add_argument("--launcher", metavar="ccache|sccache|PATH",
                   help="compiler launcher for every variant's build (default: $ROCM_SPIRV_LAUNCHER, else none); "
                        "build times then include the cache's hits (docs/caching.md)")
    p.add_argument("--report", type=Path, help="write report.md, report.json, scaling.png here")
    p.add_argument("--against", type=Path, metavar="REPORT_JSON",
                   help="check this run against an earlier report.json: identical sizes, "
                        "timings inside its 95%% intervals")
    p.add_argument("--wheel", action="store_true",
                   help="build a Python wheel per variant with `pip wheel` (scikit-build-core projects) and "
                        "measure wheel build time, wheel size and installed size")
    p.add_argument("--no-build-isolation", action="store_true",
                   help="with --wheel: build in this environment instead of pip's isolated one")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    project = (args.project or default_project("python_ext" if args.wheel else "hip_library")).resolve()
    if not (project / "CMakeLists.txt").is_file():
        raise UserError(f"{project} has no CMakeLists.txt", "pass the folder of a CMake project")
    # [tool.rocm-spirv.compare] of the project compared (flags win); the defaults live in config.SETTINGS.
    config.resolve(args, "compare", project)
    if args.wheel and not (project / "pyproject.toml").is_file():
        raise UserError(f"{project} has no pyproject.toml, so --wheel cannot build it with pip wheel",
                        "pass a scikit-build-core project, or drop --wheel to compare the CMake build")
    if args.no_build_isolation and not args.wheel:
        raise UserError("--no-build-isolation applies to --wheel builds only", "add --wheel or drop it")
    if args.repeat < 1:
        raise UserError("--repeat must be at least 1", "use e.g. --repeat 3")
    if args.jobs < 1:
        raise UserError(f"--jobs {args.jobs} is not a number of parallel jobs", "use e.g. --jobs 2")
    defines = tuple(check_define(d) for d in args.defines)
    if args.targets and args.wheel:
        raise UserError("--target applies to CMake builds, not --wheel", "drop --target, or drop --wheel")
    earlier = reproduce.load(args.against) if args.against else None
    comp = choose(probe_all(args.compiler, None))
    if comp is None or not comp.can_spirv:
        raise UserError("no compiler that can emit amdgcnspirv", "run `rocm-spirv doctor` for the remedy")
    archs = planning.arch_option(args.archs, comp.gfx_targets)
    native = (planning.arch_option(args.native_archs, comp.gfx_targets, "--native-archs")
              if args.native_archs is not None else [])
    (baseline,) = planning.arch_option(args.reference_arch, comp.gfx_targets, "--reference-arch")[:1]
    jit_targets = planning.parse_jit_targets(args.jit_targets, comp.gfx_targets, baseline)
    scaling = planning.parse_scaling(args.scaling, len(DEFAULT_ARCHS))
    compress = args.compress
    if compress is None:
        compress = offload_compress_supported(comp.path)
    elif compress and not offload_compress_supported(comp.path):
        raise UserError(f"{comp.path} does not support --offload-compress",
                        "use clang 18 or newer, or drop --compress")
    variants = planning.variants(archs, native, scaling, compress, baseline)
    setup = Setup(project, comp, args.jobs, wheel=args.wheel, build_isolation=not args.no_build_isolation,
                  defines=defines, targets=tuple(args.targets), jit=not args.no_jit,
                  jit_targets=tuple(jit_targets[1:]),
                  launcher=resolve_launcher(args.launcher))
    compiler: dict[str, object] = {"path": comp.path, "version": comp.version, "spirv_path": comp.spirv_path,
                "spirv_flags": comp.spirv_flags}
    console = make_console(stderr=args.json)
    total = len(variants) * args.repeat
    if not progress_wanted():  # -q: results only
        result = compare(setup, variants, args.repeat, compiler, lambda m: None)
    elif console.is_terminal:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=console, transient=True) as bar:
            task = bar.add_task("building", total=total)
            result = compare(setup, variants, args.repeat, compiler,
                             lambda m: bar.update(task, description=f"building {m}", advance=1))
    else:
        # A CI log gets one line per build, on stderr, so a long run is never silent.
        done = 0

        def step(message: str) -> None:
            nonlocal done
            done += 1
            print(f"[{done}/{total}] building {plain(message)}", file=sys.stderr, flush=True)

        result = compare(setup, variants, args.repeat, compiler, step)
    if earlier is not None:
        result.reproduction = reproduce.judge(args.against, reproduce.checks(earlier, result))
    if args.report:
        for path in write_report(result, args.report):
            console.print(f"wrote {esc(path)}")
    if args.json:
        print(json.dumps(to_json(result), indent=2))
    else:
        print_human(result, console, wrote_report=args.report is not None)
    if result.partial:
        return 130
    return 0 if all(r.ok for r in result.results) else 1
