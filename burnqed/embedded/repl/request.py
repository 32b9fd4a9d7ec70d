"""Request lines for the embedded checker: JSON decoding that never raises, strings made encodable.

Pantograph reads either ``{"cmd": ..., "payload": {...}}`` or ``cmd {json}``; a line that is
neither, or JSON nested past Python's stack, gets the REPL's ``command`` error answer.
"""

from __future__ import annotations

import json
from typing import Any

from burnqed.lean.protocol import ReplErrorAnswer

__all__ = ["decode_request", "without_surrogates"]


def _decode(text: str) -> Any | ReplErrorAnswer:
    try:
        return json.loads(text)
    except ValueError as exc:
        return ReplErrorAnswer(error="command", desc=f"Unable to parse json: {exc}")
    except RecursionError:
        return ReplErrorAnswer(error="command", desc="Unable to parse json: nested too deeply")


def decode_request(line: str) -> Any | ReplErrorAnswer:
    """The request object of one line (its shape is checked by the caller), or the error answer."""
    text = line.strip()
    if text.startswith("{"):
        return _decode(text)
    cmd, _, rest = text.partition(" ")
    payload = _decode(rest) if rest.strip() else {}
    if isinstance(payload, ReplErrorAnswer):
        return payload
    return {"cmd": cmd, "payload": payload}


def without_surrogates(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload with lone surrogates in its strings (and lists of strings) replaced by
    U+FFFD: a JSON escape like ``\\ud800`` decodes to one, which no answer could echo in
    UTF-8 (stdin itself is read with errors="replace"). Deeper values are never read."""

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in value)
        return value

    return {
        clean(k): [clean(x) for x in v] if isinstance(v, list) else clean(v)
        for k, v in payload.items()
    }
