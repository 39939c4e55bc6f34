"""`rocm-spirv wheel`: record a wheel's GPU code (metadata) and repair it for PyPI (repair)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rocm_spirv.errors import UserError
from rocm_spirv.inspect.base import FormatError
from rocm_spirv.wheel import metadata, repair


def register(sub: Any) -> None:
    p = sub.add_parser("wheel", help="wheels with HIP code: rocm_spirv.json record, auditwheel repair")
    wsub = p.add_subparsers(dest="wheel_command", metavar="ACTION", required=True)

    m = wsub.add_parser("metadata", help="write rocm_spirv.json (run by rocm_spirv_wheel_metadata at install)")
    m.add_argument("--targets", type=Path, required=True, help="tab-separated list from RocmSpirvWheel.cmake")
    m.add_argument("--output", type=Path, required=True)
    m.add_argument("--compiler", default="")
    m.add_argument("--compiler-id", default="")
    m.add_argument("--compiler-version", default="")
    m.add_argument("--project", default="")
    m.add_argument("--default-offload", default="")
    m.set_defaults(func=_metadata)

    r = wsub.add_parser("repair", help="auditwheel repair, leaving the HIP runtime out of the wheel")
    r.add_argument("wheel", type=Path)
    r.add_argument("-w", "--wheel-dir", type=Path, default=Path("wheelhouse"))
    r.add_argument("--plat", help="manylinux tag (default: auditwheel's choice)")
    r.add_argument("--exclude", action="append", default=None, metavar="PATTERN",
                   help=f"library not to vendor (default: {', '.join(repair.DEFAULT_EXCLUDES)})")
    r.set_defaults(func=_repair)


def _metadata(args: argparse.Namespace) -> int:
    try:
        targets = metadata.parse_targets(args.targets.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise UserError(f"{args.targets}: {err}", "re-run cmake to regenerate the target list") from None
    compiler = {"path": args.compiler, "id": args.compiler_id, "version": args.compiler_version}
    try:
        record = metadata.build_record(targets, compiler, args.project, args.default_offload)
    except FormatError as err:
        raise UserError(str(err), "is the target built?") from None
    except OSError as err:
        raise UserError(f"{err.filename}: {err.strerror}", "is the target built?") from None
    metadata.write_record(record, args.output)
    return 0


def _repair(args: argparse.Namespace) -> int:
    excludes = args.exclude if args.exclude is not None else list(repair.DEFAULT_EXCLUDES)
    return repair.repair(args.wheel, args.wheel_dir, excludes, args.plat)
