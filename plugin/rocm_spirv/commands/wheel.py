"""`rocm-spirv wheel`: the rocm_spirv.json record (write at install, read back) and auditwheel repair."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rocm_spirv import jsondoc
from rocm_spirv.commands import flags
from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import read_regular
from rocm_spirv.inspect.base import FormatError
from rocm_spirv.term import say
from rocm_spirv.wheel import metadata, repair

MAX_TARGETS = 16 << 20  # a line per target: megabytes would be thousands of targets


def register(sub: Any) -> None:
    p = sub.add_parser("wheel", help="wheels with HIP code: rocm_spirv.json record, auditwheel repair")
    wsub = p.add_subparsers(dest="wheel_command", metavar="ACTION", required=True)

    m = wsub.add_parser("metadata", help="print a wheel's rocm_spirv.json record; with --targets and "
                        "--output, write one (what rocm_spirv_wheel_metadata runs at install)")
    m.add_argument("wheels", type=Path, nargs="*", metavar="WHEEL", help="wheel(s) to read the record of")
    m.add_argument("--json", action="store_true", help="print the records as JSON ({wheels: [...]}, one per wheel)")
    m.add_argument("--targets", type=Path, help="write mode: tab-separated list from RocmSpirvWheel.cmake")
    m.add_argument("--output", type=Path, help="write mode: where rocm_spirv.json goes")
    m.add_argument("--compiler", default="", help="write mode: the CMAKE_HIP_COMPILER that built the wheel")
    m.add_argument("--compiler-id", default="", help="write mode: CMAKE_HIP_COMPILER_ID (Clang)")
    m.add_argument("--compiler-version", default="", help="write mode: CMAKE_HIP_COMPILER_VERSION")
    m.add_argument("--project", default="", help="write mode: the CMake project name")
    m.add_argument("--default-offload", default="",
                   help="write mode: ROCM_SPIRV_OFFLOAD of the build (native, spirv or hybrid)")
    m.set_defaults(func=_metadata)

    r = wsub.add_parser("repair", help="auditwheel repair, leaving the HIP runtime out of the wheel")
    r.add_argument("wheels", type=Path, nargs="+", metavar="WHEEL", help="wheel(s) built by pip wheel to repair")
    r.add_argument("-w", "--wheel-dir", type=Path, default=Path("wheelhouse"),
                   help="folder for the repaired wheels (default wheelhouse, as auditwheel)")
    r.add_argument("--plat", help="manylinux tag (default: auditwheel's choice)")
    exclude = r.add_argument("--exclude-library", action="append", default=[], metavar="PATTERN",
                   help="another library not to vendor, beside the HIP runtime "
                        f"({', '.join(repair.HIP_RUNTIME)}); repeatable")
    flags.deprecated(r, "--exclude", exclude)
    r.add_argument("--vendor-hip-runtime", action="store_true",
                   help="copy the HIP runtime into the wheel too (pins one ROCm release into it; "
                        "rarely what a package on PyPI wants)")
    r.add_argument("--json", action="store_true",
                   help="print each wheel's result as JSON (auditwheel's own output goes to stderr)")
    r.set_defaults(func=_repair)


def _metadata(args: argparse.Namespace) -> int:
    if args.targets is not None or args.output is not None:
        if args.wheels or args.targets is None or args.output is None:
            raise UserError("write mode takes --targets and --output and no WHEEL",
                            "run it the way rocm_spirv_wheel_metadata() does, or pass only WHEEL to read")
        return _write(args)
    if not args.wheels:
        raise UserError("no WHEEL given", "pass the .whl whose rocm_spirv.json to print")
    records: list[tuple[Path, dict[str, Any]]] = []
    for wheel in args.wheels:
        if not wheel.is_file():
            raise UserError(f"{wheel}: no such wheel", "pass a .whl built with rocm_spirv_wheel_metadata()")
        try:
            records.append((wheel, metadata.read_record(wheel)))
        except FormatError as err:
            raise UserError(str(err), "build the wheel with rocm_spirv_wheel_metadata() in its CMakeLists") from None
    if args.json:
        print(jsondoc.dumps("wheel metadata", {"wheels": [{"wheel": str(w), "record": r} for w, r in records]}))
    else:
        for w, r in records:
            say("\n".join(metadata.describe(w, r)))
    return 0


def _write(args: argparse.Namespace) -> int:
    try:
        # A FIFO or /dev/zero would block or never end: a regular file of a sane size only.
        data = read_regular(args.targets, MAX_TARGETS)
        if data is None:
            raise ValueError(f"larger than {MAX_TARGETS >> 20} MiB, not a target list")
        targets = metadata.parse_targets(data.decode("utf-8"))
    except OSError as err:
        raise UserError(f"cannot read {args.targets}: {err.strerror or err}",
                        "pass the target list file RocmSpirvWheel.cmake wrote") from None
    except ValueError as err:
        raise UserError(f"{args.targets}: {err}", "re-run cmake to regenerate the target list") from None
    compiler = metadata.compiler_json(args.compiler, args.compiler_id, args.compiler_version)
    try:
        record = metadata.build_record(targets, compiler, args.project, args.default_offload)
    except FormatError as err:
        raise UserError(str(err), "is the target built?") from None
    except OSError as err:
        raise UserError(f"{err.filename}: {err.strerror}", "is the target built?") from None
    metadata.write_record(record, args.output)
    return 0


def _repair(args: argparse.Namespace) -> int:
    missing = [str(w) for w in args.wheels if not w.is_file()]
    if missing:
        raise UserError(f"{', '.join(missing)}: no such wheel", "pass .whl files built by pip wheel")
    names = [w.name for w in args.wheels]
    clashes = sorted({n for n in names if names.count(n) > 1})
    if clashes:
        raise UserError(f"several wheels named {', '.join(clashes)}: each repaired one would replace the last in "
                        f"{args.wheel_dir}", "repair them one at a time into different -w folders")
    excludes = repair.exclude_patterns(args.exclude_library, vendor_hip_runtime=args.vendor_hip_runtime)
    done = [repair.repair(w, args.wheel_dir, excludes, args.plat, quiet_stdout=args.json) for w in args.wheels]
    failed = [r for r in done if r.returncode != 0]
    if args.json:
        print(jsondoc.dumps("wheel repair", {"excluded": excludes, "wheel_dir": str(args.wheel_dir),
                          "wheels": [{"wheel": str(r.wheel), "ok": r.returncode == 0, "returncode": r.returncode,
                                      "repaired": [str(p) for p in r.written]} for r in done]}))
    else:
        for r in failed:
            say(f"rocm-spirv: auditwheel repair failed for {r.wheel} (exit {r.returncode}; its output is above)")
    return 1 if failed else 0
