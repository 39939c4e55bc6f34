"""`rocm-spirv config [PATH]`: the settings a command run in PATH starts from, and where each came from."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rocm_spirv import config, jsondoc
from rocm_spirv.term import say


def register(sub: Any) -> None:
    p = sub.add_parser("config", help="show the project settings ([tool.rocm-spirv] or rocm-spirv.toml) in effect",
                       description="Flags given on a command line win over these.")
    p.add_argument("path", nargs="?", type=Path, default=Path("."),
                   help="project folder whose settings to show (default: the current folder)")
    p.add_argument("--json", action="store_true", help="the settings as JSON")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    found, rows = config.show(args.path)
    if args.json:
        print(jsondoc.dumps("config", {
            "file": str(found) if found else None,
            "settings": [{"key": s.key, "value": v, "source": src, "flag": s.flag, "help": s.help}
                         for s, v, src in rows]}))
        return 0
    say(f"settings file: {found if found else 'none (defaults only)'}")
    for s, value, source in rows:
        where = f"from {found.name}" if source == "file" and found else (
            f"from ${s.env}" if source == "environment" else "default")
        say(f"{s.key} = {json.dumps(value)}  ({where}; {s.flag} wins)")
    return 0
