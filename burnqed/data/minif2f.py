"""The field's benchmark format: miniF2F (and the like) as DeepSeek-Prover, Goedel-Prover and Kimina ship it.

One JSON object per line::

    {"name": "mathd_algebra_10", "split": "test",
     "informal_prefix": "/-- Show that ... -/\\n",
     "formal_statement": "theorem mathd_algebra_10 : abs ((120 : ℝ) / 100 * 30 - 130 / 100 * 20) = 10 := by\\n",
     "goal": "⊢ |120 / 100 * 30 - 130 / 100 * 20| = 10",
     "header": "import Mathlib\\nimport Aesop\\n\\nset_option maxHeartbeats 400000\\n\\nopen BigOperators Real Nat Topology Rat\\n\\n"}

``id`` may stand for ``name``. Goedel-Prover-V2's file has no ``header`` field: its
``formal_statement`` starts with the header (imports, ``set_option``, ``open``, a doc comment)
and the theorem follows; the two are split here (burnqed.lean.statement.split_statement).
Each line becomes a Theorem that keeps the header and the theorem-form statement, so the
lock hash covers both; a statement that carries a proof or is a ``def`` (ProofNet asks for
some structures as data), a header the rules of burnqed.lean.statement.parse_header refuse,
or a missing field is refused with the line's number. ``load_theorems`` reads such files as
they are (``split=`` keeps one split); ``burnqed data import`` skips what it cannot take and
names each line.
"""

from __future__ import annotations

from typing import Any

from burnqed.lean.statement import StatementError, parse_header, parse_theorem, split_statement, strip_comments

__all__ = ["is_minif2f_record", "minif2f_fields"]


def is_minif2f_record(obj: Any) -> bool:
    """Whether a decoded line is in the benchmark format (a formal_statement, no burnqed statement)."""
    return isinstance(obj, dict) and "formal_statement" in obj and "statement" not in obj


def _informal(text: Any) -> str | None:
    if not isinstance(text, str) or not text.strip():
        return None
    body = text.strip()
    if body.startswith("/--"):
        body = body[3:]
    if body.endswith("-/"):
        body = body[:-2]
    return body.strip() or None


def minif2f_fields(obj: Any, *, source: str = "minif2f") -> dict[str, Any]:
    """The Theorem fields of one benchmark record; ValueError says what is wrong with it."""
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    name = obj.get("name", obj.get("id"))
    if not isinstance(name, str) or not name.strip():
        raise ValueError("needs a `name` (or `id`) string")
    statement = obj.get("formal_statement")
    if not isinstance(statement, str) or not statement.strip():
        raise ValueError(f"{name}: needs a `formal_statement` string")
    header = obj.get("header")
    if header is not None and not isinstance(header, str):
        raise ValueError(f"{name}: `header` must be a string")
    split = obj.get("split")
    if split is not None and not isinstance(split, str):
        raise ValueError(f"{name}: `split` must be a string")
    own_header, statement = split_statement(statement)
    if own_header is not None:
        if header is not None and header.strip():
            raise ValueError(f"{name}: a header both in `header` and at the start of `formal_statement`")
        try:
            header = parse_header(own_header).render()
        except StatementError as exc:
            raise ValueError(f"{name}: {exc}") from exc
    first = strip_comments(statement).split(maxsplit=2)[:2]
    if first[:1] == ["def"] or first == ["noncomputable", "def"]:
        raise ValueError(
            f"{name}: the statement is a `def` (it asks for data, such as a structure, not a proof of a "
            "proposition); burnqed proves theorems"
        )
    try:
        decl = parse_theorem(statement)
        parse_header(header)
    except StatementError as exc:
        raise ValueError(f"{name}: {exc}") from exc
    if decl.name is not None and decl.name != name:
        # the lock names the theorem; a mismatch is kept (some sets rename) but must be visible
        source = f"{source}:{decl.name}"
    return {
        "name": name.strip(),
        "statement": statement.strip(),
        "header": header.strip() if header and header.strip() else None,
        "split": split,
        "informal": _informal(obj.get("informal_prefix")),
        "source": source,
        "tags": [split] if split else [],
    }
