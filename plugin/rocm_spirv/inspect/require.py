"""`--require spirv-only | native:gfx942,… | hybrid:gfx942,…`: what a build must contain."""

from __future__ import annotations

from dataclasses import dataclass

from rocm_spirv.errors import UserError
from rocm_spirv.inspect.model import CODE_OBJECT, SPIRV, Entry, FileReport
from rocm_spirv.offload import is_gpu_name

MODES = ("spirv-only", "native", "hybrid")


@dataclass(frozen=True)
class Requirement:
    mode: str  # spirv-only, native, hybrid
    targets: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.mode if not self.targets else f"{self.mode}:{','.join(self.targets)}"


@dataclass(frozen=True)
class Failure:
    path: str
    entry: str  # entry id, or "" when the failure is about the file as a whole
    reason: str


def parse_requirement(text: str) -> Requirement:
    mode, _, rest = text.partition(":")
    if mode not in MODES:
        raise UserError(f"--require {text!r} is not understood", "use spirv-only, native:gfx942,… or hybrid:gfx942,…")
    targets = tuple(t.strip() for t in rest.split(",") if t.strip())
    if mode == "spirv-only":
        if rest:
            raise UserError("--require spirv-only takes no targets", "drop the part after the colon")
        return Requirement(mode)
    if not targets:
        raise UserError(f"--require {mode} needs targets", f"use e.g. --require {mode}:gfx942,gfx90a")
    bad = [t for t in targets if not is_gpu_name(t.split(":")[0])]
    if bad:
        raise UserError(f"--require {mode}: {', '.join(bad)} is not a gfx target",
                        "use names like gfx942 or gfx11-generic")
    return Requirement(mode, targets)


def check(req: Requirement, files: list[FileReport]) -> list[Failure]:
    """Every file that carries device code must meet the requirement; no device code at all fails."""
    failures: list[Failure] = []
    with_code = [f for f in files if f.device_entries]
    if not with_code:
        return [Failure(f.path, "", "no device code") for f in files] or [Failure("", "", "no files with device code")]
    for f in with_code:
        failures += _check_file(req, f)
    return failures


def _check_file(req: Requirement, f: FileReport) -> list[Failure]:
    out: list[Failure] = []
    dev = f.device_entries
    for e in dev:
        if e.problems:
            out.append(Failure(f.path, e.id, "; ".join(e.problems)))
    if req.mode == "spirv-only":
        out += [Failure(f.path, e.id, _not_spirv(e)) for e in dev if e.kind != SPIRV]
        return out
    # Each bundle is registered on its own at run time, so each must carry the targets itself.
    groups: dict[int, list[Entry]] = {}
    for e in dev:
        groups.setdefault(e.bundle, []).append(e)
    for index, group in sorted(groups.items()):
        where = f"bundle {index + 1} of {len(f.bundles)}: " if len(f.bundles) > 1 and index >= 0 else ""
        native = {_processor(e) for e in group if e.kind == CODE_OBJECT}
        for t in req.targets:
            if t.split(":")[0] not in native:
                out.append(Failure(f.path, "", f"{where}no native code object for {t}"))
        if req.mode == "hybrid" and not any(e.kind == SPIRV for e in group):
            out.append(Failure(f.path, "", f"{where}no SPIR-V entry (hybrid needs one)"))
    if req.mode == "native":
        out += [Failure(f.path, e.id, "SPIR-V entry in a native-only build") for e in dev if e.kind == SPIRV]
    out += [Failure(f.path, e.id, f"{e.kind} entry is neither SPIR-V nor a code object")
            for e in dev if e.kind not in (SPIRV, CODE_OBJECT)]
    return out


def _processor(e: Entry) -> str:
    return e.code_object.target if e.code_object else e.target


def _not_spirv(e: Entry) -> str:
    if e.kind == CODE_OBJECT:
        return f"native code object for {_processor(e)}"
    return f"{e.kind} entry, not SPIR-V"
