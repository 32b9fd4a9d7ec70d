"""BlueprintStore: registration, locks, status updates, iterations and concurrent writers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from burnqed.blueprint import (
    BlueprintConfig,
    BlueprintError,
    BlueprintStore,
    BlueprintValidationError,
    DuplicateLabel,
    InvalidTransition,
    IterationSpec,
    StatementLocked,
    UnknownLabel,
    check_locks,
    parse_blueprint,
)
from burnqed.data.theorems import statement_sha
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.fixture
def store(tmp_path: Path) -> BlueprintStore:
    return BlueprintStore(tmp_path / "BLUEPRINT.md")


def test_register_then_get_and_list(store: BlueprintStore) -> None:
    entry = store.register_target("theorem", "add_zero", statement="∀ (n : Nat), n + 0 = n", attempts_budget=2)
    assert entry.statement_sha == statement_sha("∀ (n : Nat), n + 0 = n")
    store.register_target("lemma", "helper", statement="True", uses=["add_zero"])
    assert store.get("add_zero").meta["attempts"] == "0 / 2"
    assert [e.label for e in store.list_targets()] == ["add_zero", "helper"]
    assert [e.label for e in store.list_targets(status="done")] == []
    assert store.validate() == [] and store.audit_locks() == []
    with pytest.raises(UnknownLabel):
        store.get("nope")


def test_registering_the_same_target_twice_is_idempotent(store: BlueprintStore) -> None:
    store.register_target("theorem", "t", statement="True")
    text = store.path.read_text(encoding="utf-8")
    assert store.register_target("theorem", "t", statement="  True ") == store.get("t")
    assert store.path.read_text(encoding="utf-8") == text
    with pytest.raises(DuplicateLabel):
        store.register_target("lemma", "t", statement="True")


def test_changing_a_locked_statement_is_refused(store: BlueprintStore) -> None:
    store.register_target("theorem", "t", statement="∀ (n : Nat), n = n")
    before = store.path.read_text(encoding="utf-8")
    with pytest.raises(StatementLocked):
        store.register_target("theorem", "t", statement="∀ (n : Nat), n ≤ n")
    with pytest.raises(StatementLocked):
        store.put(store.get("t").model_copy(update={"statement": "False"}))
    with pytest.raises(StatementLocked):
        store.put(store.get("t").with_meta(statement_sha=statement_sha("False")))
    assert store.path.read_text(encoding="utf-8") == before


def test_hand_edited_statement_is_reported_by_the_audit(store: BlueprintStore) -> None:
    store.register_target("theorem", "t", statement="∀ (n : Nat), n = n")
    text = store.path.read_text(encoding="utf-8")
    # change the statement and its recorded hash: only the ledger still knows
    forged = text.replace("n = n", "n ≤ n").replace(statement_sha("∀ (n : Nat), n = n"),
                                                      statement_sha("∀ (n : Nat), n ≤ n"))
    store.path.write_text(forged, encoding="utf-8")
    assert check_locks(store.read()) == []
    kinds = {v.kind for v in store.audit_locks()}
    assert kinds == {"ledger_mismatch"}
    store.path.write_text(text.replace("n = n", "n ≤ n"), encoding="utf-8")
    assert {v.kind for v in check_locks(store.read())} == {"statement_changed"}


def test_update_status_counts_attempts_and_exhausts(store: BlueprintStore) -> None:
    store.register_target("theorem", "t", statement="True", attempts_budget=2)
    assert store.update_status("t", "running").attempts == 1
    assert store.update_status("t", "failed", note="no proof in 100 nodes").status == "failed"
    final = store.update_status("t", "failed")
    assert (final.status, final.meta["attempts"]) == ("exhausted", "2 / 2")
    assert "no proof in 100 nodes" in final.notes
    with pytest.raises(InvalidTransition):
        store.update_status("t", "running")
    reopened = store.set_budget("t", 3)
    assert (reopened.status, reopened.meta["attempts"]) == ("todo", "2 / 3")


def test_unknown_uses_are_refused_and_nothing_is_written(store: BlueprintStore) -> None:
    store.register_target("theorem", "a", statement="True")
    before = store.path.read_text(encoding="utf-8")
    with pytest.raises(BlueprintValidationError, match="ghost"):
        store.register_target("theorem", "b", statement="True", uses=["ghost"])
    assert store.path.read_text(encoding="utf-8") == before


def test_iterations_are_scheduled_pending_and_get_results(store: BlueprintStore) -> None:
    first = store.schedule_iteration(IterationSpec(train_size=20, max_nodes=16))
    second = store.schedule_iteration(IterationSpec(use_ebm=False, note="ablation"))
    assert (first.label, second.label) == ("iter_0", "iter_1")
    assert first.plan == {"train_size": 20, "max_nodes": 16, "use_ebm": True}
    assert [e.label for e in store.pending_iterations()] == ["iter_0", "iter_1"]
    store.update_status("iter_0", "running")
    store.record_results("iter_0", {"solve_rate": 0.25})
    store.record_results("iter_0", {"solve_rate_no_ebm": 0.2})
    store.update_status("iter_0", "done")
    assert store.get("iter_0").results == {"solve_rate": 0.25, "solve_rate_no_ebm": 0.2}
    assert [e.label for e in store.pending_iterations()] == ["iter_1"]
    with pytest.raises(DuplicateLabel):
        store.schedule_iteration(IterationSpec(label="iter_1"))
    # the file is valid and parses back
    assert store.validate() == []
    assert parse_blueprint(store.path.read_text(encoding="utf-8")).labels() == ["iter_0", "iter_1"]


_HAMMER = """
import sys
from burnqed.blueprint import BlueprintStore
store = BlueprintStore(sys.argv[1])
for i in range(int(sys.argv[3])):
    store.update_status(sys.argv[2], "partial")
    store.add_note("shared", f"{sys.argv[2]} {i}")
