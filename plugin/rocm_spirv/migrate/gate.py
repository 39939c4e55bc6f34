"""What `migrate --check` fails on: rule selection, inline suppressions, a baseline and a severity threshold.

After the conventions of ruff (`--select`/`--ignore` by rule id or prefix), clang-tidy (NOLINT-style
comments) and semgrep (a baseline of stable fingerprints). Pure functions over findings; the command reads
and writes the baseline file.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from rocm_spirv.errors import UserError
from rocm_spirv.migrate.findings import Finding, Redirect, Rule, ScanResult, Severity
from rocm_spirv.migrate.registry import RULES

FailOn = Literal["error", "warning", "note"]
BASELINE_SCHEMA = "rocm-spirv/migrate-baseline/1"
FINGERPRINT_KEY = "rocmSpirvMigrate/v1"
_RANK = {Severity.ERROR: 3, Severity.WARNING: 2, Severity.NOTE: 1}
_THRESHOLD: dict[str, int] = {"error": 3, "warning": 2, "note": 1}
# `# rocm-spirv: ignore[RSM101]` in CMake, `// rocm-spirv: ignore[RSM204, RSM205]` or /* … */ in C/C++;
# without a list every rule is ignored there.
SUPPRESS = re.compile(r"(?:#|//|/\*)\s*rocm-spirv:\s*ignore\b(?:\[([A-Za-z0-9_, ]*)\])?")
# The generated toolchain file sets GPU_TARGETS & co. with CACHE FORCE: these need no edit.
TOOLCHAIN_HANDLED = frozenset({Redirect.TOOLCHAIN, Redirect.TOOLCHAIN_FORCE})


def check_rule_ids(ids: Iterable[str], flag: str) -> frozenset[str]:
    """Rule ids or prefixes (RSM1, RSM20) as given to --select/--ignore; an unknown one is bad input."""
    out = set()
    for raw in ids:
        for part in raw.split(","):
            rid = part.strip().upper()
            if not rid:
                continue
            if not any(r.startswith(rid) for r in RULES):
                raise UserError(f"{flag} {part.strip()}: no rule id starts with it",
                                "use ids from `rocm-spirv migrate` output or the rule table of docs/migrate.md")
            out.add(rid)
    return frozenset(out)


def deprecated_selected(select: frozenset[str]) -> list[str]:
    """One warning line per deprecated rule --select names by its full id (a prefix that happens to
    cover one is not a request for it)."""
    return [f"--select {rid}: rule {rid} ({RULES[rid].name}) is deprecated since {RULES[rid].since}"
            for rid in sorted(select) if rid in RULES and RULES[rid].status == "deprecated"]


def selected(rule_id: str, select: frozenset[str], ignore: frozenset[str]) -> bool:
    """ruff's rule: with no --select every rule is selected; the longer matching prefix decides, and
    --ignore wins a tie."""
    sel = max((len(p) for p in select if rule_id.startswith(p)), default=None) if select else 0
    if sel is None:
        return False
    ign = max((len(p) for p in ignore if rule_id.startswith(p)), default=None)
    return ign is None or sel > ign


def suppressions(text: str) -> dict[int, frozenset[str] | None]:
    """Line number -> rule ids a suppression comment on that line names (None: every rule)."""
    out: dict[int, frozenset[str] | None] = {}
    if "rocm-spirv:" not in text:
        return out
    for no, line in enumerate(text.splitlines(), start=1):
        m = SUPPRESS.search(line)
        if m:
            ids = m.group(1)
            out[no] = None if ids is None else frozenset(i.strip().upper() for i in ids.split(",") if i.strip())
    return out


def is_suppressed(f: Finding, marks: dict[int, frozenset[str] | None]) -> bool:
    """A comment on the finding's line or the line above names its rule."""
    for no in (f.line, f.line - 1):
        if no in marks:
            ids = marks[no]
            if ids is None or f.rule.id in ids:
                return True
    return False


def normalized(f: Finding) -> str:
    return " ".join(f.snippet.split())


