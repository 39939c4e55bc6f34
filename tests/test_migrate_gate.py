"""The gate of `migrate --check`: --fail-on, --select/--ignore, suppression comments, baselines, text output."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rocm_spirv.cli import main

DATA = Path(__file__).resolve().parent / "data" / "migrate"
# Only settings the generated toolchain file handles (a list set before project(), a default under
# if(NOT DEFINED), a branch on "all"), and a HIP target not yet handed to rocm_spirv_target() (a note).
TOOLCHAIN_ONLY = """cmake_minimum_required(VERSION 3.21)
set(GPU_TARGETS "gfx90a;gfx942" CACHE STRING "GPU targets")
project(p LANGUAGES CXX HIP)
if(NOT DEFINED AMDGPU_TARGETS)
  set(AMDGPU_TARGETS gfx908 gfx90a)
endif()
if(GPU_TARGETS STREQUAL "all")
  set(GPU_TARGETS gfx90a gfx942 CACHE STRING "" FORCE)
endif()
add_library(k SHARED k.hip)
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["migrate", *argv])
    return code, capsys.readouterr().out


def project(tmp_path: Path, cmake: str = TOOLCHAIN_ONLY, source: str = "__global__ void k() {}\n") -> Path:
    (tmp_path / "CMakeLists.txt").write_text(cmake)
    (tmp_path / "k.hip").write_text(source)
    return tmp_path


