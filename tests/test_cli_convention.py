"""One CLI convention (docs/cli.md): every command is on that page and takes --json; no command
prints the help; the exit statuses the page lists are the ones the program uses."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO
from rocm_spirv.cli import build_parser

PAGE = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")


def leaves(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield prefix
        return
    for name, sub in subs[0].choices.items():
        yield from leaves(sub, (*prefix, name))


def options(path: tuple[str, ...]) -> set[str]:
    parser: argparse.ArgumentParser = build_parser()
    for name in path:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return {o for a in parser._actions for o in a.option_strings}


def test_every_command_is_on_the_page_and_takes_json() -> None:
    commands = list(leaves(build_parser()))
    assert len(commands) >= 11
    listed = set(re.findall(r"^\| `([a-z ]+)` \|", PAGE, re.M))
    assert {" ".join(c) for c in commands} == listed
    assert [c for c in commands if "--json" not in options(c)] == []


def test_no_command_prints_the_help() -> None:
    done = subprocess.run([sys.executable, "-m", "rocm_spirv"], capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO / "plugin"), "PATH": "/usr/bin:/bin"}, check=False)
    assert done.returncode == 2 and done.stdout.startswith("usage: rocm-spirv") and "COMMAND" in done.stdout


def test_the_exit_statuses_on_the_page() -> None:
    table = dict(re.findall(r"^\| (\d+) \| (.+?) \|$", PAGE, re.M))
    assert set(table) == {"0", "1", "2", "130", "143"}
    cli = (REPO / "plugin" / "rocm_spirv" / "cli.py").read_text()
    assert {"return 130", "return 143", "return 2"} <= set(re.findall(r"return \d+", cli))


def run_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rocm_spirv", *argv], capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO / "plugin"), "PATH": "/usr/bin:/bin"}, check=False)


def test_a_mistyped_option_or_command_is_one_line_with_a_suggestion() -> None:
    cases = {
        ("migrate", ".", "--fixx"): "rocm-spirv: error: migrate: unrecognized arguments: --fixx; did you mean --fix?",
        ("migrat", "."): "did you mean migrate?",
        ("toolchain", "generat"): "toolchain: argument ACTION: invalid choice: 'generat'",
        ("bazel", "generate", "--outptu", "x"): "bazel generate: unrecognized arguments: --outptu x; "
                                                 "did you mean --output?",
        ("migrate", ".", "--format", "jsn"): "did you mean json?",
        ("migrate",): "migrate: the following arguments are required: path; see `rocm-spirv migrate --help`",
    }
    for argv, expected in cases.items():
        done = run_cli(*argv)
        assert done.returncode == 2, argv
        assert done.stdout == "", argv
        assert done.stderr.count("\n") == 1 and expected in done.stderr, (argv, done.stderr)
        assert done.stderr.startswith("rocm-spirv: error: "), done.stderr


def test_fix_is_apply(tmp_path: Path) -> None:
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX HIP)\n"
        "set(CMAKE_HIP_ARCHITECTURES gfx90a gfx942)\nadd_library(k k.hip)\n")
    (tmp_path / "k.hip").write_text("__global__ void k() {}\n")
    before = (tmp_path / "CMakeLists.txt").read_bytes()
    assert run_cli("migrate", str(tmp_path), "--fix").returncode == 0
    assert (tmp_path / "CMakeLists.txt").read_bytes() != before


def test_help_teaches_every_option_two_examples_and_the_exit_statuses() -> None:
    import shlex

    from rocm_spirv.cli import _leaves
    from rocm_spirv.commands.teach import EXAMPLES, GATES

    parser = build_parser()
    commands = {leaf.prog.removeprefix("rocm-spirv ") for leaf in _leaves(parser)}
    assert commands == set(EXAMPLES) == set(GATES)
    for leaf in _leaves(parser):
        command = leaf.prog.removeprefix("rocm-spirv ")
        assert [a.option_strings or a.dest for a in leaf._actions if not a.help] == [], command
        text = leaf.format_help()
        assert "examples:" in text and "exit status (docs/cli.md):\n  0    done\n" in text, command
        assert "\n  143  terminated" in text, command
        assert ("\n  1    " + GATES[command] in text) if GATES[command] else "\n  1    " not in text, command
        assert len(EXAMPLES[command]) >= 2
        for example in EXAMPLES[command]:
            # Each example is a command line the parser accepts as this command (inner $(…) too).
            inner = re.search(r"\$\((rocm-spirv [^)]*)\)", example)
            argv = shlex.split(inner.group(1) if inner else example)
            assert argv[0] == "rocm-spirv", example
            args = parser.parse_args(argv[1:])
            assert args._leaf is leaf, example


def test_shell_completion_completes_commands_and_options(tmp_path: Path) -> None:
    import os
    import shutil

    venv_bin = Path(sys.executable).parent
    if not (venv_bin / "rocm-spirv").is_file():
        pytest.skip(f"no rocm-spirv script beside {sys.executable} (pip install -e . puts one there)")
    for shell in ("bash", "zsh", "fish"):
        script = run_cli("--completion", shell)
        assert script.returncode == 0 and "rocm-spirv" in script.stdout and "_ARGCOMPLETE" in script.stdout
    # Real bash, through the script as a user sources it.
    (tmp_path / "rocm-spirv.bash").write_text(run_cli("--completion", "bash").stdout)
    probe = ('source "$1"; complete_line() { COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<< "$1"; '
             '[[ "$1" == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); '
             '_python_argcomplete rocm-spirv; echo "${COMPREPLY[*]}"; }; '
             'complete_line "rocm-spirv mig"; complete_line "rocm-spirv migrate . --fail-on "; '
             'complete_line "rocm-spirv toolchain "')
    env = {**os.environ, "PATH": f"{venv_bin}:{os.environ['PATH']}"}
    done = subprocess.run([shutil.which("bash") or "/bin/bash", "-c", probe, "bash", str(tmp_path / "rocm-spirv.bash")],
                          capture_output=True, text=True, env=env, check=False, timeout=120)
    lines = [ln.split() for ln in done.stdout.splitlines()]
    assert lines == [["migrate"], ["error", "warning", "note"], ["-h", "--help", "list", "provision", "generate"]], done


def test_the_page_s_commands_run_as_written(tmp_path: Path) -> None:
    import os

    venv_bin = Path(sys.executable).parent
    if not (venv_bin / "rocm-spirv").is_file():
        pytest.skip(f"no rocm-spirv script beside {sys.executable} (pip install -e . puts one there)")
    blocks = re.findall(r"^```sh\n(.*?)^```", PAGE, re.S | re.M)
    assert blocks
    env = {**os.environ, "HOME": str(tmp_path), "PATH": f"{venv_bin}:{os.environ['PATH']}"}
    for block in blocks:
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=tmp_path, env=env, capture_output=True,
                              text=True, check=False, timeout=120)
        assert done.returncode == 0, (block, done.stderr)
    assert "_python_argcomplete" in (tmp_path / ".local/share/bash-completion/completions/rocm-spirv").read_text()


def test_one_meaning_per_flag_and_old_spellings_still_work(tmp_path: Path) -> None:
    from rocm_spirv.cli import _leaves
    from rocm_spirv.commands.flags import MEANINGS

    # Every option two commands share is declared once with its meaning (a new shared flag is a decision).
    used = {o for leaf in _leaves(build_parser()) for a in leaf._actions for o in a.option_strings
            if o.startswith("--") and o != "--help" and a.help is not argparse.SUPPRESS}
    undeclared = sorted(o for o in used if o not in MEANINGS and not _single_command(o))
    assert undeclared == []
    # The renamed flags: the old spelling does what the new one does, and says so once on stderr.
    collection = str(REPO / "tests" / "data" / "example_collection")
    old = run_cli("migrate", collection, "--format", "json")
    new = run_cli("migrate", collection, "--output-format", "json")
    assert old.returncode == new.returncode == 0 and old.stdout == new.stdout and new.stderr == ""
    assert old.stderr == ("rocm-spirv: warning: --format is deprecated; use --output-format "
                          "(the old spelling goes in the next release)\n")
    generated = run_cli("toolchain", "generate", "--output-format", "json", "--compiler", "/nonexistent/clang++")
    assert generated.returncode == 2  # parsed (the compiler is the problem), not an unknown option
    assert "--output-format" not in generated.stderr


def _single_command(option: str) -> bool:
    """Options only one command has need no shared meaning."""
    from rocm_spirv.cli import _leaves

    return sum(option in {o for a in leaf._actions for o in a.option_strings} for leaf in _leaves(build_parser())) == 1


def test_color_follows_the_flag_and_no_color(tmp_path: Path) -> None:
    import os

    collection = str(REPO / "tests" / "data" / "example_collection")

    def ansi(*argv: str, **env: str) -> bool:
        done = subprocess.run([sys.executable, "-m", "rocm_spirv", "migrate", collection, "--output-format", "table",
                               *argv], capture_output=True, text=True, check=False, timeout=120,
                              env={**{k: v for k, v in os.environ.items() if k != "NO_COLOR"},
                                   "PYTHONPATH": str(REPO / "plugin"), **env})
        assert done.returncode == 0, done.stderr
        return "\x1b[" in done.stdout

    assert not ansi()  # a pipe: auto means no color
    assert ansi("--color", "always") and not ansi("--color", "never")
    assert ansi("--color", "always", NO_COLOR="1")  # a flag wins over the environment (no-color.org)
    # -q, -v and --color are accepted by every command, after it, as users type them.
    for leaf in _all_leaves():
        options = {o for a in leaf._actions for o in a.option_strings}
        assert {"-q", "--quiet", "-v", "--verbose", "--color"} <= options, leaf.prog


def test_verbose_names_each_command_run_and_leaves_stdout_alone() -> None:
    # doctor --no-build runs real probes (clang --version, spirv-val --version, a device-only compile).
    plain, verbose = run_cli("doctor", "--no-build", "--json"), run_cli("doctor", "--no-build", "--json", "-v")
    assert verbose.returncode == plain.returncode and verbose.stdout == plain.stdout
    assert plain.stderr == ""
    ran = re.findall(r"^rocm-spirv: ran in \d+\.\d\d s, exit (\d+): (.+)$", verbose.stderr, re.M)
    assert ran and len(ran) == len(verbose.stderr.splitlines()), verbose.stderr
    assert any(line.endswith(" --version") for _, line in ran)
    # Where nothing external runs, -v changes nothing at all; --verbose is the same switch.
    collection = str(REPO / "tests" / "data" / "example_collection")
    default, loud = run_cli("migrate", collection), run_cli("migrate", collection, "--verbose")
    assert (loud.returncode, loud.stdout, loud.stderr) == (default.returncode, default.stdout, default.stderr)
    # -q and -v together: one line, exit 2, nothing run.
    both = run_cli("doctor", "--no-build", "-q", "-v")
    assert both.returncode == 2 and both.stdout == ""
    assert both.stderr == ("rocm-spirv: error: doctor: argument -v/--verbose: not allowed with argument -q/--quiet; "
                           "see `rocm-spirv doctor --help`\n")


def _all_leaves() -> list[argparse.ArgumentParser]:
    from rocm_spirv.cli import _leaves

    return list(_leaves(build_parser()))


def test_user_text_reaches_stdout_and_stderr_without_control_characters(tmp_path: Path) -> None:
    # A folder name may hold any byte but / and NUL: an ESC sequence in it must not drive the terminal
    # of whoever reads the output, in a result line (stdout) or an error line (stderr).
    hostile = tmp_path / "proj\x1b[2J\x07"
    hostile.mkdir()
    (hostile / "rocm-spirv.toml").write_text('[migrate]\nfail-on = "error"\n')
    shown = run_cli("config", str(hostile))
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert f"settings file: {tmp_path}/proj?[2J?/rocm-spirv.toml" in shown.stdout
    missing = run_cli("migrate", str(hostile / "gone\x1b]0;title\x07"))
    assert missing.returncode == 2 and missing.stdout == ""
    assert "\x1b" not in missing.stderr and "\x07" not in missing.stderr
    assert missing.stderr.startswith("rocm-spirv: error: ") and missing.stderr.count("\n") == 1
    assert "gone?]0;title?" in missing.stderr


def test_one_width_for_prose_in_a_pipe_and_values_past_it_whole(tmp_path: Path) -> None:
    # In a pipe, remedies wrap at term.PIPE_WIDTH; a diagnostic line carrying a long path is longer
    # than that and stays on one line, in the text format and in the table format's fallback.
    deep = tmp_path / ("a_rather_long_folder_name_" * 4) / "sub"
    deep.mkdir(parents=True)
    (deep / "CMakeLists.txt").write_text("set(GPU_TARGETS gfx90a gfx942)\n")
    for fmt in ("text", "table"):
        done = run_cli("migrate", str(tmp_path), "--output-format", fmt)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        diag = [ln for ln in lines if ln.startswith(f"{deep.relative_to(tmp_path)}/CMakeLists.txt:1:")]
        assert len(diag) == 1 and len(diag[0]) > 80, done.stdout
        prose = [ln for ln in lines if ln.startswith("    ")]  # the wrapped remedies
        assert prose and max(len(ln) for ln in prose) <= 80, done.stdout
