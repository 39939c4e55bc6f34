"""HIP targets named through variables (cmake_targets.py) and find_package(RocmSpirv) per project (projects.py).

Small CMake texts for each way an example collection names its targets and sources, and the placement
of find_package(RocmSpirv) in trees of projects; tests/test_migrate_example_collection.py builds the
whole layout for real.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rocm_spirv.cli import main
from rocm_spirv.migrate import cmake_rules
from rocm_spirv.migrate.apply import apply_edits, commit_order
from rocm_spirv.migrate.cmake_lexer import parse
from rocm_spirv.migrate.cmake_rules import CMakeFacts
from rocm_spirv.migrate.cmake_targets import Variables
from rocm_spirv.migrate.findings import Finding
from rocm_spirv.migrate.projects import FIND_PACKAGE, package_edits, project_of, projects

HEAD = "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX)\n"


def analyze(text: str) -> tuple[list[Finding], str]:
    """RSM120 findings of one CMakeLists.txt and the text --apply makes of it (before find_package)."""
    report, _ = cmake_rules.analyze("CMakeLists.txt", text)
    assert not report.error
    return [f for f in report.findings if f.rule.id == "RSM120"], apply_edits(text, report.edits)


def variables(text: str) -> Variables:
    v = Variables()
    for cmd in parse(text):
        v.update(cmd)
    return v


def test_expand_follows_set_list_and_nested_names() -> None:
    v = variables('set(GPU_RUNTIME "HIP" CACHE STRING "doc")\nset(n saxpy)\nset(${n}_SOURCES a.hip "b.hip;c.hip")\n'
                  "list(APPEND saxpy_SOURCES d.hip)\nlist(REMOVE_ITEM saxpy_SOURCES b.hip)\n"
                  "set(CMAKE_HIP_STANDARD 17)\n")
    assert v.expand("${GPU_RUNTIME}") == "HIP"
    assert v.items(["${${n}_SOURCES}"]) == ["a.hip", "c.hip", "d.hip"]
    assert v.expand("${CMAKE_${GPU_RUNTIME}_STANDARD}") == "17"
    assert v.expand("${unknown}/x.hip") == "${unknown}/x.hip"  # unknown references stay as written


def test_loop_variable_is_unknown_inside_its_loop_and_restored_after() -> None:
    v = Variables()
    cmds = parse("set(e outer)\nforeach(e IN ITEMS a b)\nset(inner ${e})\nendforeach()\n")
    for cmd in cmds[:2]:
        v.update(cmd)
    assert v.expand("${e}") == "${e}"
    for cmd in cmds[2:]:
        v.update(cmd)
    assert v.expand("${e}") == "outer" and v.expand("${inner}") == "${e}"


def test_loop_labels_name_the_items_when_known() -> None:
    cmds = parse("set(l x y)\nforeach(a IN LISTS l ITEMS z)\nforeach(b RANGE 3)\n")
    v = Variables()
    for cmd in cmds:
        v.update(cmd)
    assert v.label("${a}") == "${a} (each of x, y, z)"
    assert v.label("${b}") == "${b}" and v.label("${l}") == "x;y"


def test_function_bodies_keep_their_variables_and_hide_their_parameters() -> None:
    cmds = parse("set(x a.hip)\nset(name outer)\nfunction(add_example name)\nset(x b.cpp)\n"
                 "add_executable(${name} ${x})\nendfunction()\n")
    v = Variables()
    for cmd in cmds[:4]:
        v.update(cmd)
    assert v.expand("${name} ${x}") == "${name} b.cpp"  # the parameter is the caller's, unknown here
    for cmd in cmds[4:]:
        v.update(cmd)
    assert v.expand("${name} ${x}") == "outer a.hip"


def test_target_defined_in_a_helper_function_is_retargeted_there() -> None:
    found, new = analyze(HEAD + "function(add_example name)\n  set(srcs ${name}.hip)\n"
                         "  add_executable(${name} ${srcs})\nendfunction()\nadd_example(a)\n")
    assert len(found) == 1 and "  add_executable(${name} ${srcs})\n  rocm_spirv_target(${name})\n" in new


def test_doubling_list_stays_bounded() -> None:
    v = variables("set(x aaaaaaaa)\n" + "list(APPEND x ${x} ${x})\n" * 40)
    assert len(v.values.get("x", "")) <= 1 << 16  # dropped (unknown) once too long, never exponential


def test_target_name_and_sources_through_variables() -> None:
    found, new = analyze(HEAD + "set(example_name hip_vector_add)\nset(sources main.hip kernels.hip)\n"
                         "add_executable(${example_name} ${sources})\n")
    assert [f.message for f in found] == ["HIP target hip_vector_add is not handed to rocm_spirv_target()"]
    assert "add_executable(${example_name} ${sources})\nrocm_spirv_target(${example_name})\n" in new


def test_language_through_a_variable_that_defaults_to_hip() -> None:
    text = HEAD + ('set(GPU_RUNTIME "HIP" CACHE STRING "HIP or CUDA")\nenable_language(${GPU_RUNTIME})\n'
                   "add_executable(t main.cpp)\n"
                   "set_source_files_properties(main.cpp PROPERTIES LANGUAGE ${GPU_RUNTIME})\n")
    found, new = analyze(text)
    assert len(found) == 1 and "rocm_spirv_target(t)" in new
    # The same with CUDA as the value: not a HIP target.
    found, _ = analyze(text.replace('"HIP" CACHE', '"CUDA" CACHE'))
    assert found == []


def test_cpp_sources_made_hip_through_a_list_variable() -> None:
    found, _ = analyze(HEAD + "set(SRCS lib/a.cpp ${CMAKE_CURRENT_SOURCE_DIR}/lib/b.cpp)\n"
                       "set_source_files_properties(lib/b.cpp PROPERTIES LANGUAGE HIP)\n"
                       "add_library(k STATIC ${SRCS})\n")
    assert [f.message for f in found] == ["HIP target k is not handed to rocm_spirv_target()"]


def test_sources_added_by_target_sources() -> None:
    found, new = analyze(HEAD + "set(KERNELS k.hip)\nadd_library(lib)\nadd_library(other STATIC o.cpp)\n"
                         "target_sources(lib PRIVATE ${KERNELS})\n")
    assert [f.message for f in found] == ["HIP target lib is not handed to rocm_spirv_target()"]
    assert "add_library(lib)\nrocm_spirv_target(lib)\n" in new


def test_set_property_source_language_and_glob() -> None:
    found, _ = analyze(HEAD + "set_property(SOURCE k.cu PROPERTY LANGUAGE HIP)\nadd_library(a k.cu)\n"
                       "file(GLOB KERNELS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.hip)\n"
                       "add_library(b ${KERNELS})\n")
    assert [f.message for f in found] == ["2 HIP targets are not handed to rocm_spirv_target(): a, b"]


def test_foreach_definition_is_one_target_and_the_call_uses_the_loop_variable() -> None:
    text = HEAD + ('set(GPU_RUNTIME HIP)\nset(names a b)\nforeach(example IN LISTS names)\n'
                   "  add_executable(${example} ${example}.cpp)\n"
                   "  set_source_files_properties(${example}.cpp PROPERTIES LANGUAGE ${GPU_RUNTIME})\nendforeach()\n")
    found, new = analyze(text)
    assert [f.message for f in found] == ["HIP target ${example} (each of a, b) is not handed to rocm_spirv_target()"]
    assert not found[0].handled
    assert "  add_executable(${example} ${example}.cpp)\n  rocm_spirv_target(${example})\n" in new
    again, newer = analyze(new)
    assert newer == new and [f.handled for f in again] == [True]


def test_retargeted_by_another_spelling_of_the_name_is_handled() -> None:
    found, new = analyze(HEAD + "set(n hip_saxpy)\nadd_executable(${n} main.hip)\nrocm_spirv_target(hip_saxpy)\n")
    assert [f.handled for f in found] == [True] and "rocm_spirv_target(${n})" not in new


def facts(project: bool = False, find_package: bool = False) -> CMakeFacts:
    return CMakeFacts(project_end=10 if project else None, minimum_end=5, has_find_package=find_package)


def test_every_project_holding_an_edit_gets_the_package_once() -> None:
    tree = {
        "CMakeLists.txt": facts(project=True),
        "HIP-Basic/CMakeLists.txt": facts(project=True),
        "HIP-Basic/saxpy/CMakeLists.txt": facts(project=True),
        "HIP-Basic/warp/CMakeLists.txt": facts(project=True),
        "HIP-Basic/warp/kernels/CMakeLists.txt": facts(),  # no project(): part of HIP-Basic/warp
        "tools/CMakeLists.txt": facts(),  # part of the top-level project
    }
    assert projects(tree) == {"", "HIP-Basic", "HIP-Basic/saxpy", "HIP-Basic/warp"}
    assert project_of("HIP-Basic/warp/kernels/CMakeLists.txt", projects(tree)) == "HIP-Basic/warp"
    got = package_edits(tree, ["HIP-Basic/saxpy/CMakeLists.txt", "HIP-Basic/warp/kernels/CMakeLists.txt",
                               "tools/CMakeLists.txt"])
    assert sorted(got) == ["CMakeLists.txt", "HIP-Basic/saxpy/CMakeLists.txt", "HIP-Basic/warp/CMakeLists.txt"]
    assert all(e.start == 10 and e.text == "\n" + FIND_PACKAGE for e in got.values())


def test_an_existing_find_package_covers_what_configures_after_it() -> None:
    tree = {
        "CMakeLists.txt": facts(project=True, find_package=True),
        "a/CMakeLists.txt": facts(project=True),
        "a/sub/CMakeLists.txt": facts(find_package=True),
        "a/sub/deeper/CMakeLists.txt": facts(),
        "b/CMakeLists.txt": facts(project=True),
        "b/cmake/deps.cmake": facts(find_package=True),  # an include() of project b
        "b/lib/CMakeLists.txt": facts(),
        "c/CMakeLists.txt": facts(project=True),
    }
    edited = ["CMakeLists.txt", "a/sub/deeper/CMakeLists.txt", "b/lib/CMakeLists.txt", "c/CMakeLists.txt"]
    # The top level finding it does not help c configured alone.
    assert sorted(package_edits(tree, edited)) == ["c/CMakeLists.txt"]


def test_a_project_calling_the_package_without_finding_it_gets_it() -> None:
    """A tree an earlier --apply migrated with find_package at the top only: each example gets its own."""
    tree = {
        "CMakeLists.txt": facts(project=True, find_package=True),
        "ex/CMakeLists.txt": CMakeFacts(project_end=7, calls_package=True),
        "ex/sub/CMakeLists.txt": CMakeFacts(calls_package=True),
        "lib/CMakeLists.txt": CMakeFacts(calls_package=True),  # part of the top-level project, which finds it
    }
    assert sorted(package_edits(tree, [])) == ["ex/CMakeLists.txt"]
    # A file in no project of the scan is left as it is: its package may be found above the scanned folder.
    assert package_edits({"CMakeLists.txt": CMakeFacts(calls_package=True)}, []) == {}


def test_reapply_gives_examples_the_package_an_earlier_apply_left_out(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ex").mkdir()
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(top LANGUAGES CXX)\nfind_package(RocmSpirv REQUIRED)\n"
        "add_subdirectory(ex)\n")
    example = "cmake_minimum_required(VERSION 3.21)\nproject(ex LANGUAGES CXX HIP)\nadd_executable(ex main.hip)\n" \
              "rocm_spirv_target(ex)\n"
    (tmp_path / "ex" / "CMakeLists.txt").write_text(example)
    assert main(["migrate", str(tmp_path), "--apply"]) == 0
    assert (tmp_path / "ex" / "CMakeLists.txt").read_text() == example.replace(
        "HIP)\n", f"HIP)\n{FIND_PACKAGE}\n")
    capsys.readouterr()
    assert main(["migrate", str(tmp_path), "--diff"]) == 0 and capsys.readouterr().out == ""


def test_a_file_in_no_project_gets_the_package_itself() -> None:
    tree = {"lib/CMakeLists.txt": facts(), "lib/x.cmake": CMakeFacts()}
    got = package_edits(tree, ["lib/CMakeLists.txt", "lib/x.cmake"])
    assert got["lib/CMakeLists.txt"].start == 5 and got["lib/x.cmake"].start == 0
    assert got["lib/x.cmake"].text == FIND_PACKAGE + "\n"


def test_commit_order_puts_files_gaining_the_package_first() -> None:
    line = FIND_PACKAGE.encode()
    changes = {
        "CMakeLists.txt": (b"project(t)\n", b"project(t)\n" + line + b"\n"),
        "a/CMakeLists.txt": (b"add_library(a a.hip)\n", b"add_library(a a.hip)\nrocm_spirv_target(a)\n"),
        "b/CMakeLists.txt": (b"project(b)\n", b"project(b)\n" + line + b"\n"),
        "A/CMakeLists.txt": (b"x()\n", b"x()\ny()\n"),
    }
    assert commit_order(changes) == ["CMakeLists.txt", "b/CMakeLists.txt", "A/CMakeLists.txt", "a/CMakeLists.txt"]


def test_a_subdirectory_sees_the_variables_its_parent_set(tmp_path: Path) -> None:
    """add_subdirectory() hands the child the parent's scope: GPU_RUNTIME and a source list set at the top
    make the child's target HIP, and --apply retargets it there."""
    from rocm_spirv.migrate.scan import scan

    (tmp_path / "CMakeLists.txt").write_text(
        'cmake_minimum_required(VERSION 3.21)\nproject(top LANGUAGES CXX)\n'
        'set(GPU_RUNTIME "HIP" CACHE STRING "HIP or CUDA")\nenable_language(${GPU_RUNTIME})\n'
        'set(common_sources common.cpp)\nadd_subdirectory(lib)\n')
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "CMakeLists.txt").write_text(
        "add_library(lib STATIC kernels.cpp ${common_sources})\n"
        "set_source_files_properties(kernels.cpp ${common_sources} PROPERTIES LANGUAGE ${GPU_RUNTIME})\n")
    found = scan(tmp_path).result.findings
    assert [(f.path, f.line, f.rule.id) for f in found] == [("lib/CMakeLists.txt", 1, "RSM120")]
    assert "HIP target lib is not handed" in found[0].message
    # Without the parent's scope the child's LANGUAGE is unknown: scanned alone, nothing is HIP.
    assert scan(tmp_path / "lib" / "CMakeLists.txt").result.findings == []
    assert main(["migrate", str(tmp_path), "--apply"]) == 0
    assert "rocm_spirv_target(lib)" in (tmp_path / "lib" / "CMakeLists.txt").read_text()
    assert FIND_PACKAGE in (tmp_path / "CMakeLists.txt").read_text()  # the project() the child belongs to


