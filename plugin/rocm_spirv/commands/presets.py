"""`rocm-spirv presets generate`: native, spirv and hybrid presets that use generated toolchain files."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rocm_spirv.fsutil import write_atomic
from rocm_spirv.generate.presets import TOOLCHAIN_DIR, merge, toolchain_file_name
from rocm_spirv.generate.toolchain_file import ToolchainRequest, render
from rocm_spirv.offload import MODES, parse_archs
from rocm_spirv.toolchain.choose import resolve


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
    gen.add_argument("--name-prefix", default="", help="prefix for the preset names (default none)")
    gen.add_argument("--json", action="store_true")
    gen.set_defaults(func=_generate)


def _generate(args: argparse.Namespace) -> int:
    out: Path = args.output
    archs = parse_archs(args.native_archs)
    compiler = resolve(args.compiler, "spirv")
    files = {mode: render(ToolchainRequest(mode, archs), compiler) for mode in MODES}
    existing = out.read_text() if out.is_file() else None
    # Everything is checked before anything is written: a conflict leaves no trace.
    merged = merge(existing, args.name_prefix, str(out))
    tc_dir = out.parent / TOOLCHAIN_DIR
    written: list[str] = []
    for mode, tc in files.items():
        path = out.parent / toolchain_file_name(mode)
        if not path.is_file() or path.read_text() != tc.text:
            write_atomic(path, tc.text)
            written.append(str(path))
    ignore = tc_dir / ".gitignore"
    if not ignore.is_file():
        # The toolchain files name this machine's compiler: regenerate, never commit.
        write_atomic(ignore, "# written by rocm-spirv presets generate: machine-specific toolchain files\n*\n")
    if existing != merged.text:
        write_atomic(out, merged.text)
    if args.json:
        print(json.dumps({"presets": str(out.absolute()), "added": merged.added, "unchanged": merged.unchanged,
                          "version_raised_from": merged.version_raised_from,
                          "toolchain_files": {m: str((out.parent / toolchain_file_name(m)).absolute()) for m in MODES},
                          "written": written}, indent=2))
        return 0
    print(f"{out}: added {', '.join(merged.added) or 'nothing'}"
          + (f"; already there: {', '.join(merged.unchanged)}" if merged.unchanged else ""))
    if merged.version_raised_from is not None:
        print(f"  presets version raised from {merged.version_raised_from} to 3 (toolchainFile needs it)")
    print(f"  toolchain files in {tc_dir} (machine-specific, git-ignored)")
    first = merged.added[0] if merged.added else (merged.unchanged[0] if merged.unchanged else "spirv")
    print(f"  try: cmake --preset {first} && cmake --build --preset {first}")
    return 0
