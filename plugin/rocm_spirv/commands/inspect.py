"""`rocm-spirv inspect`: list the device code in objects, archives, libraries, bundles and wheels."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import NotRegularFile
from rocm_spirv.inspect.base import (
    BUDGET_FLAG,
    DEFAULT_BUDGET,
    DEFAULT_LIMITS,
    BudgetExceeded,
    FormatError,
    LimitExceeded,
    Limits,
    human_size,
    parse_size,
)
from rocm_spirv.inspect.model import InputReport
from rocm_spirv.inspect.render import Detail, print_human, write_json
from rocm_spirv.inspect.require import check, parse_requirement
from rocm_spirv.inspect.scan import Sink, inspect_path
from rocm_spirv.inspect.validate import distinct_modules, rejected, spirv_val, validate
from rocm_spirv.toolchain.spirv_val import REMEDY as SPIRV_VAL_REMEDY


def register(sub: Any) -> None:
    p = sub.add_parser("inspect", help="list the device code (SPIR-V, code objects) inside binaries")
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                   help="object, static archive, shared library, executable, raw bundle or wheel")
    p.add_argument("--json", action="store_true", help="machine-readable output (every entry and kernel)")
    p.add_argument("--entries", action="store_true",
                   help="one line per device entry instead of the summary per kind and target")
    p.add_argument("--kernels", action="store_true", help="as --entries, with every kernel's name")
    p.add_argument("--brief", action="store_true",
                   help="one line per PATH (what rocm_spirv_verify prints in a build), then any failure")
    p.add_argument("--require", metavar="SPEC",
                   help="spirv-only | native:gfx942,… | hybrid:gfx942,…; exit 1 when not met")
    p.add_argument("--validate", action="store_true",
                   help="run spirv-val on every SPIR-V module; exit 1 when it rejects one")
    p.add_argument(BUDGET_FLAG, dest="max_decompressed", type=_size, default=DEFAULT_BUDGET, metavar="SIZE",
                   help="bytes decompressed (bundles, wheel members) and copied (archive members) per run, "
                        f"all inputs together (default {human_size(DEFAULT_BUDGET)}; e.g. 2G)")
    for flag, dest, what in (("--max-entries", "max_entries", "bundle entries, archive and wheel members, offload "
                              "images per container"),
                             ("--max-symbols", "max_symbols", "kernel symbols per code object"),
                             ("--max-strings", "max_string_bytes", "bytes of ids, names and strings per container"),
                             ("--max-validate", "max_validate", "distinct SPIR-V modules --validate runs spirv-val "
                              "on, all inputs together")):
        p.add_argument(flag, dest=dest, type=_size if dest == "max_string_bytes" else _count,
                       default=getattr(DEFAULT_LIMITS, dest), metavar="N",
                       help=f"{what} (default {getattr(DEFAULT_LIMITS, dest):,})")
    p.set_defaults(func=_run)


def _count(text: str) -> int:
    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a count; use e.g. 500000") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive count")
    return value


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{err}; use e.g. 512M or 2G") from None


def load(paths: list[Path], sink: Sink | None = None, limits: Limits = DEFAULT_LIMITS) -> list[InputReport]:
    """Every path read under one decompression budget."""
    out = []
    budget = limits.budget()
    for path in paths:
        try:
            out.append(inspect_path(path, limits, sink, budget))
        except BudgetExceeded as err:
            raise UserError(str(err), f"{BUDGET_FLAG} SIZE sets the budget: raise it (e.g. 2G) for a trusted input, "
                            "within the memory the process may use") from None
        except LimitExceeded as err:
            raise UserError(str(err)) from None
        except FormatError as err:
            raise UserError(str(err), "is the file complete and a HIP build output?") from None
        except IsADirectoryError:
            raise UserError(f"{path} is a folder", "pass the files inside it") from None
        except NotRegularFile as err:
            raise UserError(f"{path} {err.strerror}", "pass a file (inspect reads build outputs, not pipes or "
                            "devices)") from None
        except OSError as err:
            raise UserError(f"{path}: {err.strerror or err}", "check the path") from None
    return out


def _run(args: argparse.Namespace) -> int:
    req = parse_requirement(args.require) if args.require else None
    sink: Sink | None = {} if args.validate else None
    tool = spirv_val() if args.validate else None
    if args.validate and tool is None:
        # A gate that cannot run must not pass: exit 2 rather than report every module "not run" and 0.
        raise UserError("--validate needs spirv-val, which was not found (PyPI, the prefix, PATH)",
                        f"{SPIRV_VAL_REMEDY}, or drop --validate")
    limits = Limits(max_decompressed=args.max_decompressed, max_entries=args.max_entries,
                    max_symbols=args.max_symbols, max_string_bytes=args.max_string_bytes,
                    max_validate=args.max_validate)
    inputs = load(args.paths, sink, limits)
    if sink is not None and tool is not None:
        # One spirv-val process per distinct module: refused before the first runs, as the other limits are.
        modules = distinct_modules([f for i in inputs for f in i.files], sink)
        if modules > limits.max_validate:
            raise UserError(str(limits.refuse("--validate: distinct SPIR-V modules", modules, "max_validate")))
        inputs = [InputReport(i.path, i.format, tuple(validate(list(i.files), sink, tool))) for i in inputs]
    files = [f for i in inputs for f in i.files]
    failures = check(req, files) if req is not None else []
    invalid = rejected(files) if args.validate else None
    if args.json:
        write_json(inputs, req, failures, sys.stdout, invalid)
    else:
        detail: Detail = ("kernels" if args.kernels else "entries" if args.entries
                          else "brief" if args.brief else "summary")
        print_human(inputs, req, failures, invalid=invalid, detail=detail)
    return 1 if failures or invalid else 0
