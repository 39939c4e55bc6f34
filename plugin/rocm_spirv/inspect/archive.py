"""Static archives (`ar`, GNU and BSD names): every member's name and byte range."""

from __future__ import annotations

from dataclasses import dataclass

from rocm_spirv.inspect.base import DEFAULT_LIMITS, Buffer, FormatError, Limits, NotBinary

MAGIC = b"!<arch>\n"
THIN = b"!<thin>\n"
HEADER = 60
MAX_NAME = 4096  # PATH_MAX: a longer member name is cut there


@dataclass(frozen=True)
class Member:
    name: str
    offset: int
    size: int


def is_archive(buf: Buffer) -> bool:
    return bytes(buf[:8]) in (MAGIC, THIN)


def members(buf: Buffer, what: str, limits: Limits = DEFAULT_LIMITS) -> list[Member]:
    if bytes(buf[:8]) == THIN:
        raise NotBinary(f"{what}: thin archive (members live in other files; inspect those)")
    out: list[Member] = []
    long_names = b""
    pos = 8
    end = len(buf)
    while pos < end:
        if buf[pos : pos + 1] == b"\n":  # padding byte some tools leave before the next header
            pos += 1
            continue
        if pos + HEADER > end:
            raise FormatError(f"{what}: member header at byte {pos} is truncated")
        head = bytes(buf[pos : pos + HEADER])
        if head[58:60] != b"`\n":
            raise FormatError(f"{what}: member header at byte {pos} is malformed")
        raw_size = head[48:58].strip()
        if not raw_size.isdigit():
            raise FormatError(f"{what}: member header at byte {pos} has size {raw_size!r}")
        size = int(raw_size)
        body = pos + HEADER
        if size > end - body:
            raise FormatError(f"{what}: member at byte {pos} claims {size} bytes, {end - body} remain")
        name = head[:16].decode("utf-8", errors="replace").rstrip()
        if name.startswith("#1/") and name[3:].isdigit():  # BSD: name stored before the data
            n = int(name[3:])
            if n > size:
                raise FormatError(f"{what}: member at byte {pos} has a name longer than its data")
            name = bytes(buf[body : body + n]).split(b"\0", 1)[0].decode("utf-8", errors="replace")
            out.append(Member(name, body + n, size - n))
        elif name == "//":
            if size > limits.max_string_bytes:
                raise limits.refuse(f"{what}: long-name table", size, "max_string_bytes")
            long_names = bytes(buf[body : body + size])
        elif name in ("/", "/SYM64/", "__.SYMDEF", "__.SYMDEF SORTED"):
            pass
        else:
            if name.startswith("/") and name[1:].isdigit():
                idx = int(name[1:])
                if idx >= len(long_names):
                    raise FormatError(f"{what}: member at byte {pos} names long-name offset {idx}, table has "
                                      f"{len(long_names)}")
                # A find bounded to one name, not a copy of the rest of the table per member: a 20 MiB
                # table without newlines made that quadratic.
                stop = long_names.find(b"\n", idx, idx + MAX_NAME)
                if stop < 0:
                    stop = min(len(long_names), idx + MAX_NAME)
                name = long_names[idx:stop].decode("utf-8", errors="replace")
            out.append(Member(name.rstrip("/"), body, size))
        if len(out) > limits.max_entries:
            raise limits.refuse(f"{what}: members", len(out), "max_entries")
        pos = body + size + (size & 1)
    return out
