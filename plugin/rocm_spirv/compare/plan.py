"""Which variants a compare run builds, from the command-line options."""

from __future__ import annotations

from rocm_spirv import offload
from rocm_spirv.compare.model import DEFAULT_ARCHS, JIT_ESTIMATE_ARCH, Variant
from rocm_spirv.errors import UserError


def arch_option(text: str | None, valid: list[str], option: str = "--archs") -> list[str]:
    """A target-list option's value, checked against the compiler's targets: offload.parse_archs's
    separators (commas, semicolons) and spaces; None (not given) is the default list."""
    if text is None:
        return DEFAULT_ARCHS[:8]
    archs = [a for word in text.split() for a in offload.parse_archs(word)]
    if not archs:
        raise UserError(f"{option} {text!r} names no GPU target", f"pass e.g. {option} gfx90a,gfx942, or leave it out")
    bad = [a for a in archs if valid and a not in valid]
    if bad:
        raise UserError(f"unknown GPU target(s) {', '.join(bad)} in {option} for this compiler",
                        f"choose from: {' '.join(valid)}")
    return archs


def parse_jit_targets(text: str | None, valid: list[str], baseline: str) -> list[str]:
    """--jit-targets: GPU names separated by commas or semicolons (offload.py's vocabulary: a
    processor or generic ISA name, no features, as `-mcpu` takes it) the compiler supports; the
    baseline first, each once. None (not given) is the baseline alone."""
    if text is None:
        return [baseline]
    names = list(offload.parse_archs(text))
    if not names:
        raise UserError(f"--jit-targets {text!r} names no GPU target", "pass e.g. --jit-targets gfx942,gfx1100")
    bad = [n for n in names if not offload.is_gpu_name(n) or (valid and n not in valid)]
    if bad:
        known = f"choose from: {' '.join(valid)}" if valid else "use names like gfx942 or gfx1100 (no :features)"
        raise UserError(f"unknown GPU target(s) {', '.join(bad)} in --jit-targets for this compiler", known)
    return list(dict.fromkeys([baseline, *names]))


def parse_scaling(text: str | None, available: int) -> list[int]:
    if not text:
        return []
    try:
        counts = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise UserError(f"--scaling {text!r} is not a comma-separated list of numbers",
                        "use e.g. --scaling 1,2,4,8") from None
    if not counts or counts[0] < 1 or counts[-1] > available:
        raise UserError(f"--scaling counts must be between 1 and {available}",
                        f"there are {available} default targets")
    return counts


def variants(archs: list[str], native_archs: list[str], scaling: list[int],
             compress: bool, baseline: str = JIT_ESTIMATE_ARCH) -> list[Variant]:
    out = [
        Variant("native", "native", tuple(archs)),
        Variant("spirv", "spirv", ()),
        # One native target: the baseline SPIR-V must beat, and the measured
        # stand-in for the JIT's work at first launch.
        Variant("native-1", "native", (baseline,)),
    ]
    if native_archs:
        out.append(Variant("hybrid", "hybrid", tuple(native_archs)))
    if compress:
        # The one-target build too: the compressed break-even and scaling.png's compressed panels
        # need a curve of at least two target counts. Compressed first: what a library ships
        # leads every view.
        out = [Variant(f"{v.name}+compress", v.mode, v.archs, True) for v in out[:3]] + out
    for n in scaling:
        if n not in (1, len(archs)):
            pool = archs + [a for a in DEFAULT_ARCHS if a not in archs]
            if compress:
                out.append(Variant(f"scaling-{n}+compress", "native", tuple(pool[:n]), True))
            out.append(Variant(f"scaling-{n}", "native", tuple(pool[:n])))
    return out
