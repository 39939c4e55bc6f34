"""tests/bundles.py, the tests' own reader of offload bundles, on archives as GNU/LLVM ar writes them."""

from __future__ import annotations

from bundles import _ar_members


def member(name: bytes, body: bytes) -> bytes:
    header = name.ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"644".ljust(8)
    header += str(len(body)).encode().ljust(10) + b"`\n"
    return header + body + (b"\n" if len(body) & 1 else b"")


def test_members_with_long_names_are_read() -> None:
    """A member name longer than 15 characters is "/<offset>" into the "//" table (saxpy_library.cpp.o);
    only "/", "/SYM64/" and "//" themselves are tables."""
    short = b"\x7fELF" + b"s" * 12
    long = b"\x7fELF" + b"l" * 13
    names = b"saxpy_library.cpp.o/\n"
    data = b"!<arch>\n" + member(b"/", b"\0\0\0\0") + member(b"//", names) + member(b"/0", long) \
        + member(b"k.o/", short) + member(b"/SYM64/", b"\x7fELF" + b"\0" * 4)
    assert _ar_members(data) == [long, short]
