"""`rocm-spirv migrate` end to end: modes, exit codes, diff, apply idempotence, SARIF, JSON, excludes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rocm_spirv.cli import main

DATA = Path(__file__).resolve().parent / "data" / "migrate"


@pytest.fixture
def rocmlib(tmp_path: Path) -> Path:
    dst = tmp_path / "rocmlib"
    shutil.copytree(DATA / "rocmlib", dst)
    return dst


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    code = main(["migrate", *argv, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_nonexistent_path_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["migrate", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rocm-spirv: error:") and "does not exist" in err


def test_check_never_writes_and_exits_1(rocmlib: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot(rocmlib)
    assert main(["migrate", str(rocmlib), "--check"]) == 1
    assert snapshot(rocmlib) == before
    assert "21 fail --check (--fail-on warning)" in capsys.readouterr().out


def test_check_exits_0_when_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "CMakeLists.txt").write_text("project(p)\nset(GPU_TARGETS amdgcnspirv)\n")
    (tmp_path / "a.cpp").write_text("int main() { return 0; }\n")
    assert main(["migrate", str(tmp_path), "--check"]) == 0


def test_diff_prints_unified_diff_and_writes_nothing(rocmlib: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot(rocmlib)
    assert main(["migrate", str(rocmlib), "--diff"]) == 1  # edits pending, as ruff --diff says
    out = capsys.readouterr().out
    assert out.startswith("--- a/CMakeLists.txt\n+++ b/CMakeLists.txt\n@@ ")
    assert '+if(NOT ROCM_SPIRV_OFFLOAD STREQUAL "spirv")' in out
    assert "+find_package(RocmSpirv REQUIRED)" in out and "+rocm_spirv_target(rocmlib)" in out
    assert "a/src/gemm.hip" not in out and "a/CMakePresets.json" not in out
    assert snapshot(rocmlib) == before


def test_apply_edits_keep_formatting_and_are_idempotent(rocmlib: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = (rocmlib / "CMakeLists.txt").read_text()
    sources = {k: v for k, v in snapshot(rocmlib).items() if not k.endswith("CMakeLists.txt")}
    code, report = run_json(capsys, str(rocmlib), "--apply")
    assert code == 0 and report["changed_files"] == ["CMakeLists.txt", "third_party/ck/CMakeLists.txt"]
    new = (rocmlib / "CMakeLists.txt").read_text()
    # every original line survives unchanged and in order; only whole lines were added
    old_lines = original.splitlines()
    it = iter(new.splitlines())
    assert all(any(line == n for n in it) for line in old_lines)
    assert new.count("find_package(RocmSpirv REQUIRED)") == 1
    assert new.index("find_package(RocmSpirv") > new.index("project(rocmlib")
    assert "  if(NOT ROCM_SPIRV_OFFLOAD STREQUAL \"spirv\")" in new  # indent of the wrapped set() kept
    assert {k: v for k, v in snapshot(rocmlib).items() if not k.endswith("CMakeLists.txt")} == sources
    once = snapshot(rocmlib)
    code, again = run_json(capsys, str(rocmlib), "--apply")
    assert code == 0 and again["changed_files"] == [] and snapshot(rocmlib) == once
    assert main(["migrate", str(rocmlib), "--diff"]) == 0 and capsys.readouterr().out == ""
    summary = again["summary"]
    assert isinstance(summary, dict) and summary["handled"] >= 7
    handled = {f["rule"] for f in again["findings"] if f["handled"]}  # type: ignore[index,union-attr]
    assert {"RSM101", "RSM102", "RSM103"} <= handled
    assert again["gate"]["left_out"] == {}  # type: ignore[index]  # every HIP target handed over: nothing left out
    code, selected = run_json(capsys, str(rocmlib), "--select", "RSM")
    assert "RSM120" in {f["rule"] for f in selected["findings"] if f["handled"]}  # type: ignore[index,union-attr]


def test_many_targets_get_retarget_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "many"
    shutil.copytree(DATA / "manytargets", root)
    assert main(["migrate", str(root), "--apply"]) == 0
    text = (root / "CMakeLists.txt").read_text()
    assert text.count("rocm_spirv_retarget_directory()") == 1 and "rocm_spirv_target(" not in text
    assert text.count("find_package(RocmSpirv") == 1  # already there
    assert main(["migrate", str(root), "--diff"]) == 0
    capsys.readouterr()


def test_subdirectory_scan_adds_find_package_to_edited_file(tmp_path: Path) -> None:
    sub = tmp_path / "lib"
    sub.mkdir()
    (sub / "CMakeLists.txt").write_text("add_library(k k.hip)\n")
    assert main(["migrate", str(sub), "--apply", "--format", "json"]) == 0
    assert (sub / "CMakeLists.txt").read_text() == (
        "find_package(RocmSpirv REQUIRED)  # rocm-spirv migrate: ROCM_SPIRV_OFFLOAD, rocm_spirv_target()\n"
        "add_library(k k.hip)\nrocm_spirv_target(k)\n")


def test_exclude_globs(rocmlib: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, full = run_json(capsys, str(rocmlib))
    paths = {f["path"] for f in full["findings"]}  # type: ignore[index,union-attr]
    assert "third_party/ck/CMakeLists.txt" in paths and "src/gemm.hip" in paths
    for pattern in ("third_party", "third_party/**", "ck/*"):
        _, ex = run_json(capsys, str(rocmlib), "--exclude", pattern)
        assert "third_party/ck/CMakeLists.txt" not in {f["path"] for f in ex["findings"]}  # type: ignore[index,union-attr]
    _, ex = run_json(capsys, str(rocmlib), "--exclude", "*.hip", "--exclude", "CMakePresets.json")
    got = {f["path"] for f in ex["findings"]}  # type: ignore[index,union-attr]
    assert "src/gemm.hip" not in got and "CMakePresets.json" not in got and "CMakeLists.txt" in got


def test_json_schema_fields(rocmlib: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = run_json(capsys, str(rocmlib))
    assert code == 0
    assert report["schema"] == "rocm-spirv/migrate-report/1" and report["mode"] == "report"
    assert set(report) == {"schema", "root", "mode", "summary", "changed_files", "findings", "errors", "gate"}
    f = report["findings"][0]  # type: ignore[index]
    assert set(f) == {"rule", "name", "severity", "path", "line", "end_line", "column", "message", "fix",
                      "redirect", "handled", "snippet", "suppressed", "fingerprint", "source"}
    assert set(report["gate"]) == {"fail_on", "failing", "baselined", "suppressed", "toolchain_handled", "left_out"}  # type: ignore[arg-type]


def test_a_multi_line_command_is_marked_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The finding stands where the command starts (as CMake reports it); end_line, and SARIF's endLine, reach
    the line that carries the flag, so an editor marks the whole command."""
    (tmp_path / "CMakeLists.txt").write_text("project(p LANGUAGES CXX HIP)\nadd_library(k k.hip)\n"
                                             "target_compile_options(k PRIVATE\n  -O3\n  --offload-arch=gfx90a)\n"
                                             "set(GPU_TARGETS gfx942)\n")
    code, report = run_json(capsys, str(tmp_path))
    assert code == 0  # warnings only, and no --check
    spans = {(f["line"], f["end_line"]) for f in report["findings"] if f["rule"] != "RSM120"}  # type: ignore[index]
    assert spans == {(3, 5), (6, 6)}
    assert main(["migrate", str(tmp_path), "--format", "sarif"]) in (0, 1)
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in json.loads(capsys.readouterr().out)["runs"][0]
               ["results"] if r["ruleId"] != "RSM120"]
    assert sorted((r["startLine"], r.get("endLine")) for r in regions) == [(3, 5), (6, None)]


