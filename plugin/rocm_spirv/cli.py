"""Command-line entry point: `rocm-spirv` and `python -m rocm_spirv`."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys
from collections.abc import Sequence

from rocm_spirv import __version__
from rocm_spirv.errors import RocmSpirvError, os_error

# Each name is a module in rocm_spirv.commands with register(subparsers); the
# module sets func on its parser, which returns the exit code.
COMMANDS = ["toolchain", "presets", "doctor", "compare", "inspect", "bazel", "migrate", "wheel"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rocm-spirv",
        description="Build HIP libraries as one universal AMDGCN SPIR-V binary.",
    )
    parser.add_argument("--version", action="version", version=f"rocm-spirv {__version__}")
    parser.add_argument(
        "--cmakedir", action="store_true", help="print the folder holding RocmSpirvConfig.cmake"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"rocm_spirv.commands.{name}").register(sub)
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
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.cmakedir:
        from rocm_spirv.resources import cmake_dir

        print(cmake_dir())
        return 0
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code: int = args.func(args)
    except RocmSpirvError as err:
        print(f"rocm-spirv: error: {err.line()}", file=sys.stderr)
        return err.exit_code
    except BrokenPipeError:
        # The reader went away (| head): nothing more to say, and nothing to say it to.
        with contextlib.suppress(OSError):
            sys.stderr.close()
        return 1
    except OSError as err:
        print(f"rocm-spirv: error: {os_error(err).line()}", file=sys.stderr)
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
              "the memory limit, or lower the command's budget (inspect --max-decompressed, --max-entries)",
              file=sys.stderr)
        return 2
    return code


class Terminated(BaseException):
    """SIGTERM, raised where the process was, so cleanup runs on the way out."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated()
