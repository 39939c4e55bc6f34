"""`rocm-spirv presets generate`: native, spirv and hybrid presets that use generated toolchain files."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from rocm_spirv import config, jsondoc
from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import check_target, locked, write_atomic
from rocm_spirv.generate.ownership import plan_write, stamp, write_planned
from rocm_spirv.generate.presets import TOOLCHAIN_DIR, merge, toolchain_file_name
from rocm_spirv.generate.toolchain_file import ToolchainRequest, render
from rocm_spirv.offload import MODES, parse_archs
from rocm_spirv.term import say
from rocm_spirv.toolchain.choose import resolve
from rocm_spirv.toolchain.launcher import resolve_launcher

_CMAKE_MANGLES = frozenset('\\$"')
IGNORE = "# written by rocm-spirv presets generate: machine-specific toolchain files\n*\n"


def register(sub: Any) -> None:
    p = sub.add_parser("presets", help="CMake presets for native, spirv and hybrid builds")
    psub = p.add_subparsers(dest="presets_command", metavar="ACTION", required=True)
    gen = psub.add_parser("generate", help="add native/spirv/hybrid presets (and their toolchain files)")
    gen.add_argument("--output", type=Path, default=Path("CMakePresets.json"),
                     help="presets file to create or merge into (default CMakePresets.json; "
                          "CMakeUserPresets.json keeps machine paths out of version control)")
    gen.add_argument("--native-archs", metavar="LIST",
                     help="native targets for the native and hybrid presets; default: the project's list")
    gen.add_argument("--compiler", default="auto", help="clang++ to use (default auto: what doctor picks)")
    gen.add_argument("--launcher", metavar="ccache|sccache|PATH",
                     help="compiler launcher for every compile (default: $ROCM_SPIRV_LAUNCHER, else none)")
    gen.add_argument("--name-prefix", default="", help="prefix for the preset names (default none)")
    gen.add_argument("--force", action="store_true",
                     help="replace toolchain files in .rocm-spirv/ that rocm-spirv did not write or you edited")
    gen.add_argument("--json", action="store_true")
    gen.set_defaults(func=_generate)


def _read_presets(out: Path) -> str | None:
    target = check_target(out, str(out))
    if target.existing is None:
        return None
    data = target.path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise UserError(f"{out} is not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start})",
                        "save it as UTF-8 (CMake requires that), or pass --output elsewhere") from None


def _generate(args: argparse.Namespace) -> int:
    out: Path = args.output
    if not re.fullmatch(r"[A-Za-z0-9_.+-]*", args.name_prefix):
        raise UserError(f"--name-prefix {args.name_prefix!r} has characters a preset name and build folder "
                        "should not", "use letters, digits and _ . + -")
    folder = str(out.parent.absolute())
    mangled = sorted({c for c in folder if c in _CMAKE_MANGLES})
    if mangled:
        # CMake reads \ in a source path as a separator, and records the toolchain path in
        # CMakeSystem.cmake as include("<path>"), where $ENV{..}/${..} expand and " ends the string.
        raise UserError(f"{folder} holds {' '.join(repr(c) for c in mangled)}, which CMake rewrites in a source "
                        "or toolchain path, so `cmake --preset` could not use presets written there",
                        "rename the folder (or run from a link to it whose path has none of them)")
    config.resolve(args, "presets generate", out.absolute().parent)  # the project's settings; flags win
    archs = parse_archs(args.native_archs)
    compiler = resolve(args.compiler, "spirv")
    launcher = resolve_launcher(args.launcher)
    files = {mode: render(ToolchainRequest(mode, archs, launcher=launcher), compiler) for mode in MODES}
    tc_dir = out.parent / TOOLCHAIN_DIR
    remedy = "pass --force to replace it, or --output in another folder"
    # One run at a time per folder: a merge reads, changes and writes the presets file.
    # The folder itself is the lock, so no lock file is left in the project.
    out.parent.mkdir(parents=True, exist_ok=True)
    with locked(out.parent.absolute()):
        existing = _read_presets(out)
        # Everything is checked before anything is written: a conflict leaves no trace.
        merged = merge(existing, args.name_prefix, str(out))
        plans = [plan_write(out.parent / toolchain_file_name(mode), tc.text, args.force, remedy)
                 for mode, tc in files.items()]
        # The toolchain files name this machine's compiler: regenerate, never commit.
        ignore = tc_dir / ".gitignore"
        if not ignore.exists():
            plans.append(plan_write(ignore, stamp(IGNORE, ignore.name), False, remedy))
        written = [str(p.path) for p in plans if write_planned(p)]
        if existing != merged.text:
            write_atomic(out, merged.text)
    if args.json:
        print(jsondoc.dumps("presets generate", {
                          "presets": str(out.absolute()), "added": merged.added, "unchanged": merged.unchanged,
                          "updated": merged.updated, "kept": merged.kept,
                          "version_raised_from": merged.version_raised_from,
                          "toolchain_files": {m: str((out.parent / toolchain_file_name(m)).absolute()) for m in MODES},
                          "written": written}))
        return 0
    say(f"{out}: added {', '.join(merged.added) or 'nothing'}"
          + (f"; updated: {', '.join(merged.updated)}" if merged.updated else "")
          + (f"; already there: {', '.join(merged.unchanged)}" if merged.unchanged else ""))
    if merged.kept:
        say(f"  kept as you edited them: {', '.join(merged.kept)} (delete one to have it generated again)")
    if merged.version_raised_from is not None:
        say(f"  presets version raised from {merged.version_raised_from} to 3 (toolchainFile needs it)")
    say(f"  toolchain files in {tc_dir} (machine-specific, git-ignored)")
    first = merged.added[0] if merged.added else (merged.unchanged[0] if merged.unchanged else "spirv")
    say(f"  try: cmake --preset {first} && cmake --build --preset {first}")
    return 0
