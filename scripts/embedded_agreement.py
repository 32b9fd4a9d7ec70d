"""How many Lean-checked proofs the embedded checker accepts (issue 25's measurement).

Usage::

    PYTHONPATH=$PWD python scripts/embedded_agreement.py PROOFS [--timeout-ms 60000] [--json] [--prefixes]

``PROOFS`` is a JSON Lines file of proofs that real Lean 4 + Mathlib accepted (one record per
theorem, the whole file text under ``correct_proof``, ``proof``, ``formal_proof`` or
``full_proof``), or a folder of ``.lean`` files (one theorem each). Such files are public
releases of other provers (e.g. Kimina-Prover-Preview's ``minif2f_test_solved.zip``); measure
against them, never copy them into this repository.

Each file goes through the embedded checker's ``frontend.process`` (imports read as the
header). A theorem whose statement is outside the fragment is counted apart; the others are
``accepted`` (no error, no sorry) or ``refused``, the refusals grouped by the first line of
their first error message. Every proof here was accepted by Lean, so each refusal is a
completeness gap and never a soundness question.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

from burnqed.embedded import Checker
from burnqed.lean.protocol import FrontendProcess, OptionsSet, ReplErrorAnswer

PROOF_KEYS = ("correct_proof", "formal_proof", "full_proof", "proof")
OUTSIDE = "outside the embedded fragment"


def load(path: Path) -> list[tuple[str, str]]:
    """(name, file text) for every proof under ``path``."""
    if path.is_dir():
        return [(p.stem, p.read_text(encoding="utf-8")) for p in sorted(path.rglob("*.lean"))]
    out: list[tuple[str, str]] = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        rec = json.loads(line)
        text = next((rec[k] for k in PROOF_KEYS if isinstance(rec.get(k), str)), None)
        if text is None:
            continue
        m = re.search(r"\b(?:theorem|lemma)\s+(\S+)", text)
        out.append((str(rec.get("name") or (m.group(1) if m else f"#{i}")), text))
    return out


def check(checker: Checker, text: str) -> tuple[str, str]:
    """("accepted" | "refused" | "outside", first error line)."""
    ans = checker.frontend_process(FrontendProcess(file=text, read_header=True))
    if isinstance(ans, ReplErrorAnswer):
        return "refused", f"{ans.error}: {ans.desc[:100]}"
    errors = [m.data for u in ans.units for m in u.errors]
    if any(OUTSIDE in e for e in errors):
        return "outside", next(e for e in errors if OUTSIDE in e).splitlines()[0][:120]
    if errors:
        return "refused", errors[0].splitlines()[0][:120]
    if any(u.goals for u in ans.units):
        return "refused", "goals left open"
    return "accepted", ""


def prefixes(text: str) -> list[str]:
    """The strict prefixes of a ``:= by`` proof: the file cut before each later tactic line
    (blank and comment lines are no cut points, nor a line starting with ``<;>``, which
    continues the tactic before it). Lean refuses each one (issue 37's over-credit check)."""
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if re.search(r":=\s*by\b", line)), None)
    if start is None:
        return []
    out = []
    for j in range(start + 1, len(lines)):
        rest = [x for x in lines[j:] if x.strip() and not x.strip().startswith("--")]
        if not rest:
            break
        head = lines[j].strip()
        if head and not head.startswith(("--", "<;>")):
            out.append("\n".join(lines[:j]))
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the acceptance rate of the in-fragment proofs and the refusals by cause."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("proofs", type=Path)
    ap.add_argument("--timeout-ms", type=int, default=60000, help="per file, the checker's request timeout")
    ap.add_argument("--only", default=None, help="a regular expression the theorem name must match")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of text")
    ap.add_argument("--prefixes", action="store_true", help="also check that every strict prefix of an accepted proof is refused")
    args = ap.parse_args(argv)
    try:
        proofs = load(args.proofs)
    except (OSError, ValueError) as exc:
        print(f"embedded_agreement: cannot read {args.proofs}: {exc}", file=sys.stderr)
        return 2
    checker = Checker()
    checker.options_set(OptionsSet(timeout=args.timeout_ms))
    rows = []
    for name, text in proofs:
        if args.only and not re.search(args.only, name):
            continue
        verdict, why = check(checker, text)
        checker.reset()
        row: dict = {"name": name, "verdict": verdict, "why": why}
        if args.prefixes and verdict == "accepted":
            cuts = prefixes(text)
            row["prefixes"], row["prefixes_accepted"] = len(cuts), 0
            for cut in cuts:
                row["prefixes_accepted"] += check(checker, cut)[0] == "accepted"
                checker.reset()
        rows.append(row)
    inside = [r for r in rows if r["verdict"] != "outside"]
    accepted = [r for r in inside if r["verdict"] == "accepted"]
    causes = Counter(r["why"] for r in inside if r["verdict"] == "refused")
    summary = {
        "files": len(rows),
        "inside_fragment": len(inside),
        "accepted": len(accepted),
        "rate": round(len(accepted) / len(inside), 3) if inside else None,
        "refused": [r for r in inside if r["verdict"] == "refused"],
        "refusal_causes": dict(causes.most_common()),
    }
    if args.prefixes:
        summary["prefixes"] = sum(r.get("prefixes", 0) for r in rows)
        summary["prefixes_accepted"] = sum(r.get("prefixes_accepted", 0) for r in rows)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=1))
        return 0
    print(f"{len(accepted)}/{len(inside)} in-fragment proofs accepted ({len(rows)} files)")
    if args.prefixes:
        print(f"{summary['prefixes_accepted']} of {summary['prefixes']} strict prefixes accepted (Lean refuses each)")
    for r in summary["refused"]:
        print(f"  refused {r['name']}: {r['why']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
