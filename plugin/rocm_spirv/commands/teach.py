"""What `--help` teaches beyond the options: two examples per command and its exit statuses.

One table for every command, applied to the parser tree by cli.build_parser, so no command module
repeats the exit-status wording and tests/test_cli_convention.py can check every example parses.
"""

from __future__ import annotations

import argparse

# The gate each command can fail with exit 1; None: the command has no gate (0 or 2 only).
GATES: dict[str, str | None] = {
    "toolchain list": None,
    "toolchain provision": None,
    "toolchain generate": None,
    "presets generate": None,
    "doctor": "a mode is not ready",
    "compare": "a variant failed to build",
    "inspect": "--require or --validate failed",
    "bazel generate": None,
    "migrate": "findings at or above --fail-on remain (--check), or edits are pending (--diff)",
    "wheel metadata": None,
    "wheel repair": "auditwheel failed on a wheel",
    "config": None,
}

EXAMPLES: dict[str, tuple[str, ...]] = {
    "toolchain list": ("rocm-spirv toolchain list", "rocm-spirv toolchain list --no-cache --json"),
    "toolchain provision": ("rocm-spirv toolchain provision",
                            "rocm-spirv toolchain provision --llvm /usr/lib/llvm-22/bin --prefix /opt/rocm-spirv"),
    "toolchain generate": ("cmake -B build -DCMAKE_TOOLCHAIN_FILE=$(rocm-spirv toolchain generate)",
                           "rocm-spirv toolchain generate --offload hybrid --native-archs gfx942,gfx1100"),
    "presets generate": ("rocm-spirv presets generate", "rocm-spirv presets generate --output CMakeUserPresets.json "
                                                        "--native-archs gfx942"),
    "doctor": ("rocm-spirv doctor", "rocm-spirv doctor --no-build --json"),
    "compare": ("rocm-spirv compare", "rocm-spirv compare . --archs gfx942,gfx1100 --repeat 3 --report report"),
    "inspect": ("rocm-spirv inspect build/libmylib.so",
                "rocm-spirv inspect dist/*.whl --require spirv-only --validate"),
    "bazel generate": ("rocm-spirv bazel generate", "rocm-spirv bazel generate --output-dir third_party/rocm_spirv"),
    "migrate": ("rocm-spirv migrate . --check", "rocm-spirv migrate . --diff"),
    "wheel metadata": ("rocm-spirv wheel metadata dist/mypkg-1.0-cp311-cp311-linux_x86_64.whl",
                       "rocm-spirv wheel metadata dist/*.whl --json"),
    "wheel repair": ("rocm-spirv wheel repair dist/*.whl", "rocm-spirv wheel repair dist/*.whl -w wheelhouse --json"),
    "config": ("rocm-spirv config", "rocm-spirv config path/to/project --json"),
}


def epilog(command: str) -> str:
    gate = GATES[command]
    statuses = [("0", "done"), *([("1", gate)] if gate else []),
                ("2", "bad input or a missing piece (one line says which)"), ("130", "interrupted"),
                ("143", "terminated")]
    lines = ["examples:", *(f"  {e}" for e in EXAMPLES[command]), "",
             "exit status (docs/cli.md):", *(f"  {code:<4} {meaning}" for code, meaning in statuses)]
    return "\n".join(lines)


def teach(command: str, parser: argparse.ArgumentParser) -> None:
    """Give `parser` (the leaf for `command`) its examples, exit statuses and the --json help."""
    parser.epilog = epilog(command)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    for action in parser._actions:
        if "--json" in action.option_strings and not action.help:
            action.help = "print the result as one JSON document on stdout (its schema: docs/cli.md)"
