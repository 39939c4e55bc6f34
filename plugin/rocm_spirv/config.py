"""Project settings from a file, as ruff and scikit-build-core read theirs: `[tool.rocm-spirv]` in
`pyproject.toml`, or a `rocm-spirv.toml` (same keys at its top level) for projects without one.

The nearest folder at or above the project that holds either file wins (`rocm-spirv.toml` before
`pyproject.toml` in one folder; a `pyproject.toml` without `[tool.rocm-spirv]` is passed over). A flag
given on the command line always wins over the file. `SETTINGS` is the one table: the argparse
destinations, the file keys, the checks and `rocm-spirv config` all read it.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rocm_spirv.compare.model import JIT_ESTIMATE_ARCH
from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import describe
from rocm_spirv.offload import MODES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

CONFIG_NAME = "rocm-spirv.toml"
MAX_CONFIG_BYTES = 1 << 20  # a settings file is small; anything bigger is not one

Source = Literal["default", "command line", "environment", "file"]


def _str_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ValueError("a string or a list of strings")


def _choice(*choices: str) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in choices:
            raise ValueError(" or ".join(repr(c) for c in choices))
        return str(value)
    return check


def _path(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError("a path (a non-empty string)")
    return value


@dataclass(frozen=True)
class Setting:
    key: str              # the file key: `<section>.<name>` (a section is a command), or a top-level name
    dest: str             # the argparse destination it fills
    flag: str             # the command-line spelling that wins over it
    check: Callable[[Any], Any]
    default: Any
    help: str
    relative_path: bool = False  # resolved against the settings file's folder, as ruff does
    commands: tuple[str, ...] = ()  # a top-level setting: the commands that take it
    env: str | None = None  # an environment variable that wins over the file (and loses to the flag)

    @property
    def section(self) -> str:
        return self.key.split(".", 1)[0] if "." in self.key else ""

    @property
    def name(self) -> str:
        return self.key.split(".", 1)[1] if "." in self.key else self.key

    def applies_to(self, command: str) -> bool:
        return self.section == command or command in self.commands


def _archs(value: Any) -> str:
    """A list of GPU targets or one comma/space-separated string, as --archs takes it."""
    return ",".join(_str_list(value))


def _repeat(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError("a whole number of repeats, at least 1")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("true or false")
    return value


def _mode(value: Any) -> str:
    if value not in MODES:
        raise ValueError(" or ".join(repr(m) for m in MODES))
    return str(value)


def _launcher(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError("ccache, sccache or the path of a compiler launcher")
    return value


SETTINGS: tuple[Setting, ...] = (
    Setting("offload", "offload", "--offload", _mode, None, "GPU code to build: native, spirv or hybrid",
            commands=("toolchain generate", "wheel")),
    Setting("native-archs", "native_archs", "--native-archs", _archs, None,
            "native targets beside SPIR-V for native and hybrid builds", commands=("toolchain generate",
                                                                                   "presets generate", "wheel")),
    Setting("launcher", "launcher", "--launcher", _launcher, None, "compiler launcher (ccache, sccache or a path)",
            commands=("toolchain generate", "presets generate", "compare", "wheel"), env="ROCM_SPIRV_LAUNCHER"),
    Setting("migrate.select", "select", "--select", _str_list, [],
            "report only these rule ids or prefixes"),
    Setting("migrate.ignore", "ignore", "--ignore", _str_list, [], "never report these rule ids or prefixes"),
    Setting("migrate.exclude", "exclude", "--exclude", _str_list, [], "skip paths matching these globs"),
    Setting("migrate.fail-on", "fail_on", "--fail-on", _choice("error", "warning", "note"), "warning",
            "lowest severity that fails --check"),
    Setting("migrate.preview", "preview", "--preview", _bool, False, "also report rules in preview"),
    Setting("migrate.baseline", "baseline", "--baseline", _path, None,
            "findings recorded in this file do not fail --check", relative_path=True),
    Setting("compare.archs", "archs", "--archs", _archs, None, "the native targets the per-arch build compiles"),
    Setting("compare.reference-arch", "reference_arch", "--reference-arch", _archs, JIT_ESTIMATE_ARCH,
            "the one native target SPIR-V is held against"),
    Setting("compare.jit-targets", "jit_targets", "--jit-targets", _archs, None,
            "targets the first-launch JIT proxy measures besides the reference arch"),
    Setting("compare.repeat", "repeat", "--repeat", _repeat, 3, "repeats per variant"),
    Setting("compare.compress", "compress", "--compress", _bool, None,
            "also build with --offload-compress (default: when the compiler supports it)"),
)
SECTIONS = tuple(dict.fromkeys(s.section for s in SETTINGS if s.section))


@dataclass
class Resolved:
    """Each setting's value for one command and where it came from."""

    file: Path | None
    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, Source] = field(default_factory=dict)


