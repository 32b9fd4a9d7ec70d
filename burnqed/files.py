"""Durable small writes every floor shares: a line appended to a log or ledger, a JSON file
replaced whole, a checkpoint's content hashes (imports nothing of ours)."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = [
    "CHECKSUMS_FILE",
    "DiskFull",
    "append_line",
    "checksum_mismatches",
    "disk_errno",
    "json_object_problem",
    "saving",
    "write_checksums",
    "write_json_atomic",
    "write_text_atomic",
]

# a full disk, an exhausted quota, a read-only filesystem: nothing the program can do but stop
_DISK_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS)
# how libraries that write from Rust or C++ say so without an OSError (safetensors:
# "I/O error: No space left on device (os error 28)"; torch's writer keeps only the text)
_OS_ERROR_CODE = re.compile(r"os error (\d+)")
_DISK_TEXTS = {os.strerror(code): code for code in _DISK_ERRNOS}
# less free than this after a failed save (a few pages): the disk filled
_NEARLY_FULL_BYTES = 64 * 1024

CHECKSUMS_FILE = "checksums.sha256"
"""A checkpoint's content hashes, in ``sha256sum`` format (``sha256sum -c`` checks them too)."""


class DiskFull(OSError):
    """A save that failed for a full disk, a quota or a read-only filesystem: one line naming
    the path and the way out (``str()`` is that line; ``filename`` is the path)."""

    def __init__(self, code: int, path: str | Path, way_out: str) -> None:
        super().__init__(code, os.strerror(code), str(path))
        self.way_out = way_out

    def __str__(self) -> str:
        return f"{self.strerror} while saving {self.filename}; {self.way_out}"


def disk_errno(exc: BaseException | None) -> int | None:
    """The errno of a full disk, quota or read-only filesystem behind ``exc`` (an OSError, a
    library's error that only quotes the OS text, its causes, its exception group), or None."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in _DISK_ERRNOS:
            return exc.errno
        if isinstance(exc, BaseExceptionGroup):
            for inner in exc.exceptions:
                found = disk_errno(inner)
                if found is not None:
                    return found
        text = str(exc)
        match = _OS_ERROR_CODE.search(text)
        if match is not None and int(match.group(1)) in _DISK_ERRNOS:
            return int(match.group(1))
        for words, code in _DISK_TEXTS.items():
            if words in text:
                return code
        exc = exc.__cause__ or exc.__context__
    return None


@contextmanager
def saving(path: str | Path, way_out: str, *, cleanup: Path | None = None) -> Iterator[None]:
    """Save a checkpoint (or any large file) at ``path`` in the block: a full disk (or quota,
    read-only filesystem), however the writing library reports it, becomes ``DiskFull`` naming
    ``path`` and ``way_out``, and the half-written ``cleanup`` (a temp file or folder) is removed
    so the failed save holds no space."""
    try:
        yield
    except DiskFull:
        _remove(cleanup)
        raise
    except Exception as exc:
        code = disk_errno(exc) or _filesystem_full(Path(path))
        if code is None:
            raise
        _remove(cleanup)
        raise DiskFull(code, path, way_out) from exc


def _filesystem_full(path: Path) -> int | None:
    """ENOSPC / EROFS when the filesystem of ``path`` has (almost) no space left or is read-only,
    asked after a failed save whose library kept no errno (torch.save: "unexpected pos 64 vs 0");
    the half-written file still holds what it got, so a full disk reads as full here."""
    folder = path
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        stat = os.statvfs(folder)
    except OSError:
        return None
    if stat.f_flag & os.ST_RDONLY:
        return errno.EROFS
    return errno.ENOSPC if stat.f_bavail * stat.f_frsize < _NEARLY_FULL_BYTES else None


def _remove(path: Path | None) -> None:
    if path is None:
        return
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_checksums(directory: Path, names: list[str]) -> Path:
    """Record the SHA-256 of ``directory``'s files ``names`` in its CHECKSUMS_FILE (atomically)."""
    lines = [f"{_sha256(directory / name)}  {name}" for name in sorted(names)]
    path = directory / CHECKSUMS_FILE
    write_text_atomic(path, "\n".join(lines) + "\n")
    return path


def checksum_mismatches(directory: Path) -> list[str]:
    """The files of ``directory`` whose content no longer matches its CHECKSUMS_FILE (a missing
    or unreadable one included); empty when they all match or no hashes were recorded (an older
    checkpoint)."""
    path = directory / CHECKSUMS_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError):
        return [CHECKSUMS_FILE]
    bad: list[str] = []
    for line in text.splitlines():
        expected, _, name = line.partition("  ")
        if not name:
            continue
        try:
            if _sha256(directory / name) != expected:
                bad.append(name)
        except OSError:
            bad.append(name)
    return bad


def json_object_problem(path: Path) -> str | None:
    """Why ``path`` (a file that is there) does not read as a JSON object, on one line with the
    error's kind (``PermissionError: …``, ``JSONDecodeError: …``); None when it does."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        text = (str(exc).strip().splitlines() or [""])[0]
        return f"{type(exc).__name__}: {text}".rstrip(": ")
    return None if isinstance(value, dict) else "not a JSON object"


def append_line(path: Path, text: str) -> None:
    """Append ``text`` as one line, flushed and fsynced. After a torn last line (a kill
    mid-write) it starts a fresh line, so the torn one costs only itself."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as fh:
        torn = fh.tell() > 0 and _last_byte(path) != b"\n"
        fh.write((("\n" if torn else "") + text + "\n").encode("utf-8"))
        fh.flush()
        os.fsync(fh.fileno())


def write_json_atomic(path: Path, value: Any, *, indent: int | None = None, sort_keys: bool = False) -> None:
    """Write JSON to ``path`` so that readers see the old file or the whole new one."""
    write_text_atomic(path, json.dumps(value, indent=indent, sort_keys=sort_keys, ensure_ascii=False, default=str))


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the whole new one (a temp
    file of its own beside it, fsynced, then renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)  # a full disk leaves no half-written temp file behind
        raise


def _last_byte(path: Path) -> bytes:
    with path.open("rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1)
