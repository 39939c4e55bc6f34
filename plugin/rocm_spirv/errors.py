"""The one error type the CLI turns into a single line and exit code 2."""

from __future__ import annotations


class UserError(Exception):
    """Bad input or a missing piece: says the cause and the remedy, never a traceback."""

    def __init__(self, cause: str, remedy: str = "") -> None:
        self.cause = cause
        self.remedy = remedy
        super().__init__(self.line())

    def line(self) -> str:
        return f"{self.cause}; {self.remedy}" if self.remedy else self.cause