def fingerprints(findings: Sequence[Finding]) -> list[str]:
    """Stable ids: rule + path + the construct's text with whitespace collapsed, and which occurrence of
    that text it is. Line numbers are left out, so edits elsewhere in the file keep a finding's id."""
    seen: Counter[tuple[str, str, str]] = Counter()
    out = []
    for f in findings:
        key = (f.rule.id, f.path, normalized(f))
        seen[key] += 1
        # Bytes, not text: a Latin-1 byte in a construct is a lone surrogate here (scan.decode).
        digest = hashlib.sha256("\0".join((*key, str(seen[key]))).encode("utf-8", "surrogateescape")).hexdigest()[:32]
        out.append(digest)
    return out


def baseline_json(findings: Sequence[Finding]) -> dict[str, object]:
    return {"schema": BASELINE_SCHEMA, "findings": [
        {"fingerprint": fp, "rule": f.rule.id, "path": f.path, "construct": normalized(f)}
        for f, fp in zip(findings, fingerprints(findings), strict=True)]}


def read_baseline(text: str, name: str) -> frozenset[str]:
    try:
        data = json.loads(text)
        if data.get("schema") != BASELINE_SCHEMA:
            raise ValueError(f"schema is not {BASELINE_SCHEMA}")
        return frozenset(str(e["fingerprint"]) for e in data["findings"])
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise UserError(f"{name} is not a migrate baseline ({err})",
                        f"record one with `rocm-spirv migrate PATH --write-baseline {name}`") from None


@dataclass(frozen=True)
class Gate:
    select: frozenset[str] = frozenset()
    ignore: frozenset[str] = frozenset()
    fail_on: FailOn = "warning"
    baseline: frozenset[str] | None = None
    preview: bool = False  # report rules in preview too (--preview)


@dataclass(frozen=True)
class Verdict:
    failing: tuple[Finding, ...]
    baselined: int
    suppressed: int
    toolchain: int  # at or above the threshold, but the generated toolchain file handles them
    # findings of opt-in rules (adoption steps) no --select named, by rule id: counted, not listed
    left_out: tuple[tuple[str, int], ...] = ()


def reported(rule: Rule, gate: Gate) -> bool:
    """Whether the report lists a rule's findings: --select/--ignore as in ruff, preview rules only under
    --preview, and opt-in rules (adoption steps) only where a --select prefix names them."""
    if rule.opt_in and not any(rule.id.startswith(p) for p in gate.select):
        return False
    return selected(rule.id, gate.select, gate.ignore) and (gate.preview or rule.status != "preview")


def filter_selected(result: ScanResult, gate: Gate) -> tuple[tuple[str, int], ...]:
    """Drop the findings of rules the report does not list (they are not reported at all, as in ruff).
    Returns how many of those were open findings of opt-in rules no --select named, by rule id, for the
    summary line to count."""
    left_out: dict[str, int] = {}
    for r in result.files:
        for f in r.findings:
            if f.rule.opt_in and not reported(f.rule, gate) and not f.handled and not f.suppressed \
                    and selected(f.rule.id, frozenset(), gate.ignore):  # counted unless --ignore drops it
                left_out[f.rule.id] = left_out.get(f.rule.id, 0) + 1
        r.findings[:] = [f for f in r.findings if reported(f.rule, gate)]
    result.files[:] = [r for r in result.files if r.findings or r.edits or r.error]
    return tuple(sorted(left_out.items()))


def judge(result: ScanResult, gate: Gate, left_out: tuple[tuple[str, int], ...] = ()) -> Verdict:
    findings = result.findings
    prints = fingerprints(findings)
    failing = []
    baselined = suppressed = toolchain = 0
    for f, fp in zip(findings, prints, strict=True):
        if f.handled:
            continue
        if f.suppressed:
            suppressed += 1
        elif gate.baseline is not None and fp in gate.baseline:
            baselined += 1
        elif _RANK[f.severity] < _THRESHOLD[gate.fail_on]:
            continue
        elif f.redirect in TOOLCHAIN_HANDLED:
            toolchain += 1
        else:
            failing.append(f)
    return Verdict(tuple(failing), baselined, suppressed, toolchain, left_out)


def mark_suppressed(findings: list[Finding], text: str) -> None:
    marks = suppressions(text)
    if marks:
        findings[:] = [replace(f, suppressed=True) if is_suppressed(f, marks) else f for f in findings]
