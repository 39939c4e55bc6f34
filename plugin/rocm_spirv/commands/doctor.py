"""`rocm-spirv doctor`: what was found, what each offload mode needs, how to get it."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rocm_spirv import jsondoc
from rocm_spirv.doctor import PROGRAM, diagnose, native_arch
from rocm_spirv.errors import UserError
from rocm_spirv.offload import MODES, Mode, spirv_device_flags
from rocm_spirv.term import say
from rocm_spirv.toolchain import programs
from rocm_spirv.toolchain.cachecheck import CacheCheck, check_all
from rocm_spirv.toolchain.choose import probe_all
from rocm_spirv.toolchain.launcher import CACHE_TOOLS, PYPI, Launcher
from rocm_spirv.toolchain.probe import ProbeResult


def register(sub: Any) -> None:
    p = sub.add_parser("doctor", help="check the toolchain for native, spirv and hybrid builds")
    p.add_argument("--compiler", help="check this compiler instead of discovering one")
    p.add_argument("--prefix", type=Path, help="provisioned prefix to look in")
    p.add_argument("--no-build", action="store_true",
                   help="skip building the real HIP test program for each mode")
    p.add_argument("--caches", action="store_true",
                   help="prove that ccache/sccache (when found) cache HIP compiles in each mode: compile twice, "
                        "the second must hit (private caches, removed afterwards)")
    p.add_argument("--require", metavar="MODES", default="spirv",
                   help="modes that must be ready for exit 0, comma-separated (default spirv; "
                        f"{','.join(MODES)} for all)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    required = _modes(args.require)
    results = probe_all(args.compiler, args.prefix)
    d = diagnose(results, build=not args.no_build)
    launchers = found_launchers()
    caches = (check_caches(d.compiler, launchers) if args.caches and d.compiler is not None else [])
    ok = all(m.ready for m in d.modes if m.mode in required) and all(c.ok for c in caches)
    if args.json:
        print(jsondoc.dumps("doctor", {
            "ok": ok,
            "required": sorted(required),
            "compiler": d.compiler.to_json() if d.compiler else None,
            "checks": [asdict(c) for c in d.checks],
            "modes": [asdict(m) for m in d.modes],
            "candidates": [r.to_json() for r in results],
            "launchers": [la.to_json() for la in launchers],
            "caches": [asdict(c) for c in caches],
        }))
        return 0 if ok else 1
    # Plain lines, not a table: paths and remedies stay whole in a pipe or an 80-column log.
    width = max(len(c.name) for c in d.checks)
    for c in d.checks:
        say(f"{'ok' if c.ok else 'MISSING':7} {c.name:{width}}  {c.detail}")
        if not c.ok:
            say(f"{'':7} {'':{width}}  remedy: {c.remedy}")
    for m in d.modes:
        if m.ready:
            say(f"mode {m.mode}: ready ({m.detail})")
        else:
            where = f"{m.step} failed: " if m.step else ""
            say(f"mode {m.mode}: not ready ({where}{m.detail})\n  remedy: {m.remedy}")
    for name in CACHE_TOOLS:
        found = next((la.path for la in launchers if la.kind == name), None)
        say(f"launcher {name}: {found or f'not found (pip install {PYPI[name]})'}")
    for cc in caches:
        say(f"cache {cc.launcher} {cc.mode}: {'caches HIP compiles' if cc.ok else 'NOT caching'} ({cc.detail})")
    if not all(m.ready for m in d.modes if m.mode in required):
        say(f"not ready: {', '.join(m.mode for m in d.modes if m.mode in required and not m.ready)} "
              f"(--require {','.join(sorted(required))})")
    return 0 if ok else 1


def found_launchers() -> list[Launcher]:
    return [Launcher(name, path) for name in CACHE_TOOLS if (path := programs.find([name]))]


def check_caches(compiler: ProbeResult, launchers: list[Launcher]) -> list[CacheCheck]:
    arch = native_arch(compiler)
    flat = [] if compiler.provisioned_prefix else spirv_device_flags(compiler.spirv_flags)
    modes: dict[Mode, list[str]] = {
        "spirv": ["--offload-arch=amdgcnspirv", *flat],
        "native": [f"--offload-arch={arch}"],
        "hybrid": ["--offload-arch=amdgcnspirv", f"--offload-arch={arch}", *flat],
    }
    prefix = Path(compiler.provisioned_prefix) if compiler.provisioned_prefix else None
    return check_all(launchers, compiler.path, prefix, modes, PROGRAM)


def _modes(text: str) -> set[str]:
    modes = {m.strip() for m in text.split(",") if m.strip()}
    bad = sorted(modes - set(MODES))
    if bad or not modes:
        raise UserError(f"--require {text!r}: {', '.join(bad) or 'no mode'} is not one of {', '.join(MODES)}",
                        f"pass a comma-separated list such as {','.join(MODES)}")
    return modes
