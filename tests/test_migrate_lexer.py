"""The CMake tokenizer: every character covered once, offsets exact, edge cases of the grammar."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rocm_spirv.migrate.cmake_lexer import CMakeSyntaxError, Kind, parse, refs, split_list, tokenize, unescape


def kinds(src: str) -> list[tuple[Kind, str]]:
    return [(t.kind, t.text) for t in tokenize(src) if t.kind not in (Kind.SPACE, Kind.NEWLINE)]


def test_quoted_with_escapes_and_continuation() -> None:
    src = 'set(X "a\\"b\\\nc;d\\;e")\n'
    (cmd,) = parse(src)
    assert cmd.args[1].kind == "quoted"
    assert cmd.args[1].value == 'a"bc;d\\;e'
    assert src[cmd.args[1].start : cmd.args[1].end] == cmd.args[1].raw
    assert split_list(cmd.args[1].value) == ['a"bc', "d;e"]


def test_bracket_argument_and_comments() -> None:
    src = "#[==[ set(GPU_TARGETS gfx90a) ]] still comment ]==]\nmessage([=[ a ]] ) b ]=]) # set(X gfx942)\n"
    toks = kinds(src)
    assert toks[0][0] is Kind.BRACKET_COMMENT
    assert toks[-1] == (Kind.LINE_COMMENT, "# set(X gfx942)")
    (cmd,) = parse(src)
    assert cmd.name == "message" and cmd.args[0].kind == "bracket" and cmd.args[0].value == " a ]] ) b "
    assert cmd.line == 2


def test_bracket_argument_drops_first_newline() -> None:
    (cmd,) = parse("f([[\nbody\n]])")
    assert cmd.args[0].value == "body\n"


def test_hash_bracket_is_not_a_comment_inside_quotes() -> None:
    (cmd,) = parse('set(X "#[[ not a comment" y)')
    assert [a.value for a in cmd.args] == ["X", "#[[ not a comment", "y"]


def test_legacy_unquoted_and_makevar() -> None:
    (cmd,) = parse('add_definitions(-DX="a b" $(MAKE) a\\ b)')
    assert cmd.values() == ['-DX="a b"', "$(MAKE)", "a b"]


def test_nested_parens_and_case_insensitive_names() -> None:
    (cmd,) = parse("IF((A OR B) AND NOT C)")
    assert cmd.name == "if"
    assert [a.value for a in cmd.args] == ["(", "A", "OR", "B", ")", "AND", "NOT", "C"]


def test_multi_line_command_offsets_and_indent() -> None:
    src = "if(1)\n  target_compile_options(t PRIVATE\n    --offload-arch=gfx90a)  # x\nendif()\n"
    cmds = parse(src)
    opt = cmds[1]
    assert (opt.line, opt.end_line, opt.indent) == (2, 3, "  ")
    assert src[opt.start : opt.end].startswith("target_compile_options(") and src[opt.end - 1] == ")"
    assert opt.args[2].line == 3


def test_references_and_generator_expressions() -> None:
    found = refs("${A_${B}} $ENV{PYTORCH_ROCM_ARCH} $<$<CONFIG:Debug>:-O0> $CACHE{GPU_TARGETS}")
    assert [(r.kind, r.name) for r in found] == [
        ("var", "A_${B}"), ("var", "B"), ("env", "PYTORCH_ROCM_ARCH"), ("genex", "$<CONFIG:Debug>:-O0"),
        ("genex", "CONFIG:Debug"), ("cache", "GPU_TARGETS")]


def test_unescape() -> None:
    assert unescape("a\\tb\\nc\\$d") == "a\tb\nc$d"


@pytest.mark.parametrize("src", ['set(X "open', "set(X", "f(#[[ open", "f([==[ x ]=])", "f(a))", "1abc()"])
def test_malformed_input_raises(src: str) -> None:
    with pytest.raises(CMakeSyntaxError):
        parse(src)


def test_crlf_line_numbers() -> None:
    cmds = parse("a()\r\nb(x\r\n y)\r\nc()\r\n")
    assert [c.line for c in cmds] == [1, 2, 4]


FRAGMENTS = st.sampled_from([
    "set(", "GPU_TARGETS", " ", "\n", "\t", '"q;\\"s"', "${V}", "[[b]]", "[=[x]]]=]", "#c\n", "#[[bc]]",
    "$<X:y>", "(", ")", "gfx90a", "\\;", "a\\ b", "-DX=\"a b\"",
])


@given(st.lists(FRAGMENTS, max_size=30))
def test_tokens_cover_the_source_exactly(parts: list[str]) -> None:
    src = "f(" + "".join(p for p in parts if p not in ("(", ")", "set(")) + ")\n"
    try:
        toks = tokenize(src)
    except CMakeSyntaxError:
        return  # e.g. a '#' comment swallowing the closing ')'
    assert "".join(t.text for t in toks) == src
    for t in toks:
        assert src[t.start : t.end] == t.text
        assert src.count("\n", 0, t.start) + 1 == t.line


def test_a_lone_cr_is_not_a_line_end_as_in_cmake(tmp_path: Path) -> None:
    """CMake's lexer ends lines at \\n only (CRLF is read as LF): `# note\\radd_library(k)` is one comment."""
    src = "# note\radd_library(k k.hip)\nset(A 1)\rset(B 2)\r\nmessage(x)\n"
    toks = kinds(src)
    assert toks[0] == (Kind.LINE_COMMENT, "# note\radd_library(k k.hip)")
    assert [c.name for c in parse(src)] == ["set", "set", "message"]
    assert [c.line for c in parse(src)] == [2, 2, 3]
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("cmake is not on PATH (apt-get install cmake) to confirm the reading")
    script = tmp_path / "probe.cmake"
    script.write_bytes(b"# note\rmessage(FATAL_ERROR \"CMake read this as a command\")\nmessage(STATUS ok)\n")
    done = subprocess.run([cmake, "-P", str(script)], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "ok" in done.stdout + done.stderr


def test_migrate_does_not_edit_a_command_hidden_behind_a_cr_comment(tmp_path: Path) -> None:
    (tmp_path / "CMakeLists.txt").write_bytes(b"project(p)\n# note\radd_library(k k.hip)\nset(GPU_TARGETS gfx90a)\n")
    diff = subprocess.run([sys.executable, "-m", "rocm_spirv", "migrate", str(tmp_path), "--diff"],
                          capture_output=True, check=False, timeout=60)
    assert diff.returncode == 1 and b"rocm_spirv_target(k)" not in diff.stdout, diff.stdout