def find_file(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest settings file at or above `start` and its rocm-spirv table."""
    here = start.resolve()
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        own = folder / CONFIG_NAME
        if own.exists():
            return own, _read(own, own=True)
        project = folder / "pyproject.toml"
        if project.exists():
            table = _read(project, own=False)
            if table is not None:
                return project, table
    return None


def _read(path: Path, own: bool) -> Any:
    where = "the settings in it" if own else "its [tool.rocm-spirv] table"
    if not path.is_file():
        raise UserError(f"{path} {describe(path)}", f"make it a regular file, or remove {where}")
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES:
            raise UserError(f"{path} is over {MAX_CONFIG_BYTES} bytes", "a settings file is small; check the path")
        data = tomllib.loads(raw.decode("utf-8"))
    except OSError as err:
        raise UserError(f"cannot read {path}: {err.strerror}", "check its permissions") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise UserError(f"{path} is not valid TOML ({err})", f"fix the file, or remove {where}") from None
    if own:
        return data
    tool = data.get("tool", {})
    table = tool.get("rocm-spirv") if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise UserError(f"{path}: [tool.rocm-spirv] is not a table", "write it as [tool.rocm-spirv.migrate] …")
    return table


def parse_table(path: Path, table: dict[str, Any]) -> dict[str, Any]:
    """{setting key: checked value}; an unknown section or key, or a wrong value, is one line."""
    known = {s.key: s for s in SETTINGS}
    out: dict[str, Any] = {}
    for section, body in table.items():
        top = known.get(section)
        if top is not None and top.section == "":
            try:
                out[section] = top.check(body)
            except ValueError as err:
                raise UserError(f"{path}: {section} = {body!r} is not valid", f"it takes {err}") from None
            continue
        if section not in SECTIONS:
            tops = [s.key for s in SETTINGS if not s.section]
            raise UserError(f"{path}: unknown section or key {section}",
                            _guess(section, [*SECTIONS, *tops], "sections and top-level keys"))
        if not isinstance(body, dict):
            raise UserError(f"{path}: {section} is not a table", f"write it as [{section}] with keys under it")
        for name, value in body.items():
            key = f"{section}.{name}"
            setting = known.get(key)
            if setting is None:
                names = [s.name for s in SETTINGS if s.section == section]
                raise UserError(f"{path}: unknown key {key}", _guess(name, names, f"[{section}] keys"))
            try:
                checked = setting.check(value)
            except ValueError as err:
                raise UserError(f"{path}: {key} = {value!r} is not valid", f"it takes {err}") from None
            if setting.relative_path:
                checked = str(path.parent / checked)
            out[key] = checked
    return out


def _guess(word: str, offered: tuple[str, ...] | list[str], what: str) -> str:
    close = difflib.get_close_matches(word, offered, n=1)
    return f"did you mean {close[0]}?" if close else f"the {what} are: {', '.join(offered)}"


def resolve(args: argparse.Namespace, section: str, start: Path) -> Resolved:
    """Fill the settings of `section` that the command line left unset (None) from the nearest
    settings file, else from the defaults; the flags given win."""
    found = find_file(start)
    from_file = parse_table(*found) if found else {}
    resolved = Resolved(found[0] if found else None)
    for s in SETTINGS:
        if not s.applies_to(section):
            continue
        given = getattr(args, s.dest, None)
        source: Source
        if given is not None:
            value, source = given, "command line"
        elif s.env and os.environ.get(s.env):
            value, source = None, "environment"  # the command reads the variable itself
        elif s.key in from_file:
            value, source = from_file[s.key], "file"
        else:
            value, source = s.default, "default"
        if s.relative_path and source == "file" and value is not None:
            value = Path(value)
        setattr(args, s.dest, value)
        resolved.values[s.key] = value
        resolved.sources[s.key] = source
    return resolved


def show(start: Path) -> tuple[Path | None, list[tuple[Setting, Any, Source]]]:
    """Every setting with its effective value (before command-line flags) and its source."""
    found = find_file(start)
    from_file = parse_table(*found) if found else {}
    rows: list[tuple[Setting, Any, Source]] = []
    for s in SETTINGS:
        if s.env and os.environ.get(s.env):
            rows.append((s, os.environ[s.env], "environment"))
        elif s.key in from_file:
            rows.append((s, from_file[s.key], "file"))
        else:
            rows.append((s, s.default, "default"))
    return (found[0] if found else None), rows


def file_values(command: str, start: Path) -> dict[str, Any]:
    """The settings file's values for `command` ({key: value}), for code with no argparse namespace
    (the wheel provider)."""
    found = find_file(start)
    if found is None:
        return {}
    return {k: v for k, v in parse_table(*found).items() if any(s.key == k and s.applies_to(command)
                                                                  for s in SETTINGS)}
