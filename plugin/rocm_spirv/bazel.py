"""`rocm-spirv bazel generate`: a Bazel repository (@rocm_spirv) around the discovered HIP compiler."""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from rocm_spirv import __version__
from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import refuse_newlines
from rocm_spirv.generate.ownership import Plan, plan_write, stamp, write_planned
from rocm_spirv.offload import device_debug_opted_in, spirv_device_flags
from rocm_spirv.resources import templates_dir
from rocm_spirv.toolchain import programs
from rocm_spirv.toolchain.choose import resolve
from rocm_spirv.toolchain.launcher import content_key
from rocm_spirv.toolchain.probe import ProbeResult

DEFAULT_OUTPUT = Path("rocm_spirv")
DEFAULT_ARCHS = ["gfx942"]
OFFLINE_REPOS = ("rules_cc", "rules_java", "remote_coverage_tools")


@dataclass
class BazelConfig:
    """What the generated repository hard-codes about the compiler."""

    compiler: str
    clang_version: str
    source: str
    # Flags for the amdgcnspirv target, already scoped to it (offload.spirv_device_flags): toolchain.bzl
    # puts them on every compile, host and native passes included. None: the compiler cannot emit amdgcnspirv.
    spirv_flags: list[str] | None
    gfx_targets: list[str]
    default_copts: list[str] = field(default_factory=list)
    hip_runtime: str | None = None
    default_archs: list[str] = field(default_factory=lambda: list(DEFAULT_ARCHS))
    # What the compiler links and includes without Bazel seeing it (docs/caching.md).
    prefix_key: str = ""

    @classmethod
    def from_probe(cls, r: ProbeResult) -> BazelConfig:
        if not r.gfx_targets:
            raise UserError(f"{r.path} lists no AMD GPU targets",
                            "pass --compiler PATH to a clang++ with the AMDGPU backend")
        default = [a for a in DEFAULT_ARCHS if a in r.gfx_targets] or r.gfx_targets[-1:]
        return cls(
            compiler=r.path,
            clang_version=r.version or "unknown",
            source=r.source,
            # Scoped like every other home of the SPIR-V flags (offload.spirv_device_flags).
            spirv_flags=spirv_device_flags(r.spirv_flags, device_debug_opted_in(os.environ)) if r.can_spirv else None,
            gfx_targets=list(r.gfx_targets),
            # Without ROCm device libraries gfx code links none; SPIR-V gets them at JIT time.
            default_copts=[] if r.device_libs else ["-nogpulib"],
            hip_runtime=r.hip_runtime,
            default_archs=default,
            prefix_key=(content_key(Path(r.provisioned_prefix)) if r.provisioned_prefix
                        else f"{r.path} {r.version}"),
        )


def find_compiler(compiler: str | None) -> ProbeResult:
    """The compiler the repository will use: the one given, else what discovery picks."""
    return resolve(compiler)


def starlark(value: object) -> str:
    """value as a Starlark literal that reads back as exactly value (strings, lists, numbers, None).
    JSON's string escapes are a subset of Starlark's; non-ASCII stays as it is (Starlark is UTF-8)."""
    return "None" if value is None else json.dumps(value, ensure_ascii=False)


def starlark_in(value: object) -> str:
    """The inside of a Starlark string (also safe in a triple-quoted docstring)."""
    return starlark(str(value))[1:-1]


def make_var_in(value: object) -> str:
    """Inside a string Bazel runs Make-variable substitution on (linkopts): `$` is written `$$`."""
    return starlark_in(value).replace("$", "$$")


def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir() / "bazel")),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(starlark=starlark, starlark_in=starlark_in, make_var_in=make_var_in)
    return env


def _keep_mode(path: Path, wanted: int) -> int | None:
    """Re-rendering a file keeps the mode its user gave it (chmod 600); a script keeps its u+x."""
    try:
        have = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return wanted
    return have | 0o100 if wanted & 0o100 else None


WORKSPACE_FILES = ("WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel")


def workspace_root(start: Path) -> Path | None:
    """The Bazel workspace `start` is in: the nearest folder at or above it with a WORKSPACE file."""
    here = start.absolute()
    return next((d for d in (here, *here.parents) if any((d / f).is_file() for f in WORKSPACE_FILES)), None)


def workspace_snippet(out: Path, workspace: Path | None = None) -> str:
    """The WORKSPACE lines; inside `workspace` the paths are relative to it, so a team can commit them."""
    where = Path(os.path.normpath(out.absolute()))
    if workspace is not None and where.is_relative_to(workspace.absolute()):
        where = where.relative_to(workspace.absolute())
    lines = [f'local_repository(name = "rocm_spirv", path = {starlark(str(where))})']
    lines += [f'local_repository(name = "{n}", path = {starlark(f"{where}/offline/{n}")})' for n in OFFLINE_REPOS]
    return "\n".join(lines) + "\n"


def render(cfg: BazelConfig, out: Path, force: bool = False) -> list[Path]:
    """Write the repository to out; returns the files written. Every file is checked before any is
    written: a file rocm-spirv did not write (or one it wrote and the user edited) stops the run."""
    out = out.absolute()
    if out.exists() and not out.is_dir():
        raise UserError(f"{out} exists and is not a folder", "pass --output-dir DIR for a new or generated folder")
    if out.is_dir() and any(out.iterdir()) and not (out / "toolchain_config.bzl").is_file():
        raise UserError(f"{out} is not empty and not a generated @rocm_spirv repository",
                        "pass --output-dir DIR for a new folder (regenerating over an earlier output is fine)")
    root = templates_dir() / "bazel"
    env = _env()
    runtime = Path(cfg.hip_runtime) if cfg.hip_runtime else None
    context = {
        "version": __version__,
        "compiler": cfg.compiler,
        "clang_version": cfg.clang_version,
        "source": cfg.source,
        "spirv_flags": cfg.spirv_flags,
        "gfx_targets": cfg.gfx_targets,
        "default_copts": cfg.default_copts,
        "default_archs": cfg.default_archs,
        "prefix_key": cfg.prefix_key,
        "hip_runtime": str(runtime) if runtime else None,
        "hip_runtime_dir": str(runtime.parent) if runtime else None,
        "hip_runtime_name": runtime.name if runtime else None,
        "workspace_snippet": workspace_snippet(out),
    }
    refuse_newlines(compiler=cfg.compiler, hip_runtime=cfg.hip_runtime, output=str(out))
    remedy = "pass --force to replace it, or --output DIR for a new folder"
    plans: list[tuple[Plan, int]] = []
    for src in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = src.relative_to(root)
        # A wheel may drop the executable bit; scripts need it for sh_binary.
        mode = 0o755 if src.stat().st_mode & 0o111 or src.suffix == ".sh" else 0o644
        if rel.suffix == ".j2":
            dest = out / rel.with_suffix("")
            text = env.get_template(rel.as_posix()).render(**context)
        else:
            dest = out / rel
            text = src.read_text(encoding="utf-8")
        plans.append((plan_write(dest, stamp(text, dest.name), force, remedy), mode))
    for plan, mode in plans:
        write_planned(plan, _keep_mode(plan.path, mode))
    return [plan.path for plan, _ in plans]


def generate(output: Path | None, compiler: str | None, force: bool = False) -> tuple[Path, BazelConfig]:
    cfg = BazelConfig.from_probe(find_compiler(compiler))
    out = (output or DEFAULT_OUTPUT).absolute()
    render(cfg, out, force)
    return out, cfg


def bazel_executable() -> str | None:
    return programs.find(["bazel", "bazelisk"])
