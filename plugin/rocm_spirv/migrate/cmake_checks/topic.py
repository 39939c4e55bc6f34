"""What one topic module hooks into the CMake walk (cmake_rules.Analyzer), after pylint's checkers."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rocm_spirv.migrate.findings import Rule

if TYPE_CHECKING:
    from rocm_spirv.migrate.cmake_lexer import Command
    from rocm_spirv.migrate.cmake_rules import Analyzer, Block

CommandHook = Callable[["Analyzer", "Command"], None]


@dataclass(frozen=True)
class Topic:
    """A topic's rules and the hooks that emit them. Hooks of different topics run in the order of
    cmake_checks.TOPICS, which is the order one command's findings are reported in."""

    rules: tuple[Rule, ...]
    seen: CommandHook | None = None  # every command but else()/end*(), before a block opens: facts, loop bodies
    condition: CommandHook | None = None  # if(), elseif(), while()
    every: CommandHook | None = None  # every command that opens no block
    commands: Mapping[str, CommandHook] = field(default_factory=dict)  # commands that open no block, by name
    loop_end: Callable[[Analyzer, Block], None] | None = None  # a foreach() over the target list closes
    end: Callable[[Analyzer], None] | None = None  # after the last command, before findings are sorted
