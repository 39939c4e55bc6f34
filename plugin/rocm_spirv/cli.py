"""Command-line entry point: `rocm-spirv` and `python -m rocm_spirv`."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import re
import signal
import sys
from collections.abc import Iterator, Sequence
from typing import NoReturn

import argcomplete
from argcomplete.shell_integration import shellcode

from rocm_spirv import __version__, term
from rocm_spirv.commands.flags import add_output_format, add_output_options
from rocm_spirv.commands.teach import teach
from rocm_spirv.errors import RocmSpirvError, os_error

# Each name is a module in rocm_spirv.commands with register(subparsers); the
# module sets func on its parser, which returns the exit code.
SHELLS = ("bash", "zsh", "fish")
COMMANDS = ["toolchain", "presets", "doctor", "compare", "inspect", "bazel", "migrate", "wheel", "config"]


class Parser(argparse.ArgumentParser):
    """argparse with the project's error convention: one line on stderr, `rocm-spirv: error: <cause>;
    <remedy>`, a "did you mean" for a mistyped option or command, exit 2 (argparse prints the whole usage)."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("rocm-spirv").strip()
        where = f"{command}: " if command else ""
        term.complain("error", f"{where}{message}; {self.remedy(message)}")
        raise SystemExit(2)

    def remedy(self, message: str) -> str:
        hint = f"see `{self.prog} --help`"
        choice = re.match(r"argument \S+: invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if choice:
            offered = re.findall(r"'([^']*)'", choice.group(2)) or [c.strip() for c in choice.group(2).split(",")]
            return _did_you_mean(choice.group(1), offered) or hint
        unknown = re.match(r"unrecognized arguments: (.*)$", message)
        if unknown:
            known = [o for a in self._actions for o in a.option_strings]
            for word in unknown.group(1).split():
                if word.startswith("-") and (guess := _did_you_mean(word.split("=", 1)[0], known)):
                    return guess
        return hint


def _did_you_mean(word: str, offered: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, offered, n=1, cutoff=0.6)
    return f"did you mean {close[0]}?" if close else ""


def _leaves(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield parser
    for sub in subs:
        for child in dict.fromkeys(sub.choices.values()):
            yield from _leaves(child)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="rocm-spirv",
        description="Build HIP libraries as one universal AMDGCN SPIR-V binary.",
    )
    parser.add_argument("--version", action="version", version=f"rocm-spirv {__version__}")
    parser.add_argument(
        "--cmakedir", action="store_true", help="print the folder holding RocmSpirvConfig.cmake"
    )
    parser.add_argument("--completion", choices=SHELLS, metavar="SHELL",
                        help=f"print the shell completion script for {', '.join(SHELLS)} "
                             "(e.g. `rocm-spirv --completion bash > ~/.local/share/bash-completion/completions/"
                             "rocm-spirv`)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"rocm_spirv.commands.{name}").register(sub)
    # Unknown options are reported by the command they were given to, which knows its own options.
    for leaf in _leaves(parser):
        leaf.set_defaults(_leaf=leaf)
        teach(leaf.prog.removeprefix("rocm-spirv").strip(), leaf)
        add_output_format(leaf)
        add_output_options(leaf)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # SIGTERM unwinds like Ctrl-C, so the finally blocks that remove temp files run. Installed first
    # thing (before the parser imports every command), so a signal in the first second is one line too.
    previous = signal.getsignal(signal.SIGTERM)
    try:
        signal.signal(signal.SIGTERM, _terminate)  # inside the try: the handler may run at the next bytecode
        return _main(argv)
    except Terminated:
        print("rocm-spirv: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("rocm-spirv: interrupted", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)


def _main(argv: Sequence[str] | None) -> int:
    term.OUTPUT = term.Output()  # -q and --color set it while parsing; a fresh run starts from the defaults
    parser = build_parser()
    # Under a completion request (the shell sets _ARGCOMPLETE) this answers and exits; else it returns.
    argcomplete.autocomplete(parser)
    words = list(sys.argv[1:] if argv is None else argv)
    # `--` ends the options: what follows goes to a command that passes arguments on (migrate --configure
    # hands them to cmake), and is an error for any other.
    tail: list[str] = []
    if "--" in words:
        cut = words.index("--")
        words, tail = words[:cut], words[cut + 1:]
    args, extra = parser.parse_known_args(words)
    if tail:
        if hasattr(args, "passthrough"):
            args.passthrough = tail
        else:
            extra = [*extra, "--", *tail]
    if extra:
        leaf: argparse.ArgumentParser = getattr(args, "_leaf", parser)
        leaf.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.cmakedir:
        from rocm_spirv.resources import cmake_dir

        print(cmake_dir())
        return 0
    if args.completion:
        print(shellcode(["rocm-spirv"], shell=args.completion), end="")
        return 0
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code: int = args.func(args)
    except RocmSpirvError as err:
        term.complain("error", err.line())
        return err.exit_code
    except BrokenPipeError:
        # The reader went away (| head): nothing more to say, and nothing to say it to.
        with contextlib.suppress(OSError):
            sys.stderr.close()
        return 1
    except OSError as err:
        term.complain("error", os_error(err).line())
        return 2
    except UnicodeDecodeError as err:  # where a reader did not say which file itself
        print(f"rocm-spirv: error: an input file is not {err.encoding} text (byte 0x{err.object[err.start]:02x} "
              f"at offset {err.start}); save it as UTF-8", file=sys.stderr)
        return 2
    except RecursionError:  # absurdly nested JSON or CMake that a reader did not catch itself
        print("rocm-spirv: error: an input file nests too deeply to read; fix that file", file=sys.stderr)
        return 2
    except MemoryError:
        # Under a memory limit (ulimit -v in a CI job) a budget larger than the limit ends here.
        print("rocm-spirv: error: out of memory (the input is larger than this process may allocate); raise "
              "the memory limit, or lower the command's limits (inspect --max-decompressed, --max-entries, "
              "--max-symbols, --max-strings, --max-validate)",
              file=sys.stderr)
        return 2
    return code


class Terminated(BaseException):
    """SIGTERM, raised where the process was, so cleanup runs on the way out."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated()
