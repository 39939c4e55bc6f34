"""The inspection model: device entries per file, files per input, and their totals."""

from __future__ import annotations

from dataclasses import dataclass, field

from rocm_spirv.inspect.codeobject import CodeObjectInfo
from rocm_spirv.inspect.spirv import SpirvInfo

SPIRV = "spirv"
CODE_OBJECT = "code-object"
BITCODE = "bitcode"
HOST = "host"
UNKNOWN = "unknown"
KIND_LABELS = {SPIRV: "SPIR-V module", CODE_OBJECT: "AMDGPU code object", BITCODE: "LLVM bitcode",
               HOST: "host", UNKNOWN: "unknown"}


@dataclass(frozen=True)
class Validation:
    ok: bool | None  # None: spirv-val was not run
    message: str


@dataclass(frozen=True)
class Entry:
    id: str
    kind: str  # one of the constants above
    target: str  # processor named by the id: gfx942, amdgcnspirv; "" for host
    size: int
    compressed_size: int | None  # None inside a compressed bundle (see the bundle's stored size)
    container: str  # "bundle", "ccob-v2-zstd", "offload-binary"
    spirv: SpirvInfo | None = None
    code_object: CodeObjectInfo | None = None
    problems: tuple[str, ...] = ()
    validation: Validation | None = None
    bundle: int = -1  # index into FileReport.bundles; -1 outside bundles (offload binary, bare file)

    @property
    def is_device(self) -> bool:
        return self.kind != HOST

    @property
    def kernels(self) -> tuple[str, ...]:
        """Kernel names: a SPIR-V module's entry points, a code object's `.kd` symbols."""
        if self.spirv is not None:
            return self.spirv.entry_points
        if self.code_object is not None:
            return self.code_object.kernels
        return ()


@dataclass(frozen=True)
class BundleInfo:
    section: str
    offset: int
    size: int
    stored_size: int
    container: str


@dataclass(frozen=True)
class FileReport:
    """One ELF (or raw bundle): a file, an archive member or a wheel member."""

    path: str  # lib.a(k.o), pkg.whl!pkg/lib.so
    format: str  # elf, bundle, offload-binary
    entries: tuple[Entry, ...]
    bundles: tuple[BundleInfo, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def device_entries(self) -> tuple[Entry, ...]:
        return tuple(e for e in self.entries if e.is_device)


@dataclass(frozen=True)
class Totals:
    files: int = 0
    files_with_device_code: int = 0
    entries: int = 0
    spirv: int = 0
    code_objects: int = 0
    other: int = 0
    size: int = 0
    stored_size: int = 0
    targets: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class InputReport:
    """One PATH given on the command line."""

    path: str
    format: str  # elf, archive, wheel, bundle, offload-binary
    files: tuple[FileReport, ...]


def totals(files: tuple[FileReport, ...] | list[FileReport]) -> Totals:
    dev = [e for f in files for e in f.device_entries]
    stored = sum(b.stored_size for f in files for b in f.bundles)
    return Totals(
        files=len(files),
        files_with_device_code=sum(1 for f in files if f.device_entries),
        entries=len(dev),
        spirv=sum(1 for e in dev if e.kind == SPIRV),
        code_objects=sum(1 for e in dev if e.kind == CODE_OBJECT),
        other=sum(1 for e in dev if e.kind not in (SPIRV, CODE_OBJECT)),
        size=sum(e.size for e in dev),
        stored_size=stored,
        targets=tuple(sorted({e.target for e in dev if e.target})),
    )
