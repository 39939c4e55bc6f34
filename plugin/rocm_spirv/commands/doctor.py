"""`rocm-spirv doctor`: what was found, what each offload mode needs, how to get it."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

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
        print(json.dumps({
            "ok": d.ok,
            "compiler": d.compiler.to_json() if d.compiler else None,
            "checks": [asdict(c) for c in d.checks],
            "modes": [asdict(m) for m in d.modes],
            "candidates": [r.to_json() for r in results],
        }, indent=2))
        return 0 if d.ok else 1
    console = Console()
    table = Table(title="rocm-spirv doctor")
    for col in ("check", "", "found", "remedy"):
        table.add_column(col)
    for c in d.checks:
        table.add_row(c.name, "[green]ok[/]" if c.ok else "[red]missing[/]", c.detail, c.remedy)
    console.print(table)
    for m in d.modes:
        if m.ready:
            console.print(f"mode {m.mode}: ready ({m.detail})", markup=False, highlight=False)
        else:
            where = f"{m.step} failed: " if m.step else ""
            console.print(f"mode {m.mode}: not ready ({where}{m.detail})\n  remedy: {m.remedy}",
                          markup=False, highlight=False)
    return 0 if d.ok else 1
