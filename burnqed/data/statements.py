"""A user's own statement file, as they have it: a ``.lean`` file of theorems, or JSON Lines.

- ``.lean``: the header (everything before the first ``theorem``/``lemma``/``example`` at
  column 0) is kept for every theorem; each theorem ends in ``:= by sorry``, ``:= sorry`` or
  ``:= by`` (a statement), or in a tactic proof (kept as its reference proof, a warm start);
  the names are the file's (an ``example`` is named ``example_L<line>``).
- ``.jsonl``: read by ``load_theorems`` (``{name, statement}`` records, the miniF2F format),
  where a line may also be a bare JSON string (a statement, named ``line<N>``).

A theorem that cannot be read is reported (line, reason) and skipped, never the end of the file.
"""

from __future__ import annotations

from pathlib import Path

from burnqed.data.theorems import Theorem, TheoremSetError, load_theorems, read_text
from burnqed.lean.source import StatementError, has_sorry, strip_comments
from burnqed.lean.statement import parse_file, parse_header, parse_theorem

__all__ = ["read_lean_theorems", "read_statement_file"]

_KEYWORDS = ("theorem", "lemma", "example")


def read_statement_file(path: str | Path) -> tuple[list[Theorem], list[tuple[int, str]]]:
    """The theorems of a ``.lean`` or ``.jsonl`` statement file and the (line, reason) of those skipped."""
    path = Path(path)
    skipped: list[tuple[int, str]] = []
    if path.suffix == ".lean":
        theorems = read_lean_theorems(read_text(path, "statement file"), source=path.stem, skipped=skipped)
    else:
        theorems = load_theorems(path, skipped=skipped)
    return theorems, skipped


def read_lean_theorems(text: str, *, source: str = "", skipped: list[tuple[int, str]] | None = None) -> list[Theorem]:
    """The theorems of a Lean file's text, each with the file's header; see the module docstring."""
    skipped = skipped if skipped is not None else []
    lines = text.splitlines()
    # a declaration starts at column 0 with its keyword (comments blanked out first: a
    # commented-out theorem is no theorem); its block runs to the next column-0 line
    clean = strip_comments(text).splitlines()
    starts = [i for i, line in enumerate(clean) if line[:1].strip() and line.split()[0] in _KEYWORDS]
    if not starts:
        raise TheoremSetError("the file has no theorem (`theorem NAME … := by sorry` at column 0)")
    header_text = "\n".join(lines[: _header_end(lines, starts[0])]).strip() or None
    try:
        parse_header(header_text)
    except StatementError as exc:
        raise TheoremSetError(f"the file's header is refused: {exc}") from exc
    theorems: list[Theorem] = []
    seen: set[str] = set()
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        stop = next((j for j in range(start + 1, end) if clean[j][:1].strip()), end)
        for j in range(stop, end):
            if clean[j].strip():
                skipped.append((j + 1, f"`{clean[j].strip()[:60]}` between theorems is not read"))
                break
        block = "\n".join(lines[start:stop])
        try:
            theorem = _theorem(block, start + 1, header_text, source)
        except (StatementError, ValueError) as exc:
            skipped.append((start + 1, str(exc)))
            continue
        if theorem.name in seen:
            skipped.append((start + 1, f"duplicate theorem name {theorem.name!r}"))
            continue
        seen.add(theorem.name)
        theorems.append(theorem)
    return theorems


def _header_end(lines: list[str], first: int) -> int:
    """Where the header ends: before the first declaration, less a doc comment (``/-- … -/``) that is the theorem's."""
    end = first
    while end > 0 and not lines[end - 1].strip():
        end -= 1
    if end > 0 and lines[end - 1].rstrip().endswith("-/"):
        for j in range(end - 1, -1, -1):
            if lines[j].lstrip().startswith("/--"):
                return j
    return first


def _theorem(block: str, lineno: int, header: str | None, source: str) -> Theorem:
    """One declaration block as a Theorem: a statement (``sorry``/``by``), or a statement and its tactic proof."""
    proof: list[str] | None = None
    try:
        decl = parse_theorem(block)
    except StatementError:
        # a proved theorem: its tactics are a reference proof; anything else is refused as it is
        parsed = parse_file(block)
        decl = parsed.decl
        if any(has_sorry(t) for t in parsed.tactics):
            raise StatementError(f"{decl.name or 'the example'}: a proof with `sorry` in it is neither a statement nor a proof") from None
        proof = list(parsed.tactics)
    name = decl.name or f"example_L{lineno}"
    return Theorem(name=name, statement=decl.render(name), header=header, proof=proof, source=source)
