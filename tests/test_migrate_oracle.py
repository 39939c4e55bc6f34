"""`migrate --configure`: the real CMake trace and the real clang device passes as the oracle.

tests/data/oracle/perarch holds one of every per-arch kind the static scan alone misses or guesses at;
each test below reads one of them from a single oracle run (two real configures with the generated
toolchain files, then each HIP TU preprocessed and compiled for amdgcnspirv and gfx90a, gfx942, gfx1100,
gfx1201 with the provisioned clang 22). tests/data/oracle/clean and the example collection have nothing
per-arch left for the oracle: it must report nothing there. tests/data/oracle/missing_dep does not
configure: the static findings stay, with one line naming the failure.

Expected time on 2 cores: ~40 s per oracle run (two configures, 5 device passes per TU); ~3 min in all.
The unit tests at the end (trace, preprocessed text, IR, merge) take well under a second.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rocm_spirv.migrate.findings import FileReport, Finding, Redirect, ScanResult
from rocm_spirv.migrate.oracle import cmake_oracle, device
from rocm_spirv.migrate.oracle.merge import merge
from rocm_spirv.migrate.oracle.trace import records
from rocm_spirv.migrate.registry import RULES

DATA = Path(__file__).resolve().parent / "data"
ORACLE = DATA / "oracle"


def tree_state(root: Path) -> dict[str, tuple[str, int, int]]:
    """Every entry of a tree: sha256 (files), mode and mtime: what 'byte-for-byte untouched' compares."""
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() and not p.is_symlink() else ""
        out[str(p.relative_to(root))] = (digest, st.st_mode, st.st_mtime_ns)
    return out


def run_oracle(project: Path, toolchain: Path, tmp: Path, *extra: str) -> tuple[int, dict[str, Any], str, Path]:
    """The CLI in its own process, with its temporary folder pointed at tmp (to see it cleaned up)."""
    scratch = tmp / "tmpdir"
    scratch.mkdir(parents=True)
    env = {**os.environ, "TMPDIR": str(scratch)}
    proc = subprocess.run([sys.executable, "-m", "rocm_spirv", "migrate", str(project), "--configure",
                           "--compiler", str(toolchain / "bin" / "clang++"), "--format", "json", *extra],
                          capture_output=True, text=True, env=env, check=False, timeout=1800)
    report = json.loads(proc.stdout) if proc.stdout.strip() else {}
    return proc.returncode, report, proc.stderr, scratch


def at(report: dict[str, Any], path: str, line: int, rule: str) -> dict[str, Any]:
    hits = [f for f in report["findings"] if f["path"] == path and f["line"] == line and f["rule"] == rule]
    assert hits, f"no {rule} at {path}:{line}; findings: " + "\n".join(
        f"{f['path']}:{f['line']} {f['rule']} {f['source']} {f['message']}" for f in report["findings"])
    return hits[0]


@pytest.fixture(scope="module")
def perarch(toolchain: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("perarch")
    project = tmp / "perarch"
    shutil.copytree(ORACLE / "perarch", project)
    before = tree_state(project)
    code, report, err, scratch = run_oracle(project, toolchain, tmp)
    assert code == 0, err
    return {"report": report, "untouched": tree_state(project) == before, "left": sorted(os.listdir(scratch)),
            "stderr": err}


@pytest.mark.slow
def test_function_indirection_to_a_per_arch_custom_command(perarch: dict[str, Any]) -> None:
    # foreach(arch IN LISTS GPU_TARGETS) -> perarch_code_object(${arch}) -> add_custom_command(-mcpu=${arch}):
    # reported at the call in the project's loop, with the chain to the command
    loop = [f for f in perarch["report"]["findings"] if f["path"] == "CMakeLists.txt" and f["line"] == 14
            and f["rule"] in ("RSM107", "RSM109")]
    if loop:  # the static scan reports the loop itself: one construct, confirmed by the trace
        assert loop[0]["source"] == "both"
        return
    f = at(perarch["report"], "CMakeLists.txt", 15, "RSM109")
    assert f["source"] == "configure" and f["redirect"] == "build-file"
    assert "add_custom_command() at cmake/kernels.cmake:3" in f["message"] and "gfx1030" in f["message"]


@pytest.mark.slow
def test_list_append_to_the_target_list(perarch: dict[str, Any]) -> None:
    f = at(perarch["report"], "CMakeLists.txt", 10, "RSM101")
    assert f["source"] == "both"  # the static scan's finding, confirmed by the trace


@pytest.mark.slow
def test_branch_on_a_list_derived_from_the_target_list(perarch: dict[str, Any]) -> None:
    # if(PERARCH_CDNA): no gfx name in sight, but its body runs only in the native configure
    f = at(perarch["report"], "CMakeLists.txt", 28, "RSM106")
    assert f["source"] in ("configure", "both")
    if f["source"] == "configure":
        assert "runs only in the native configure" in f["message"]


@pytest.mark.slow
def test_cross_header_derived_macro(perarch: dict[str, Any]) -> None:
    # PERARCH_HAS_MFMA is defined under __gfx90a__/__gfx942__ in arch.h and tested in tile.h
    f = at(perarch["report"], "include/tile.h", 6, "RSM201")
    assert f["source"] in ("configure", "both")
    if f["source"] == "configure":
        assert "PERARCH_HAS_MFMA" in f["message"] and "gfx90a, gfx942" in f["message"]


@pytest.mark.slow
def test_else_of_an_arch_test_is_the_spirv_path(perarch: dict[str, Any]) -> None:
    at(perarch["report"], "src/kernels.hip", 13, "RSM201")  # #ifdef __gfx1201__
    f = at(perarch["report"], "src/kernels.hip", 18, "RSM205")  # the MFMA builtin in its #else
    # the static scan may report it too (one construct, "both"); the oracle's own says which GPUs lack it
    assert f["source"] in ("configure", "both")
    if f["source"] == "configure":
        assert "gfx1100" in f["message"] and "mai-insts" in f["message"]


@pytest.mark.slow
def test_project_wave_size_define(perarch: dict[str, Any]) -> None:
    f = at(perarch["report"], "src/kernels.hip", 8, "RSM202")
    assert f["source"] in ("configure", "both")
    if f["source"] == "configure":
        assert "PERARCH_WAVEFRONT_SIZE=64 natively" in f["message"] and "PERARCH_WAVEFRONT_SIZE=32" in f["message"]


@pytest.mark.slow
def test_inline_asm_and_target_only_builtin(perarch: dict[str, Any]) -> None:
    assert at(perarch["report"], "src/kernels.hip", 24, "RSM204")["source"] == "both"
    builtin = at(perarch["report"], "src/kernels.hip", 18, "RSM205")
    assert "mfma_f32_4x4x1f32" in builtin["message"] or builtin["source"] == "both"


@pytest.mark.slow
def test_report_says_what_was_configured_and_leaves_no_trace(perarch: dict[str, Any]) -> None:
    c = perarch["report"]["configure"]
    assert c["failure"] is None and c["tus"] == ["src/kernels.hip"]
    assert "gfx90a,gfx942,gfx1100,gfx1201" in c["configured"] and "amdgcnspirv" in c["configured"]
    assert perarch["untouched"], "the oracle changed the project tree"
    assert perarch["left"] == [], f"scratch folders left behind: {perarch['left']}"
    sources = {f["source"]: f["rule"] for f in perarch["report"]["findings"]}
    assert set(sources) == {"configure", "both"}, sources
    # the static scan's own: the HIP target not yet handed to rocm_spirv_target(), an opt-in rule it lists only
    # under --select (the configure run counts it in gate.left_out)
    assert perarch["report"]["gate"]["left_out"] == {"RSM120": 1}


@pytest.mark.slow
def test_nothing_per_arch_nothing_reported(toolchain: Path, tmp_path: Path) -> None:
    code, report, err, _ = run_oracle(ORACLE / "clean", toolchain, tmp_path)
    assert code == 0, err
    c = report["configure"]
    assert c["failure"] is None and c["tus"] == ["saxpy.hip"] and c["clean_tus"] == ["saxpy.hip"]
    assert c["findings"] == 0
    assert [f for f in report["findings"] if f["source"] != "static"] == []


@pytest.mark.slow
def test_example_collection_has_no_false_positive(toolchain: Path, tmp_path: Path) -> None:
    project = tmp_path / "collection"
    shutil.copytree(DATA / "example_collection", project)
    before = tree_state(project)
    code, report, err, _ = run_oracle(project, toolchain, tmp_path)
    assert code == 0, err
    assert tree_state(project) == before
    c = report["configure"]
    # a TU that does not compile clean says why in its configure findings (RSM208 names the compiler's error)
    not_clean = sorted(set(c["tus"]) - set(c["clean_tus"]))
    why = [f"{f['path']}:{f['line']}: {f['rule']} {f['message']}" for f in report["findings"]
           if f["source"] == "configure"]
    assert c["failure"] is None and len(c["tus"]) >= 5 and not not_clean, (not_clean, why, c.get("broken"))
    # what the oracle reports there the toolchain file already redirects: nothing left to change
    unreached = [f for f in report["findings"] if f["source"] != "static" and f["redirect"] not in
                 ("toolchain", "toolchain-force")]
    assert unreached == []


@pytest.mark.slow
def test_failed_configure_keeps_static_findings_and_one_line(toolchain: Path, tmp_path: Path) -> None:
    code, report, err, scratch = run_oracle(ORACLE / "missing_dep", toolchain, tmp_path)
    assert code == 0 and "Traceback" not in err
    failure = [line for line in err.splitlines() if "configure failed" in line]
    assert len(failure) == 1 and "NoSuchPackageAnywhere" in failure[0], err
    assert report["configure"]["failure"] and report["configure"]["tus"] == []
    rules = {(f["path"], f["rule"]) for f in report["findings"]}
    assert ("CMakeLists.txt", "RSM101") in rules and ("kernel.hip", "RSM201") in rules
    assert os.listdir(scratch) == []


# ---- the pure parts, on text the tools print ----


def test_trace_rebuilds_the_call_stack() -> None:
    lines = [
        '{"version":{"major":1,"minor":2}}',
        '{"args":["gfx90a"],"cmd":"gen","file":"/p/CMakeLists.txt","frame":1,"line":6}',
        '{"args":["gfx90a"],"cmd":"inner","file":"/p/g.cmake","frame":2,"line":5}',
        '{"args":["-mcpu=gfx90a"],"cmd":"add_custom_command","file":"/p/g.cmake","frame":3,"line":2}',
        '{"args":["x"],"cmd":"set","file":"/p/CMakeLists.txt","frame":1,"line":9}',
        '{"args":["trunc',
    ]
    recs = list(records(lines))
    assert [r.command.cmd for r in recs] == ["gen", "inner", "add_custom_command", "set"]
    assert [c.cmd for c in recs[2].stack] == ["gen", "inner"] and recs[3].stack == ()


def test_preprocessed_regions_follow_branches_per_target() -> None:
    src = "#pragma once\n#ifdef A\nint a;\n#else\nint b;\n#endif\n#if X\n#ifdef B\nint c;\n#endif\n#endif\n"
    per = {"amdgcnspirv": {5}, "gfx90a": {3}, "gfx1100": {5}}
    found = device.regions("/p/h.h", src, per)
    assert [r.chain.start for r in found] == [2] and device.macros(found[0].chain) == ["A"]
    text = ['# 1 "/p/k.hip"', "int x;", "", '# 7 "./h.h" 1', "#define Y 1", '# 1 "<built-in>" 3', "int z;"]
    assert device.kept_lines(text, "/p") == {"/p/k.hip": {1}, "/p/h.h": {7}}


def test_asm_sites_from_llvm_ir() -> None:
    ir = ['  call void asm sideeffect "s_nop 0", ""() #2, !dbg !20',
          '!5 = !DIFile(filename: "src/k.hip", directory: "/p")',
          '!10 = distinct !DISubprogram(name: "k", scope: !5, file: !5, line: 3)',
          "!20 = !DILocation(line: 4, column: 3, scope: !10)"]
    assert device.asm_sites(ir) == [("/p/src/k.hip", 4, 3, "s_nop 0")]


def test_if_blocks_nest() -> None:
    blocks = cmake_oracle.if_blocks("if(A)\n  if(B)\n  endif()\nelse()\nendif()\n")
    assert [(b.start, b.end) for b in blocks] == [(1, 5), (2, 3)]


def test_merge_marks_both_and_adds_the_rest() -> None:
    static = Finding(RULES["RSM201"], "k.hip", 3, 5, "m", "f", Redirect.SOURCE)
    result = ScanResult("/p", 1, [FileReport("k.hip", "source", [static])])
    same = Finding(RULES["RSM201"], "k.hip", 3, 1, "oracle", "f", Redirect.SOURCE, source="configure")
    new = Finding(RULES["RSM205"], "h.h", 9, 1, "oracle", "f", Redirect.SOURCE, source="configure")
    assert merge(result, [same, new], lambda _p: "") == (1, 1)
    assert [(f.path, f.source) for f in result.findings] == [("h.h", "configure"), ("k.hip", "both")]


@pytest.mark.slow
def test_oracle_only_rule_examples(toolchain: Path, tmp_path: Path) -> None:
    from rocm_spirv.migrate.oracle.rules import RULES as ORACLE_ONLY

    for rule in ORACLE_ONLY:
        project = tmp_path / rule.id
        project.mkdir()
        name, text = rule.example
        (project / name).write_text(text)
        (project / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.21)\nproject(ex LANGUAGES CXX HIP)\n"
                                                f"add_library(ex STATIC {name})\n")
        code, report, err, _ = run_oracle(project, toolchain, tmp_path / f"{rule.id}-run")
        assert code == 0, err
        assert (name, rule.id) in {(f["path"], f["rule"]) for f in report["findings"]}, report["findings"]


@pytest.mark.slow
def test_docs_command_block_runs_as_written(toolchain: Path, tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent
    doc = (root / "docs" / "migrate.md").read_text()
    block = doc.split("## The oracle: `--configure`", 1)[1].split("```", 2)[1]
    commands = [line for line in block.splitlines()[1:] if line.strip()]
    assert commands and all(c.startswith("rocm-spirv migrate ") for c in commands)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "TMPDIR": str(tmp_path)}
    for command in commands:
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=root, env=env, capture_output=True,
                              text=True, check=False, timeout=1800)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines()[-1].startswith("configure: cmake (no options)"), proc.stdout
        assert ("[RSM109]" in proc.stdout or "[RSM107]" in proc.stdout) and "[RSM205]" in proc.stdout


def test_source_in_json_and_sarif() -> None:
    from rocm_spirv.migrate.sarif import to_sarif
    from rocm_spirv.migrate.view import to_json

    oracle = Finding(RULES["RSM106"], "CMakeLists.txt", 28, 1, "configure: …", "f", Redirect.BUILD_FILE,
                     source="configure")
    result = ScanResult("/p", 1, [FileReport("CMakeLists.txt", "cmake", [oracle])])
    assert to_json(result, "report", [])["findings"][0]["source"] == "configure"
    assert to_sarif(result)["runs"][0]["results"][0]["properties"]["source"] == "configure"


def test_merge_takes_a_static_loop_finding_for_the_command_in_the_loop() -> None:
    text = "foreach(arch IN LISTS GPU_TARGETS)\n  gen(${arch})\nendforeach()\n"
    static = Finding(RULES["RSM107"], "CMakeLists.txt", 1, 1, "loop", "f", Redirect.BUILD_FILE)
    result = ScanResult("/p", 1, [FileReport("CMakeLists.txt", "cmake", [static])])
    call = Finding(RULES["RSM109"], "CMakeLists.txt", 2, 1, "oracle", "f", Redirect.BUILD_FILE, source="configure")
    assert merge(result, [call], lambda _p: text) == (1, 0)
    assert [(f.line, f.source) for f in result.findings] == [(1, "both")]


OPTION_PROJECT = """cmake_minimum_required(VERSION 3.21)
project(bt LANGUAGES CXX HIP)
option(BT_TUNED "build the tuned kernels" OFF)
add_library(k src/k.hip)
if(BT_TUNED)
  target_compile_options(k PRIVATE --offload-arch=${BT_TUNED_GPU})
