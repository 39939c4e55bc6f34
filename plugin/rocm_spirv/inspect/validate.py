"""`--validate`: run spirv-val on each SPIR-V payload (the CLI refuses --validate without the tool)."""

from __future__ import annotations

import hashlib
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from rocm_spirv.inspect.model import SPIRV, Entry, FileReport, Validation
from rocm_spirv.inspect.require import Failure
from rocm_spirv.term import traced
from rocm_spirv.toolchain.paths import default_prefix
from rocm_spirv.toolchain.spirv_val import find_spirv_val


def spirv_val() -> str | None:
    """The newest spirv-val found (toolchain/spirv_val.py), the provisioned prefix's included."""
    found = find_spirv_val(default_prefix())
    return found.path if found is not None else None


def validate_payload(tool: str, payload: bytes, timeout: float = 60.0) -> Validation:
    try:
        with traced([tool, "-"]) as trace:
            run = subprocess.run([tool, "-"], input=payload, capture_output=True, timeout=timeout, check=False)
            trace.status = run.returncode
    except subprocess.TimeoutExpired:
        return Validation(False, f"spirv-val did not finish in {timeout:.0f} s")
    except OSError as err:
        return Validation(None, f"spirv-val could not run: {err}")
    text = (run.stderr or run.stdout).decode(errors="replace").strip().splitlines()
    return Validation(run.returncode == 0, text[0] if text else ("valid" if run.returncode == 0 else "invalid"))


def distinct_modules(files: list[FileReport], payloads: dict[tuple[str, int], bytes]) -> int:
    """How many spirv-val runs validate() makes for files: one per distinct SPIR-V module."""
    return len({hashlib.sha256(payloads.get((f.path, i), b"")).digest()
                for f in files for i, e in enumerate(f.entries) if e.kind == SPIRV})


def validate(files: list[FileReport], payloads: dict[tuple[str, int], bytes], tool: str) -> list[FileReport]:
    """Attach a Validation to each SPIR-V entry; payloads maps (path, entry index) to the module bytes.

    spirv-val reads one module per process, so each distinct module runs once (20,000 copies of one
    module in a bundle cost one run, not 86 s of them), and distinct ones run a few at a time."""
    wanted = {hashlib.sha256(payloads.get((f.path, i), b"")).hexdigest(): payloads.get((f.path, i), b"")
              for f in files for i, e in enumerate(f.entries) if e.kind == SPIRV}
    workers = max(1, min(len(wanted), os.cpu_count() or 1, 8))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        verdicts = dict(zip(wanted, pool.map(lambda p: validate_payload(tool, p), wanted.values()), strict=True))
    out = []
    for f in files:
        entries: list[Entry] = []
        for i, e in enumerate(f.entries):
            if e.kind == SPIRV:
                digest = hashlib.sha256(payloads.get((f.path, i), b"")).hexdigest()
                e = replace(e, validation=verdicts[digest])
            entries.append(e)
        out.append(replace(f, entries=tuple(entries)))
    return out


def rejected(files: list[FileReport]) -> list[Failure]:
    """One failure per SPIR-V entry spirv-val rejected (or that did not finish): the --validate gate."""
    return [Failure(f.path, e.id, f"spirv-val: {e.validation.message}")
            for f in files for e in f.entries if e.validation is not None and e.validation.ok is False]
