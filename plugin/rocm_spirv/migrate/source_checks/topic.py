"""What one source check module hooks into the walk over a source (source_rules.SourceScan), after
cmake_checks.topic: the hook types, SourceTopic, and `finding`, the one shape of a source finding."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rocm_spirv.migrate.findings import Finding, Redirect, Rule

if TYPE_CHECKING:
    from rocm_spirv.migrate.source_rules import Directive, Group, SourceScan

LineHook = Callable[["SourceScan"], None]
DirectiveHook = Callable[["SourceScan", "Directive"], None]
# The words of the conditional directives (Directive.word): the others are #define, #undef and "".
CONDITIONALS = frozenset({"if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif"})


@dataclass(frozen=True)
class SourceTopic:
    """A concern's rules and the hooks that report them. Hooks of different topics run in the order of
    source_checks.TOPICS (every-directive hooks: DIRECTIVE_TOPICS), which is the order one line's findings
    are appended in: the final sort is stable, so findings at the same line and column keep it."""

    rules: tuple[Rule, ...]
    opened: DirectiveHook | None = None  # #if, #ifdef, #ifndef: after its chain is pushed
    branched: DirectiveHook | None = None  # #elif, #elifdef, #elifndef: after the chain moved to that branch
    closed: Callable[[SourceScan, Group], None] | None = None  # #endif: the chain it popped
    defined: DirectiveHook | None = None  # #define: after the macro is recorded
    directive: DirectiveHook | None = None  # every directive, after the hooks above
    line: LineHook | None = None  # a line of compiled code, before its braces are counted
    dead: LineHook | None = None  # a line of code the device pass skips
    wanted: Callable[[SourceScan], bool] | None = None  # whether `line` can find anything in this file at all


def finding(rule: Rule, path: str, line: int, col: int, msg: str, fix: str, snippet: str,
            conditions: tuple[str, ...] = ()) -> Finding:
    """A source finding: reported only (--apply never edits a source), its snippet the line, trimmed."""
    return Finding(rule, path, line, col, msg, fix, Redirect.SOURCE, False, snippet.strip()[:120], conditions)
