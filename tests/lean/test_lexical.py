"""burnqed.lean.lexical reads comments and literals as Lean's parser does (src/Lean/Parser/Basic.lean),
or refuses: golden cases for every form of issue 37, and a differential property test against an
independent reference reading (burnqed.embedded.soundness.lean_lexis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from burnqed.embedded.soundness.lean_lexis import (
    PIECES,
    LeanReadError,
    ours_spans,
    reference_spans,
    run_lexer_campaign,
)
from burnqed.lean.lexical import (
    AmbiguousText,
    ForbiddenCharacter,
    InvalidLiteral,
    LexError,
    MisplacedDocComment,
    UnterminatedComment,
    UnterminatedLiteral,
    blank_comments,
    lex,
)
from burnqed.lean.source import has_sorry, lean_tokens
from burnqed.lean.statement import StatementError, parse_file

ATTACK = "/--/ harmless\n-- -/ axiom cheat : (1 : ℕ) = 2\ntheorem t : (1 : ℕ) = 2 := by\n  exact cheat\n"


def kinds(text: str) -> list[tuple[str, str]]:
    return [(seg.kind, text[seg.start : seg.end]) for seg in lex(text) if seg.kind != "code"]


GOLDEN = [
    # (text, the non-code segments Lean reads)
    ("a -- b\nc", [("line_comment", "-- b")]),
    ("a /- b /- c -/ d -/ e", [("block_comment", "/- b /- c -/ d -/")]),
    # `/--/` opens a doc comment: its body starts at the `/`, so `/--/` does not close it
    ("/--/ x -/ theorem", [("doc_comment", "/--/ x -/")]),
    ("/-! m -/\ntheorem", [("module_doc", "/-! m -/")]),
    # `/-/` inside a comment opens a nested one: one `-/` is not enough
    ("/- a /-/ b -/ c -/ d", [("block_comment", "/- a /-/ b -/ c -/")]),
    # strings are not special inside comments, comments not inside strings
    ('/- " -/ x', [("block_comment", '/- "' + " -/")]),
    ('x "a -/ -- /-" y', [("string", '"a -/ -- /-"')]),
    ('x "a \\" -- b" y', [("string", '"a \\" -- b"')]),
    ('x "gap \\\n   rest" y', [("string", '"gap \\\n   rest"')]),
    ("x '-' '/' '\\'' y", [("char", "'-'"), ("char", "'/'"), ("char", "'\\''")]),
    ('x \'"\' y -- z', [("char", "'\"'"), ("line_comment", "-- z")]),
    ('r#"a"-- b"# c', [("string", 'r#"a"-- b"#')]),
    ('r"\\" -- c', [("string", 'r"\\"'), ("line_comment", "-- c")]),
    # a name: `«…»` may hold `--` and `/-`; `h'` is a name, not a character literal
    ("«a -- b».«/-» h' -- c", [("line_comment", "-- c")]),
    ("`r\"x\"", [("string", '"x"')]),
    ("2'a' x", [("char", "'a'")]),
    ("x--y", [("line_comment", "--y")]),
    ("f ⁻¹' s", []),
    ("f '' s", []),
]


@pytest.mark.parametrize(("text", "expected"), GOLDEN)
def test_golden_readings(text: str, expected: list[tuple[str, str]]) -> None:
    assert kinds(text) == expected
    assert [(k if k in ("string", "char") else "comment") for k, _ in expected] == [k for k, _, _ in reference_spans(text)]


REFUSED = [
    ("/- never closed", UnterminatedComment),
    ("/--/", UnterminatedComment),
    ("/--/-/", UnterminatedComment),
    ('"never closed', UnterminatedLiteral),
    ('"bad \\q escape"', InvalidLiteral),
    ("'ab'", InvalidLiteral),
    ("«open", UnterminatedLiteral),
    ("«a\nb»", AmbiguousText),
    ("a <-- b", AmbiguousText),  # `<-` then `-` in Lean: the token table decides
    ("a \\/- b -/", AmbiguousText),
    ("a //- b -/", AmbiguousText),
    ("x ⁻¹'a'", AmbiguousText),
    ("theorem\tx", ForbiddenCharacter),
    ("x\r\ny", ForbiddenCharacter),
    ("x\u00a0y", ForbiddenCharacter),
    ("1_000", AmbiguousText),
    ("2e", InvalidLiteral),
    ("0x", InvalidLiteral),
    ("x /-- d -/ y", MisplacedDocComment),
    ("theorem t : 1 = 1 := by\n  /-- d -/ rfl", MisplacedDocComment),
    ("x /-! m -/\ntheorem", MisplacedDocComment),
]


@pytest.mark.parametrize(("text", "error"), REFUSED)
def test_uncertain_or_erroneous_text_is_refused(text: str, error: type[LexError]) -> None:
    with pytest.raises(error):
        lex(text)
    with pytest.raises(StatementError):  # every consumer sees a StatementError
        blank_comments(text)


def test_issue_37_attack_reads_the_axiom_as_code() -> None:
    clean = blank_comments(ATTACK)
    assert "axiom cheat" in clean
    assert len(clean) == len(ATTACK) and clean.count("\n") == ATTACK.count("\n")
    with pytest.raises(StatementError, match="second command|axiom"):
        parse_file(ATTACK)


@pytest.mark.parametrize("word", ["sorry", "native_decide"])
def test_hidden_tactic_is_seen(word: str) -> None:
    text = f"theorem t : 1 = 1 := by\n  /--/\n  -- -/ {word}\n"
    with pytest.raises(StatementError):  # the doc comment precedes a tactic: Lean's error, our refusal
        blank_comments(text)
    inline = f"theorem t : 1 = 1 := by\n  simp /- a /-/ -/ {word} -/\n"
    assert word not in blank_comments(inline)
    assert has_sorry('theorem t : "sorry" = "" := by\n  sorry\n')
    assert not has_sorry('theorem t : "sorry" = "" := by\n  rfl -- sorry\n')


def test_tokens_keep_literals_whole() -> None:
    assert lean_tokens('f "a -- b" \'-\' x') == ["f", '"a -- b"', "'-'", "x"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=16).map("".join))
def test_differential_against_the_reference_reading(text: str) -> None:
    """Wherever ours accepts, Lean (the reference) reads the same comments and literals."""
    try:
        mine = ours_spans(text)
    except LexError:
        return  # refusing is always allowed
    try:
        theirs = reference_spans(text)
    except LeanReadError as exc:
        pytest.fail(f"ours accepts {text!r}, Lean errors: {exc}")
    assert mine == theirs, text


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=16).map("".join))
def test_reference_errors_are_refused(text: str) -> None:
    """Where Lean's reading of comments and literals is an error, ours refuses too."""
    try:
        reference_spans(text)
    except LeanReadError:
        with pytest.raises(LexError):
            lex(text)


def test_lexer_campaign_has_no_false_acceptance() -> None:
    tally = run_lexer_campaign(2000, seed=7)
    assert tally.attempts == 2005 and tally.accepted > 50
    assert tally.false_accepted == []


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40) | st.lists(st.sampled_from(PIECES)).map("".join))
def test_any_text_is_read_or_refused_with_a_lex_error(text: str) -> None:
    """No other exception escapes: consumers catch StatementError and refuse."""
    try:
        segments = lex(text)
    except LexError:
        return
    # the segments tile the text, in order
    assert [s.start for s in segments[1:]] == [s.end for s in segments[:-1]]
    assert (segments[0].start if segments else 0) == 0 and (segments[-1].end if segments else 0) == len(text)
