"""Move burnqed/embedded/'s flat modules into wings that show its pipeline (issue 43).

A pure move, replayable on any tree: every module at the top of burnqed/embedded/ goes to
its wing (the explicit map, then the prefix rules for modules added since), with ``git mv``,
and every reference to it is rewritten: dotted names (``burnqed.embedded.X`` in imports and
strings), ``from burnqed.embedded import X``, paths (``burnqed/embedded/X.py``) and the bare
``X.py`` the embedded modules and their docs use. A module neither map places stops the run
before anything is touched, with the list to place.

Run from the repository root (the tree may have other work committed; nothing is
committed here)::

    python scripts/restructure_embedded.py          # moves and rewrites
    python scripts/restructure_embedded.py --plan   # prints the map, changes nothing

Replaying on a tree with newer work (the hand-made commits of issue 43 follow the move):

    git checkout wt-wings -- scripts/restructure_embedded.py
    python scripts/restructure_embedded.py --plan   # an unplaced module: add it to MAP or PREFIXES
    python scripts/restructure_embedded.py
    git add scripts/restructure_embedded.py burnqed/embedded && git add -u
    git commit -m "move: embedded into wings (scripts/restructure_embedded.py)"
    git cherry-pick <the hand commits>

Expect two conflicts there: repl/checker.py's block of tactic imports (drop it; a tactic module
added since gets its rows in tactics/table.py, which tests/embedded/test_tactic_table.py names)
and docs/embedded.md's module list (now "Wings").
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

PACKAGE = Path("burnqed/embedded")
# the package's own entry points and settings stay at its top, as in every package of burnqed
STAY = {"__init__", "__main__", "config"}

# wing → its docstring (the wing's __init__.py, written when the wing is new)
WINGS: dict[str, str] = {
    "syntax": "Surface syntax of the fragment: the lexer, the Pratt term parser and the tactic parser.",
    "elab": "Elaboration: surface syntax to typed terms, goals and proof states, Lean's arithmetic on closed terms, unification and the built-in lemmas' statements.",
    "tactics": "The tactic interpreter, the proof terms tactics elaborate, and the tactics; ``tactics.table`` lists every tactic the checker runs.",
    "decide": "Decision procedures and certificates: z3 (smt), sympy (polynomials), Mathlib's linarith preprocessing, the certificate search for the kernel's arith rule.",
    "bridge": "From the elaborator to the kernel: goals translated into kernel sequents, the check of a request's steps, kernel proofs of the built-in lemmas.",
    "repl": "The REPL front: the in-process Checker, the JSON-lines server, request decoding, frontend.process, answers, refusals, the request deadline, reference proofs checked in process.",
}

# old module → (wing, new module); names that would collide with the kernel's or the search's
# modules (arith, poly, terms, engine) are renamed for what they are
MAP: dict[str, tuple[str, str]] = {
    # syntax/: text → untyped syntax
    "lexer": ("syntax", "lexer"),
    "syntax": ("syntax", "parser"),
    "tactic_syntax": ("syntax", "tactic_parser"),
    "tactic_syntax_more": ("syntax", "tactic_parser_more"),
    "syntax_named": ("syntax", "parser_named"),
    "syntax_notation": ("syntax", "parser_notation"),
    # elab/: syntax → typed terms, goals, proof terms
    "elab": ("elab", "elaborate"),
    "elab_types": ("elab", "type_vars"),
    "terms": ("elab", "expr"),
    "state": ("elab", "state"),
    "unify": ("elab", "unify"),
    "lemmas": ("elab", "lemmas"),
    "arith": ("elab", "evaluate"),  # Lean's arithmetic on closed terms (unify's defeq uses it)
    # tactics/: the interpreter and every tactic
    "engine": ("tactics", "interpreter"),
    # proof terms are elaborated inside a tactic (exact, apply, have …): they build kernel proofs
    "proofterm": ("tactics", "proofterm"),
    "proofterm_base": ("tactics", "proofterm_base"),
    "proofterm_fun": ("tactics", "proofterm_fun"),
    "decide_bounded": ("tactics", "decide_bounded"),  # the decide tactic on a bounded ∀
    "simp": ("tactics", "simp"),
    "simp_prover": ("tactics", "simp_prover"),
    "lemma_use": ("tactics", "lemma_use"),
    "tactics_context": ("tactics", "hypotheses"),  # not context: kernel/context.py is the kernel's
    # decide/: decision procedures and certificates (untrusted: the kernel checks them)
    "poly": ("decide", "polynomials"),
    "smt": ("decide", "smt"),
    "linarith_pre": ("decide", "linarith_pre"),
    "certify": ("decide", "certify"),
    # bridge/: into the kernel (kernel/ itself stays where it is, standard library only)
    "bridge": ("bridge", "translate"),
    "lemma_proofs": ("bridge", "lemma_proofs"),
    # repl/: the front
    "checker": ("repl", "checker"),
    "verify": ("repl", "verify"),
    "server": ("repl", "server"),
    "request": ("repl", "request"),
    "frontend": ("repl", "frontend"),
    "snippet": ("repl", "snippet"),
    "answers": ("repl", "answers"),
    "refusal": ("repl", "refusal"),
    "deadline": ("repl", "deadline"),
}

# modules added since the map was written: (prefix, wing, new prefix); the rest of the name stays
PREFIXES: list[tuple[str, str, str]] = [
    ("tactics_", "tactics", ""),
    ("tactic_syntax_", "syntax", "tactic_parser_"),
    ("certify_", "decide", "certify_"),
    ("decide_", "tactics", "decide_"),
    ("proofterm_", "tactics", "proofterm_"),
    ("elab_", "elab", ""),
    ("simp_", "tactics", "simp_"),
]

# where references are rewritten (git-tracked text files under these)
SCOPES = ("burnqed", "tests", "servers", "coordinator", "scripts", "docs", ".ci", "pyproject.toml", "README.md")
SUFFIXES = {".py", ".md", ".toml", ".txt", ".yaml", ".yml", ".cfg", ".ini", ".sh", ""}
# bare ``X.py`` is rewritten only where it names an embedded module: not in the kernel (its own
# arith.py, poly.py, terms.py) nor its tests
BARE_SCOPES = ("burnqed/embedded/", "tests/embedded/", "docs/embedded.md", "docs/kernel.md", "docs/ARCHITECTURE.md")
BARE_SKIP = ("burnqed/embedded/kernel/", "tests/embedded/kernel/")


class RestructureError(Exception):
    """The tree cannot be moved as it is (an unplaced module, a target that exists)."""


def place(module: str) -> tuple[str, str] | None:
    """The wing and new name of a top-level module, or None when neither map places it."""
    if module in MAP:
        return MAP[module]
    for prefix, wing, new_prefix in PREFIXES:
        if module.startswith(prefix):
            return wing, new_prefix + module[len(prefix):]
    return None


def plan(root: Path) -> dict[str, tuple[str, str]]:
    """old module → (wing, new module) for every module at the top of burnqed/embedded/."""
    modules = sorted(p.stem for p in (root / PACKAGE).glob("*.py") if p.stem not in STAY)
    unplaced = [m for m in modules if place(m) is None]
    if unplaced:
        raise RestructureError("place these modules in MAP or PREFIXES first: " + ", ".join(unplaced))
    moves = {m: place(m) for m in modules}
    targets: dict[tuple[str, str], str] = {}
    for old, target in moves.items():
        assert target is not None
        if target in targets:
            raise RestructureError(f"{old} and {targets[target]} would both become {'/'.join(target)}.py")
        targets[target] = old
        if (root / PACKAGE / target[0] / f"{target[1]}.py").exists():
            raise RestructureError(f"{PACKAGE}/{target[0]}/{target[1]}.py exists already")
    return {m: t for m, t in moves.items() if t is not None}


def _from_import(moves: dict[str, tuple[str, str]]) -> re.Pattern[str]:
    return re.compile(r"^(?P<indent>[ \t]*)from burnqed\.embedded import (?P<names>\([^)]*\)|[^\n]*)", re.M)


def _rewrite_from_import(match: re.Match[str], moves: dict[str, tuple[str, str]]) -> str:
    """``from burnqed.embedded import a, b`` with a and b moved → one import per wing."""
    indent, names = match["indent"], match["names"]
    comment = ""
    body = names
    if body.startswith("("):
        inner = body[1:-1]
        comments = re.findall(r"#[^\n]*", body)
        comment = comments[0] if comments else ""
        inner = re.sub(r"#[^\n]*", "", inner)
    else:
        inner, _, rest = body.partition("#")
        comment = "#" + rest if rest else ""
    items = [n.strip() for n in inner.replace("\n", ",").split(",") if n.strip()]
    if not any(item.split(" as ")[0].strip() in moves for item in items):
        return match.group(0)
    kept: list[str] = []
    lines: list[str] = []
    for item in items:
        name, _, alias = (part.strip() for part in item.partition(" as "))
        if name not in moves:
            kept.append(item)
            continue
        wing, new = moves[name]
        bound = alias or name
        clause = new if bound == new else f"{new} as {bound}"
        lines.append(f"{indent}from burnqed.embedded.{wing} import {clause}")
    if kept:
        lines.insert(0, f"{indent}from burnqed.embedded import {', '.join(kept)}")
    suffix = f"  {comment.strip()}" if comment else ""
    return "\n".join(line + suffix for line in lines)


def rewrite(text: str, path: str, moves: dict[str, tuple[str, str]]) -> str:
    """The text with every reference to a moved module pointed at its wing."""
    names = "|".join(sorted(map(re.escape, moves), key=len, reverse=True))
    dotted = re.compile(rf"burnqed\.embedded\.({names})(?![\w])")
    text = dotted.sub(lambda m: "burnqed.embedded.{}.{}".format(*moves[m[1]]), text)
    slashed = re.compile(rf"(?<![\w/])((?:burnqed/)?embedded/)({names})\.py(?![\w])")
    text = slashed.sub(lambda m: "{}{}/{}.py".format(m[1], *moves[m[2]]), text)
    if path.endswith(".py"):
        text = _from_import(moves).sub(lambda m: _rewrite_from_import(m, moves), text)
    if path.startswith(BARE_SCOPES) and not path.startswith(BARE_SKIP):
        bare = re.compile(rf"(?<![\w/.\-])({names})\.py(?![\w])")
        text = bare.sub(lambda m: "{}/{}.py".format(*moves[m[1]]), text)
    return text


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def main(argv: list[str] | None = None) -> int:
    """Print the plan, or carry it out: wings, ``git mv``, references rewritten."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", action="store_true", help="print the map and change nothing")
    parser.add_argument("--root", type=Path, default=Path.cwd())
    args = parser.parse_args(argv)
    root = args.root.resolve()
    try:
        moves = plan(root)
    except RestructureError as e:
        print(f"restructure_embedded: {e}", file=sys.stderr)
        return 2
    for old, (wing, new) in moves.items():
        print(f"{PACKAGE}/{old}.py -> {PACKAGE}/{wing}/{new}.py")
    if args.plan or not moves:
        return 0
    for wing in sorted({wing for wing, _ in moves.values()}):
        init = root / PACKAGE / wing / "__init__.py"
        if not init.exists():
            init.parent.mkdir(exist_ok=True)
            init.write_text(f'"""{WINGS[wing]}"""\n\n__all__: list[str] = []\n', encoding="utf-8")
            _git(root, "add", str(init.relative_to(root)))
    for old, (wing, new) in moves.items():
        _git(root, "mv", f"{PACKAGE}/{old}.py", f"{PACKAGE}/{wing}/{new}.py")
    me = Path(__file__).resolve()
    changed = 0
    for path in _git(root, "ls-files", "--", *SCOPES).splitlines():
        file = root / path
        if not file.is_file() or file.resolve() == me or file.suffix not in SUFFIXES:
            continue
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new_text = rewrite(text, path, moves)
        if new_text != text:
            file.write_text(new_text, encoding="utf-8")
            changed += 1
    print(f"moved {len(moves)} modules into {len({w for w, _ in moves.values()})} wings; rewrote references in {changed} files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
