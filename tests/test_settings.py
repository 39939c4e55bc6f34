"""Every ROCM_SPIRV_* environment variable the package reads is in settings.SETTINGS, and
docs/cli.md's Environment table lists exactly those, with the same kind."""

from __future__ import annotations

import re

import pytest
from conftest import REPO
from rocm_spirv import settings

PACKAGE = REPO / "plugin" / "rocm_spirv"


def documented() -> dict[str, str]:
    text = (REPO / "docs" / "cli.md").read_text()
    section = text[text.index("\n## Environment\n"):]
    section = section[: section.find("\n## ", 1)] if "\n## " in section[1:] else section
    return dict(re.findall(r"^\| `(ROCM_SPIRV_\w+)` \| (\w+) \|", section, re.MULTILINE))


def test_docs_list_the_table() -> None:
    assert documented() == {s.name: s.kind for s in settings.SETTINGS}


def test_every_variable_read_is_in_the_table() -> None:
    """An environment read spelled with the name (environ.get("ROCM_SPIRV_X"), env.get(...), getenv)."""
    names = {s.name for s in settings.SETTINGS}
    read: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        read |= set(re.findall(r"""(?:environ|env|getenv)(?:\.get)?\(\s*["'](ROCM_SPIRV_\w+)["']""", text))
        read |= set(re.findall(r"\$\{+(ROCM_SPIRV_\w+)", text))  # shell scripts the package writes
    assert read, "the scan found no reads at all"
    assert read <= names, read - names


@pytest.mark.parametrize(("value", "default", "want"), [
    (None, False, False), ("", True, True), ("1", False, True), ("YES", False, True), ("on", False, True),
    ("0", True, False), ("off", True, False), ("False", True, False), ("maybe", True, True), ("maybe", False, False)])
def test_switch(value: str | None, default: bool, want: bool) -> None:
    env = {} if value is None else {settings.DEVICE_DEBUG.name: value}
    assert settings.switch(settings.DEVICE_DEBUG, default, env) is want


def test_empty_is_unset() -> None:
    assert settings.text(settings.PREFIX, {settings.PREFIX.name: ""}) is None
    assert str(settings.path(settings.PREFIX, {settings.PREFIX.name: "/p"})) == "/p"
