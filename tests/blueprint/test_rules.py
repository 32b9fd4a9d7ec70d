"""Validation rules and status transitions with attempt accounting."""

from __future__ import annotations

import pytest

from burnqed.blueprint import (
    Entry,
    InvalidTransition,
    parse_blueprint,
    transition,
    validate,
)


def _entry(status: str = "todo", attempts: str = "0 / 2") -> Entry:
    return Entry(kind="theorem", label="t", meta={"status": status, "attempts": attempts}, statement="True")


def test_valid_file_has_no_issues() -> None:
    text = (
        "# theorem a\n## meta\n- status: todo\n- attempts: 0 / 2\n## statement\nTrue\n"
        "# lemma b\n## meta\n- uses: a\n- status: done\n- attempts: 2 / 2\n## statement\nTrue\n"
    )
    assert validate(parse_blueprint(text)) == []


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("# theorem a\n## meta\n- status: finished\n## statement\nTrue\n", "status 'finished'"),
        ("# theorem a\n## meta\n- uses: ghost\n## statement\nTrue\n", "unknown label 'ghost'"),
        ("# theorem a\n## meta\n- attempts: 3 / 2\n- status: running\n## statement\nTrue\n", "exceed the budget"),
        ("# theorem a\n## meta\n- attempts: 2 / 2\n- status: failed\n## statement\nTrue\n", "should be exhausted"),
        ("# theorem a\n## meta\n- attempts: two\n## statement\nTrue\n", "not 'N / M'"),
        ("# theorem a\n## meta\n- status: todo\n", "needs a '## statement'"),
        ("# iteration iter_0\n## meta\n- plan: [1]\n", "plan is not a JSON object"),
        (
            (
                "# theorem a\n## meta\n- uses: b\n## statement\nTrue\n"
                "# lemma b\n## meta\n- uses: c\n## statement\nTrue\n"
                "# lemma c\n## meta\n- uses: a\n## statement\nTrue\n"
            ),
            "dependency cycle: a → b → c → a",
        ),
    ],
)
def test_validation_reports_each_problem(text: str, match: str) -> None:
    issues = validate(parse_blueprint(text))
    assert any(match in str(i) for i in issues), issues
    assert all(i.line is not None for i in issues)


def test_running_then_outcome_counts_one_attempt() -> None:
    running = transition(_entry(), "running")
    assert (running.status, running.attempts) == ("running", 1)
    done = transition(running, "partial")
    assert (done.status, done.attempts) == ("partial", 1)


def test_outcome_without_running_counts_an_attempt_and_budget_exhausts() -> None:
    first = transition(_entry(), "failed")
    assert (first.status, first.meta["attempts"]) == ("failed", "1 / 2")
    second = transition(first, "failed")
    assert (second.status, second.meta["attempts"]) == ("exhausted", "2 / 2")


def test_done_on_the_last_attempt_stays_done() -> None:
    entry = transition(transition(_entry(attempts="1 / 2"), "running"), "done")
    assert (entry.status, entry.attempts) == ("done", 2)


def test_final_statuses_refuse_changes() -> None:
    for status in ("done", "exhausted"):
        with pytest.raises(InvalidTransition, match="final"):
            transition(_entry(status=status), "running")


def test_unknown_status_and_spent_budget_are_refused() -> None:
    with pytest.raises(InvalidTransition, match="unknown status"):
        transition(_entry(), "finished")
    with pytest.raises(InvalidTransition, match="budget 2 spent"):
        transition(_entry(status="running", attempts="2 / 2"), "running")


def test_count_attempt_false_leaves_the_counter() -> None:
    entry = transition(_entry(), "running", count_attempt=False)
    assert (entry.status, entry.attempts) == ("running", 0)
