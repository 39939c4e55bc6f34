"""`rocm-spirv migrate PATH`: report per-arch build settings and sources; --apply retargets the build."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path
from typing import Any

from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import describe, locked
from rocm_spirv.migrate.apply import as_bytes, commit_order, plan, unified_diff
from rocm_spirv.migrate.commit import apply_all, pending, recover
from rocm_spirv.migrate.report import print_human, to_json
from rocm_spirv.migrate.sarif import to_sarif
from rocm_spirv.migrate.scan import scan
from rocm_spirv.term import console


def register(sub: Any) -> None:
    p = sub.add_parser("migrate", help="find per-arch build settings and code; retarget the build to SPIR-V")
    p.add_argument("path", type=Path, help="project folder (or one file) to scan")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="write nothing; exit 1 when findings remain")
    mode.add_argument("--diff", action="store_true", help="print the build edits --apply would make")
    mode.add_argument("--apply", action="store_true", help="edit CMake files in place (sources are never edited)")
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text", help="report format")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="skip paths matching GLOB (repeatable; matches a name, a path or a path suffix)")
    p.set_defaults(func=_run)


def _write_bytes(data: bytes) -> None:
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (tests may swap one in)
        sys.stdout.write(data.decode("utf-8", errors="surrogateescape"))
    else:
        buffer.write(data)
        buffer.flush()


def _run(args: argparse.Namespace) -> int:
    root: Path = args.path
    if not root.exists():
        raise UserError(f"{root} does not exist", "pass a project folder or a file to scan")
    if not root.is_dir() and not root.is_file():
        raise UserError(f"{root} {describe(root)}", "pass a project folder or a regular file to scan")
    # Findings quote file text, which may hold bytes that are not UTF-8.
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")
    base = root.resolve() if root.is_dir() else root.resolve().parent
    mode = "apply" if args.apply else "diff" if args.diff else "check" if args.check else "report"
    if not args.apply:
        if (journal := pending(base)) is not None:
            raise UserError(f"an earlier migrate --apply in {base} did not finish ({journal})",
                            f"run rocm-spirv migrate --apply {root}: it finishes or rolls that back first")
        s = scan(root.resolve(), tuple(args.exclude))
        changes = as_bytes(plan(s), s.bom)
        if args.diff:
            _write_bytes(unified_diff(changes))
            return 0
    else:
        # One apply at a time per project: the folder itself is the lock (no lock file left in it).
        with locked(base):
            done = recover(base)
            if done:
                print(f"rocm-spirv: {done}", file=sys.stderr)
            s = scan(root.resolve(), tuple(args.exclude))
            changes = as_bytes(plan(s), s.bom)
            if changes:
                apply_all(base, changes, s.stamps, commit_order(changes))
                s = scan(root.resolve(), tuple(args.exclude))  # report what is left after the edits
    result = s.result
    changed = sorted(changes)
    if args.format == "json":
        print(json.dumps(to_json(result, mode, changed), indent=2))
    elif args.format == "sarif":
        print(json.dumps(to_sarif(result), indent=2))
    else:
        print_human(console(), result, mode, changed)
    if args.check:  # a file it could not read is a file it could not check
        return 1 if result.remaining or result.errors else 0
    return 0
