"""Durable small writes every floor shares: a line appended to a log or ledger, a JSON file
replaced whole, a checkpoint's content hashes (imports nothing of ours)."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from pathlib import Path
from typing import Any

__all__ = ["CHECKSUMS_FILE", "append_line", "checksum_mismatches", "write_checksums", "write_json_atomic", "write_text_atomic"]

CHECKSUMS_FILE = "checksums.sha256"
"""A checkpoint's content hashes, in ``sha256sum`` format (``sha256sum -c`` checks them too)."""


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
