"""The source checks, one module per concern, each declaring its rules beside the code that words their
findings and the hooks that report them; source_rules walks a file's lines and preprocessor branches and
calls the hooks collected here.

- topic: SourceTopic (a concern's rules and hooks), the hook types, `finding`;
- arch_macros, wave_size, asm, amdgcn_builtins: rules, patterns, finding builders, hooks, topics;
- here: TOPICS, the order hooks run in; DIRECTIVE_TOPICS, that of the hooks every directive runs; and per
  hook kind the list source_rules.SourceScan calls."""

from __future__ import annotations

from rocm_spirv.migrate.source_checks import amdgcn_builtins, arch_macros, asm, wave_size
from rocm_spirv.migrate.source_checks.topic import DirectiveHook, LineHook, SourceTopic

# The order hooks run in, and so the order one line's findings are appended in.
TOPICS: tuple[SourceTopic, ...] = (
    arch_macros.ARCH_TESTS, wave_size.WAVE_USES, wave_size.WARP_ALIASES, amdgcn_builtins.BUILTIN_TESTS,
    wave_size.WARP_CONSTANTS, asm.INLINE_ASSEMBLY, amdgcn_builtins.FEATURE_GUARDS, amdgcn_builtins.ASM_LABELS,
    arch_macros.HELPER_CHAINS)
# The hooks every directive runs have an order of their own: a directive's __has_builtin tests before its
# wave-size uses, as the walk has always appended them.
DIRECTIVE_TOPICS: tuple[SourceTopic, ...] = (amdgcn_builtins.BUILTIN_TESTS, wave_size.WAVE_USES)

OPENED_HOOKS: list[DirectiveHook] = [t.opened for t in TOPICS if t.opened is not None]
BRANCHED_HOOKS: list[DirectiveHook] = [t.branched for t in TOPICS if t.branched is not None]
CLOSED_HOOKS = [t.closed for t in TOPICS if t.closed is not None]
DEFINED_HOOKS: list[DirectiveHook] = [t.defined for t in TOPICS if t.defined is not None]
DIRECTIVE_HOOKS: list[DirectiveHook] = [t.directive for t in DIRECTIVE_TOPICS if t.directive is not None]
DEAD_HOOKS: list[LineHook] = [t.dead for t in TOPICS if t.dead is not None]
