"""The tactic policy: which tactics and statements the tools accept.

A tool call that reaches outside the proof — running commands (``#eval``, ``run_cmd``),
meta-programs (``run_tac``, ``macro``, ``elab``), IO, ``unsafe`` code, ``set_option``,
imports, new axioms, ``open … in`` tricks — is refused before it gets to Lean. The rules
are a deny-list of named regexes (ToolsConfig.denied_patterns, plus
extra_denied_patterns, minus allowed_patterns); ``sorry``/``admit`` are refused unless
ToolsConfig.allow_sorry. Comments and string literals are checked too, on purpose: the
policy reads text, not Lean syntax, and errs on the side of refusing.

A statement comes in every form ``burnqed prove``, the benchmark importers and the tools'
descriptions accept: a proposition (``∀ (n : Nat), n + 0 = n``), binder form (``(x : ℕ) (h : 0 <
x) : 1 ≤ x``) or theorem form (``theorem t (x : ℕ) (h : 0 < x) : 1 ≤ x := by``, ``lemma``,
``example``, a trailing ``:= by sorry`` included). Theorem form is read as one declaration by
burnqed.lean.statement.parse_theorem (a second declaration, a proof or anything after ``:= by``
is refused there), and the rules then run on its name and signature: the ``declaration`` rule
refuses a second declaration, not the one the form is made of.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from pydantic import BaseModel, ConfigDict

from burnqed.lean.statement import StatementError, is_theorem_form, parse_header, parse_theorem
from burnqed.tools.common.config import ToolsConfig
from burnqed.tools.common.errors import InvalidInput, PolicyViolation

__all__ = ["STATEMENT_EXAMPLES", "STATEMENT_FORMS", "PolicyVerdict", "TacticPolicy", "normalise_blanks"]

STATEMENT_EXAMPLES = (
    "∀ (n : Nat), n + 0 = n",
    "(x : ℕ) (h : 0 < x) : 1 ≤ x",
    "theorem t (x : ℕ) (h : 0 < x) : 1 ≤ x := by",
)
"""One statement of each form the tools accept: proposition, binder form, theorem form."""

STATEMENT_FORMS = (
    f"a Lean 4 proposition, e.g. '{STATEMENT_EXAMPLES[0]}', binders then a type, e.g. '{STATEMENT_EXAMPLES[1]}', "
    f"or one theorem, lemma or example in theorem form, e.g. '{STATEMENT_EXAMPLES[2]}'"
)
"""How a tool's ``statement`` parameter reads (each example is called over stdio by the tests)."""

# every spelling of "assume the goal": the tactics, the axiom behind them, and the
# elaborator's helpers (a «sorry» in guillemets is the same identifier)
_SORRY = re.compile(r"\b(sorry\w*|admit|admitGoal)\b|«\s*sorry\s*»")
# what theorem form is made of: its keyword (the declaration rule) and a `:= by sorry` ending
_FORM_RULES = frozenset({"declaration", "sorry"})
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def normalise_blanks(text: str) -> str:
    """A client's text with Windows/old-Mac line ends as newlines and tabs as spaces: whitespace, not content."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")


class PolicyVerdict(BaseModel):
    """Whether a text is allowed, and if not which rule denied it."""

    model_config = ConfigDict(frozen=True)

    allowed: bool
    rule: str | None = None


class TacticPolicy:
    """Deny-list policy over tactic and statement text."""

    def __init__(self, config: ToolsConfig) -> None:
        self.config = config
        patterns = {**config.denied_patterns, **config.extra_denied_patterns}
        for name in config.allowed_patterns:
            patterns.pop(name, None)
        self._rules: list[tuple[str, re.Pattern[str]]] = [(name, re.compile(rx)) for name, rx in patterns.items()]
        if not config.allow_sorry:
            self._rules.append(("sorry", _SORRY))

    @property
    def rules(self) -> list[str]:
        """Names of the active deny rules."""
        return [name for name, _ in self._rules]

    def verdict(self, text: str, skip: frozenset[str] = frozenset()) -> PolicyVerdict:
        """Check ``text`` against the deny rules but ``skip`` (NFKC-normalised first, so look-alike letters do not slip through)."""
        normal = unicodedata.normalize("NFKC", text)
        for name, rx in self._rules:
            if name not in skip and rx.search(normal):
                return PolicyVerdict(allowed=False, rule=name)
        return PolicyVerdict(allowed=True)

    def _check_size(self, kind: Literal["tactic", "statement"], stripped: str) -> None:
        """InvalidInput for an empty, overlong or control-character text."""
        limit = self.config.max_tactic_chars if kind == "tactic" else self.config.max_statement_chars
        if not stripped:
            raise InvalidInput(f"empty {kind}")
        if len(stripped) > limit:
            raise InvalidInput(f"{kind} longer than {limit} characters")
        if _CONTROL.search(stripped):
            raise InvalidInput(f"{kind} contains control characters")

    def check(self, kind: Literal["tactic", "statement"], text: str) -> str:
        """Return ``text`` stripped if allowed; raise InvalidInput or PolicyViolation otherwise."""
        # a tab or a Windows line end is whitespace, not a control character: normalised, not refused
        text = normalise_blanks(text)
        stripped = text.strip()
        self._check_size(kind, stripped)
        verdict = self.verdict(stripped)
        if not verdict.allowed:
            raise PolicyViolation(kind, verdict.rule or "?")
        return stripped

    def check_tactic(self, tactic: str) -> str:
        """A tactic the policy allows (stripped), else PolicyViolation."""
        return self.check("tactic", tactic)

    def check_header(self, header: str) -> str:
        """A statement's file header (stripped) under the one header rule set the benchmark importer
        and the pool use (burnqed.lean.statement.parse_header), else InvalidInput naming the command.

        The deny-list is for statements and tactics: a header is made of imports and
        ``set_option`` lines by nature, so it is read as Lean commands, not searched for words.
        """
        stripped = header.strip()
        if len(stripped) > self.config.max_statement_chars:
            raise InvalidInput(f"header longer than {self.config.max_statement_chars} characters")
        if _CONTROL.search(stripped):
            raise InvalidInput("header contains control characters")
        try:
            parse_header(stripped)
        except StatementError as exc:
            raise InvalidInput(str(exc)) from exc
        return stripped

    def check_statement(self, statement: str) -> str:
        """A statement the policy allows (stripped), else PolicyViolation or InvalidInput.

        Theorem form is parsed as exactly one declaration first (InvalidInput naming what is
        wrong otherwise); its keyword and trailing ``:= by`` / ``:= by sorry`` are the form, not
        content, so the rules check its name and signature, where a second ``theorem`` or a
        ``sorry`` is still refused.
        """
        text = normalise_blanks(statement).strip()
        if not is_theorem_form(text):
            return self.check("statement", statement)
        self._check_size("statement", text)
        try:
            decl = parse_theorem(text)
        except StatementError as exc:
            raise InvalidInput(f"statement: {exc}") from exc
        # the whole text (comments included) under every rule but the two the form itself trips
        verdict = self.verdict(text, skip=_FORM_RULES)
        if not verdict.allowed:
            raise PolicyViolation("statement", verdict.rule or "?")
        self.check("statement", f"{decl.name or ''}\n{decl.proposition}")
        return text
