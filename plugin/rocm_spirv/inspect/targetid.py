"""Offload entry ids in every spelling the HIP runtime accepts."""

from __future__ import annotations

from dataclasses import dataclass

from rocm_spirv.offload import SPIRV_TARGET

KINDS = ("host", "hip", "hipv4", "openmp", "cuda", "sycl")


@dataclass(frozen=True)
class EntryId:
    """`hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-` split into its parts."""

    raw: str
    kind: str  # host, hip, hipv4, openmp, …
    triple: str  # amdgcn-amd-amdhsa, spirv64-amd-amdhsa, x86_64-unknown-linux-gnu
    processor: str  # gfx942, gfx9-4-generic, amdgcnspirv; "" for host
    features: tuple[tuple[str, str], ...]  # (("sramecc", "+"), ("xnack", "-"))

    @property
    def is_host(self) -> bool:
        return self.kind == "host"

    @property
    def is_spirv(self) -> bool:
        return self.processor == SPIRV_TARGET or self.triple.startswith("spirv")

    def feature(self, name: str) -> str:
        """"+", "-" or "any" (not given)."""
        return dict(self.features).get(name, "any")


def parse_entry_id(raw: str) -> EntryId:
    """Parse a bundle entry id; unknown spellings still parse, with what could be found."""
    kind, _, rest = raw.partition("-")
    if kind == "host":
        return EntryId(raw, kind, rest.rstrip("-"), "", ())
    parts = rest.split("-", 4)
    # Old spellings omit the environment: hip-amdgcn-amd-amdhsa-gfx906.
    if len(parts) >= 4 and _looks_like_target(parts[3]):
        triple, target = "-".join(parts[:3]), "-".join(parts[3:])
    elif len(parts) == 5:
        triple, target = "-".join(parts[:4]).rstrip("-"), parts[4]
    else:
        triple, target = rest, ""
    processor, *feats = target.split(":")
    features = tuple((f[:-1], f[-1]) for f in feats if len(f) > 1 and f[-1] in "+-")
    return EntryId(raw, kind, triple, processor, features)


def _looks_like_target(text: str) -> bool:
    return text.startswith("gfx") or text.startswith(SPIRV_TARGET)
