"""`rocm-spirv inspect`: list the device code in objects, archives, libraries, bundles and wheels."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rocm_spirv.errors import UserError
from rocm_spirv.inspect.base import FormatError
from rocm_spirv.inspect.render import print_human, write_json
from rocm_spirv.inspect.report import InputReport
from rocm_spirv.inspect.require import check, parse_requirement
from rocm_spirv.inspect.scan import Sink, inspect_path
from rocm_spirv.inspect.validate import spirv_val, validate


def register(sub: Any) -> None:
    p = sub.add_parser("inspect", help="list the device code (SPIR-V, code objects) inside binaries")
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                   help="object, static archive, shared library, executable, raw bundle or wheel")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--require", metavar="SPEC",
                   help="spirv-only | native:gfx942,… | hybrid:gfx942,…; exit 1 when not met")
    p.add_argument("--validate", action="store_true", help="run spirv-val on every SPIR-V module")
    p.set_defaults(func=_run)


def load(paths: list[Path], sink: Sink | None = None) -> list[InputReport]:
    out = []
    for path in paths:
        try:
            out.append(inspect_path(path, sink=sink))
        except FormatError as err:
            raise UserError(str(err), "is the file complete and a HIP build output?") from None
        except IsADirectoryError:
            raise UserError(f"{path} is a folder", "pass the files inside it") from None
        except OSError as err:
            raise UserError(f"{path}: {err.strerror or err}", "check the path") from None
    return out


def _run(args: argparse.Namespace) -> int:
    req = parse_requirement(args.require) if args.require else None
    sink: Sink | None = {} if args.validate else None
    inputs = load(args.paths, sink)
    if sink is not None:
        tool = spirv_val()
        inputs = [InputReport(i.path, i.format, tuple(validate(list(i.files), sink, tool))) for i in inputs]
    files = [f for i in inputs for f in i.files]
    failures = check(req, files) if req is not None else []
    if args.json:
        write_json(inputs, req, failures, sys.stdout)
    else:
        print_human(inputs, req, failures)
    return 1 if failures else 0