def test_one_target_defined_in_branches_is_noted_once_where_it_links_hip_device() -> None:
    """magma defines `magma` in three if() branches and links hip::device once after them: one RSM120 there,
    and each definition still gets its rocm_spirv_target() from --apply."""
    text = HEAD + ("find_package(hip)\nif(A)\n  add_library(m a.cpp)\nelseif(B)\n  add_library(m b.cpp)\nelse()\n"
                   "  add_library(m c.cpp)\nendif()\ntarget_link_libraries(m hip::device)\n")
    found, new = analyze(text)
    assert [(f.line, f.message) for f in found] == [
        (text.count("\n", 0, text.index("target_link_libraries")) + 1,
         "C++ target compiled as HIP (it links hip::device) m is not handed to rocm_spirv_target()")]
    assert new.count("rocm_spirv_target(m)") == 3
    # hip-ep: a Windows and a Linux definition of one target, each HIP: one note, at the first
    two = HEAD + "if(WIN32)\n  add_executable(t w.hip)\nelse()\n  add_executable(t l.hip)\nendif()\n"
    found, _ = analyze(two)
    assert [f.line for f in found] == [two.count("\n", 0, two.index("add_executable(t w")) + 1]
    # one spelling in two functions is two targets
    fns = HEAD + ("function(exe T)\n  add_executable(${T} e.hip)\nendfunction()\n"
                  "function(lib T)\n  add_library(${T} l.hip)\nendfunction()\n")
    found, _ = analyze(fns)
    assert [f.message for f in found] == [
        "2 HIP targets are not handed to rocm_spirv_target(): ${T} (in exe()), ${T} (in lib())"]
