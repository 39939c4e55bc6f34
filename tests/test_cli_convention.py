"""One CLI convention (docs/cli.md): every command is on that page and takes --json; no command
prints the help; the exit statuses the page lists are the ones the program uses."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Iterator

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
