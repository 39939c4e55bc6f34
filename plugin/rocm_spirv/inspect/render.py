"""The human table (rich) and the --json document."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from rocm_spirv.inspect.base import human_size
from rocm_spirv.inspect.report import KIND_LABELS, Entry, InputReport, totals
from rocm_spirv.inspect.require import Failure, Requirement


def to_json(inputs: list[InputReport], req: Requirement | None, failures: list[Failure]) -> dict[str, Any]:
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
    }


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
        parts = [f"SPIR-V {s.version}, {s.generator}", f"kernels: {', '.join(s.entry_points) or '-'}",
                 f"caps: {', '.join(s.capabilities) or '-'}"]
        if s.extensions:
            parts.append(f"ext: {', '.join(s.extensions)}")
        return "\n".join(parts)
    if e.code_object is not None:
        c = e.code_object
        gen = f" v{c.generic_version}" if c.generic_version else ""
        return (f"{c.target_id}{gen} (xnack {c.xnack}, sramecc {c.sramecc}, code object v{c.code_object_version})\n"
                f"kernels: {', '.join(c.kernels) or '-'}")
    return ""


def print_human(inputs: list[InputReport], req: Requirement | None, failures: list[Failure],
                console: Console | None = None) -> None:
    con = console or Console(width=None if sys.stdout.isatty() else 160)
    failed = {(f.path, f.entry) for f in failures}
    for inp in inputs:
        for f in inp.files:
            dev = f.device_entries
            title = f"{f.path}  [{len(dev)} device entr{'y' if len(dev) == 1 else 'ies'}]"
            if not dev:
                con.print(f"{f.path}: no device code")
                continue
            table = Table(title=title, title_justify="left", show_lines=True)
            for col in ("entry", "kind", "size", "stored", "details", "status"):
                table.add_column(col, overflow="fold")
            for e in dev:
                status = []
                if (f.path, e.id) in failed:
                    status.append("[red]FAIL[/red]")
                status += [f"[yellow]{p}[/yellow]" for p in e.problems]
                if e.validation is not None:
                    v = e.validation
                    mark = "[green]valid[/green]" if v.ok else ("[red]invalid[/red]" if v.ok is False else "")
                    status.append(f"{mark} {v.message}".strip() if v.ok is not True else mark)
                stored = human_size(e.compressed_size) if e.compressed_size is not None else f"({e.container})"
                table.add_row(e.id, KIND_LABELS.get(e.kind, e.kind), human_size(e.size), stored, _details(e),
                              "\n".join(status) or "ok")
            con.print(table)
            for b in f.bundles:
                if b.container != "bundle":
                    con.print(f"  {b.container} bundle: {human_size(b.size)} stored in {human_size(b.stored_size)}")
        t = totals(inp.files)
        con.print(f"[bold]{inp.path}[/bold] ({inp.format}): {t.files} file(s), {t.files_with_device_code} with device"
                  f" code; {t.entries} entries ({t.spirv} SPIR-V, {t.code_objects} code objects, {t.other} other), "
                  f"{human_size(t.size)}; targets: {', '.join(t.targets) or '-'}")
    if req is not None:
        if not failures:
            con.print(f"[green]requirement {req} met[/green]")
        else:
            con.print(f"[red]requirement {req} not met[/red]:")
            for fl in failures:
                con.print(f"  {fl.path}{': ' + fl.entry if fl.entry else ''}: {fl.reason}", highlight=False)