def test_check_passes_when_the_toolchain_file_handles_everything(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    code, out = run(capsys, str(root), "--check")
    assert code == 0, out
    # the HIP target not yet handed to rocm_spirv_target() is an adoption step (an opt-in rule): counted, not listed
    assert "[RSM120]" not in out
    assert ("0 fail --check (--fail-on warning); 3 handled by the toolchain file; 1 RSM120 left out (adoption, "
            "not per-arch: --select RSM120 lists it, --apply makes the edits)") in out
    code, out = run(capsys, str(root), "--check", "--fail-on", "note")
    assert code == 0 and "0 fail --check (--fail-on note)" in out
    code, out = run(capsys, str(root), "--check", "--fail-on", "note", "--select", "RSM")
    assert re.search(r"^CMakeLists.txt:10:1: note: .* \[RSM120\]$", out, re.MULTILINE) and "left out" not in out
    assert code == 1 and "1 fail --check (--fail-on note)" in out  # the note is a build-file edit
    # a setting only a build-file edit fixes fails the default gate
    project(tmp_path, TOOLCHAIN_ONLY + "set(CMAKE_HIP_ARCHITECTURES gfx90a)\n")
    assert run(capsys, str(root), "--check")[0] == 1


def test_select_and_ignore(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, TOOLCHAIN_ONLY + "set(CMAKE_HIP_ARCHITECTURES gfx90a)\n",
                   "__global__ void k() { asm volatile(\"s_nop 0\"); }\n#if defined(__gfx90a__)\nint x;\n#endif\n")
    def rules(*argv: str) -> list[str]:
        code = main(["migrate", str(root), "--format", "json", *argv])
        assert code == 0
        return sorted({f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]})
    assert rules() == ["RSM101", "RSM201", "RSM204"]
    assert rules("--select", "RSM1") == ["RSM101", "RSM120"]  # a prefix naming an opt-in rule selects it
    assert rules("--select", "RSM120,RSM2") == ["RSM120", "RSM201", "RSM204"]
    assert rules("--select", "RSM1", "--ignore", "RSM120") == ["RSM101"]
    assert rules("--select", "RSM2") == ["RSM201", "RSM204"]
    assert rules("--select", "RSM2", "--ignore", "RSM204") == ["RSM201"]
    assert rules("--ignore", "RSM1,RSM201") == ["RSM204"]
    assert rules("--ignore", "RSM2", "--select", "RSM204") == ["RSM204"]  # the more specific one wins
    assert main(["migrate", str(root), "--select", "RSM999"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--select RSM999: no rule id starts with it" in err


def test_suppression_comments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cmake = TOOLCHAIN_ONLY + ("# rocm-spirv: ignore[RSM101]\nset(CMAKE_HIP_ARCHITECTURES gfx90a)\n"
                              "set(HIP_OFFLOAD_ARCHS gfx942)  # rocm-spirv: ignore[RSM204]\n")
    source = ("__global__ void k() {\n  asm volatile(\"s_nop 0\");  // rocm-spirv: ignore[RSM204]\n"
              "  // rocm-spirv: ignore[RSM205, RSM204]\n  asm volatile(\"s_nop 1\");\n}\n")
    root = project(tmp_path, cmake, source)
    code, out = run(capsys, str(root), "--check", "--format", "json")
    report = json.loads(out)
    sup = {(f["path"], f["line"]) for f in report["findings"] if f["suppressed"]}
    assert sup == {("CMakeLists.txt", 12), ("k.hip", 2), ("k.hip", 4)}
    # the comment on line 13 names another rule: that finding stays and fails the gate
    assert code == 1 and report["gate"]["failing"] == 1 and report["gate"]["suppressed"] == 3
    sarif = json.loads(run(capsys, str(root), "--format", "sarif")[1])
    assert sum("suppressions" in r for r in sarif["runs"][0]["results"]) == 3


def test_baseline_fails_only_on_new_findings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "rocmlib"
    shutil.copytree(DATA / "rocmlib", root)
    base = tmp_path / "baseline.json"
    assert run(capsys, str(root), "--check")[0] == 1
    assert run(capsys, str(root), "--write-baseline", str(base))[0] == 0
    recorded = json.loads(base.read_text())
    assert recorded["schema"] == "rocm-spirv/migrate-baseline/1" and len(recorded["findings"]) == 25
    code, out = run(capsys, str(root), "--check", "--baseline", str(base))
    assert code == 0 and "in the baseline" in out
    # line numbers move: fingerprints do not
    for rel in ("CMakeLists.txt", "src/gemm.hip"):
        (root / rel).write_text("\n\n" + (root / rel).read_text())
    assert run(capsys, str(root), "--check", "--baseline", str(base))[0] == 0
    # SARIF carries the same fingerprints
    sarif = json.loads(run(capsys, str(root), "--format", "sarif")[1])
    prints = {r["partialFingerprints"]["rocmSpirvMigrate/v1"] for r in sarif["runs"][0]["results"]}
    assert {e["fingerprint"] for e in recorded["findings"]} <= prints
    # a new construct fails
    with (root / "src/gemm.hip").open("a") as fh:
        fh.write("__device__ void late() { asm volatile(\"s_nop 0\"); }\n")
    code, out = run(capsys, str(root), "--check", "--baseline", str(base))
    assert code == 1 and re.search(r"^src/gemm.hip:\d+:\d+: error: inline assembly .* \[RSM204\]$", out, re.M)
    assert "1 fail --check" in out
    base.write_text("{}")
    assert main(["migrate", str(root), "--check", "--baseline", str(base)]) == 2
    assert "is not a migrate baseline" in capsys.readouterr().err
    assert main(["migrate", str(root), "--check", "--baseline", str(tmp_path / "none.json")]) == 2
    assert "--write-baseline" in capsys.readouterr().err


def test_text_output_is_compiler_style_and_fits_80_columns(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "lib [x]"
    shutil.copytree(DATA / "rocmlib", root)
    (root / "src [gpu]").mkdir()
    (root / "src [gpu]" / "k.hip").write_text("__global__ void k() { asm volatile(\"s_nop 0\"); }\n")
    code, out = run(capsys, str(root))
    assert code == 0
    lines = out.splitlines()
    diag = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|note): .+ "
                      r"\[(?P<id>RSM\d{3})\]$")
    heads = [m for m in map(diag.match, lines) if m]
    assert len(heads) == 26 and "src [gpu]/k.hip" in {m.group("path") for m in heads}  # rich markup not eaten
    for i, line in enumerate(lines):
        if diag.match(line) or i >= len(lines) - 2:  # the summary and the --apply line
            continue
        assert line.startswith("    ") and len(line) <= 80, line  # remedies wrap, words are never split
    assert lines[-2] == ("6 files scanned: 11 errors, 15 warnings; 22 fail --check (--fail-on warning); "
                         "4 handled by the toolchain file; 2 already handled; 1 RSM120 left out (adoption, not "
                         "per-arch: --select RSM120 lists it, --apply makes the edits)")
    assert lines[-1] == "--apply would change 2 CMake file(s); --diff shows how"
    # The table format in a pipe: the same whole diagnostic lines (a table would fold the paths), markup not eaten.
    code, out = run(capsys, str(root), "--format", "table")
    assert code == 0 and "┃" not in out and out.splitlines()[0].endswith("lib [x]")
    assert [m.groupdict() for m in map(diag.match, out.splitlines()) if m] == [m.groupdict() for m in heads]


@pytest.fixture
def rsm204_status() -> Iterator[Callable[[str], None]]:
    """Set RSM204's status for one test (rules are frozen: the finding builders share the one object)."""
    from rocm_spirv.migrate.registry import RULES

    rule = RULES["RSM204"]
    before = rule.status

    def put(status: str) -> None:
        object.__setattr__(rule, "status", status)

    yield put
    put(before)


def test_a_preview_rule_runs_only_under_preview(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                rsm204_status: Callable[[str], None]) -> None:
    """ruff's RuleStatus: a rule in preview is not reported (nor gates --check) without --preview."""
    root = project(tmp_path, TOOLCHAIN_ONLY, "__global__ void k() { asm volatile(\"s_nop 0\"); }\n")

    def rules(*argv: str) -> list[str]:
        assert main(["migrate", str(root), "--json", *argv]) in (0, 1)
        return sorted({f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]})

    assert "RSM204" in rules()
    rsm204_status("preview")
    assert "RSM204" not in rules() and "RSM101" in rules()
    assert "RSM204" in rules("--preview")
    (root / "rocm-spirv.toml").write_text("[migrate]\npreview = true\n")
    assert "RSM204" in rules() and "RSM204" not in rules("--no-preview")


def test_selecting_a_deprecated_rule_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           rsm204_status: Callable[[str], None]) -> None:
    root = project(tmp_path, TOOLCHAIN_ONLY, "__global__ void k() { asm volatile(\"s_nop 0\"); }\n")
    rsm204_status("deprecated")
    assert main(["migrate", str(root), "--select", "RSM204"]) == 0
    err = capsys.readouterr().err
    assert err == "rocm-spirv: warning: --select RSM204: rule RSM204 (inline-asm) is deprecated since 0.1.0\n"
    assert main(["migrate", str(root), "--select", "RSM2"]) == 0  # a prefix is not a request for it
    assert capsys.readouterr().err == ""


def test_every_rule_has_a_status_and_a_release() -> None:
    from rocm_spirv import __version__
    from rocm_spirv.migrate.findings import RULE_STATUSES
    from rocm_spirv.migrate.registry import RULES

    for rule in RULES.values():
        assert rule.status in RULE_STATUSES, rule.id
        assert re.fullmatch(r"\d+\.\d+\.\d+", rule.since) and rule.since <= __version__, rule.id
