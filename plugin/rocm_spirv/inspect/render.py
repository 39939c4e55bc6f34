"""The human view (plain lines, for terminals and logs alike) and the --json document."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any, Literal

from rocm_spirv.inspect.base import human_size
from rocm_spirv.inspect.model import KIND_LABELS, Entry, FileReport, InputReport, totals
from rocm_spirv.inspect.require import Failure, Requirement
from rocm_spirv.jsondoc import schema_id
from rocm_spirv.term import columns, plain


def to_json(inputs: list[InputReport], req: Requirement | None, failures: list[Failure],
            invalid: list[Failure] | None = None) -> dict[str, Any]:
    all_files = [f for i in inputs for f in i.files]
    return {
        "schema": schema_id("inspect"),
        "inputs": [
            {
                "path": i.path,
                "format": i.format,
                "files": [_file_json(f) for f in i.files],
                "totals": dataclasses.asdict(totals(i.files)),
            }
            for i in inputs
        ],
        "totals": dataclasses.asdict(totals(all_files)),
        "requirement": None if req is None else {
            "spec": str(req),
            "met": not failures,
            "failures": [dataclasses.asdict(f) for f in failures],
        },
        "validation": _validation_json(invalid),
    }


def write_json(inputs: list[InputReport], req: Requirement | None, failures: list[Failure], out: IO[str],
               invalid: list[Failure] | None = None) -> None:
    """The to_json document, streamed one entry at a time so huge libraries stay small in memory."""
    all_files = [f for i in inputs for f in i.files]
    out.write(f'{{\n  "schema": {json.dumps(schema_id("inspect"))},\n  "inputs": [')
    for n, inp in enumerate(inputs):
        out.write(("," if n else "") + f'\n    {{"path": {json.dumps(inp.path)}, "format": {json.dumps(inp.format)}, '
                  '"files": [')
        for k, f in enumerate(inp.files):
            out.write(("," if k else "") + f'\n      {{"path": {json.dumps(f.path)}, "format": {json.dumps(f.format)}, '
                      '"entries": [')
            for j, e in enumerate(f.entries):
                out.write(("," if j else "") + "\n        " + json.dumps(_entry_json(e)))
            rest = {"bundles": [dataclasses.asdict(b) for b in f.bundles], "notes": list(f.notes),
                    "totals": dataclasses.asdict(totals([f]))}
            out.write("],\n       " + json.dumps(rest)[1:])
        out.write(f'],\n     "totals": {json.dumps(dataclasses.asdict(totals(inp.files)))}}}')
    doc = to_json([], req, failures)
    doc["totals"] = dataclasses.asdict(totals(all_files))
    tail = {"totals": doc["totals"], "requirement": doc["requirement"], "validation": _validation_json(invalid)}
    out.write("\n  ],\n  " + json.dumps(tail)[1:] + "\n")


def _validation_json(invalid: list[Failure] | None) -> dict[str, Any] | None:
    """None without --validate; else whether every SPIR-V module passed spirv-val, and which did not."""
    if invalid is None:
        return None
    return {"passed": not invalid, "failures": [dataclasses.asdict(f) for f in invalid]}


def _entry_json(e: Entry) -> dict[str, Any]:
    raw = dataclasses.asdict(e)
    raw["kind_label"] = KIND_LABELS.get(e.kind, e.kind)
    if e.code_object is not None:
        raw["code_object"]["target_id"] = e.code_object.target_id
    return raw


def _file_json(f: Any) -> dict[str, Any]:
    d = dataclasses.asdict(f)
    for e, raw in zip(f.entries, d["entries"], strict=True):
        raw["kind_label"] = KIND_LABELS.get(e.kind, e.kind)
        if e.code_object is not None:
            raw["code_object"]["target_id"] = e.code_object.target_id
    d["totals"] = dataclasses.asdict(totals([f]))
    return d


# How much of each file the human view shows: a summary per (kind, target), every entry, or every
# entry with its kernels. A ROCm library carries hundreds of entries and tens of thousands of kernels.
Detail = Literal["brief", "summary", "entries", "kernels"]


@dataclass
class _Group:
    entries: int = 0
    size: int = 0
    stored: int = 0
    kernels: int = 0


def _label(e: Entry) -> str:
    return KIND_LABELS.get(e.kind, e.kind)


def _details(e: Entry) -> str:
    if e.spirv is not None:
        s = e.spirv
        ext = f", ext {', '.join(s.extensions)}" if s.extensions else ""
        return f"SPIR-V {s.version}, {plain(s.generator)}, caps {', '.join(s.capabilities) or '-'}{ext}"
    if e.code_object is not None:
        c = e.code_object
        gen = f" v{c.generic_version}" if c.generic_version else ""
        return f"{plain(c.target_id)}{gen}, xnack {c.xnack}, sramecc {c.sramecc}, code object v{c.code_object_version}"
    return ""


def _summary(f: FileReport) -> list[str]:
    groups: dict[tuple[str, str], _Group] = {}
    for e in f.device_entries:
        # By target id: gfx90a:xnack+ and gfx90a:xnack- are two code objects for one processor.
        target = e.code_object.target_id if e.code_object is not None else e.target
        g = groups.setdefault((_label(e), target or "-"), _Group())
        g.entries += 1
        g.size += e.size
        g.stored += e.compressed_size if e.compressed_size is not None else 0
        g.kernels += len(e.kernels)
    rows = [["kind", "target", "entries", "uncompressed", "stored", "kernels"]]
    for (label, target), g in sorted(groups.items()):
        rows.append([label, plain(target), str(g.entries), human_size(g.size),
                     human_size(g.stored) if g.stored else "(compressed)", str(g.kernels)])
    return columns(rows, {2, 3, 4, 5}, indent="  ")


def _entries(f: FileReport, detail: Detail) -> list[str]:
    out: list[str] = []
    for e in f.device_entries:
        stored = human_size(e.compressed_size) if e.compressed_size is not None else f"in {e.container}"
        ks = e.kernels
        out.append(f"  {plain(e.id)}: {_label(e)}, {human_size(e.size)} ({stored}), "
                   f"{len(ks)} kernel{'' if len(ks) == 1 else 's'}")
        details = _details(e)
        if details:
            out.append(f"      {details}")
        if detail == "kernels":
            out += [f"      kernel {plain(k)}" for k in ks]
    return out


def _status(f: FileReport, failed: set[tuple[str, str]]) -> list[str]:
    """What must never hide in a summary: failures, problems, validation results."""
    out: list[str] = []
    for e in f.device_entries:
        where = f"  {plain(e.id)}"
        if (f.path, e.id) in failed:
            out.append(f"{where}: FAIL")
        out += [f"{where}: warning: {plain(p)}" for p in e.problems]
        v = e.validation
        if v is not None and v.ok is not None:
            out.append(f"{where}: spirv-val: {'valid' if v.ok else 'invalid'}"
                       + (f" ({plain(v.message)})" if v.message and not v.ok else ""))
    return out


def human_lines(inputs: list[InputReport], req: Requirement | None, failures: list[Failure],
                invalid: list[Failure] | None = None, detail: Detail = "summary") -> Iterator[str]:
    """Plain lines for a terminal or a log: sized to their content, paths and ids never cut."""
    failed = {(f.path, f.entry) for f in failures + (invalid or [])}
    if detail == "brief":
        yield from _brief(inputs, req, failures, invalid)
        return
    for inp in inputs:
        for f in inp.files:
            dev = f.device_entries
            if not dev:
                yield f"{plain(f.path)}: no device code"
                continue
            stored = sum(b.stored_size for b in f.bundles)
            yield (f"{plain(f.path)}: {len(dev)} device entr{'y' if len(dev) == 1 else 'ies'}"
                   + (f" in {len(f.bundles)} bundle{'s' if len(f.bundles) != 1 else ''}, {human_size(stored)} stored"
                      if f.bundles else ""))
            yield from _summary(f) if detail == "summary" else _entries(f, detail)
            yield from _status(f, failed)
            for b in f.bundles:
                if b.container != "bundle":
                    yield f"  {b.container} bundle: {human_size(b.size)} stored in {human_size(b.stored_size)}"
        t = totals(inp.files)
        yield (f"{plain(inp.path)} ({inp.format}): {t.files} file(s), {t.files_with_device_code} with device "
               f"code; {t.entries} entries ({t.spirv} SPIR-V, {t.code_objects} code objects, {t.other} other), "
               f"{human_size(t.size)}; targets: {plain(', '.join(t.targets)) or '-'}")
    if req is not None:
        if not failures:
            yield f"requirement {plain(req)} met"
        else:
            yield f"requirement {plain(req)} not met:"
            for fl in failures:
                where = plain(fl.path) + (": " + plain(fl.entry) if fl.entry else "")
                yield f"  {where}: {plain(fl.reason)}"
    if invalid:
        yield f"spirv-val rejected {len(invalid)} SPIR-V module(s):"
        for fl in invalid:
            yield f"  {plain(fl.path)}: {plain(fl.entry)}: {plain(fl.reason)}"


def _brief(inputs: list[InputReport], req: Requirement | None, failures: list[Failure],
           invalid: list[Failure] | None) -> Iterator[str]:
    """One line per input (a build log's line per artifact), then what failed, if anything."""
    for inp in inputs:
        t = totals(inp.files)
        mine = [fl for fl in failures if fl.path == inp.path or fl.path.startswith(inp.path)]
        verdict = "" if req is None else f"; requirement {plain(req)} {'not met' if mine else 'met'}"
        yield (f"{plain(inp.path)}: {t.entries} device entr{'y' if t.entries == 1 else 'ies'} "
               f"({plain(', '.join(t.targets)) or 'none'}), {human_size(t.size)}{verdict}")
        for fl in mine:
            yield f"  {plain(fl.entry) + ': ' if fl.entry else ''}{plain(fl.reason)}"
    for fl in invalid or []:
        yield f"  {plain(fl.path)}: {plain(fl.entry)}: spirv-val: {plain(fl.reason)}"


def print_human(inputs: list[InputReport], req: Requirement | None, failures: list[Failure],
                out: IO[str] | None = None, invalid: list[Failure] | None = None,
                detail: Detail = "summary") -> None:
    stream = out or sys.stdout
    for line in human_lines(inputs, req, failures, invalid, detail):
        stream.write(line + "\n")
