"""`rocm-spirv migrate PATH`: report per-arch build settings and sources; --apply retargets the build."""

from __future__ import annotations

import argparse
import io
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from rocm_spirv import config
from rocm_spirv.commands import flags
from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import describe, locked, read_regular, write_atomic
from rocm_spirv.migrate import gate as gating
from rocm_spirv.migrate.apply import as_bytes, by_real_path, commit_order, plan, unified_diff
from rocm_spirv.migrate.commit import apply_all, pending, recover
from rocm_spirv.migrate.findings import ScanResult
from rocm_spirv.migrate.gate import Gate
from rocm_spirv.migrate.oracle import build_tree
from rocm_spirv.migrate.oracle.merge import merge
from rocm_spirv.migrate.oracle.run import Configured, Oracle
from rocm_spirv.migrate.sarif import to_sarif
from rocm_spirv.migrate.scan import scan
from rocm_spirv.migrate.view import print_table, to_json, write_statistics, write_text
from rocm_spirv.term import complain, console, note, say, width
from rocm_spirv.toolchain.choose import resolve

MAX_BASELINE = 64 << 20  # fingerprints of a million findings


def register(sub: Any) -> None:
    p = sub.add_parser("migrate", help="find per-arch build settings and code; retarget the build to SPIR-V")
    p.add_argument("path", type=Path, help="project folder (or one file) to scan")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="write nothing; exit 1 when findings at or above --fail-on remain")
    mode.add_argument("--diff", action="store_true",
                      help="print the build edits --apply would make; exit 1 when there are any")
    mode.add_argument("--apply", "--fix", action="store_true",
                      help="edit CMake files in place (sources are never edited); --fix is the same, as in ruff")
    fmt = p.add_argument("--output-format", dest="format", choices=("text", "table", "json", "sarif"),
                         default="text",
                         help="report format: compiler-style lines (text), a table, JSON or SARIF 2.1.0")
    flags.deprecated(p, "--format", fmt)
    p.add_argument("--statistics", action="store_true",
                   help="print one line per rule with its count of findings instead of each finding (text format)")
    p.add_argument("--json", dest="format", action="store_const", const="json",
                   help="the report as JSON (the same as --output-format json)")
    # Defaults of None: unset on the command line, so [tool.rocm-spirv.migrate] can fill them (config.py).
    p.add_argument("--select", action="append", default=None, metavar="IDS",
                   help="report only these rule ids or prefixes (RSM1, RSM204; comma-separated, repeatable)")
    p.add_argument("--ignore", action="append", default=None, metavar="IDS",
                   help="never report these rule ids or prefixes (comma-separated, repeatable)")
    p.add_argument("--preview", action=argparse.BooleanOptionalAction, default=None,
                   help="also report rules in preview (new rules whose precision is not measured yet; "
                        "the rule table of docs/migrate.md gives each rule's status)")
    p.add_argument("--fail-on", choices=("error", "warning", "note"), default=None,
                   help="lowest severity that fails --check (default warning: notes never fail)")
    p.add_argument("--baseline", type=Path, metavar="FILE",
                   help="findings recorded in FILE (by --write-baseline) do not fail --check; new ones do")
    p.add_argument("--write-baseline", type=Path, metavar="FILE",
                   help="record today's findings in FILE (stable fingerprints, no line numbers)")
    p.add_argument("--exclude", action="append", default=None, metavar="GLOB",
                   help="skip paths matching GLOB (repeatable; matches a name, a path or a path suffix)")
    p.add_argument("--configure", action="store_true",
                   help="also configure the project twice in scratch build trees (native and SPIR-V toolchain "
                        "files) and preprocess and compile each HIP TU per target: the real CMake and clang "
                        "as the oracle (cmake arguments after --)")
    p.add_argument("--build-dir", type=Path, metavar="DIR",
                   help="--configure with the options of this existing build folder of the project (its "
                        "CMakeCache.txt: -D values, options, build type; DIR is only read); implies --configure")
    p.add_argument("--compiler", default="auto", help="clang++ for --configure (default auto: what doctor picks)")
    p.add_argument("--jobs", type=int, default=2, help="translation units --configure runs at a time (default 2)")
    # After `--`: arguments for both configures of --configure (-DOPTION=ON; -G Ninja is set). cli.main puts
    # them here.
    p.set_defaults(func=_run, passthrough=[])


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
    settings = config.resolve(args, "migrate", base)
    if args.write_baseline is not None and settings.sources["migrate.baseline"] == "file":
        args.baseline = None  # recording the baseline the settings name: it may not exist yet
    gate = Gate(gating.check_rule_ids(args.select, "--select"), gating.check_rule_ids(args.ignore, "--ignore"),
                args.fail_on, _baseline(args.baseline), preview=bool(args.preview))
    for line in gating.deprecated_selected(gate.select):
        complain("warning", line)
    mode = "apply" if args.apply else "diff" if args.diff else "check" if args.check else "report"
    if args.build_dir is not None:
        args.configure = True
    if args.passthrough and not args.configure:
        raise UserError(f"arguments after -- ({shlex.join(args.passthrough)}) are for cmake, and only --configure "
                        "runs it",
                        "cmake arguments go after --configure --, e.g. migrate . --configure -- -DUSE_HIP=ON")
    if args.configure and not root.is_dir():
        raise UserError(f"--configure needs a project folder, not the file {root}",
                        "pass the folder holding the top-level CMakeLists.txt")
    if args.configure and not (root / "CMakeLists.txt").is_file():
        raise UserError(f"--configure: {root} has no CMakeLists.txt", "pass the folder of the top-level CMakeLists.txt")
    if args.jobs < 1:
        raise UserError(f"--jobs {args.jobs} is not a positive number", "pass --jobs 1 or more")
    # Read before any scan or edit, so a wrong folder is one line and nothing else happened.
    args.build_options = build_tree.read(args.build_dir, root).options if args.build_dir is not None else ()
    if not args.apply:
        if (journal := pending(base)) is not None:
            raise UserError(f"an earlier migrate --apply in {base} did not finish ({journal})",
                            f"run rocm-spirv migrate --apply {root}: it finishes or rolls that back first")
        s = scan(root.resolve(), tuple(args.exclude))
        changes = as_bytes(plan(s), s.bom)
        if args.diff:
            _write_bytes(unified_diff(by_real_path(changes, base)))
            return 1 if changes else 0  # as ruff --diff: a pending edit fails a CI step
    else:
        # One apply at a time per project: the folder itself is the lock (no lock file left in it).
        with locked(base):
            done = recover(base)
            if done:
                note(done)
            s = scan(root.resolve(), tuple(args.exclude))
            changes = as_bytes(plan(s), s.bom)
            if changes:
                apply_all(base, changes, s.stamps, commit_order(changes))
                s = scan(root.resolve(), tuple(args.exclude))  # report what is left after the edits
    result = s.result
    outcome = _oracle(args, base, result) if args.configure else None
    left_out = gating.filter_selected(result, gate)
    verdict = gating.judge(result, gate, left_out)
    changed = sorted(changes)
    if args.write_baseline is not None:
        write_atomic(args.write_baseline, json.dumps(gating.baseline_json(
            [f for f in result.findings if not f.handled and not f.suppressed]), indent=2) + "\n")
    if args.format == "json":
        report = to_json(result, mode, changed, verdict, gate)
        if outcome is not None:
            report["configure"] = outcome.to_json()
        print(json.dumps(report, indent=2))
    elif args.format == "sarif":
        print(json.dumps(to_sarif(result), indent=2))
    elif args.statistics:
        write_statistics(sys.stdout, result)
    elif args.format == "table":
        print_table(console(), result, mode, changed, width())
    else:
        write_text(sys.stdout, result, mode, changed, verdict, gate, width())
        if outcome is not None:
            say(outcome.line())
    if args.check:  # a file it could not read is a file it could not check
        return 1 if verdict.failing or result.errors else 0
    return 0


