"""frontend.process in the embedded checker: units, sorry goal states, headers, refusals, soundness."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from burnqed.embedded import Checker
from burnqed.lean.errors import OUTSIDE_FRAGMENT
from burnqed.lean.protocol import FrontendProcessResult
from tests.embedded.util import wire

SYMM = "theorem t (a b : ℕ) (h : a = b) : b = a := by sorry\n"


def process(checker: Checker, file: str, **flags: Any) -> dict[str, Any]:
    """frontend.process on ``file``; checks the answer decodes as the wire model."""
    answer = wire(checker, {"cmd": "frontend.process", "payload": {"file": file, **flags}})
    if "error" not in answer:
        FrontendProcessResult.model_validate(answer)
    return answer


def errors(unit: dict[str, Any]) -> list[str]:
    """The error texts of a unit."""
    return [m["data"] for m in unit["messages"] if m["severity"] == "error"]


def clean(unit: dict[str, Any]) -> bool:
    """A unit Lean would count as a finished proof: no error, no sorry warning."""
    return not unit["messages"] and "goalStateId" not in unit


def call(checker: Checker, cmd: str, **payload: Any) -> dict[str, Any]:
    return wire(checker, {"cmd": cmd, "payload": payload})


# ---------------------------------------------------------------- sorry goal states


def test_sorry_theorem_gives_a_goal_state_with_the_binders_as_hypotheses() -> None:
    c = Checker()
    (unit,) = process(c, SYMM, sorrys=True)["units"]
    assert errors(unit) == []
    assert [(m["severity"], m["data"]) for m in unit["messages"]] == [("warning", "declaration uses 'sorry'")]
    (goal,) = unit["goals"]
    assert [(v["userName"], v["type"]["pp"]) for v in goal["vars"]] == [("a", "Nat"), ("b", "Nat"), ("h", "a = b")]
    assert goal["target"]["pp"] == "b = a"
    printed = call(c, "goal.print", stateId=unit["goalStateId"], goals=True)
    assert printed["goals"] == unit["goals"] and printed["rootHasMVar"] and not printed["rootHasSorry"]


@pytest.mark.parametrize("tactic", ["exact h.symm", "omega"])
def test_the_sorry_goal_is_proved_by_goal_tactic_and_the_root_is_then_complete(tactic: str) -> None:
    c = Checker()
    (unit,) = process(c, SYMM, sorrys=True)["units"]
    done = call(c, "goal.tactic", stateId=unit["goalStateId"], tactic=tactic)
    assert done["goals"] == [] and not done["hasSorry"]
    flags = call(c, "goal.print", stateId=done["nextStateId"])
    assert flags["rootHasSorry"] is False and flags["rootHasMVar"] is False


def test_the_sorry_goal_state_refuses_a_false_step() -> None:
    c = Checker()
    (unit,) = process(c, "theorem f (n : ℕ) : n + 1 = n := by\n  sorry", sorrys=True)["units"]
    for tactic in ("omega", "rfl", "simp", "linarith", "decide"):
        answer = call(c, "goal.tactic", stateId=unit["goalStateId"], tactic=tactic)
        # a step may rewrite the goal (simp leaves `False`), never close it
        assert "nextStateId" not in answer or answer["goals"], (tactic, answer)


@pytest.mark.parametrize(
    "proof", [":= by sorry", ":= sorry", ":= by\n  sorry", ":= by\n  · sorry"], ids=["by", "term", "block", "bullet"]
)
def test_every_sorry_form_gives_its_goal_and_source_range(proof: str) -> None:
    c = Checker()
    text = f"theorem t (n : ℕ) (h : n ≠ 0) : n ≥ 1 {proof}"
    (unit,) = process(c, text, sorrys=True)["units"]
    assert unit["goals"][0]["target"]["pp"] == "n ≥ 1"
    ((start, end),) = unit["goalSrcBoundaries"]
    assert text.encode("utf-8")[start:end] == b"sorry"


def test_without_sorrys_a_sorry_is_only_a_warning() -> None:
    (unit,) = process(Checker(), SYMM)["units"]
    assert "goalStateId" not in unit and "goals" not in unit
    assert unit["messages"][0]["severity"] == "warning"


def test_sorry_goals_left_by_a_partial_proof_form_one_state() -> None:
    c = Checker()
    text = "theorem p (a : ℕ) (h : a = 2) : a = 2 ∧ a + 1 = 3 := by\n  constructor\n  sorry\n  sorry"
    (unit,) = process(c, text, sorrys=True)["units"]
    assert [g["target"]["pp"] for g in unit["goals"]] == ["a = 2", "a + 1 = 3"]
    assert len(unit["goalSrcBoundaries"]) == 2
    sid = call(c, "goal.tactic", stateId=unit["goalStateId"], tactic="exact h")["nextStateId"]
    mid = call(c, "goal.print", stateId=sid)
    assert mid["rootHasMVar"] is True  # the second sorry goal is still open
    done = call(c, "goal.tactic", stateId=sid, tactic="omega")
    flags = call(c, "goal.print", stateId=done["nextStateId"])
    assert flags["rootHasMVar"] is False and flags["rootHasSorry"] is False


def test_anonymous_and_shadowed_binders_are_introduced_as_lean_does() -> None:
    c = Checker()
    text = "theorem s (_ : ℕ) (a : ℕ) (h : a = 1) (a : ℕ) : a = 1 := by sorry"
    (unit,) = process(c, text, sorrys=True)["units"]
    names = [(v["userName"], v["isInaccessible"]) for v in unit["goals"][0]["vars"]]
    assert names == [("_✝", True), ("a", True), ("h", False), ("a", False)]
    # h speaks of the first a, the target of the second: no proof
    assert "nextStateId" not in call(c, "goal.tactic", stateId=unit["goalStateId"], tactic="exact h")


def test_intermediate_states_are_released() -> None:
    c = Checker()
    process(c, "theorem q (a b : ℕ) (h : a = b) : b = a := by\n  subst h\n  rfl")
    assert call(c, "stat")["nGoals"] == 0
    process(c, SYMM, sorrys=True)
    assert call(c, "stat")["nGoals"] == 1


# ---------------------------------------------------------------- headers and commands


def test_header_commands_are_accepted_without_messages() -> None:
    text = (
        "open BigOperators Real Nat Topology Rat\nset_option maxHeartbeats 400000\nuniverse u\n"
        "noncomputable section\nnamespace Foo\nsection\nend\nend Foo\nend\n"
        "open Real in\ntheorem t (n : ℕ) : n + 0 = n := by simp\n"
    )
    units = process(Checker(), text)["units"]
    assert len(units) == 10 and all(u["messages"] == [] for u in units)


def test_import_is_refused_without_read_header() -> None:
    units = process(Checker(), "import Mathlib\ntheorem t (n : ℕ) : n = n := by rfl")["units"]
    assert errors(units[0]) == ["invalid 'import' command, it must be used in the beginning of the file"]
    assert units[1]["messages"] == []


def test_with_read_header_any_import_is_accepted_and_the_header_is_no_unit() -> None:
    text = "import Mathlib\nimport Aesop\n\nopen Nat\ntheorem t (n : ℕ) : n = n := by rfl\n"
    units = process(Checker(), text, readHeader=True)["units"]
    start = len(b"import Mathlib\nimport Aesop\n\n")
    assert [u["boundary"] for u in units] == [[start, start + 9], [start + 9, len(text.encode())]]
    assert all(u["messages"] == [] for u in units)
    late = process(Checker(), "open Nat\nimport Mathlib\n", readHeader=True)["units"]
    assert "invalid 'import' command" in errors(late[1])[0]


@pytest.mark.parametrize("command", ["def f : ℕ := 1", "axiom cheat : False", "instance : Inhabited ℕ := ⟨0⟩", "#eval 1"])
def test_other_commands_are_refused_as_outside_the_fragment(command: str) -> None:
    (unit,) = process(Checker(), command)["units"]
    (message,) = errors(unit)
    assert message.startswith(f"{OUTSIDE_FRAGMENT}: ") and command.split()[0] in message


def test_boundaries_are_utf8_byte_offsets_that_tile_the_text() -> None:
    text = "-- ℕ first\nopen Nat\n\ntheorem u (x y : ℕ) (h₀ : x ≠ y) : y ≠ x := by\n  intro h\n  exact h₀ h.symm\n"
    units = process(Checker(), text)["units"]
    data = text.encode("utf-8")
    assert [u["boundary"] for u in units] == [[0, data.index(b"theorem")], [data.index(b"theorem"), len(data)]]
    assert all(u["messages"] == [] for u in units)
    assert len(data) > len(text)  # the offsets above are bytes, not characters


def test_messages_carry_lean_positions() -> None:
    (unit,) = process(Checker(), "theorem f (n : ℕ) :\n    n + 1 = n := by\n  omega")["units"]
    (message,) = unit["messages"]
    assert message["fileName"] == "<anonymous>" and message["pos"] == {"line": 3, "column": 2}


# ---------------------------------------------------------------- proofs


def test_a_complete_tactic_proof_has_no_messages() -> None:
    text = "theorem ex (x : ℕ) (h : x + 2 = 5) : x = 3 := by\n  have h2 : x = 3 := by\n    omega\n  exact h2\n"
    (unit,) = process(Checker(), text, sorrys=True)["units"]
    assert clean(unit)


def test_term_proofs_and_examples_are_checked() -> None:
    c = Checker()
    assert clean(process(c, "theorem tp (a b : ℕ) (h : a = b) : b = a := h.symm")["units"][0])
    assert clean(process(c, "example : 2 + 2 = 4 := by norm_num")["units"][0])
    assert errors(process(c, "example : 2 + 2 = 5 := by norm_num")["units"][0])


def test_a_wrong_proof_gives_an_error_and_unsolved_goals_are_reported() -> None:
    c = Checker()
    (wrong,) = process(c, "theorem w (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\n  constructor\n  · exact hp\n  · exact hp")["units"]
    assert "type mismatch" in errors(wrong)[0]
    (short,) = process(c, "theorem w (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\n  constructor\n  exact hp")["units"]
    assert errors(short)[0].startswith("unsolved goals\ncase right")


@pytest.mark.parametrize(
    "text",
    [
        "theorem f (n : ℕ) : n + 1 = n := by omega",
        "theorem f (n : ℕ) : n + 1 = n := by simp",
        "theorem f (n : ℕ) : n + 1 = n := by\n  induction n with\n  | zero => rfl\n  | succ k ih => omega",
        "theorem f (a b : ℕ) (h : a = b) : a = b + 1 := by\n  subst h\n  rfl",
        "theorem f (x : ℤ) (h : x > 0) : x < 0 := by linarith",
        "theorem f : (2 : ℕ) ^ 10 = 1000 := by decide",
        "theorem f (n : ℕ) : n + 1 = n := by\n  sorry\n  omega",
        "theorem f (n : ℕ) : n + 1 = n := by\n  skip",
        "theorem f (n : ℕ) : n + 1 = n := by\n  first | omega | simp",
        "theorem f (n : ℕ) : n + 1 = n := by\n  try omega",
        "theorem f (h : sorry) : 1 = 2 := by exact h",
        "theorem f (n : ℕ) : n = n + 1 := n.succ_ne_self.symm",
        "set_option debug.skipKernelTC true in\ntheorem f : 1 = 2 := by decide",
    ],
)
def test_a_false_theorem_never_comes_out_clean(text: str) -> None:
    units = process(Checker(), text, sorrys=True)["units"]
    assert not all(clean(u) for u in units)


def test_a_theorem_cannot_lean_on_an_earlier_sorry_or_a_redeclared_lemma() -> None:
    c = Checker()
    text = (
        "theorem t1 (a : ℕ) : a + 1 = a := by sorry\n"
        "theorem t2 (a : ℕ) : a + 1 = a := by exact t1 a\n"
        "theorem Nat.add_comm (a b : ℕ) : a + b = b + a + 1 := by sorry\n"
        "theorem t3 (a b : ℕ) : a + b = b + a + 1 := by rw [Nat.add_comm]\n"
        "theorem t2 : 1 = 1 := rfl\n"
    )
    units = process(c, text, sorrys=True)["units"]
    assert [bool(errors(u)) for u in units] == [False, True, True, True, True]
    assert errors(units[2]) == ["'Nat.add_comm' has already been declared"]
    assert errors(units[4]) == ["'t2' has already been declared"]


@pytest.mark.parametrize(
    "text",
    [
        "open Nat theorem f : 1 = 2 := by omega",
        "open Nat\n  theorem f : 1 = 2 := by omega",
        "set_option maxHeartbeats 400000\n  example : 1 = 2 := by omega",
        "namespace Foo theorem f : 1 = 2 := by omega",
    ],
)
def test_a_command_hidden_behind_a_scope_command_is_never_swallowed(text: str) -> None:
    units = process(Checker(), text)["units"]
    assert any(errors(u) for u in units)


def test_a_theorem_behind_an_import_in_the_header_is_never_swallowed() -> None:
    units = process(Checker(), "import Mathlib theorem f : 1 = 2 := by omega", readHeader=True)["units"]
    assert units and errors(units[0])


def test_the_timeout_option_interrupts_the_request_and_frees_its_states() -> None:
    c = Checker()
    assert call(c, "options.set", timeout=50) == {}
    slow = "theorem s (a b c d e f : ℤ) : (a + b + c + d + e + f) ^ 7 = (a - b + c - d + e - f) ^ 7 := by\n  ring"
    assert process(c, "theorem ok : 1 = 1 := by sorry\n" + slow, sorrys=True) == {"desc": "interrupt", "error": "internal"}
    assert call(c, "stat")["nGoals"] == 0
    assert call(c, "options.print") == {"automaticMode": True, "timeout": 50}


# ---------------------------------------------------------------- statements outside the fragment


@pytest.mark.parametrize(
    ("statement", "error"),
    [
        ("∀ x : ℝ, x ^ 2 ≥ 0", "elab"),
        ("Real.sqrt 2 > 1", "elab"),
        ("∑ k in Finset.range n, k = n * (n - 1) / 2", "parsing"),
        ("∀ (n : ℕ), Finset.range n = Finset.range n", "elab"),
        ("√2 > 1", "parsing"),
        ("x = 1", "elab"),
        # miniF2F's imo_1997_p5 and mathd_numbertheory_227: a tuple and ℕ+ are Lean, not malformation
        ("∀ (x y : ℕ), 0 < x → (x, y) = (1, 1) ∨ (x, y) = (16, 2)", "parsing"),
        ("∀ (x y n : ℕ+), x = y → n = 5", "parsing"),
    ],
)
def test_goal_start_marks_statements_outside_the_fragment(statement: str, error: str) -> None:
    ans = call(Checker(), "goal.start", expr=statement)
    assert ans["error"] == error
    assert ans["desc"].startswith("<Pantograph>:1:") and f": {OUTSIDE_FRAGMENT}: " in ans["desc"]


@pytest.mark.parametrize("statement", ["1 +", "(1 + 2", "1 + 2)", "/- x", "↑" * 900 + "n = 0"])
def test_malformed_statements_are_plain_parse_errors(statement: str) -> None:
    ans = call(Checker(), "goal.start", expr=statement)
    assert ans["error"] == "parsing" and OUTSIDE_FRAGMENT not in ans["desc"]


def test_a_statement_inside_the_fragment_starts() -> None:
    assert "stateId" in call(Checker(), "goal.start", expr="∀ (x : ℕ), 3 ∣ x → x % 3 = 0")


@pytest.mark.parametrize(
    "text",
    [
        "theorem r (x : ℝ) (h : 0 < x) : x ^ 2 > 0 := by sorry",
        "theorem r : Real.sqrt 2 > 1 := by sorry",
        "theorem r (n : ℕ) : ∑ k in Finset.range n, k = n * (n - 1) / 2 := by sorry",
    ],
)
def test_frontend_messages_mark_statements_outside_the_fragment(text: str) -> None:
    (unit,) = process(Checker(), text, sorrys=True)["units"]
    (message,) = errors(unit)
    assert message.startswith(f"{OUTSIDE_FRAGMENT}: ") and "goalStateId" not in unit


def test_a_malformed_signature_is_an_error_message_without_the_phrase() -> None:
    (unit,) = process(Checker(), "theorem r (n : ℕ) : n + := by sorry", sorrys=True)["units"]
    (message,) = errors(unit)
    assert OUTSIDE_FRAGMENT not in message and "goalStateId" not in unit


# ---------------------------------------------------------------- arguments


def test_exactly_one_of_file_and_file_name(tmp_path: Path) -> None:
    c = Checker()
    path = tmp_path / "t.lean"
    path.write_text(SYMM, encoding="utf-8")
    for payload in ({}, {"file": SYMM, "fileName": str(path)}):
        ans = call(c, "frontend.process", **payload)
        assert ans == {"error": "arguments", "desc": "Exactly one of {fileName, file} must be supplied"}
    (unit,) = call(c, "frontend.process", fileName=str(path), sorrys=True)["units"]
    assert "goalStateId" in unit and unit["messages"][0]["fileName"] == str(path)
    missing = call(c, "frontend.process", fileName=str(tmp_path / "none.lean"))
    assert missing["error"] == "io"


# ---------------------------------------------------------------- the child process


@pytest.mark.anyio
async def test_the_child_process_answers_frontend_process_in_json_lines() -> None:
    proc = await anyio.open_process([sys.executable, "-m", "burnqed.embedded", "Init"])
    buf = b""

    async def line() -> str:
        nonlocal buf
        assert proc.stdout is not None
        with anyio.fail_after(60):
            while b"\n" not in buf:
                buf += await proc.stdout.receive()
        raw, _, buf = buf.partition(b"\n")
        return raw.decode("utf-8")

    async def send(cmd: str, **payload: Any) -> dict[str, Any]:
        assert proc.stdin is not None
        request = json.dumps({"cmd": cmd, "payload": payload}, ensure_ascii=False) + "\n"
        await proc.stdin.send(request.encode("utf-8"))
        return json.loads(await line())

    try:
        assert await line() == "ready."
        answer = await send("frontend.process", file="open Nat\n" + SYMM, sorrys=True)
        header, unit = answer["units"]
        assert header == {"boundary": [0, 9], "messages": []}
        assert unit["boundary"] == [9, 9 + len(SYMM.encode("utf-8"))]
        done = await send("goal.tactic", stateId=unit["goalStateId"], tactic="exact h.symm")
        assert done["goals"] == []
        flags = await send("goal.print", stateId=done["nextStateId"])
        assert flags["rootHasSorry"] is False and flags["rootHasMVar"] is False
    finally:
        with anyio.fail_after(10):
            if proc.returncode is None:
                assert proc.stdin is not None
                await proc.stdin.send(b"\n")
                await proc.wait()
        await proc.aclose()
