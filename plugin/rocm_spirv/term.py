"""The terminal renderer (rich) and the one way user text gets into it.

Paths, archive member names, bundle entry ids and messages read from files are not ours: `[/x]` in a
member name is a rich markup error (a traceback), `[bold]` restyles the rest of the line and an ESC
byte drives the terminal. Everything not written by this package goes through `esc` before it is
placed in a markup string, a table cell or a title.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Literal

from rich.console import Console
from rich.markup import escape

Color = Literal["auto", "always", "never"]
COLORS: tuple[Color, ...] = ("auto", "always", "never")


@dataclass
class Output:
    """How this run talks to people, from -q/--quiet and --color (set once by the CLI)."""

    quiet: bool = False   # no progress and no notes on stderr; results and errors still print
    color: Color = "auto"  # auto: on a terminal unless NO_COLOR is set (no-color.org); always wins over NO_COLOR


OUTPUT = Output()


def note(message: str) -> None:
    """Progress or a remark for a person, on stderr (stdout stays the result); silent under -q."""
    if not OUTPUT.quiet:
        print(f"rocm-spirv: {message}", file=sys.stderr, flush=True)


def progress_wanted() -> bool:
    return not OUTPUT.quiet


def plain(text: object) -> str:
    """User-controlled text for plain output: control characters (terminal escapes from hostile
    files) shown as '?'. Newlines and tabs stay (build logs)."""
    return "".join(c if c.isprintable() or c in "\n\t" else "?" for c in str(text))


def esc(text: object) -> str:
    """User-controlled text for a rich markup string: markup shown literally, and as plain()."""
    return escape(plain(text))


def console(stderr: bool = False, width: int | None = None) -> Console:
    """A Console that never turns `:name:` in user text into an emoji; 160 columns when piped."""
    stream = sys.stderr if stderr else sys.stdout
    color = OUTPUT.color
    no_color = True if color == "never" else False if color == "always" else bool(os.environ.get("NO_COLOR"))
    return Console(stderr=stderr, emoji=False, width=width or (None if stream.isatty() else 160),
                   no_color=no_color, force_terminal=True if color == "always" else None)