def _oracle(args: argparse.Namespace, base: Path, result: ScanResult) -> Configured:
    """Run the oracle and merge its findings into result. A configure that fails leaves the static
    findings and one line naming the failure."""
    compiler = resolve(args.compiler, "spirv")
    # The build folder's options first: arguments after -- come later on cmake's command line and win.
    oracle = Oracle(base, [*args.build_options, *args.passthrough], compiler, args.jobs,
                    say=lambda m: print(f"rocm-spirv: {m}", file=sys.stderr))
    outcome = oracle.run()
    if outcome.failure:
        if args.format != "text":  # the text report's last line says it; JSON and SARIF keep stdout data
            complain("warning", f"{outcome.failure}; static findings only")
        return Configured(outcome, 0, 0)
    both, only = merge(result, outcome.findings, lambda rel: oracle.text(str(base / rel)))
    return Configured(outcome, both, only)


def _baseline(path: Path | None) -> frozenset[str] | None:
    if path is None:
        return None
    try:
        # A FIFO or /dev/zero would block or never end: a regular file of a sane size only.
        data = read_regular(path, MAX_BASELINE)
    except OSError as err:
        raise UserError(f"cannot read baseline {path}: {err.strerror}",
                        f"record one with `rocm-spirv migrate PATH --write-baseline {path}`") from None
    if data is None:
        raise UserError(f"baseline {path} is larger than {MAX_BASELINE >> 20} MiB",
                        f"record one with `rocm-spirv migrate PATH --write-baseline {path}`")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"baseline {path} is not UTF-8 text",
                        f"record one with `rocm-spirv migrate PATH --write-baseline {path}`") from None
    return gating.read_baseline(text, str(path))


