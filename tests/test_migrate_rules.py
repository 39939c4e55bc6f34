"""Each finding kind on small real-shaped inputs under tests/data/migrate."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from rocm_spirv.migrate import cmake_rules, presets, source_rules
from rocm_spirv.migrate.cmake_rules import Context
from rocm_spirv.migrate.findings import Finding, Redirect
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
    assert lines[12] == {"arch-allow-list"}
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


def test_findhip() -> None:
    lines = by_line(cmake("findhip/CMakeLists.txt"))
    assert lines[5] == {"findhip"}
    assert lines[6] == {"env-arch-list"}
    assert lines[7] == {"findhip", "legacy-target-flag"}


def test_already_migrated_lines_are_handled() -> None:
    found = cmake("manytargets/CMakeLists.txt")
    guarded = [f for f in found if f.line == 5]
    assert guarded and all(f.handled for f in guarded)
    unguarded = [f for f in found if f.line == 7]
    assert unguarded and not any(f.handled for f in unguarded)
    assert sorted(f.line for f in found if f.rule.name == "hip-target") == [8, 9, 10, 11]


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


def test_source_findings() -> None:
    text = (DATA / "rocmlib/src/gemm.hip").read_text()
    lines = by_line(source_rules.analyze("src/gemm.hip", text).findings)
    assert lines == {
        7: {"arch-macro"}, 8: {"arch-enum-helper"}, 9: {"arch-macro"},
        16: {"constexpr-warpsize"}, 20: {"constexpr-warpsize"},
        23: {"unguarded-feature-builtin"},  # line 25 is guarded by is_invocable
        27: {"inline-asm"}, 28: {"wavefront-size-macro", "constexpr-warpsize"},
        31: {"has-builtin-arch-test"},
    }
    assert all(f.redirect is Redirect.SOURCE for f in source_rules.analyze("g.hip", text).findings)
    assert source_rules.analyze("src/util.cpp", (DATA / "rocmlib/src/util.cpp").read_text()).findings == []


def test_guarded_builtin_without_braces() -> None:
    text = ("__device__ int f(int v) {\n  if (__builtin_amdgcn_processor_is(\"gfx90a\"))\n"
            "    v = __builtin_amdgcn_mov_dpp(v, 1, 15, 15, false);\n"
            "  return __builtin_amdgcn_mov_dpp(v, 1, 15, 15, 0);\n}\n")
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
