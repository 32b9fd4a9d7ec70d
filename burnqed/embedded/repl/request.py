"""Request lines for the embedded checker: from one JSON line to a protocol request model.

Pantograph reads either ``{"cmd": ..., "payload": {...}}`` or ``cmd {json}``; a line that is
neither, JSON nested past Python's stack, an unknown command or a payload its model refuses
gets the REPL's ``command`` error answer. Only the JSON-line loop (repl/server.py) calls this:
every other caller hands the checker request models.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from burnqed.lean.protocol import REQUEST_TYPES, ExprEcho, ReplErrorAnswer, Request

__all__ = ["decode_request", "request_of", "without_surrogates"]


def _command_error(desc: str) -> ReplErrorAnswer:
    return ReplErrorAnswer(error="command", desc=desc)


def _decode(text: str) -> Any | ReplErrorAnswer:
    try:
        return json.loads(text)
    except ValueError as exc:
        return _command_error(f"Unable to parse json: {exc}")
    except RecursionError:
        return _command_error("Unable to parse json: nested too deeply")


def decode_request(line: str) -> Request | ReplErrorAnswer:
    """The request model of one line, or the error answer the REPL gives for it."""
    text = line.strip()
    if text.startswith("{"):
        obj = _decode(text)
    else:
        cmd, _, rest = text.partition(" ")
        payload = _decode(rest) if rest.strip() else {}
        obj = payload if isinstance(payload, ReplErrorAnswer) else {"cmd": cmd, "payload": payload}
    return obj if isinstance(obj, ReplErrorAnswer) else request_of(obj)


def request_of(obj: Any) -> Request | ReplErrorAnswer:
    """The request model of a decoded request object ``{"cmd": ..., "payload": {...}}``."""
    if not isinstance(obj, dict) or not isinstance(obj.get("cmd"), str):
        return _command_error("Unable to parse json: expected an object with 'cmd' and 'payload'")
    cmd = obj["cmd"]
    if "payload" not in obj or not isinstance(obj["payload"], dict):
        return _command_error(f"Unable to parse json: missing field 'payload' in command {cmd}")
    payload = without_surrogates(obj["payload"])
    model = REQUEST_TYPES.get(cmd)
    if model is None:
        return _command_error(f"Unknown command {cmd}")
    if model is ExprEcho:
        # the embedded checker reads only `expr` of expr.echo (its answer's type is always Prop),
        # and has always answered a bad or missing `expr` with this message
        try:
            return ExprEcho.model_validate({"expr": payload["expr"]} if "expr" in payload else {})
        except ValidationError:
            return _command_error("Unable to parse payload of expr.echo: missing field 'expr'")
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        return _command_error(f"Unable to parse json: {where}: {first.get('msg')}")


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
