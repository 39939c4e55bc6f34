"""The human table (rich) and the --json document."""

from __future__ import annotations

import dataclasses
import json
from typing import IO, Any

from rich.console import Console
from rich.table import Table

from rocm_spirv.inspect.base import human_size
from rocm_spirv.inspect.report import KIND_LABELS, Entry, InputReport, totals
from rocm_spirv.inspect.require import Failure, Requirement
from rocm_spirv.term import console as make_console
from rocm_spirv.term import esc


def to_json(inputs: list[InputReport], req: Requirement | None, failures: list[Failure],
            invalid: list[Failure] | None = None) -> dict[str, Any]:
    all_files = [f for i in inputs for f in i.files]
    return {
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
    out.write('{\n  "inputs": [')
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


def _details(e: Entry) -> str:
    if e.spirv is not None:
        s = e.spirv
        parts = [f"SPIR-V {s.version}, {esc(s.generator)}", f"kernels: {esc(', '.join(s.entry_points)) or '-'}",
                 f"caps: {esc(', '.join(s.capabilities)) or '-'}"]
        if s.extensions:
            parts.append(f"ext: {esc(', '.join(s.extensions))}")
        return "\n".join(parts)
    if e.code_object is not None:
        c = e.code_object
        gen = f" v{c.generic_version}" if c.generic_version else ""
        return (f"{esc(c.target_id)}{gen} (xnack {c.xnack}, sramecc {c.sramecc}, code object "
                f"v{c.code_object_version})\nkernels: {esc(', '.join(c.kernels)) or '-'}")
    return ""


def print_human(inputs: list[InputReport], req: Requirement | None, failures: list[Failure],
                console: Console | None = None, invalid: list[Failure] | None = None) -> None:
    con = console or make_console()
    failed = {(f.path, f.entry) for f in failures + (invalid or [])}
    for inp in inputs:
        for f in inp.files:
            dev = f.device_entries
            title = f"{esc(f.path)}  \\[{len(dev)} device entr{'y' if len(dev) == 1 else 'ies'}]"
            if not dev:
                con.print(f"{esc(f.path)}: no device code")
                continue
            table = Table(title=title, title_justify="left", show_lines=True)
            for col in ("entry", "kind", "size", "stored", "details", "status"):
                table.add_column(col, overflow="fold")
            for e in dev:
                status = []
                if (f.path, e.id) in failed:
                    status.append("[red]FAIL[/red]")
                status += [f"[yellow]{esc(p)}[/yellow]" for p in e.problems]
                if e.validation is not None:
                    v = e.validation
                    mark = "[green]valid[/green]" if v.ok else ("[red]invalid[/red]" if v.ok is False else "")
                    status.append(f"{mark} {esc(v.message)}".strip() if v.ok is not True else mark)
                stored = human_size(e.compressed_size) if e.compressed_size is not None else f"({e.container})"
                table.add_row(esc(e.id), KIND_LABELS.get(e.kind, e.kind), human_size(e.size), stored, _details(e),
                              "\n".join(status) or "ok")
            con.print(table)
            for b in f.bundles:
                if b.container != "bundle":
                    con.print(f"  {b.container} bundle: {human_size(b.size)} stored in {human_size(b.stored_size)}")
        t = totals(inp.files)
        con.print(f"[bold]{esc(inp.path)}[/bold] ({inp.format}): {t.files} file(s), {t.files_with_device_code} "
                  f"with device code; {t.entries} entries ({t.spirv} SPIR-V, {t.code_objects} code objects, "
                  f"{t.other} other), {human_size(t.size)}; targets: {esc(', '.join(t.targets)) or '-'}")
    if req is not None:
        if not failures:
            con.print(f"[green]requirement {esc(req)} met[/green]")
        else:
            con.print(f"[red]requirement {esc(req)} not met[/red]:")
            for fl in failures:
                where = esc(fl.path) + (": " + esc(fl.entry) if fl.entry else "")
                con.print(f"  {where}: {esc(fl.reason)}", highlight=False)
    if invalid:
        con.print(f"[red]spirv-val rejected {len(invalid)} SPIR-V module(s)[/red]:")
        for fl in invalid:
            con.print(f"  {esc(fl.path)}: {esc(fl.entry)}: {esc(fl.reason)}", highlight=False)
