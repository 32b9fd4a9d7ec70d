"""The BLUEPRINT.md parser and writer round-trip and report line numbers."""

from __future__ import annotations

import pytest

from burnqed.blueprint import (
    BlueprintParseError,
    Entry,
    parse_blueprint,
    render_blueprint,
    render_entry,
)

ODD_FILE = """\
# My project blueprint

Some free text; a fenced example is not an entry:

```
# theorem not_an_entry
```

# theorem add_zero
intro text kept

## meta
-  label : add_zero
- uses:
- status: todo
- attempts: 0 / 3
- statement_sha: abc
- owner: someone   
- custom-field: x

## statement
```lean
∀ (n : Nat), n + 0 = n
```

## notes
free notes, *markdown*

## proof sketch
keep me
# lemma helper
## meta
- uses: add_zero
- status: done
- attempts: 1 / 2
## statement
∀ (a b : Nat), a + b = b + a
# iteration iter_0

## meta
- label: iter_0
- status: todo
- plan: {"train_set": "benchmark-train", "use_ebm": true}
"""


def test_unchanged_file_round_trips_byte_for_byte() -> None:
    blueprint = parse_blueprint(ODD_FILE)
    assert render_blueprint(blueprint) == ODD_FILE
    assert blueprint.labels() == ["add_zero", "helper", "iter_0"]


def test_file_without_trailing_newline_round_trips() -> None:
    text = ODD_FILE.rstrip("\n")
    assert render_blueprint(parse_blueprint(text)) == text


def test_fields_sections_and_statements_are_parsed() -> None:
    bp = parse_blueprint(ODD_FILE)
    thm = bp.find("add_zero")
    assert thm is not None
    assert thm.statement == "∀ (n : Nat), n + 0 = n"
    assert (thm.status, thm.attempts, thm.budget) == ("todo", 0, 3)
    assert thm.meta["owner"] == "someone"
    assert [s.name for s in thm.sections] == ["notes", "proof sketch"]
    helper = bp.find("helper")
    assert helper is not None and helper.uses == ("add_zero",) and helper.statement == "∀ (a b : Nat), a + b = b + a"
    it = bp.find("iter_0")
    assert it is not None and it.plan == {"train_set": "benchmark-train", "use_ebm": True}


def test_changing_one_entry_keeps_the_others_and_unknown_fields() -> None:
    bp = parse_blueprint(ODD_FILE)
    thm = bp.find("add_zero")
    assert thm is not None
    bp.replace(thm.with_meta(status="running", attempts="1 / 3"))
    text = render_blueprint(bp)
    # untouched entries are verbatim
    assert "# lemma helper\n## meta\n- uses: add_zero\n" in text
    assert text.startswith(ODD_FILE[: ODD_FILE.index("# theorem add_zero")])
    again = parse_blueprint(text)
    new = again.find("add_zero")
    assert new is not None
    assert new.status == "running" and new.meta["owner"] == "someone" and new.meta["custom-field"] == "x"
    assert [s.name for s in new.sections] == ["notes", "proof sketch"]
    assert "keep me" in text and new.statement == thm.statement
    # a canonical file round-trips too
    assert render_blueprint(again) == text


def test_new_entry_is_separated_by_a_blank_line() -> None:
    bp = parse_blueprint("# theorem a\n## meta\n- status: todo\n## statement\nTrue")
    bp.entries.append(Entry(kind="lemma", label="b", meta={"status": "todo"}, statement="False → False"))
    text = render_blueprint(bp)
    assert "True\n\n# lemma b\n" in text
    assert parse_blueprint(text).labels() == ["a", "b"]


def test_render_entry_is_parsed_back_to_the_same_entry() -> None:
    entry = Entry(kind="theorem", label="t.x'", meta={"label": "t.x'", "uses": "", "status": "todo"},
                  statement="∀ (x : Int), x = x")
    parsed = parse_blueprint(render_entry(entry)).find("t.x'")
    assert parsed is not None
    assert (parsed.meta, parsed.statement, parsed.kind) == (entry.meta, entry.statement, entry.kind)


@pytest.mark.parametrize(
    ("text", "line", "match"),
    [
        ("# theorem a\n## meta\nstatus todo\n", 3, "not '- key: value'"),
        ("# theorem a\n## meta\n- status: todo\n# bogus heading here\n", 4, "not '# <kind> <label>'"),
        ("# theorem a\n\n# theorem a\n", 3, "duplicate label"),
        ("# theorem a\n## meta\n- label: b\n", 1, "differs"),
        ("# theorem a\n## statement\n```lean\nTrue\n", 3, "unclosed"),
        ("# theorem a\n## meta\n- status: todo\n- status: done\n", 4, "twice"),
    ],
)
def test_malformed_files_raise_with_line_numbers(text: str, line: int, match: str) -> None:
    with pytest.raises(BlueprintParseError, match=match) as info:
        parse_blueprint(text, source="B.md")
    assert info.value.line == line
    assert f"B.md:{line}:" in str(info.value)
