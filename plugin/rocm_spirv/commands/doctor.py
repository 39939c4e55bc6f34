"""`rocm-spirv doctor`: what was found, what each offload mode needs, how to get it."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rocm_spirv import jsondoc
from rocm_spirv.doctor import diagnose
from rocm_spirv.toolchain.choose import probe_all


def register(sub: Any) -> None:
    p = sub.add_parser("doctor", help="check the toolchain for native, spirv and hybrid builds")
    p.add_argument("--compiler", help="check this compiler instead of discovering one")
    p.add_argument("--prefix", type=Path, help="provisioned prefix to look in")
    p.add_argument("--no-build", action="store_true",
                   help="skip building the real HIP test program for each mode")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    results = probe_all(args.compiler, args.prefix)
    d = diagnose(results, build=not args.no_build)
    if args.json:
        print(jsondoc.dumps("doctor", {
            "ok": d.ok,
            "compiler": d.compiler.to_json() if d.compiler else None,
            "checks": [asdict(c) for c in d.checks],
            "modes": [asdict(m) for m in d.modes],
            "candidates": [r.to_json() for r in results],
        }))
        return 0 if d.ok else 1
    # Plain lines, not a table: paths and remedies stay whole in a pipe or an 80-column log.
    width = max(len(c.name) for c in d.checks)
    for c in d.checks:
        print(f"{'ok' if c.ok else 'MISSING':7} {c.name:{width}}  {c.detail}")
        if not c.ok:
            print(f"{'':7} {'':{width}}  remedy: {c.remedy}")
    for m in d.modes:
        if m.ready:
            print(f"mode {m.mode}: ready ({m.detail})")
        else:
            where = f"{m.step} failed: " if m.step else ""
            print(f"mode {m.mode}: not ready ({where}{m.detail})\n  remedy: {m.remedy}")
    return 0 if d.ok else 1