endif()
"""


@pytest.mark.slow
def test_build_dir_configures_with_the_options_of_an_existing_build_tree(toolchain: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    (project / "CMakeLists.txt").write_text(OPTION_PROJECT)
    (project / "src" / "k.hip").write_text("#include <hip/hip_runtime.h>\n__global__ void k(float* o) { o[0] = 1; }\n")
    build = tmp_path / "build"  # the maintainer's own configure, with an option the default leaves off
    clang = str(toolchain / "bin" / "clang++")
    subprocess.run(["cmake", "-S", str(project), "-B", str(build), "-G", "Ninja", f"-DCMAKE_HIP_COMPILER={clang}",
                    f"-DCMAKE_CXX_COMPILER={clang}", "-DCMAKE_HIP_PLATFORM=amd", "-DCMAKE_HIP_ARCHITECTURES=gfx942",
                    "-DBT_TUNED=ON", "-DBT_TUNED_GPU=gfx90a"], check=True, capture_output=True)
    before = tree_state(build)
    code, plain, err, _ = run_oracle(project, toolchain, tmp_path / "a")
    assert code == 0, err
    code, tuned, err, _ = run_oracle(project, toolchain, tmp_path / "b", "--build-dir", str(build))
    assert code == 0, err
    assert tree_state(build) == before, "the oracle changed the existing build tree"
    configured = tuned["configure"]["configured"]
    assert "-DBT_TUNED:BOOL=ON" in configured and "-DBT_TUNED_GPU=gfx90a" in configured, configured
    assert "CMAKE_HIP_COMPILER" not in configured and "CMAKE_HIP_ARCHITECTURES" not in configured
    # The option's per-arch flag reaches the SPIR-V configure only with the tree's options.
    assert at(plain, "CMakeLists.txt", 6, "RSM103")["source"] == "static"
    assert at(tuned, "CMakeLists.txt", 6, "RSM103")["source"] == "both"
    # A folder of another project, or none at all: one line, exit 2, before anything runs.
    other = tmp_path / "other"
    other.mkdir()
    (other / "CMakeLists.txt").write_text("project(other)\n")
    for bad, says in ((other, "has no CMakeCache.txt"), (build, "was configured from")):
        proc = subprocess.run([sys.executable, "-m", "rocm_spirv", "migrate", str(other if bad is build else project),
                               "--build-dir", str(bad)], capture_output=True, text=True, check=False)
        assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1, proc.stderr
        assert says in proc.stderr, proc.stderr


def test_build_tree_options_are_what_the_user_chose() -> None:
    from rocm_spirv.migrate.oracle.build_tree import parse

    tree = parse("# This is the CMakeCache file.\n"
                 "//Build the tuned kernels\nBT_TUNED:BOOL=ON\n"
                 "//No help, variable specified on the command line.\nBT_GPU:UNINITIALIZED=gfx90a\n"
                 "CMAKE_BUILD_TYPE:STRING=Release\nCMAKE_CXX_FLAGS:STRING=\nCMAKE_CXX_FLAGS_RELEASE:STRING=-O3\n"
                 "CMAKE_HIP_ARCHITECTURES:STRING=gfx942\nGPU_TARGETS:STRING=gfx942\nhip_DIR:PATH=/opt/rocm/lib\n"
                 "Python3_EXECUTABLE:FILEPATH=/usr/bin/python3\nZLIB_LIBRARY:STRING=/usr/lib/libz.so\n"
                 "CMAKE_HOME_DIRECTORY:INTERNAL=/src/proj\n_private:INTERNAL=1\n"
                 '"odd name":STRING=a;b\n')
    assert tree.source == "/src/proj"
    assert tree.options == ("-DBT_TUNED:BOOL=ON", "-DBT_GPU=gfx90a", "-DCMAKE_BUILD_TYPE:STRING=Release",
                            "-Dodd name:STRING=a;b")


@pytest.mark.slow
def test_sigterm_mid_oracle_ends_every_tool_and_leaves_nothing(toolchain: Path, tmp_path: Path) -> None:
    """The tools run from a thread pool in process groups of their own (children.py): SIGTERM in the
    main thread must end them all, with their own children (cmake's try_compile builds), and remove the
    scratch trees."""
    import signal
    import time

    scratch = tmp_path / "tmpdir"
    scratch.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "rocm_spirv", "migrate", str(ORACLE / "perarch"), "--configure",
                             "--compiler", str(toolchain / "bin" / "clang++")], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(scratch)})
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not any(scratch.glob("rocm-spirv-oracle-*/native")):
        time.sleep(0.1)
    time.sleep(1.0)  # the configures are running: cmake, and its compiler checks under it
    assert proc.poll() is None, "the oracle ended before it could be interrupted"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and "Traceback" not in err, err

    def running_in_scratch() -> list[str]:
        found = []
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if str(scratch) in text:
                found.append(text)
        return found

    for _ in range(50):
        if not running_in_scratch():
            break
        time.sleep(0.1)
    assert running_in_scratch() == []
    assert os.listdir(scratch) == []
