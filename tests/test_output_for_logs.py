"""Human output in a pipe at 80 columns, as a CI log gets it: every path and id a command reports
(taken from its own --json) appears whole, and a real ROCm library is a summary, not 250,000 lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

LIBRARY = Path("/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1")


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": str(REPO / "plugin")}
    return subprocess.run([sys.executable, "-m", "rocm_spirv", *argv], capture_output=True, text=True, env=env,
                          check=False, timeout=600)


@pytest.mark.parametrize("command", [["doctor", "--no-build"], ["toolchain", "list"]])
def test_every_path_whole_at_80_columns(command: list[str], toolchain: Path) -> None:
    human, as_json = cli(*command), cli(*command, "--json")
    assert as_json.returncode == human.returncode, human.stderr
    # Every path the human view shows is whole: it names a file or folder that exists (a path cut
    # to fit a column, `/root/.lo…`, does not) ...
    shown = [tok.rstrip(",:;)") for tok in human.stdout.replace("(", " ").split() if tok.startswith("/")]
    assert shown, human.stdout
    cut = [p for p in shown if not Path(p).exists()]
    assert not cut, cut
    # ... and the compilers the command reports on are among them.
    doc = json.loads(as_json.stdout)
    reported = [c["path"] for c in doc["compilers"]] if "compilers" in doc else [doc["compiler"]["path"]]
    assert all(p in shown for p in reported), (reported, shown)


@pytest.fixture(scope="module")
def library() -> Path:
    if not LIBRARY.is_file():
        pytest.skip(f"{LIBRARY} is missing: apt-get install librocsparse0 (.ci/setup does)")
    return LIBRARY


def test_a_real_library_is_a_summary(library: Path) -> None:
    done = cli("inspect", str(library))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) < 20, lines
    assert lines[0] == f"{library}: 777 device entries in 111 bundles, 1.2 GiB stored"
    rows = {ln.split()[3]: ln.split() for ln in lines[2:-1]}  # target id -> row
    assert set(rows) == {"gfx1030", "gfx803", "gfx900:xnack-", "gfx906:xnack-", "gfx908:xnack-",
                         "gfx90a:xnack+", "gfx90a:xnack-"}
    assert sum(int(r[4]) for r in rows.values()) == 777  # entries per target add up
    assert lines[-1].startswith(f"{library} (elf): 1 file(s), 1 with device code; 777 entries")


def test_a_real_library_entry_by_entry(library: Path) -> None:
    done = cli("inspect", str(library), "--entries")
    assert done.returncode == 0, done.stderr
    ids = [ln.split(":")[0].strip() for ln in done.stdout.splitlines() if ln.startswith("  hipv4-")]
    assert len(ids) == 777 and "hipv4-amdgcn-amd-amdhsa--gfx90a" in ids
    brief = cli("inspect", str(library), "--brief", "--require", "native:gfx90a,gfx1030")
    assert brief.returncode == 0 and brief.stdout.splitlines() == [
        f"{library}: 777 device entries (gfx1030, gfx803, gfx900, gfx906, gfx908, gfx90a), 1.2 GiB; "
        "requirement native:gfx90a,gfx1030 met"]


def test_migrate_lines_keep_paths_and_ids_whole(tmp_path: Path) -> None:
    deep = tmp_path / "a-rather-long-folder-name-for-an-80-column-terminal" / "kernels"
    deep.mkdir(parents=True)
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX HIP)\n"
        "set(CMAKE_HIP_ARCHITECTURES gfx90a gfx942)\n"
        "add_library(k a-rather-long-folder-name-for-an-80-column-terminal/kernels/k.hip)\n")
    (deep / "k.hip").write_text("__global__ void k(int* p) {\n#if defined(__gfx90a__) || defined(__gfx942__)\n"
                                "  *p = 1;\n#endif\n}\n")
    human, as_json = cli("migrate", str(tmp_path)), cli("migrate", str(tmp_path), "--json")
    findings = json.loads(as_json.stdout)["findings"]
    assert findings
    for f in findings:
        # One whole line per finding: path, position, rule id, never wrapped or cut.
        assert any(ln.startswith(f"{f['path']}:{f['line']}:") and ln.endswith(f"[{f['rule']}]")
                   for ln in human.stdout.splitlines()), (f, human.stdout)
    # The remedy under each finding wraps at 80 columns, between words.
    remedies = [ln for ln in human.stdout.splitlines() if ln.startswith("    ")]
    assert remedies and all(len(ln) <= 80 or " " not in ln.strip() for ln in remedies)


def test_migrate_table_never_folds_a_path() -> None:
    """--output-format table: the table where every value fits whole on one line (a wide terminal);
    at 80 columns and in a pipe the same findings as whole `path:line:col` lines (term.table_or_lines),
    where rich used to fold `HIP-Basic/matrix_transpose/CMak` / `eLists.txt:22` across two rows."""
    import io

    from rich.console import Console
    from rocm_spirv.migrate.scan import scan
    from rocm_spirv.migrate.view import print_table

    collection = REPO / "tests" / "data" / "example_collection"
    result = scan(collection).result
    where = {f"{f.path}:{f.line}:{max(1, f.column)}" for f in result.remaining}
    assert any(len(w) > 40 for w in where)

    def shown(width: int, terminal: bool) -> str:
        out = io.StringIO()
        print_table(Console(file=out, width=width, force_terminal=terminal, color_system=None), result, "report", [])
        return out.getvalue()

    wide = shown(200, True)
    assert "┃ where" in wide and all(w.rsplit(":", 1)[0] in wide for w in where)
    # --select RSM: every rule, as scan() reports them (RSM120, an opt-in adoption note, has the long paths)
    for narrow in (shown(80, True), shown(80, False), cli("migrate", str(collection), "--output-format",
                                                            "table", "--select", "RSM").stdout):
        assert "┃" not in narrow
        starts = {line.split(": ", 1)[0] for line in narrow.splitlines()}
        assert where <= starts, sorted(where - starts)