"""


def test_concurrent_writers_in_two_processes_lose_no_update(store: BlueprintStore) -> None:
    for label in ("shared", "a", "b"):
        store.register_target("theorem", label, statement="True", attempts_budget=1000)
    n = 25
    procs = [
        subprocess.Popen([sys.executable, "-c", _HAMMER, str(store.path), label, str(n)])
        for label in ("a", "b")
    ]
    codes = [p.wait(timeout=120) for p in procs]
    assert codes == [0, 0]
    assert store.get("a").attempts == n and store.get("b").attempts == n
    notes = store.get("shared").notes
    assert sum(1 for line in notes.splitlines() if line.endswith(tuple(f" {i}" for i in range(n)))) == 2 * n
    assert store.validate() == []


def test_a_note_cannot_inject_a_target(store: BlueprintStore) -> None:
    store.register_target("theorem", "t1", statement="∀ (n : Nat), n + 0 = n")
    evil = "fine\n\n# theorem Evil\n\n## meta\n- label: Evil\n- status: done\n\n## statement\n```lean\nFalse\n```\n"
    store.update_status("t1", "running", note=evil)
    text = store.path.read_text(encoding="utf-8")
    parsed = parse_blueprint(text)
    assert [e.label for e in parsed.entries] == ["t1"]
    assert parsed.entries[0].status == "running"
    assert "theorem Evil" in parsed.entries[0].notes  # kept as data, on one line


_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200)


@settings(max_examples=150, deadline=None)
@given(note=_TEXT)
def test_any_note_round_trips_to_the_same_targets(tmp_path_factory: pytest.TempPathFactory, note: str) -> None:
    store = BlueprintStore(tmp_path_factory.mktemp("bp") / "BLUEPRINT.md")
    store.register_target("theorem", "a", statement="∀ (n : Nat), n + 0 = n")
    store.register_target("theorem", "b", statement="∀ (n : Nat), 0 + n = n", note=note)
    store.update_status("a", "running", note=note)
    store.add_note("b", note)
    parsed = parse_blueprint(store.path.read_text(encoding="utf-8"))
    assert [(e.kind, e.label, e.status, e.statement) for e in parsed.entries] == [
        ("theorem", "a", "running", "∀ (n : Nat), n + 0 = n"),
        ("theorem", "b", "todo", "∀ (n : Nat), 0 + n = n"),
    ]


def test_the_locked_statement_error_names_the_field_and_both_values(store: BlueprintStore) -> None:
    store.register_target("theorem", "t", statement="∀ (n : Nat), n + 0 = n")
    with pytest.raises(StatementLocked) as text_change:
        store.register_target("theorem", "t", statement="∀ (n : Nat), n + 1 = n")
    msg = str(text_change.value)
    assert "field statement " in msg and "n + 0 = n" in msg and "n + 1 = n" in msg
    entry = store.get("t")
    forged = entry.with_meta(statement_sha="0" * 64)
    with pytest.raises(StatementLocked) as sha_change:
        store.put(forged)
    msg = str(sha_change.value)
    assert sha_change.value.field == "statement_sha" and "0000000000" in msg and entry.statement_sha in msg
    assert "statement is unchanged" in msg


def test_an_emptied_blueprint_is_refused_not_replaced(store: BlueprintStore) -> None:
    store.register_target("theorem", "t", statement="∀ (n : Nat), n + 0 = n")
    store.path.write_text("", encoding="utf-8")  # an operator (or a crash) emptied it
    with pytest.raises(BlueprintError, match="emptied or truncated") as refused:
        store.schedule_iteration(IterationSpec())
    assert str(store.path) in str(refused.value)
    assert store.path.read_text(encoding="utf-8") == ""  # nothing was written


def test_exhausted_is_never_set_before_the_budget_is_spent(store: BlueprintStore) -> None:
    store.register_target("theorem", "t", statement="∀ (n : Nat), n = n", attempts_budget=2)
    with pytest.raises(InvalidTransition, match="exhausted follows"):
        store.update_status("t", "exhausted")
    store.update_status("t", "failed")
    assert store.update_status("t", "failed").status == "exhausted"


def test_a_crash_restart_is_counted_apart_from_attempts(tmp_path: Path) -> None:
    store = BlueprintStore(tmp_path / "BLUEPRINT.md", BlueprintConfig(max_crash_restarts=2))
    store.schedule_iteration(IterationSpec(label="iter_0", attempts_budget=3))
    store.update_status("iter_0", "running")
    for crash in (1, 2):
        entry = store.restart("iter_0")
        assert (entry.status, entry.attempts, entry.crashes) == ("running", 1, crash)
    entry = store.restart("iter_0")
    assert (entry.status, entry.attempts, entry.crashes) == ("failed", 1, 3)
    assert "crashed 3 times" in entry.notes
    # the operator's resume: more attempts, crashes forgotten, back to todo
    entry = store.reopen("iter_0", extra_attempts=2, note="fixed the OOM")
    assert (entry.status, entry.attempts, entry.budget, entry.crashes) == ("todo", 1, 5, 0)
    assert store.validate() == []


def test_a_hand_edited_blueprint_is_backed_up_before_it_is_replaced(store: BlueprintStore) -> None:
    store.register_target("theorem", "t", statement="∀ (n : Nat), n = n")
    store.add_note("t", "first")
    assert list(store.path.parent.glob("*.bak")) == []  # only the store wrote it so far
    edited = store.path.read_text(encoding="utf-8").replace("# Blueprint", "# Blueprint\n\nOperator: do not prune.")
    store.path.write_text(edited, encoding="utf-8")
    store.add_note("t", "second")
    [backup] = store.path.parent.glob("BLUEPRINT.md.*.bak")
    assert backup.read_text(encoding="utf-8") == edited
    store.add_note("t", "third")
    assert len(list(store.path.parent.glob("*.bak"))) == 1  # no hand edit since: no new backup


def test_a_lock_compares_lean_tokens_not_spacing(store: BlueprintStore) -> None:
    """Issue 26: ``10∣x`` and ``10 ∣ x`` are one statement (the same Lean tokens); ``n!`` and
    ``n !`` or ``<=`` and ``< =`` are not, and neither is any other change."""
    store.register_target("theorem", "t", statement="∀ (x : ℕ), 10∣x → 5∣x")
    assert store.register_target("theorem", "t", statement="∀ (x : ℕ), 10 ∣ x → 5 ∣ x").label == "t"
    store.put(store.get("t").model_copy(update={"statement": "∀ (x : ℕ),  10 ∣ x  →  5∣x"}))
    assert check_locks(store.read(), store.ledger.read()) == []
    for changed in ("∀ (x : ℕ), 10 ∣ x → 2 ∣ x", "∀ (x : ℕ), 10 ∣ x → 5 ∣ x ∨ True"):
        with pytest.raises(StatementLocked):
            store.register_target("theorem", "t", statement=changed)
    assert statement_sha("n ! = 1") != statement_sha("n! = 1")
    assert statement_sha("a <= b") != statement_sha("a < = b")
    assert statement_sha("10∣x -- a note") == statement_sha("10 ∣ x")


def test_ledgers_written_with_the_legacy_hash_still_lock(store: BlueprintStore) -> None:
    """A ledger and entry recorded before the token hash (whitespace-collapsed text) stay valid,
    and still refuse a changed statement."""
    from burnqed.data.theorems import legacy_statement_sha

    statement = "∀ (x : ℕ), 10∣x → 5∣x"
    store.register_target("theorem", "t", statement=statement)
    legacy = legacy_statement_sha(statement)
    assert legacy != statement_sha(statement)
    text = store.path.read_text(encoding="utf-8").replace(statement_sha(statement), legacy)
    store.path.write_text(text, encoding="utf-8")
    ledger = store.ledger.path
    ledger.write_text(ledger.read_text(encoding="utf-8").replace(statement_sha(statement), legacy), encoding="utf-8")
    assert store.get("t").statement_sha == legacy
    assert check_locks(store.read(), store.ledger.read()) == []
    assert store.register_target("theorem", "t", statement="∀ (x : ℕ), 10 ∣ x → 5 ∣ x").label == "t"
    with pytest.raises(StatementLocked):
        store.register_target("theorem", "t", statement="∀ (x : ℕ), 10 ∣ x → 2 ∣ x")


def test_a_statement_edited_by_hand_is_named_as_such_not_as_a_change_to_itself(store: BlueprintStore) -> None:
    store.register_target("theorem", "thm_edit", "1 = 1")
    store.path.write_text(store.path.read_text(encoding="utf-8").replace("1 = 1", "False"), encoding="utf-8")
    with pytest.raises(StatementLocked) as caught:
        store.update_status("thm_edit", "running")
    text = str(caught.value)
    assert "'False' cannot become 'False'" not in text  # issue 41: the garbled message
    assert "edited by hand" in text and "'False'" in text and "burnqed blueprint audit" in text


def test_a_write_clears_the_temp_file_a_killed_write_left(store: BlueprintStore) -> None:
    """Issue 41: `.BLUEPRINT.md.PID.tmp` stayed after a successful resume."""
    store.register_target("theorem", "thm_tmp", "1 = 1")
    left = store.path.with_name(f".{store.path.name}.999999.tmp")
    left.write_text("half a blueprint", encoding="utf-8")
    store.update_status("thm_tmp", "running")
    assert not left.exists()
