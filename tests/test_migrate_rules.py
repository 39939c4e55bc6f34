"""Each finding kind on small real-shaped inputs under tests/data/migrate."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rocm_spirv import offload
from rocm_spirv.migrate import cmake_rules, presets, source_rules
from rocm_spirv.migrate.cmake_rules import Context
from rocm_spirv.migrate.findings import Finding, Redirect
from rocm_spirv.migrate.pp import ARCH_MACRO
from rocm_spirv.migrate.scan import scan
from rocm_spirv.migrate.source_rules import strip

DATA = Path(__file__).resolve().parent / "data" / "migrate"


def cmake(rel: str, top: bool = True) -> list[Finding]:
    report, _ = cmake_rules.analyze(rel, (DATA / rel).read_text(), Context(top_level=top))
    assert not report.error
    return report.findings


def by_line(findings: list[Finding]) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for f in findings:
        out.setdefault(f.line, set()).add(f.rule.name)
    return out


def test_rocmlib_cmake_findings() -> None:
    found = cmake("rocmlib/CMakeLists.txt")
    lines = by_line(found)
    assert lines[4] == {"arch-list"}  # cache default before project()
    assert lines[8] == {"arch-list"}  # default under if(NOT DEFINED GPU_TARGETS)
    assert lines[10] == {"arch-list"}  # CACHE FORCE
    assert lines[11] == {"arch-list"}  # list(APPEND)
    assert 12 not in lines  # SUPPORTED_GPU_TARGETS: only the IN_LIST test at 21 reads it, and reports it
    assert lines[13] == {"arch-allow-list"}  # list(FILTER)
    assert lines[14] == {"rocm-check-target-ids"}
    assert lines[16] == {"arch-branch"}
    assert lines[20] == {"per-arch-loop"}
    assert lines[21] == {"arch-allow-list"}  # IN_LIST SUPPORTED_GPU_TARGETS
    assert lines[28] == {"legacy-target-flag", "amdgpu-backend-option"}
    assert lines[29] == {"offload-arch-flag"}
    assert lines[30] == {"kernel-generator"}
    assert lines[31] == {"env-arch-list"}
    assert lines[33] == {"hip-target"}
    assert lines[34] == {"hip-architectures-property"}
    assert 35 not in lines  # a comment that looks like a command


def test_redirect_classification() -> None:
    found = {f.line: f for f in cmake("rocmlib/CMakeLists.txt") if f.rule.name == "arch-list"}
    assert found[4].redirect is Redirect.TOOLCHAIN  # before project(): the toolchain's variable shadows it
    assert found[8].redirect is Redirect.TOOLCHAIN
    assert found[10].redirect is Redirect.BUILD_FILE
    assert found[11].redirect is Redirect.BUILD_FILE


def test_cache_default_after_project_needs_force_under_old_policy() -> None:
    src = 'cmake_minimum_required(VERSION 3.16)\nproject(p)\nset(GPU_TARGETS "gfx90a" CACHE STRING "")\n'
    report, _ = cmake_rules.analyze("CMakeLists.txt", src, Context(top_level=True))
    (f,) = report.findings
    assert f.redirect is Redirect.TOOLCHAIN_FORCE and 'CACHE STRING "" FORCE' in f.message and "CMP0126" in f.message
    inherited, _ = cmake_rules.analyze("sub/x.cmake", 'set(GPU_TARGETS "gfx90a" CACHE STRING "")\n',
                                       Context(policy_version=(3, 12)))
    assert inherited.findings[0].redirect is Redirect.TOOLCHAIN_FORCE


def test_policy_range_uses_the_maximum_and_new_policy_needs_no_force() -> None:
    assert cmake_rules.parse_version("3.5...3.27") == (3, 27)
    report, _ = cmake_rules.analyze("CMakeLists.txt", 'cmake_minimum_required(VERSION 3.10...3.25)\n'
                                    'project(p)\nset(GPU_TARGETS "gfx90a" CACHE STRING "")\n')
    assert report.findings[0].redirect is Redirect.TOOLCHAIN


def test_plain_set_before_project_is_toolchain_redirectable_only_at_top_level() -> None:
    src = "cmake_minimum_required(VERSION 3.21)\nset(GPU_TARGETS gfx90a)\nproject(p)\nset(AMDGPU_TARGETS gfx942)\n"
    top, _ = cmake_rules.analyze("CMakeLists.txt", src, Context(top_level=True))
    assert [f.redirect for f in top.findings] == [Redirect.TOOLCHAIN, Redirect.BUILD_FILE]
    sub, _ = cmake_rules.analyze("sub/CMakeLists.txt", src, Context(top_level=False))
    assert [f.redirect for f in sub.findings] == [Redirect.BUILD_FILE, Redirect.BUILD_FILE]


def test_cmake_file_calling_project_itself_starts_its_own_configure() -> None:
    """A .cmake file with its own project() (a configure-only test a harness include()s, rapids-cmake's
    testing/hip/*.cmake) is read before the toolchain file, like the top-level CMakeLists.txt; a project() only
    inside a function() it defines does not count, nor does a CMakeLists.txt below the top."""
    src = "set(CMAKE_HIP_ARCHITECTURES gfx908)\nproject(p LANGUAGES HIP)\nset(GPU_TARGETS gfx942)\n"
    own, _ = cmake_rules.analyze("testing/hip/init_arch-user.cmake", src)
    assert [f.redirect for f in own.findings] == [Redirect.TOOLCHAIN, Redirect.BUILD_FILE]
    assert "set before project()" in own.findings[0].message
    fn = "function(mk)\nproject(q)\nendfunction()\n" + src.replace("project(p LANGUAGES HIP)\n", "")
    in_function, _ = cmake_rules.analyze("cmake/mk.cmake", fn)
    assert [f.redirect for f in in_function.findings] == [Redirect.BUILD_FILE, Redirect.BUILD_FILE]
    sub, _ = cmake_rules.analyze("sub/CMakeLists.txt", src)
    assert [f.redirect for f in sub.findings] == [Redirect.BUILD_FILE, Redirect.BUILD_FILE]


def test_findhip() -> None:
    lines = by_line(cmake("findhip/CMakeLists.txt"))
    assert lines[5] == {"findhip"}
    assert lines[6] == {"env-arch-list"}
    assert lines[7] == {"findhip-arch-option", "legacy-target-flag"}  # -amdgpu-target= in HIPCC_OPTIONS


def test_already_migrated_lines_are_handled() -> None:
    found = cmake("manytargets/CMakeLists.txt")
    guarded = [f for f in found if f.line == 5]
    assert guarded and all(f.handled for f in guarded)
    unguarded = [f for f in found if f.line == 7]
    assert unguarded and not any(f.handled for f in unguarded)
    # the file's four HIP targets in one note, at the first (--apply still retargets each)
    (note,) = [f for f in found if f.rule.name == "hip-target"]
    assert note.line == 8 and note.message.startswith("4 HIP targets are not handed to rocm_spirv_target(): ")


def test_amdgcnspirv_values_are_not_findings() -> None:
    report, _ = cmake_rules.analyze("CMakeLists.txt", "project(p)\nset(GPU_TARGETS amdgcnspirv)\n"
                                    "add_compile_options(--offload-arch=amdgcnspirv)\n")
    assert report.findings == []


def test_syntax_error_is_reported_not_raised() -> None:
    report, _ = cmake_rules.analyze("CMakeLists.txt", 'set(X "open\n')
    assert "unterminated quoted argument" in report.error and not report.edits


def test_presets() -> None:
    report = presets.analyze("CMakePresets.json", (DATA / "rocmlib/CMakePresets.json").read_text())
    got = [(f.line, f.rule.name, f.redirect) for f in report.findings]
    assert got == [(7, "preset-arch-list", Redirect.TOOLCHAIN_FORCE), (8, "preset-arch-list", Redirect.TOOLCHAIN_FORCE),
                   (10, "env-arch-list", Redirect.ENVIRONMENT)]
    assert presets.analyze("CMakePresets.json", "{").error.startswith("invalid JSON")


def test_preset_flags_in_every_spelling_the_compiler_takes() -> None:
    flags = {"a": "-mcpu=gfx90a -O3", "b": "--cuda-gpu-arch=gfx942", "c": "-amdgpu-target=gfx906",
             "d": "--offload-arch=$env{GPU_ARCH}", "e": "--offload-arch=sm_80", "f": "-march=native -mcpu=native",
             "g": "--offload-arch=amdgcnspirv", "h": "-Xarch-mcpu=gfx90a"}
    text = json.dumps({"version": 3, "configurePresets": [
        {"name": n, "cacheVariables": {"CMAKE_HIP_FLAGS": v}} for n, v in flags.items()]}, indent=1)
    got = [f.message for f in presets.analyze("CMakePresets.json", text).findings]
    assert got == [f"preset {n} passes per-arch flags in CMAKE_HIP_FLAGS: {flags[n]}" for n in "abcd"]


def test_source_findings() -> None:
    text = (DATA / "rocmlib/src/gemm.hip").read_text()
    lines = by_line(source_rules.analyze("src/gemm.hip", text).findings)
    assert lines == {
        7: {"arch-enum-helper"},  # the #if chain (its #elif too) and the value it picks: one construct
        16: {"constexpr-warpsize"}, 20: {"constexpr-warpsize"},
        23: {"unguarded-feature-builtin"},  # line 25 is guarded by is_invocable
        27: {"inline-asm"}, 28: {"wavefront-size-macro", "constexpr-warpsize"},
        31: {"has-builtin-arch-test"},
    }
    assert all(f.redirect is Redirect.SOURCE for f in source_rules.analyze("g.hip", text).findings)
    assert source_rules.analyze("src/util.cpp", (DATA / "rocmlib/src/util.cpp").read_text()).findings == []


def test_guarded_builtin_without_braces() -> None:
    text = ("__device__ int f(int v) {\n  if (__builtin_amdgcn_processor_is(\"gfx90a\"))\n"
            "    v = __builtin_amdgcn_mov_dpp(v, 0x142, 15, 15, false);\n"
            "  return __builtin_amdgcn_mov_dpp(v, 0x142, 15, 15, 0);\n}\n")
    found = source_rules.analyze("f.hip", text).findings
    assert [(f.line, f.rule.name) for f in found] == [(4, "unguarded-feature-builtin")]


def test_stripper_keeps_lines_and_blanks_comments_and_strings() -> None:
    text = 'a // __gfx90a__\nb /* x\n__GFX9__ */ c "s\\"__gfx1100__" \'\\\'\' R"d(\n__gfx942__ )" )d" 1\'000\n'
    out = strip(text)
    assert out.count("\n") == text.count("\n") and len(out) == len(text)
    assert "gfx" not in out.lower()
    assert out.splitlines()[2].startswith(" " * 12 + "c")
    assert out.rstrip().endswith("1'000")
    assert 'R"d(' in out and ')d"' in out
    assert strip('"a\\\\" __gfx90a__ "x\\"\n__gfx942__') == '"   " __gfx90a__ "   \n__gfx942__'


@given(st.text(alphabet=st.sampled_from(list("ab1'\"\\/*\nR(d)_ ")), max_size=80))
def test_stripper_preserves_length_and_newlines(text: str) -> None:
    out = strip(text)
    assert len(out) == len(text)
    assert [i for i, c in enumerate(out) if c == "\n"] == [i for i, c in enumerate(text) if c == "\n"]


# -- constructs of samples/migration, in small real-shaped files -------------------------------

def run(src: str) -> tuple[list[Finding], str]:
    """Findings of a top-level CMakeLists.txt and the text --apply makes of it (edits of this file only)."""
    from rocm_spirv.migrate.apply import apply_edits

    report, _ = cmake_rules.analyze("CMakeLists.txt", src, Context(top_level=True))
    assert not report.error
    return report.findings, apply_edits(src, report.edits)


def rules_at(findings: list[Finding], line: int) -> set[str]:
    return {f.rule.id for f in findings if f.line == line}


HIP_DEVICE = """cmake_minimum_required(VERSION 3.16)
project(p LANGUAGES CXX)
find_package(hip REQUIRED CONFIG PATHS /opt/rocm)
add_library(k SHARED k.cpp)
target_link_libraries(k PRIVATE hip::device)
add_executable(host_tool tool.cpp)
"""


def test_find_package_hip_and_targets_made_hip_by_hip_device() -> None:
    found, new = run(HIP_DEVICE)
    (pkg,) = [f for f in found if f.line == 3]
    assert pkg.rule.id == "RSM103" and pkg.redirect is Redirect.TOOLCHAIN and "hip::device" in pkg.message
    (tgt,) = [f for f in found if f.rule.id == "RSM120"]
    assert tgt.line == 5 and "links hip::device" in tgt.message and not tgt.handled  # the line that makes it HIP
    assert "add_library(k SHARED k.cpp)\nrocm_spirv_target(k)\n" in new and "rocm_spirv_target(host_tool)" not in new
    again, newer = run(new)
    assert newer == new and all(f.handled for f in again if f.rule.id in ("RSM103", "RSM120"))


def test_loop_that_only_appends_offload_arch_flags() -> None:
    src = ("project(p)\nforeach(GPU_TARGET ${GPU_TARGETS})\n"
           "  set_property(TARGET hip::device APPEND PROPERTY INTERFACE_COMPILE_OPTIONS\n"
           '    "$<$<COMPILE_LANGUAGE:CXX>:SHELL:--offload-arch=${GPU_TARGET}>")\n'
           '  target_link_options(k INTERFACE "$<$<LINK_LANGUAGE:CXX>:--offload-arch=${GPU_TARGET}>")\n'
           "endforeach()\n")
    found, _ = run(src)
    # one construct, one finding: the loop, not each flag in it
    assert [(f.line, f.rule.id) for f in found] == [(2, "RSM103")]
    assert not any(f.rule.id == "RSM107" for f in found)  # no per-arch sources or commands: not unreachable
    assert all(f.redirect is Redirect.TOOLCHAIN for f in found)


def test_per_target_probe_compile_in_a_filter_loop() -> None:
    src = ("project(p LANGUAGES CXX HIP)\nforeach(_arch IN LISTS GPU_TARGETS)\n"
           "  execute_process(COMMAND ${CMAKE_HIP_COMPILER} -x hip --cuda-device-only\n"
           '                          --offload-arch=${_arch} -c "${_probe}" RESULT_VARIABLE _rc)\nendforeach()\n')
    found, _ = run(src)
    assert [(f.line, f.rule.id) for f in found] == [(2, "RSM107")]


def test_targets_made_hip_by_options_and_other_flag_spellings() -> None:
    src = ("cmake_minimum_required(VERSION 3.10)\nproject(p LANGUAGES CXX)\n"
           "add_library(rawk_tuned SHARED src/dot.cpp)\n"
           "target_compile_options(rawk_tuned PRIVATE -x hip -nogpuinc --cuda-gpu-arch=gfx942\n"
           '  "SHELL:-mllvm -amdgpu-early-inline-all=true" "SHELL:-mllvm -amdgpu-function-calls=false")\n')
    found, new = run(src)
    # one command, one construct: the backend options beside the flag are named in its message
    assert rules_at(found, 3) == {"RSM120"} and rules_at(found, 4) == {"RSM103"}
    message = next(f.message for f in found if f.rule.id == "RSM103")
    assert "--cuda-gpu-arch=gfx942" in message and "(RSM105)" in message
    assert "add_library(rawk_tuned SHARED src/dot.cpp)\nrocm_spirv_target(rawk_tuned)\n" in new
    again, _ = run(new)  # retargeting strips the option: the flag finding is handled once the target is retargeted
    assert next(f for f in again if f.rule.id == "RSM103").handled
    assert not next(f for f in again if f.rule.id == "RSM105").handled  # the backend options stay, on their own


def test_arch_flag_in_cmake_cxx_flags_is_guarded_only_when_alone() -> None:
    src = ('project(p CXX)\nset(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} --offload-arch=gfx90a")\n'
           'set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} -O2 --offload-arch=gfx942")\n')
    found, new = run(src)
    assert [f.line for f in found if f.rule.id == "RSM103"] == [2, 3]
    assert "CMAKE_CXX_FLAGS" in found[0].message
    assert new.count("endif()") == 1 and new.index("STREQUAL") < new.index("gfx90a") < new.index("endif()") \
        < new.index("-O2")


def test_list_get_of_the_target_list() -> None:
    found, _ = run("project(p)\nlist(GET GPU_TARGETS 0 _first_target)\nlist(LENGTH GPU_TARGETS n)\n"
                   "configure_file(k.in ${_first_target}/k.h)\n")
    (f,) = found
    assert f.rule.id == "RSM114" and f.redirect is Redirect.BUILD_FILE and "_first_target" in f.message


HOST_ONLY = """cmake_minimum_required(VERSION 3.21)
project(p LANGUAGES CXX HIP)
add_library(hipla SHARED src/saxpy.hip)
add_library(hipla_host STATIC tools/build_info.hip)
set_target_properties(hipla_host PROPERTIES HIP_ARCHITECTURES FALSE POSITION_INDEPENDENT_CODE ON)
target_compile_options(hipla_host PRIVATE --cuda-host-only)
add_library(info STATIC tools/info.hip)
target_compile_options(info PRIVATE --cuda-host-only)
"""


def test_host_only_targets_are_not_retargeted() -> None:
    found, new = run(HOST_ONLY)
    assert not any(f.rule.id == "RSM102" for f in found)  # FALSE is not an arch list
    host = [f for f in found if f.line in (4, 5, 7)]
    assert [f.rule.id for f in host] == ["RSM120"] * 3 and all(f.handled for f in host)
    assert "host-only" in host[0].message and "HIP_ARCHITECTURES FALSE" in host[0].message
    assert "rocm_spirv_target(hipla)" in new
    assert "rocm_spirv_target(hipla_host)" not in new and "rocm_spirv_target(info)" not in new
    assert [f.line for f in found if not f.handled] == [3]


def test_hip_architectures_message_names_every_value() -> None:
    found, _ = run("project(p)\nadd_library(m OBJECT k.hip)\n"
                   "set_property(TARGET m PROPERTY HIP_ARCHITECTURES gfx90a gfx1100)\n"
                   'set_target_properties(m PROPERTIES HIP_ARCHITECTURES "gfx90a;gfx942")\n')
    assert [f.message for f in found if f.rule.id == "RSM102"] == [
        "HIP_ARCHITECTURES of m set to gfx90a gfx1100", "HIP_ARCHITECTURES of m set to gfx90a gfx942"]


def test_findhip_targets_redirectable_unless_options_pin_an_arch() -> None:
    src = ('cmake_minimum_required(VERSION 3.5)\nproject(p CXX)\n'
           'set(HCC_AMDGPU_TARGET "gfx90a;gfx1030" CACHE STRING "AMD GPU targets")\n'
           "find_package(HIP MODULE REQUIRED)\nhip_add_library(k SHARED k.hip)\n"
           "hip_add_executable(app main.cpp s.hip HIPCC_OPTIONS -O3)\n"
           "hip_add_executable(mi300 m.hip HIPCC_OPTIONS -O3 --offload-arch=gfx942)\n"
           'hip_add_library(k2 k2.hip CLANG_OPTIONS "--amdgpu-target=gfx906")\n')
    found, new = run(src)
    got = {f.line: (f.rule.id, f.redirect) for f in found if f.rule.id in ("RSM110", "RSM115")}
    assert got == {3: ("RSM110", Redirect.TOOLCHAIN_FORCE), 5: ("RSM110", Redirect.TOOLCHAIN_FORCE),
                   6: ("RSM110", Redirect.TOOLCHAIN_FORCE), 7: ("RSM115", Redirect.BUILD_FILE),
                   8: ("RSM115", Redirect.BUILD_FILE)}
    assert '"AMD GPU targets")\nelse()' in new and "  set(HCC_AMDGPU_TARGET amdgcnspirv)\nendif()\n" in new


def test_arch_list_guard_sets_amdgcnspirv_under_spirv() -> None:
    _, new = run("cmake_minimum_required(VERSION 3.16)\nproject(p)\n"
                 '  set(AMDGPU_TARGETS "gfx908;gfx90a" CACHE STRING "targets")\n')
    assert new.endswith('  if(NOT ROCM_SPIRV_OFFLOAD STREQUAL "spirv")  # rocm-spirv migrate: per-arch list, unused '
                        'under SPIR-V\n  set(AMDGPU_TARGETS "gfx908;gfx90a" CACHE STRING "targets")\n'
                        "  else()  # rocm-spirv migrate: what a SPIR-V toolchain file sets\n"
                        "    set(AMDGPU_TARGETS amdgcnspirv)\n  endif()\n")


def test_apply_notes_what_needs_a_hand_edit_once() -> None:
    src = ("project(p LANGUAGES CXX HIP)\nset(OK gfx90a)\nforeach(_t IN LISTS GPU_TARGETS)\n"
           '  if(NOT _t IN_LIST UNR_SUPPORTED_TARGETS)\n    message(FATAL_ERROR "no")\n  endif()\nendforeach()\n')
    found, new = run(src)
    assert rules_at(found, 4) == {"RSM108"}
    assert "\n  # rocm-spirv migrate: RSM108 arch-allow-list: needs an edit for SPIR-V (rocm-spirv migrate --check)" \
        "\n  if(NOT _t IN_LIST" in new
    again, newer = run(new)
    assert newer == new and not any(f.handled for f in again if f.rule.id == "RSM108")


# -- device context (issue 16) -----------------------------------------------------------------

DEVICE_CONTEXT = """#include <hip/hip_runtime.h>
#if defined(__gfx908__) || defined(__gfx90a__) || \\
    defined(__gfx942__)
#define AMD_MFMA_AVAILABLE
#endif
#if defined(__HIP_PLATFORM_NVIDIA__)
__device__ int lane() { int r; asm("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
#elif defined(__x86_64__)
int x() { asm("cpuid"); return 0; }
#endif
#ifdef AMD_MFMA_AVAILABLE
__device__ void k() { __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0); }
#else
__device__ void k() { }
#endif
#ifndef __HIP_DEVICE_COMPILE__
void host() { asm("nop"); }
#endif
#if 0
__device__ void old() { asm("s_nop 0"); }
#endif
constexpr int warp() {
#if defined(__GFX9__)
  return 64;
#else
  return 32;
#endif
}
__device__ void w() { asm volatile("s_waitcnt vmcnt(0)"); }
"""


def test_branches_are_evaluated_for_the_spirv_device_pass() -> None:
    found = source_rules.analyze("k.hip", DEVICE_CONTEXT).findings
    assert [(f.line, f.rule.id) for f in found] == [(2, "RSM201"), (23, "RSM207"), (29, "RSM204")]
    helper = found[1]  # the arch #if that picks warp()'s value and the value: one finding where the #if starts
    assert helper.column == 13 and "chosen by __GFX9__ (line 24)" in helper.message
    first = found[0]
    # one finding for the whole (continued) #if, naming every arch macro and the macro derived from them
    assert first.column == 13 and "__gfx908__, __gfx90a__, __gfx942__ are undefined" in first.message
    assert "AMD_MFMA_AVAILABLE" in first.message


def test_asm_only_in_files_a_hip_compile_sees() -> None:
    cpu = '#include <immintrin.h>\nstatic inline unsigned long long rd() { unsigned long long t; ' \
          'asm volatile("rdtsc" : "=A"(t)); return t; }\n'
    assert source_rules.analyze("ggml-cpu/arch/x86/cpu.c", cpu).findings == []
    assert source_rules.analyze("k.cu", cpu).findings == []  # x86 assembly in a device file is host code
    ptx = '__device__ unsigned lane() { unsigned r; asm("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }\n'
    assert source_rules.analyze("k.cu", ptx).findings == []
    gcn = 'static inline void wait() { asm volatile("s_waitcnt vmcnt(0)" ::: "memory"); }\n'
    assert [f.rule.id for f in source_rules.analyze("util.hpp", gcn).findings] == ["RSM204"]  # GCN mnemonic
    macro = ('#define LOAD(op, wait) \\\n  template <> T load<T>(void* p) { T r; \\\n'
             '    asm volatile(#op " %0, %1" : "=v"(r) : "v"(p)); \\\n'
             '    asm volatile("s_waitcnt " wait "(%0)" : : "I"(0)); return r; }\n')
    found = source_rules.analyze("load.hpp", macro).findings  # one finding per macro, at its GCN asm line
    assert [(f.line, f.rule.id) for f in found] == [(4, "RSM204")] and "macro LOAD" in found[0].message
    any_asm = '__global__ void k(int x) { asm volatile("" : "+v"(x)); }\n'  # an output: the backend stops
    assert [f.rule.id for f in source_rules.analyze("k.hip", any_asm).findings] == ["RSM204"]
    barrier = '__global__ void k() { asm volatile("" ::: "memory"); }\n'  # no instruction, valid SPIR-V
    assert source_rules.analyze("k.hip", barrier).findings == []
    power = "#if defined(__POWER9_VECTOR__) && defined(__powerpc64__)\n__device__ int f() { asm(\"nop\"); }\n#endif\n"
    assert source_rules.analyze("p.hip", power).findings == []


def test_device_markers_are_whole_tokens(tmp_path: Path) -> None:
    # An audio library's `ma_job_process__device__reroute` holds the text "__device__" but declares no device code:
    # its x86 cpuid is host assembly. On its own the file's asm is device asm only if the file names a macro
    # another file defines to __device__ (a "device" need the scan settles); no file here does.
    audio = ('static void ma_job_process__device__reroute(void) {}\n'
             'static void cpu(int* info) { __asm__ __volatile__ ("xchg{l} {%%}ebx, %k1;" : "=a"(info[0])); }\n')
    alone = source_rules.analyze("audio.h", audio)
    assert [alone.needs[(f.line, f.column)][0] for f in alone.findings] == ["device"]
    (tmp_path / "audio.h").write_text(audio)
    assert scan(tmp_path).result.findings == []
    device = audio.replace("static void ma_job_process__device__reroute(void) {}", "__device__ void reroute() {}")
    assert [f.rule.id for f in source_rules.analyze("audio.h", device).findings] == ["RSM204"]


def test_asm_kind_is_read_from_the_instruction_mnemonics() -> None:
    # RISC-V vector kernels name their operands s_vec, v_acc: a GCN-looking word that is no mnemonic.
    riscv = ('void row(const float* s, float* acc) {\n  __asm__ volatile(\n    "flw.ps f11, %[s_vec]\\n"\n'
             '    "fadd.ps f10, f11, f10\\n" : : [s_vec] "m"(*s), [v_acc] "m"(*acc) : "f10", "f11");\n}\n')
    assert source_rules.analyze("kernels/src/row_f32.c", riscv).findings == []
    # PTX opcodes carry dotted modifiers (cp.async, ldmatrix.sync, mma.sync, prefetch.global): NVIDIA code
    ptx = ('static __device__ void cp16(unsigned dst, const void* src) {\n'
           '  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" : : "r"(dst), "l"(src));\n}\n'
           'static __device__ void pf(const void* p) { asm volatile("prefetch.global.L2 [%0];" :: "l"(p)); }\n'
           'static __device__ void ld(int* x, unsigned a) {\n  asm volatile(\n'
           '    "ldmatrix.sync.aligned.m8n8.x2.b16 {%0, %1}, [%2];" : "=r"(x[0]), "=r"(x[1]) : "r"(a));\n}\n')
    assert source_rules.analyze("copy.cuh", ptx).findings == []
    gcn = ('static __device__ void mad(float& acc, unsigned v, unsigned u) {\n'
           '  asm volatile("v_dot2_f32_f16 %0, %1, %2, %0" : "+v"(acc) : "v"(v), "v"(u));\n}\n'
           'static void dp(int& c) {\n  asm("\\n \\\n    v_add3_u32 %0, %1, %2, %0 \\n \\\n" : "+v"(c));\n}\n')
    assert [(f.line, f.rule.id) for f in source_rules.analyze("mad.cuh", gcn).findings] == [(2, "RSM204"),
                                                                                            (5, "RSM204")]
    # outside device files only a GCN mnemonic makes it AMD GPU assembly, also after a line splice
    host = gcn.replace("__device__ ", "")
    assert [(f.line, f.rule.id) for f in source_rules.analyze("mad.h", host).findings] == [(2, "RSM204"),
                                                                                           (5, "RSM204")]


def test_arch_derived_macro_in_another_file_is_followed(tmp_path: Path) -> None:
    from rocm_spirv.migrate.scan import scan
    (tmp_path / "config.h").write_text("#pragma once\n#if defined(__gfx90a__) || defined(__gfx942__)\n"
                                       "#define LIB_HAS_MFMA 1\n#endif\n")
    (tmp_path / "gemm.hip").write_text('#include "config.h"\n#if LIB_HAS_MFMA\n__global__ void k() '
                                       '{ __builtin_amdgcn_mfma_f32_4x4x1f32(a, b, c, 0, 0, 0); }\n#endif\n'
                                       '#ifndef LIB_HAS_MFMA\n'
                                       '__global__ void g() { __builtin_amdgcn_mov_dpp(1, 0x143, 1, 1, 0); }\n#endif\n')
    found = scan(tmp_path).result.findings
    assert [(f.path, f.line, f.rule.id) for f in found] == [("config.h", 2, "RSM201"), ("gemm.hip", 6, "RSM205")]


def test_macro_derived_from_another_files_family_macro_is_followed(tmp_path: Path) -> None:
    # A family macro (LIB_CDNA) is defined under arch macros in one header; another header, scanned first,
    # defines a feature macro from it next to a project switch the scan cannot know (LIB_USE_HIP).
    (tmp_path / "a_common.h").write_text(
        "#pragma once\n#include <hip/hip_runtime.h>\n#include \"z_vendor.h\"\n"
        "#if defined(LIB_USE_HIP) && defined(LIB_CDNA)\n#define LIB_MFMA\n#endif\n"
        "#if defined(LIB_USE_HIP) && (defined(LIB_CDNA) || defined(__gfx906__))\n#define LIB_DOT2\n#endif\n"
        "__device__ void mad(float& acc, unsigned v) {\n#ifdef LIB_DOT2\n"
        '  asm volatile("v_dot2_f32_f16 %0, %1, %1, %0" : "+v"(acc) : "v"(v));\n#endif\n}\n')
    (tmp_path / "b_mma.h").write_text(
        "#pragma once\n#include \"a_common.h\"\n__device__ void mma(float4& d, half4 a, half4 b) {\n"
        "#if defined(LIB_MFMA)\n  d = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, d, 0, 0, 0);\n#endif\n}\n")
    (tmp_path / "z_vendor.h").write_text("#pragma once\n#if defined(__gfx942__) || defined(__gfx90a__)\n"
                                         "#define LIB_CDNA\n#endif\n")
    found = scan(tmp_path).result.findings
    assert [(f.path, f.line, f.rule.id) for f in found] == [
        ("a_common.h", 4, "RSM201"), ("a_common.h", 7, "RSM201"), ("z_vendor.h", 2, "RSM201")]
    assert "LIB_CDNA is undefined under amdgcnspirv" in found[0].message and "so is LIB_MFMA" in found[0].message
    assert found[0].column == 37  # at LIB_CDNA
    # defined on the other branch as well, the feature stays live and its uses are reported
    common = (tmp_path / "a_common.h").read_text()
    (tmp_path / "a_common.h").write_text(common.replace("#define LIB_MFMA\n",
                                                        "#define LIB_MFMA\n#else\n#define LIB_MFMA\n"))
    found = scan(tmp_path).result.findings
    assert ("b_mma.h", 5, "RSM205") in [(f.path, f.line, f.rule.id) for f in found]
    assert ("a_common.h", 4, "RSM201") not in [(f.path, f.line, f.rule.id) for f in found]


def test_preprocessor_evaluator_is_three_valued() -> None:
    from rocm_spirv.migrate.pp import evaluate
    assert evaluate("defined(__HIP_PLATFORM_AMD__) && !defined(__CUDA_ARCH__)") == 1
    assert evaluate("defined(__gfx90a__) || defined(__GFX9__)") == 0
    assert evaluate("defined(PROJECT_MACRO)") is None
    assert evaluate("defined(PROJECT_MACRO) && defined(__NVCC__)") == 0
    assert evaluate("PROJECT_MACRO || __HIP_DEVICE_COMPILE__") == 1
    assert evaluate("__has_builtin(__builtin_amdgcn_mfma_f32_4x4x1f32)") is None
    assert evaluate("(1 + 2) * 3 == 9 ? 1 : 0") == 1
    assert evaluate("'a'") is None and evaluate("") is None and evaluate("(1") is None


def test_wavefront_fallback_define_is_the_one_finding(tmp_path: Path) -> None:
    from rocm_spirv.migrate.scan import scan
    (tmp_path / "types.hpp").write_text("#ifndef __AMDGCN_WAVEFRONT_SIZE\n#define __AMDGCN_WAVEFRONT_SIZE 64\n#endif\n"
                                        "#if __AMDGCN_WAVEFRONT_SIZE == 32\nusing m = unsigned;\n"
                                        "#elif __AMDGCN_WAVEFRONT_SIZE == 64\nusing m = unsigned long;\n#endif\n")
    (tmp_path / "warp.hpp").write_text("template <int W> auto f() -> enable_if_t<(W <= __AMDGCN_WAVEFRONT_SIZE)>;\n")
    found = scan(tmp_path).result.findings
    assert [(f.path, f.line, f.rule.id) for f in found] == [("types.hpp", 2, "RSM202")]
    assert "as 64" in found[0].message
    (tmp_path / "types.hpp").unlink()  # without the fallback each use (one per #if chain) is reported
    (tmp_path / "chain.hpp").write_text("#if __AMDGCN_WAVEFRONT_SIZE == 32\nusing m = unsigned;\n"
                                        "#elif __AMDGCN_WAVEFRONT_SIZE == 64\nusing m = unsigned long;\n#endif\n")
    assert [(f.path, f.line) for f in scan(tmp_path).result.findings] == [("chain.hpp", 1), ("warp.hpp", 1)]


def test_one_directive_one_finding_and_inert_or_non_asm_constructs() -> None:
    text = ("#include <hip/hip_runtime.h>\n"
            "#if (__gfx1010__ || __gfx1030__) && __AMDGCN_WAVEFRONT_SIZE == 64\n#error no wave64 on gfx10\n#endif\n"
            "#if defined(__gfx90a__) && __has_builtin(__builtin_amdgcn_is_shared)\n__device__ float f(float* a) {\n"
            "  float temp = *a;\n  return temp;\n}\n#endif\n"
            "#if __has_builtin(__builtin_amdgcn_s_memtime) && __has_builtin(__builtin_amdgcn_s_memrealtime)\n#endif\n"
            '__device__ unsigned gs() __asm("llvm.amdgcn.groupstaticsize");\n')
    found = source_rules.analyze("h.h", text).findings
    # the #error-only chain is inert; one finding per directive; `return temp;` is no arch value; asm labels are
    # no assembly
    assert [(f.line, f.rule.id) for f in found] == [(5, "RSM201"), (11, "RSM206")]
    assert "__builtin_amdgcn_s_memtime" in found[1].message and "__builtin_amdgcn_s_memrealtime" in found[1].message


# -- CMake context (issue 16) ------------------------------------------------------------------

def test_cpu_and_non_amd_arch_flags_are_not_findings() -> None:
    src = ("project(p)\nset(CMAKE_CXX_FLAGS \"${CMAKE_CXX_FLAGS} -mcpu=power9\")\n"
           "string(APPEND CMAKE_C_FLAGS \" -mcpu=${CMAKE_SYSTEM_PROCESSOR}\")\n"
           "target_compile_options(musa PRIVATE --cuda-gpu-arch=mp_21)\n"
           "target_compile_options(cu PRIVATE --offload-arch=sm_80)\n"
           "target_compile_options(k PRIVATE -mcpu=gfx90a)\n"
           "target_compile_options(k2 PRIVATE --cuda-gpu-arch=gfx942)\n")
    found, _ = run(src)
    assert [(f.line, f.rule.id) for f in found] == [(6, "RSM103"), (7, "RSM103")]


def test_ctest_resource_label_loop_is_not_a_per_arch_loop() -> None:
    src = ("project(p)\nset(AMDGPU_TEST_TARGETS \"\" CACHE STRING \"devices to test\")\n"
           "foreach(AMDGPU_TARGET IN LISTS AMDGPU_TEST_TARGETS)\n"
           "  add_relative_test(\"${AMDGPU_TARGET}-${TEST_NAME}\" ${TEST_TARGET})\n"
           "  set_tests_properties(\"${AMDGPU_TARGET}-${TEST_NAME}\" PROPERTIES\n"
           "    RESOURCE_GROUPS \"1,${AMDGPU_TARGET}:1\" LABELS \"hip;${AMDGPU_TARGET}\")\nendforeach()\n")
    assert run(src)[0] == []


def test_copies_are_not_findings_and_all_tests_and_dead_branches_are_toolchain_handled() -> None:
    src = ("cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX)\n"
           "if(NOT DEFINED AMDGPU_TARGETS)\n  set(GPU_TARGETS \"all\" CACHE STRING \"GPU architectures\")\n"
           "else()\n  set(GPU_TARGETS \"${AMDGPU_TARGETS}\" CACHE STRING \"GPU architectures\")\nendif()\n"
           "if(GPU_TARGETS STREQUAL \"all\")\n"
           "  rocm_check_target_ids(DEFAULT_AMDGPU_TARGETS TARGETS \"gfx906:xnack-;gfx90a;gfx942\")\n"
           "  set(GPU_TARGETS \"${DEFAULT_AMDGPU_TARGETS}\" CACHE STRING \"GPU architectures\" FORCE)\nendif()\n"
           "set(MY_ARCHS gfx90a gfx942)\nset(HCC_COPY ${MY_ARCHS})\n")
    found, _ = run(src)
    got = [(f.line, f.rule.id, f.redirect) for f in found]
    # line 4's "all" is a sentinel cache default naming no GPU, line 6 copies AMDGPU_TARGETS, line 8 tests for
    # "all", line 10 copies the list rocm_check_target_ids derives (its origin, line 9, is the finding), line 13
    # copies MY_ARCHS: none is a finding
    assert got == [(9, "RSM113", Redirect.TOOLCHAIN), (12, "RSM101", Redirect.BUILD_FILE)]
    assert 'only under `if(GPU_TARGETS STREQUAL "all")`' in found[0].message


def test_allow_lists_are_lists_of_arch_names() -> None:
    src = ("project(p)\nlist(FIND CURL_KNOWN_PROTOCOLS ${p} _i)\nif(lang IN_LIST _supported_languages)\nendif()\n"
           "list(REMOVE_ITEM unsupported_languages CXX)\nset(SUPPORTED_ARCHS gfx90a gfx942)\n"
           "foreach(arch ${GPU_TARGETS})\n  if(NOT arch IN_LIST SUPPORTED_ARCHS)\n  endif()\nendforeach()\n")
    found, _ = run(src)
    # the allow-list set at 6 is part of the IN_LIST test at 8 that reads it (the only read)
    assert [(f.line, f.rule.id) for f in found] == [(8, "RSM108")]


def test_toolchain_value_evaluator() -> None:
    from rocm_spirv.migrate.cmake_conditions import toolchain_value
    from rocm_spirv.migrate.cmake_lexer import parse
    def value(cond: str) -> bool | None:
        return toolchain_value(parse(f"if({cond})\n")[0])
    assert value('GPU_TARGETS STREQUAL "all"') is False and value("NOT DEFINED AMDGPU_TARGETS") is False
    assert value('"${GPU_TARGETS}" MATCHES "gfx9"') is False and value("DEFINED CMAKE_HIP_ARCHITECTURES") is True
    assert value("BUILD_TEST AND NOT DEFINED GPU_TARGETS") is False and value("BUILD_TEST OR GPU_TARGETS") is True
    assert value("BUILD_TEST") is None and value("(GPU_TARGETS)") is None and value('GPU_TARGETS MATCHES "("') is None


def test_constexpr_function_returning_warp_size() -> None:
    text = ("#include <hip/hip_runtime.h>\n__device__ inline\nconstexpr unsigned int device_warp_size()\n{\n"
            "    return warpSize;\n}\n__device__ unsigned lanes() { return warpSize; }\n")
    found = source_rules.analyze("thread.hpp", text).findings
    assert [(f.line, f.rule.id) for f in found] == [(5, "RSM203")]


def test_warp_size_in_an_array_bound_is_a_constant_in_a_subscript_it_is_not() -> None:
    text = ("#include <hip/hip_runtime.h>\n__global__ void k(int* out, float v) {\n"
            "  __shared__ float tile[32][warpSize + 1];\n"  # a bound: compile time
            "  if (threadIdx.x % warpSize == 0) out[threadIdx.x / warpSize] = v;\n"  # an index: run time
            "  out[blockIdx.x * warpSize] = v;\n"
            "  else out[1] = tile[0][warpSize - 1];\n"
            "}\n__device__ float last(const float* d) { return d[warpSize - 1]; }\n")
    found = source_rules.analyze("k.hip", text).findings
    assert [(f.line, f.rule.id) for f in found] == [(3, "RSM203")]


def test_makefiles_are_scanned_and_never_edited(tmp_path: Path) -> None:
    from rocm_spirv.migrate.apply import plan
    from rocm_spirv.migrate.scan import scan
    root = tmp_path / "p"
    root.mkdir()
    (root / "Makefile").write_text((DATA / "makefile/Makefile").read_text())
    (root / "rules.mk").write_text("HIPFLAGS += --offload-arch=gfx1030\n")
    s = scan(root)
    got = [(f.path, f.line, f.rule.id, f.redirect) for f in s.result.findings]
    assert got == [("Makefile", 2, "RSM301", Redirect.MAKE_VARIABLE), ("Makefile", 5, "RSM301", Redirect.BUILD_FILE),
                   ("Makefile", 6, "RSM302", Redirect.BUILD_FILE), ("Makefile", 8, "RSM301", Redirect.MAKE_VARIABLE),
                   ("Makefile", 13, "RSM302", Redirect.BUILD_FILE), ("Makefile", 16, "RSM302", Redirect.BUILD_FILE),
                   ("rules.mk", 1, "RSM302", Redirect.BUILD_FILE)]
    # line 4's flags come from HIP_ARCHITECTURES (its list is the finding), line 17's from a variable the
    # Makefile never sets, line 18's -mcpu= names a CPU; the comment on line 16 is no second finding
    assert "make HIP_ARCHITECTURES=amdgcnspirv" in s.result.findings[0].fix
    assert plan(s) == {}  # --apply leaves Makefiles alone


def test_bundler_loop_and_unguarded_waitcnt() -> None:
    src = ("project(p)\nforeach(arch ${GPU_TARGETS})\n  execute_process(COMMAND ${BUNDLER} --type=o\n"
           "    -targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--${arch} -output=k.${arch}.o)\n"
           "endforeach()\n")
    (loop,) = run(src)[0]
    assert loop.rule.id == "RSM107" and loop.redirect is Redirect.BUILD_FILE and "clang-offload-bundler" in loop.message
    text = "__global__ void k() {\n  __builtin_amdgcn_s_waitcnt(0xc07f);\n}\n"
    assert [f.rule.id for f in source_rules.analyze("k.hip", text).findings] == ["RSM205"]


def test_pathological_conditions_are_undecided_not_a_crash() -> None:
    from rocm_spirv.migrate.pp import evaluate
    assert evaluate("(" * 5000 + "1" + ")" * 5000) is None
    assert evaluate(" || ".join(["defined(X)"] * 3000)) is None
    deep = "#if " + "!" * 20000 + "defined(__gfx90a__)\nint x;\n#endif\n"
    assert [f.rule.id for f in source_rules.analyze("k.hip", deep).findings] == ["RSM201"]


@pytest.mark.parametrize("generic", offload.GENERIC_TARGETS)
def test_generic_target_macros_are_arch_tests(generic: str) -> None:
    """clang defines __gfx9_4_generic__ (the name with '_' for '-') for a generic target and not for amdgcnspirv:
    a test of it is an arch test like __gfx942__'s, in an #if of its own and in an #elif of a chain."""
    macro = f"__{generic.replace('-', '_')}__"
    alone = f"#if defined({macro})\n__global__ void k() {{}}\n#endif\n"
    assert [f.rule.id for f in source_rules.analyze("k.hip", alone).findings] == ["RSM201"]
    chain = f"#if defined(__gfx942__)\nint a;\n#elif defined({macro})\nint b;\n#endif\n"
    assert sorted(f.line for f in source_rules.analyze("k.hip", chain).findings) == [1, 3]


# Targets clang 22 accepts (it rejects the newest generic names in TARGETS, e.g. gfx13-generic).
@pytest.mark.parametrize("target", ["gfx9-generic", "gfx9-4-generic", "gfx12-generic", "gfx942", "gfx1250"])
def test_arch_macro_vocabulary_matches_what_clang_defines(toolchain: Path, target: str) -> None:
    """Every macro the real clang defines for a gfx device pass but not for amdgcnspirv, and that names the
    target (`gfx` or `GFX` in it, or the processor strings), is one the scan reads as an arch macro."""
    def defined(arch: str) -> set[str]:
        out = subprocess.run([str(toolchain / "bin" / "clang++"), "-x", "hip", "--cuda-device-only", "-nogpulib",
                              "-nogpuinc", f"--offload-arch={arch}", "-E", "-dM", "-"], input="",
                             capture_output=True, text=True, check=True).stdout
        return {line.split()[1] for line in out.splitlines() if line.startswith("#define ")}

    per_target = {m for m in defined(target) - defined(offload.SPIRV_TARGET)
                  if "gfx" in m.lower() or m.startswith("__amdgcn_")}
    assert per_target, f"clang defined nothing per target for {target}"
    assert {m for m in per_target if not ARCH_MACRO.fullmatch(m)} == set()


@pytest.mark.parametrize("generic", offload.GENERIC_TARGETS)
def test_generic_targets_keep_arch_findings(generic: str) -> None:
    """A generic ISA name in a list is an arch name like gfx942: the allow-list is still RSM108 and
    a plain list still RSM101, with the generic name counted and quoted (add_subdirectory() hands both on)."""
    found, _ = run(f"project(p)\nset(SUPPORTED_ARCHS gfx90a gfx942 {generic})\nset(MY_ARCHS gfx90a {generic})\n"
                   "add_subdirectory(src)\n")
    assert rules_at(found, 2) == {"RSM108"}
    assert "allow-list of 3 arch names" in next(f.message for f in found if f.line == 2)
    assert rules_at(found, 3) == {"RSM101"}
    assert generic in next(f.message for f in found if f.line == 3)
    alone, _ = run(f"project(p)\nset(SUPPORTED_ARCHS {generic}:xnack+)\nadd_subdirectory(src)\n")
    assert rules_at(alone, 2) == {"RSM108"}
