"""The CMake checks, one module per topic, each declaring its rules beside the code that reports them
(after pylint's checkers and pycodestyle's registered checks). cmake_rules walks a file and calls them."""

from __future__ import annotations

from rocm_spirv.migrate.cmake_checks import (
    allow_lists,
    arch_lists,
    branches,
    env,
    findhip,
    flags,
    generators,
    hip_targets,
    loops,
    properties,
)
from rocm_spirv.migrate.cmake_checks.topic import CommandHook, Topic
from rocm_spirv.migrate.findings import Rule

# The order hooks run in, and so the order one command's findings are reported in.
TOPICS: tuple[Topic, ...] = (flags.TOPIC, env.TOPIC, arch_lists.TOPIC, properties.TOPIC, allow_lists.TOPIC,
                             findhip.TOPIC, hip_targets.TOPIC, generators.TOPIC, branches.TOPIC, loops.TOPIC)
RULES: tuple[Rule, ...] = tuple(r for t in TOPICS for r in t.rules)


def _dispatch(topics: tuple[Topic, ...]) -> tuple[dict[str, list[CommandHook]], list[CommandHook]]:
    """Per command name, the hooks a command that opens no block runs, in topic order; and the hooks of
    every other name (those that see every command)."""
    every = [t.every for t in topics if t.every is not None]
    names = {n for t in topics for n in t.commands}
    by_name = {n: [h for t in topics for h in (t.every, t.commands.get(n)) if h is not None] for n in names}
    return by_name, every


DISPATCH, EVERY = _dispatch(TOPICS)
SEEN = [t.seen for t in TOPICS if t.seen is not None]
CONDITIONS = [t.condition for t in TOPICS if t.condition is not None]
LOOP_ENDS = [t.loop_end for t in TOPICS if t.loop_end is not None]
ENDS = [t.end for t in TOPICS if t.end is not None]
