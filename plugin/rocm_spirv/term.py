"""The terminal renderer (rich) and the one way user text gets into it.

Paths, archive member names, bundle entry ids and messages read from files are not ours: `[/x]` in a
member name is a rich markup error (a traceback), `[bold]` restyles the rest of the line and an ESC
byte drives the terminal. Everything not written by this package goes through `esc` before it is
placed in a markup string, a table cell or a title.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Literal

from rich.console import Console
from rich.markup import escape
from rich.table import Table

Color = Literal["auto", "always", "never"]
COLORS: tuple[Color, ...] = ("auto", "always", "never")


@dataclass
class Output:
    """How this run talks to people, from -q/--quiet, -v/--verbose and --color (set once by the CLI)."""

    quiet: bool = False   # no progress and no notes on stderr; results and errors still print
    verbose: bool = False  # also each external command run, with its duration and exit status
    color: Color = "auto"  # auto: on a terminal unless NO_COLOR is set (no-color.org); always wins over NO_COLOR


OUTPUT = Output()
PIPE_WIDTH = 80  # a pipe or a CI log: prose wraps here; a value longer than the line is never cut
MIN_TERMINAL_WIDTH = 60  # prose narrower than this reads worse than a line the terminal wraps


def width(stderr: bool = False) -> int:
    """The one width prose wraps to: the terminal's (at least MIN_TERMINAL_WIDTH) on a terminal,
    PIPE_WIDTH in a pipe or a CI log. Values (paths, ids, figures) are never cut to it."""
    if (sys.stderr if stderr else sys.stdout).isatty():
        return max(MIN_TERMINAL_WIDTH, shutil.get_terminal_size((PIPE_WIDTH, 24)).columns)
    return PIPE_WIDTH


def say(text: object = "", end: str = "\n") -> None:
    """One piece of human output on stdout (results, not progress: -q keeps it). Every line a command
    prints for people goes here or through a console(), so user text in it (paths, compiler
    messages, names read from files) is shown as plain(): a control character is '?', never a
    terminal escape."""
    sys.stdout.write(plain(text) + end)
    sys.stdout.flush()


def note(message: str) -> None:
    """Progress or a remark for a person, on stderr (stdout stays the result); silent under -q."""
    if not OUTPUT.quiet:
        print(f"rocm-spirv: {message}", file=sys.stderr, flush=True)


def complain(severity: Literal["error", "warning"], message: str) -> None:
    """`rocm-spirv: error: <cause>; <remedy>` (or a warning), one line on stderr, never silenced by
    -q. The cause often quotes user text (a path, a typed argument): shown as plain()."""
    print(f"rocm-spirv: {severity}: {plain(message)}", file=sys.stderr, flush=True)


def progress_wanted() -> bool:
    return not OUTPUT.quiet


class Traced:
    """Under -v, one line on stderr per external command once it ends: the command line, how long it
    took and how it ended (`run.status = returncode` inside the block; an exception is named instead).
    One line per command, not one before and one after: compare and migrate run several at a time."""

    def __init__(self, argv: Sequence[object], cwd: object = None) -> None:
        self.argv, self.cwd = argv, cwd
        self.status: int | None = None

    def __enter__(self) -> Traced:
        self.started = time.perf_counter()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        if not OUTPUT.verbose:
            return
        seconds = time.perf_counter() - self.started
        how = (f"exit {self.status}" if kind is None and self.status is not None else "done" if kind is None
               else "timed out" if kind.__name__ == "TimeoutExpired" else f"{kind.__name__}")
        where = f" (in {plain(self.cwd)})" if self.cwd is not None else ""
        note(f"ran in {seconds:.2f} s, {how}: {plain(shlex.join(str(a) for a in self.argv))}{where}")


def columns(rows: Sequence[Sequence[str]], right: Collection[int] = (), indent: str = "") -> list[str]:
    """The one table renderer for plain output (inspect's summary, migrate --statistics, and the
    lines a rich table falls back to): rows aligned to their content, never to a terminal's width,
    so no value is ever cut, on a terminal at 80 columns or in a pipe. The columns in `right` are
    right-aligned (numbers); the last column is not padded."""
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.rjust(w) if i in right else c.ljust(w)
                               for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip() for r in rows]


def fits(out: Console, table: Table) -> bool:
    """Whether rich lays the table out at the console's width without cutting a value: every column at
    least its minimum, which is its longest word (prose wraps between words) or, for a `no_wrap` column
    (ids, paths, figures), its longest cell. Narrower, rich shrinks columns below that and folds or cuts
    values ("186.52-…", "matrix_transpose/CMak" / "eLists.txt"); then the lines are printed instead."""
    widths = table._calculate_column_widths(out, out.options.update_width(out.width - table._extra_width))
    unclamped = out.options.update_width(100_000)
    return all(width >= table._measure_column(out, unclamped, column).minimum
               for width, column in zip(widths, table.columns, strict=True))


def table_or_lines(out: Console, table: Table, lines: Sequence[str], markup: bool = False) -> bool:
    """A rich table on a terminal wide enough for every value whole; else (narrower, or a pipe) the
    same content as `lines` (stacked, wrapped between values, never inside one). True when the table
    was drawn. `markup`: the lines carry rich markup (escaped user text, `esc`) for color."""
    if out.is_terminal and fits(out, table):
        out.print(table)
        return True
    for line in lines:
        out.print(line, markup=markup, highlight=False, soft_wrap=True)
    return False


def plain(text: object) -> str:
    """User-controlled text for plain output: control characters (terminal escapes from hostile
    files) shown as '?'. Newlines and tabs stay (build logs)."""
    return "".join(c if c.isprintable() or c in "\n\t" else "?" for c in str(text))


def esc(text: object) -> str:
    """User-controlled text for a rich markup string: markup shown literally, and as plain()."""
    return escape(plain(text))


def console(stderr: bool = False, columns: int | None = None) -> Console:
    """A Console that never turns `:name:` in user text into an emoji. In a pipe it is PIPE_WIDTH
    wide, as plain output, and never breaks a printed line itself (soft wrap): a path longer than
    the line stays whole on its line."""
    piped = not (sys.stderr if stderr else sys.stdout).isatty()
    color = OUTPUT.color
    no_color = True if color == "never" else False if color == "always" else bool(os.environ.get("NO_COLOR"))
    return Console(stderr=stderr, emoji=False, width=columns or (PIPE_WIDTH if piped else None),
                   soft_wrap=piped, no_color=no_color, force_terminal=True if color == "always" else None)


def traced(argv: Sequence[object], cwd: object = None) -> Traced:
    """`with traced(argv) as run: ...; run.status = proc.returncode`: the -v line for one external command."""
    return Traced(argv, cwd)