def test_sarif_structure(rocmlib: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate", str(rocmlib), "--format", "sarif"]) == 0
    sarif = json.loads(capsys.readouterr().out)
    assert sarif["version"] == "2.1.0" and "sarif" in sarif["$schema"]
    (run,) = sarif["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "rocm-spirv-migrate"
    ids = [r["id"] for r in driver["rules"]]
    assert len(ids) == len(set(ids))
    assert run["results"]
    for res in run["results"]:
        assert res["ruleId"] in ids and driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note") and res["message"]["text"]
        loc = res["locations"][0]["physicalLocation"]
        assert not loc["artifactLocation"]["uri"].startswith("/") and loc["region"]["startLine"] >= 1


def test_single_file_and_unparsable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "k.hip").write_text("#ifdef __gfx90a__\nint x;\n#endif\n")
    code, report = run_json(capsys, str(tmp_path / "k.hip"))
    assert code == 0 and [f["rule"] for f in report["findings"]] == ["RSM201"]  # type: ignore[index,union-attr]
    (tmp_path / "CMakeLists.txt").write_text('set(GPU_TARGETS "gfx90a\n')
    code, report = run_json(capsys, str(tmp_path), "--apply")
    assert code == 0 and report["errors"] and report["changed_files"] == []
    assert (tmp_path / "CMakeLists.txt").read_text() == 'set(GPU_TARGETS "gfx90a\n'


def test_apply_keeps_crlf_line_endings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = (b"cmake_minimum_required(VERSION 3.21)\r\nproject(p)\r\nset(GPU_TARGETS gfx90a)  # keep\r\n"
           b"add_library(k k.hip)")
    (tmp_path / "CMakeLists.txt").write_bytes(src)
    assert main(["migrate", str(tmp_path), "--apply"]) == 0
    out = (tmp_path / "CMakeLists.txt").read_bytes()
    assert out.count(b"\n") == out.count(b"\r\n") == 9
    assert b'STREQUAL "spirv")' in out and b"set(GPU_TARGETS gfx90a)  # keep\r\nelse()" in out
    assert b"\r\n  set(GPU_TARGETS amdgcnspirv)\r\nendif()\r\n" in out
    assert out.endswith(b"add_library(k k.hip)\r\nrocm_spirv_target(k)")
    capsys.readouterr()
    assert main(["migrate", str(tmp_path), "--diff"]) == 0
    assert capsys.readouterr().out == ""
