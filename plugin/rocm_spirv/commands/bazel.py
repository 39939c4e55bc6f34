"""`rocm-spirv bazel generate`: the @rocm_spirv Bazel repository (hip_library, hip_binary, hip_test)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rocm_spirv import jsondoc
from rocm_spirv.bazel import DEFAULT_OUTPUT, generate, workspace_root, workspace_snippet
from rocm_spirv.commands import flags
from rocm_spirv.term import say


def register(sub: Any) -> None:
    p = sub.add_parser("bazel", help="generate Bazel rules that build HIP for SPIR-V, native or both")
    bsub = p.add_subparsers(dest="bazel_command", metavar="ACTION", required=True)
    g = bsub.add_parser("generate", help="write the @rocm_spirv repository for the discovered compiler")
    out = g.add_argument("--output-dir", type=Path, default=None,
                         help=f"folder to write the repository into (default: ./{DEFAULT_OUTPUT})")
    flags.deprecated(g, "--output", out)
    g.add_argument("--compiler", help="clang++ to use (default: discovered, or the provisioned one)")
    g.add_argument("--force", action="store_true",
                   help="replace files in --output-dir that rocm-spirv did not write or you edited")
    g.add_argument("--json", action="store_true", help="print what was generated as JSON")
    g.set_defaults(func=_generate)


def _generate(args: argparse.Namespace) -> int:
    out, cfg = generate(args.output_dir, args.compiler, args.force)
    if args.json:
        print(jsondoc.dumps("bazel generate", {
            "output": str(out), "compiler": cfg.compiler, "clang_version": cfg.clang_version,
            "spirv_flags": cfg.spirv_flags, "gfx_targets": cfg.gfx_targets,
            "default_archs": cfg.default_archs, "workspace": workspace_snippet(out, workspace_root(Path.cwd()))}))
        return 0
    spirv = "amdgcnspirv " + " ".join(cfg.spirv_flags) if cfg.spirv_flags is not None else "no SPIR-V"
    say(f"{out}: @rocm_spirv for {cfg.compiler} (clang {cfg.clang_version}, {spirv.strip()}, "
          f"{len(cfg.gfx_targets)} gfx targets)")
    say("Add to WORKSPACE (the rules_* lines keep Bazel 4 offline; drop them if you fetch those):")
    say(workspace_snippet(out, workspace_root(Path.cwd())), end="")
    say("Build with --@rocm_spirv//:offload=spirv|native|hybrid --@rocm_spirv//:archs=gfx90a,gfx942")
    return 0
