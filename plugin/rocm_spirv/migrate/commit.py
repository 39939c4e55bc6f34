"""`migrate --apply` for a whole project: all files or none, in an order that always configures.

1. Check every file is still what the scan read (size, mtime, sha256) and may be replaced.
2. Write the journal (state "staging"), then a complete, fsynced copy of each new file beside it
   (`.<name>.rocm-spirv-staged`, with the old file's mode and owner).
3. Check again, flip the journal to "commit" (the commit point), rename the staged files into place
   top-level CMakeLists.txt first, and remove the journal.
A run killed before the flip is rolled back by the next run (staged copies removed); one killed
after it is finished by the next run (the remaining renames), so no mix of old and new persists.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
from dataclasses import asdict, dataclass
from pathlib import Path

from rocm_spirv.errors import UserError
from rocm_spirv.fsutil import check_target, commit, stage, write_atomic
from rocm_spirv.migrate.scan import Stamp

JOURNAL = ".rocm-spirv-migrate.journal"
STAGED = ".rocm-spirv-staged"


@dataclass(frozen=True)
class JournalEntry:
    """One file of an --apply commit as the journal records it: the next run rolls a killed commit back
    or finishes it from these."""

    path: str  # relative, as reported
    real: str  # the file that changes (a symlink's target)
    staged: str
    old: str  # sha256 before
    new: str  # sha256 after


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _current(path: Path) -> tuple[os.stat_result, bytes] | None:
    try:
        with open(path, "rb") as f:
            return os.fstat(f.fileno()), f.read()
    except FileNotFoundError:
        return None


def _check_unchanged(rel: str, real: Path, stamp: Stamp) -> None:
    now = _current(real)
    if now is None or Stamp.of(now[0], now[1]) != stamp:
        raise UserError(f"{rel} changed while migrate ran (size, time or content differ from what was read); "
                        "nothing was written", "run migrate --apply again once nobody edits it")


def _write_journal(journal: Path, state: str, entries: list[JournalEntry]) -> None:
    write_atomic(journal, json.dumps({"state": state, "files": [asdict(e) for e in entries]}, indent=1) + "\n")


def apply_all(base: Path, changes: dict[str, tuple[bytes, bytes]], stamps: dict[str, Stamp],
              order: list[str]) -> None:
    journal = base / JOURNAL
    if journal.exists():
        raise UserError(f"an earlier migrate --apply in {base} did not finish ({journal})",
                        "run rocm-spirv migrate --apply again: it finishes or rolls that back first")
    entries: list[JournalEntry] = []
    targets = {}
    inside = Path(os.path.realpath(base))
    for rel in order:
        target = check_target(base / rel, rel)
        real = Path(os.path.realpath(target.path))
        if not real.is_relative_to(inside):
            # A cloned repository could point a link at any CMake file the user may write.
            raise UserError(f"refusing to edit {rel}: it links to {real}, outside the scanned folder {inside}; "
                            "nothing was written", "migrate the folder that holds it, or replace the link "
                            "with a copy")
        if target.existing is None or rel not in stamps:
            raise UserError(f"{rel} disappeared while migrate ran; nothing was written", "run migrate again")
        _check_unchanged(rel, target.path, stamps[rel])
        targets[rel] = target
        old, new = changes[rel]
        staged = target.path.parent / f".{target.path.name}{STAGED}"
        entries.append(JournalEntry(rel, str(target.path), str(staged), _sha(old), _sha(new)))
    try:
        _write_journal(journal, "staging", entries)
        for e in entries:
            Path(e.staged).unlink(missing_ok=True)
            stage(targets[e.path], changes[e.path][1], name=Path(e.staged).name)
        for e in entries:  # the last moment an edit made meanwhile can still be kept
            _check_unchanged(e.path, Path(e.real), stamps[e.path])
        # From the flip to the last rename, SIGTERM and Ctrl-C wait: the renames take milliseconds, and
        # a signal there would leave a half-committed tree for the next run to finish.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED)
    except BaseException:
        # Before the commit point (a signal, a full disk, an edit): no journal, no staged copy is left.
        _roll_back(entries)
        journal.unlink(missing_ok=True)
        raise
    try:
        _write_journal(journal, "commit", entries)
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        _roll_back(entries)
        journal.unlink(missing_ok=True)
        raise
    try:
        for done, e in enumerate(entries):
            # An edit made since the last check: stop before replacing it (the journal keeps the rest).
            now = _current(Path(e.real))
            if now is None or Stamp.of(now[0], now[1]) != stamps[e.path]:
                raise UserError(f"{e.path} changed while migrate --apply was replacing files; it was left as "
                                f"you saved it, {done} of {len(entries)} file(s) were replaced and the rest is "
                                f"staged and journaled in {journal}", "check that file, then delete the journal "
                                "and its staged copies (.*.rocm-spirv-staged) and run migrate --apply again")
            try:
                commit(Path(e.staged), Path(e.real))
            except OSError as err:
                # Past the commit point: the journal and the staged copies stay, for the next run.
                raise UserError(f"migrate --apply stopped after {done} of {len(entries)} file(s) at {e.path} "
                                f"({err.strerror}); the rest is staged and journaled in {journal}",
                                "fix the cause and run rocm-spirv migrate --apply again to finish") from None
        journal.unlink()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


_DEFERRED = {signal.SIGTERM, signal.SIGINT}


def _roll_back(entries: list[JournalEntry]) -> None:
    for e in entries:
        Path(e.staged).unlink(missing_ok=True)


def pending(base: Path) -> Path | None:
    journal = base / JOURNAL
    return journal if journal.exists() else None


def recover(base: Path) -> str | None:
    """Finish (after the commit point) or roll back (before it) an apply that was killed.
    Returns what was done, or None if nothing was pending."""
    journal = pending(base)
    if journal is None:
        return None
    try:
        doc = json.loads(journal.read_text(encoding="utf-8"))
        state = doc["state"]
        entries = [JournalEntry(**e) for e in doc["files"]]
    except (ValueError, KeyError, TypeError):
        raise UserError(f"{journal} is damaged, so an interrupted migrate --apply cannot be finished",
                        "check the CMake files it lists (git diff), then delete it") from None
    if state != "commit":
        _roll_back(entries)
        journal.unlink()
        return f"rolled back an interrupted migrate --apply ({len(entries)} file(s) left as they were)"
    for e in entries:
        real, staged = Path(e.real), Path(e.staged)
        now = _current(real)
        have = _sha(now[1]) if now is not None else None
        if have == e.new:
            staged.unlink(missing_ok=True)
        elif have == e.old and staged.exists():
            commit(staged, real)
        else:
            raise UserError(f"{e.path} changed after an interrupted migrate --apply, which cannot finish "
                            f"without losing that change (journal {journal})",
                            "check the file, then delete the journal and run migrate --apply again")
    journal.unlink()
    return f"finished an interrupted migrate --apply ({len(entries)} file(s))"
