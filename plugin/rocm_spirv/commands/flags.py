"""One meaning per flag name across commands, and the old spellings kept for one release.

`MEANINGS` names what each flag means wherever it appears (tests/test_cli_convention.py requires
every option of every command to be listed here, so a new flag is a decision, not an accident).
A renamed flag stays accepted through `deprecated()`: it works as before and says, once, on stderr,
which spelling replaces it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from rocm_spirv import term

MEANINGS: dict[str, str] = {
    "--json": "print the result as one JSON document (shorthand for --output-format json)",
    "--output-format": "how the result is printed: text, json (migrate: also table, sarif)",
    "--output": "a file to write",
    "--output-dir": "a folder to write into",
    "--compiler": "the clang++ to use or examine",
    "--jobs": "how many builds or compiles run at a time (at least 1)",
    "--prefix": "a provisioned toolchain prefix",
    "--launcher": "a compiler launcher for every compile (ccache, sccache or a path; default $ROCM_SPIRV_LAUNCHER)",
    "--force": "replace files rocm-spirv did not write or that were edited since",
    "--native-archs": "native GPU targets beside SPIR-V (comma-separated)",
    "--archs": "the native GPU targets a per-arch build compares against (comma-separated)",
    "--baseline": "a findings file whose findings do not fail the gate",
    "--reference-arch": "the one native target SPIR-V is held against",
    "--exclude": "a path glob to skip",
    "--require": "what must hold for exit 0, else exit 1 (inspect: a target spec; doctor: modes that must be ready)",
    "--exclude-library": "a shared-library pattern auditwheel must not vendor",
    "--quiet": "no progress or notes on stderr",
    "--verbose": "also each external command run, with its duration, on stderr",
    "--color": "color on a terminal: auto (honours NO_COLOR), always, never",
}

# old spelling -> (command, new spelling), for the release that still accepts the old one
RENAMED: dict[str, tuple[str, str]] = {}


class _Deprecated(argparse.Action):
    """The old spelling of a flag: does what the new one does, after a one-line warning."""

    def __init__(self, option_strings: Sequence[str], dest: str, new: argparse.Action, **kwargs: Any) -> None:
        self.new = new
        # The value is converted and checked by the new action's own type and choices, once, in __call__'s
        # delegate: argparse has already applied them here, since both spellings share them.
        super().__init__(option_strings, dest, nargs=new.nargs, const=new.const,
                         type=new.type if callable(new.type) else None,
                         choices=new.choices, metavar=new.metavar, default=argparse.SUPPRESS,
                         help=argparse.SUPPRESS)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        warned: set[str] = getattr(namespace, "_deprecated_warned", set())
        if option_string not in warned:
            print(f"rocm-spirv: warning: {option_string} is deprecated; use {self.new.option_strings[0]} "
                  "(the old spelling goes in the next release)", file=sys.stderr)
            warned.add(str(option_string))
            namespace._deprecated_warned = warned
        self.new(parser, namespace, values, self.new.option_strings[0])


def deprecated(parser: argparse.ArgumentParser, old: str, new: argparse.Action) -> None:
    """Keep `old` working as `new` (an action already added to `parser`), hidden from --help."""
    parser.add_argument(old, dest=new.dest, action=_Deprecated, new=new)
    RENAMED[old + "@" + parser.prog] = (parser.prog.removeprefix("rocm-spirv "), new.option_strings[0])


class _OutputFormat(argparse.Action):
    """--output-format text|json on a command whose JSON switch is --json."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        namespace.json = values == "json"


def add_output_format(parser: argparse.ArgumentParser) -> None:
    """Give a command with --json the --output-format spelling too (ruff's), unless it has its own."""
    options = {o for a in parser._actions for o in a.option_strings}
    if "--json" in options and "--output-format" not in options:
        parser.add_argument("--output-format", choices=("text", "json"), action=_OutputFormat,
                            default=argparse.SUPPRESS, help="text (default) or json, the same as --json")


class _Color(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        term.OUTPUT.color = values
        setattr(namespace, self.dest, values)


class _Quiet(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        term.OUTPUT.quiet = True
        setattr(namespace, self.dest, True)


class _Verbose(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        term.OUTPUT.verbose = True
        setattr(namespace, self.dest, True)


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """-q/--quiet or -v/--verbose, and --color, on every command, where users type them (after the command).
    -q with -v is argparse's one-line "not allowed with" error (the CLI's Parser.error), exit 2."""
    talk = parser.add_mutually_exclusive_group()
    talk.add_argument("-q", "--quiet", action=_Quiet, nargs=0, default=False,
                      help="no progress or notes on stderr (results and errors still print)")
    talk.add_argument("-v", "--verbose", action=_Verbose, nargs=0, default=False,
                      help="also each external command run (compilers, cmake, spirv-val), with its duration and "
                           "exit status, on stderr; stdout is the same")
    parser.add_argument("--color", choices=term.COLORS, action=_Color, default="auto",
                        help="color on a terminal (auto, the default, honours NO_COLOR), always, or never")
